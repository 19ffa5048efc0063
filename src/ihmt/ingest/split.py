"""Choosing the splitter for a document and turning its chunks into leaves."""

from __future__ import annotations

from ..config import Config
from ..model import Chunk
from ..text import count_tokens


def split(text: str, data_type: str, cfg: Config, *, language: str | None = None,
          mode: str | None = None) -> list[Chunk]:
    """Cut ``text`` into logical blocks with the splitter its type calls for.

    A text within ``target_tokens`` that is not code stays one block: a single memory is
    stored whole.
    """
    target, limit = cfg.target_tokens, cfg.max_tokens
    if data_type == "CODE" and language:
        from .chunkers.code import chunk_code

        return chunk_code(text, language, target_tokens=target, max_tokens=limit,
                          mode=mode or cfg.code_chunk_mode)
    if count_tokens(text) <= target and data_type != "PERSONAL":
        lines = text.count("\n") + (0 if text.endswith("\n") else 1)
        return [Chunk(text=text, start_line=1, end_line=max(1, lines), kind="block")]
    if data_type in ("PERSONAL", "CLINICAL"):
        from .chunkers.temporal import chunk_temporal

        return chunk_temporal(text, target_tokens=target, max_tokens=limit)
    if data_type == "NARRATIVE":
        from .chunkers.narrative import chunk_narrative

        return chunk_narrative(text, target_tokens=target, max_tokens=limit)
    if data_type == "PROCESS":
        from .chunkers.process import chunk_process

        return chunk_process(text, target_tokens=target, max_tokens=limit)
    from .chunkers.generic import chunk_generic

    return chunk_generic(text, target_tokens=target, max_tokens=limit)
