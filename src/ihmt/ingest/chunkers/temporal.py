"""Splitter for dated records: journals, chat logs, clinical notes.

An entry begins at a line that starts with a date (``2024-03-11``, ``## 2024-03-11``,
``[2024-03-11 10:00] Ana:``, ``Monday, March 11, 2024``, ``lunes 11 de marzo de 2024`` ...;
see :func:`ihmt.ingest.dates.leading_date`) and runs to the next such line. The date becomes
the chunk's date, which is what lets search weigh *when something was true*. So that a chunk
always has one true date, an entry is never cut, and a change of date is a hard boundary:
entries of the same day may share a chunk (up to ``target_tokens``), entries of different
days never do. An entry larger than ``max_tokens`` is kept whole and flagged oversized.

Relative dates inside an entry ("yesterday") are left alone here: the entry's own date is
the anchor, and resolving them is the fact extractor's job. Text before the first dated line
is undated and is split like generic text.
"""

from __future__ import annotations

from ihmt.ingest.chunkers.generic import (
    Unit,
    block_units,
    build_chunks,
    check_budget,
    line_spans,
    pack,
)
from ihmt.ingest.dates import leading_date
from ihmt.model import Chunk

__all__ = ["chunk_temporal", "entry_starts"]


def entry_starts(text: str, lines: list[tuple[int, int]]) -> list[tuple[int, str]]:
    """(line index, ISO date) of every line that opens a dated entry."""
    starts: list[tuple[int, str]] = []
    for i, (a, b) in enumerate(lines):
        iso = leading_date(text[a:b])
        if iso is not None:
            starts.append((i, iso))
    return starts


def chunk_temporal(text: str, *, target_tokens: int = 2000, max_tokens: int = 3000) -> list[Chunk]:
    """One or more same-day entries per chunk, each chunk dated; kind ``entry``.

    Undated text before the first entry comes out as ``block`` chunks with date None.
    """
    check_budget(target_tokens, max_tokens)
    if not text:
        return []
    lines = line_spans(text)
    starts = entry_starts(text, lines)
    first = starts[0][0] if starts else len(lines)

    units: list[Unit] = []
    group = 0
    if first > 0:
        units.extend(block_units(text, lines[:first], max_tokens, group=group))
    previous_date: str | None = None
    for k, (i, iso) in enumerate(starts):
        if iso != previous_date:
            group += 1
            previous_date = iso
        end_line = starts[k + 1][0] if k + 1 < len(starts) else len(lines)
        units.append(Unit(lines[i][0], lines[end_line - 1][1], group, kind="entry", date=iso))
    return build_chunks(text, pack(text, units, target_tokens), max_tokens)
