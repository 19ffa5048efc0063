"""The fallback splitter, and the packing that every prose splitter shares.

Every prose splitter works the same way: it cuts the text into *units* that must never be
cut (a paragraph, a dated entry, a recipe section), marks which units may share a chunk
(``group``: a chapter, a run of entries with one date) and which must travel with the next
one (``glue``: a heading), and hands them to :func:`pack`. Packing is greedy up to
``target_tokens``; a unit that alone exceeds ``max_tokens`` becomes a chunk of its own,
flagged ``oversized``. Units are character spans that tile the text, so the chunks
concatenate back to the input byte for byte, whatever its line endings or encoding.

The generic splitter itself cuts at blank lines. A block too big for ``max_tokens`` is cut
at line boundaries (a block of many lines is a list or a log, and a line is still a
meaningful piece of it); a single line too big is kept whole.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from ihmt.errors import InputError
from ihmt.model import Chunk
from ihmt.text import count_tokens

__all__ = [
    "Unit",
    "block_spans",
    "block_units",
    "build_chunks",
    "check_budget",
    "chunk_generic",
    "line_spans",
    "pack",
]


@dataclass(frozen=True)
class Unit:
    """A span ``text[start:end]`` that is never cut, with what its chunk inherits from it."""

    start: int
    end: int
    group: int = 0  # units of different groups never share a chunk (a hard boundary)
    glue: bool = False  # must be in the same chunk as the next unit (a heading)
    kind: str = "block"
    name: str | None = None
    date: str | None = None


def check_budget(target_tokens: int, max_tokens: int) -> None:
    """Reject budgets that would make packing meaningless, with the fix in the message."""
    if target_tokens < 1 or max_tokens < 1:
        raise InputError(
            f"token budgets must be positive (target_tokens={target_tokens}, "
            f"max_tokens={max_tokens})"
        )
    if max_tokens < target_tokens:
        raise InputError(
            f"max_tokens ({max_tokens}) must be at least target_tokens ({target_tokens})"
        )


def line_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of every line, its ``\\n`` included. Only ``\\n`` ends a line, so a
    ``\\r\\n`` file keeps its ``\\r`` inside the line and line numbers match editors."""
    spans: list[tuple[int, int]] = []
    pos, n = 0, len(text)
    while pos < n:
        nl = text.find("\n", pos)
        end = n if nl < 0 else nl + 1
        spans.append((pos, end))
        pos = end
    return spans


def _is_blank(text: str, span: tuple[int, int]) -> bool:
    return not text[span[0] : span[1]].strip()


def block_spans(text: str, lines: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Blank-line separated blocks of ``lines``, each carrying the blank lines after it.

    Blank lines before the first block belong to it; a run of only blank lines is one block.
    """
    if not lines:
        return []
    blocks: list[tuple[int, int]] = []
    start = lines[0][0]
    seen_content = trailing = False
    for span in lines:
        if _is_blank(text, span):
            trailing = trailing or seen_content
            continue
        if trailing:
            blocks.append((start, span[0]))
            start = span[0]
            trailing = False
        seen_content = True
    blocks.append((start, lines[-1][1]))
    return blocks


def _line_units(text: str, start: int, end: int, group: int, kind: str) -> list[Unit]:
    """One unit per non-blank line of ``text[start:end]``; blank lines join a neighbour."""
    units: list[Unit] = []
    for a, b in line_spans(text[start:end]):
        a, b = a + start, b + start
        if not text[a:b].strip():
            if units:  # a blank line ends the unit before it
                units[-1] = replace(units[-1], end=b)
            continue  # leading blank lines go to the first unit
        units.append(Unit(units[-1].end if units else start, b, group=group, kind=kind))
    return units or [Unit(start, end, group=group, kind=kind)]


def block_units(
    text: str,
    lines: Sequence[tuple[int, int]],
    max_tokens: int,
    *,
    group: int = 0,
    kind: str = "block",
) -> list[Unit]:
    """Generic units for ``lines``: blank-line blocks, a block above ``max_tokens`` cut into
    its lines (a single oversized line stays whole and will be flagged)."""
    units: list[Unit] = []
    for start, end in block_spans(text, lines):
        if count_tokens(text[start:end]) > max_tokens:
            units.extend(_line_units(text, start, end, group=group, kind=kind))
        else:
            units.append(Unit(start, end, group=group, kind=kind))
    return units


def pack(text: str, units: Sequence[Unit], target_tokens: int) -> list[list[Unit]]:
    """Greedy packing of consecutive units, each pack within ``target_tokens`` unless one
    (glued) unit alone is larger; a change of ``group`` always starts a new pack."""
    bundles: list[list[Unit]] = []
    i = 0
    while i < len(units):
        j = i
        while units[j].glue and j + 1 < len(units) and units[j + 1].group == units[i].group:
            j += 1
        bundles.append(list(units[i : j + 1]))
        i = j + 1
    packs: list[list[Unit]] = []
    current: list[Unit] = []
    for bundle in bundles:
        if current and (
            bundle[0].group != current[-1].group
            or count_tokens(text[current[0].start : bundle[-1].end]) > target_tokens
        ):
            packs.append(current)
            current = []
        current.extend(bundle)
    if current:
        packs.append(current)
    return packs


def build_chunks(text: str, packs: Sequence[Sequence[Unit]], max_tokens: int) -> list[Chunk]:
    """Chunks for ``packs``, with 1-based line spans (the lines each chunk's text touches).

    Raises RuntimeError if the packs do not tile ``text``: that is a splitter bug, and a
    silently lossy split would corrupt the memory.
    """
    chunks: list[Chunk] = []
    line = 1
    expected = 0
    for p in packs:
        start, end = p[0].start, p[-1].end
        if start != expected or end <= start:
            raise RuntimeError(f"splitter bug: chunk [{start}:{end}) after offset {expected}")
        body = text[start:end]
        newlines = body.count("\n")
        end_line = line + newlines - (1 if body.endswith("\n") else 0)
        chunks.append(
            Chunk(
                text=body,
                start_line=line,
                end_line=end_line,
                kind=p[0].kind,
                name=next((u.name for u in p if u.name), None),
                date=p[0].date,
                oversized=count_tokens(body) > max_tokens,
            )
        )
        line += newlines
        expected = end
    if expected != len(text):
        raise RuntimeError(f"splitter bug: chunks cover {expected} of {len(text)} characters")
    return chunks


def chunk_generic(text: str, *, target_tokens: int = 2000, max_tokens: int = 3000) -> list[Chunk]:
    """Blank-line blocks packed up to ``target_tokens``; kind ``block``."""
    check_budget(target_tokens, max_tokens)
    if not text:
        return []
    units = block_units(text, line_spans(text), max_tokens)
    return build_chunks(text, pack(text, units, target_tokens), max_tokens)
