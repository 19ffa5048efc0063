"""Splitter for stories, essays and other long prose.

A scene is the unit a reader remembers, so chapter headings and scene breaks (``***``,
``* * *``, ``---``) are hard boundaries: no chunk spans one, and a heading opens the chunk
that follows it. Inside a chapter, paragraphs are atomic and are packed up to
``target_tokens``. Only a paragraph larger than ``max_tokens`` is cut, and then between
sentences (English and Spanish punctuation, ``¿``/``¡`` openers, common abbreviations such as
"Dr." or "Sra." are not sentence ends); a single sentence above ``max_tokens`` stays whole and
is flagged oversized.
"""

from __future__ import annotations

import re
from dataclasses import replace

from ihmt.ingest.chunkers.generic import (
    Unit,
    block_spans,
    build_chunks,
    check_budget,
    line_spans,
    pack,
)
from ihmt.model import Chunk
from ihmt.text import count_tokens, fold

__all__ = ["chunk_narrative", "sentence_spans"]

_MAX_HEADING_CHARS = 100
_NUMBER_WORDS = (
    "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen"
    "|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|first|second"
    "|third|fourth|fifth|last|final|uno|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez"
    "|once|doce|trece|catorce|quince|veinte|primero|segundo|tercero|cuarto|quinto|sexto"
    "|septimo|octavo|noveno|decimo|ultimo|final"
)
# A scene break: one symbol repeated three or more times, optionally spaced.
_SEPARATOR = re.compile(r"^[ \t]*([*\-_~=#•·])(?:[ \t]*\1){2,}[ \t]*\r?\n?$|^[ \t]*⁂[ \t]*\r?\n?$")
# A chapter heading (matched on folded text): "Chapter 3", "CHAPTER IV", "Capítulo uno:",
# "Chapter" alone, "Prologue", or any markdown heading.
_NUMBER = rf"(?:\d+|[ivxlcdm]+|{_NUMBER_WORDS})\b"
_HEADING = re.compile(
    r"^[ \t]*(?:#{1,6}[ \t]+\S"
    rf"|(?:chapter|capitulo)(?:[ \t]+{_NUMBER}|[ \t]*[:.\-—]|\s*$)"
    rf"|(?:part|parte|book|libro)[ \t]+{_NUMBER}"
    r"|(?:prologue|prologo|epilogue|epilogo|interlude|interludio)[ \t]*(?:[:.\-—].*)?\s*$)",
    re.IGNORECASE,
)

_ABBREVIATIONS = frozenset(
    """mr mrs ms dr dra drs sr sra sres srta sto sta st prof profa jr mt ft vs e.g i.e p.ej
    ej ud uds vd vds av avda gral gen col capt lt sgt dept approx aprox tel fig figs vol vols
    eds no nº num pag pp inc ltd corp dña dn lic arq esq rev mme mlle""".split()
)
# A sentence end: terminal punctuation, closing quotes or brackets, then whitespace.
_SENTENCE_END = re.compile(r"(?P<p>[.!?…]+)[\"'”’»)\]]*\s+")
_OPENERS = "\"'“‘«([¿¡—–-"
_LAST_WORD = re.compile(r"([^\W\d_]+(?:\.[^\W\d_]+)*)\.$")


def _is_heading(line: str) -> bool:
    stripped = line.strip()
    return 0 < len(stripped) <= _MAX_HEADING_CHARS and _HEADING.match(fold(line)) is not None


def _heading_name(line: str) -> str:
    return line.strip().lstrip("#").strip() or line.strip()


def sentence_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Sentences of ``text[start:end]`` as spans that tile it; whitespace after a sentence
    stays with it, so the next sentence starts at its first character."""
    spans: list[tuple[int, int]] = []
    pos = start
    for m in _SENTENCE_END.finditer(text, start, end):
        cut = m.end()
        if cut >= end:
            break
        nxt = text[cut]
        if not (nxt.isupper() or nxt.isdigit() or nxt in _OPENERS):
            continue
        if m.group("p") == ".":
            word = _LAST_WORD.search(text, max(start, m.start() - 40), m.start() + 1)
            if word and (
                len(word.group(1)) == 1 or fold(word.group(1)).rstrip(".") in _ABBREVIATIONS
            ):
                continue
        spans.append((pos, cut))
        pos = cut
    spans.append((pos, end))
    return spans


def chunk_narrative(text: str, *, target_tokens: int = 2000, max_tokens: int = 3000) -> list[Chunk]:
    """Paragraph-atomic chunks that never cross a chapter heading or a scene break.

    kind is ``section`` inside a headed chapter (name = the heading), else ``paragraph``.
    """
    check_budget(target_tokens, max_tokens)
    if not text:
        return []
    lines = line_spans(text)

    # 1. Segments: a heading opens one (unless only headings precede it: "Chapter 1" then
    #    "## The storm" is one opening), and so does the first text after a scene break.
    segments: list[tuple[int, int, str | None]] = []  # (first line, end line, heading)
    seg_start, heading = 0, None
    has_body = pending_break = False
    for i, (a, b) in enumerate(lines):
        line = text[a:b]
        if not line.strip():
            continue
        if _is_heading(line):
            if has_body:
                segments.append((seg_start, i, heading))
                seg_start, heading = i, None
            heading = heading or _heading_name(line)
            has_body = pending_break = False
        elif _SEPARATOR.match(line):
            pending_break = pending_break or has_body
        else:
            if pending_break:
                segments.append((seg_start, i, heading))
                seg_start, heading = i, None
                pending_break = False
            has_body = True
    segments.append((seg_start, len(lines), heading))

    # 2. Units: paragraphs; a heading glued to what follows; a scene break closes the scene.
    #    A paragraph cut into sentences gets a group of its own, so that no chunk holds part
    #    of it together with other paragraphs.
    units: list[Unit] = []
    group = 0
    for lo, hi, name in segments:
        group += 1
        segment_group = group
        kind = "section" if name else "paragraph"
        for start, end in _paragraphs(text, lines[lo:hi]):
            first_line = text[start:end].lstrip("\r\n\t ").split("\n", 1)[0]
            is_break = _SEPARATOR.match(first_line) is not None
            if is_break and units and units[-1].group == group and not units[-1].glue:
                units[-1] = replace(units[-1], end=end)
                continue
            glue = is_break or _is_heading(first_line)
            if glue or count_tokens(text[start:end]) <= max_tokens:
                units.append(Unit(start, end, group, glue, kind, name))
                continue
            group += 1
            k = len(units)
            while k > 0 and units[k - 1].glue and units[k - 1].group == segment_group:
                # a heading (or an opening scene break) still opens the split paragraph
                k -= 1
                units[k] = replace(units[k], group=group)
            units.extend(
                Unit(a, b, group, False, kind, name) for a, b in sentence_spans(text, start, end)
            )
            group += 1
    return build_chunks(text, pack(text, units, target_tokens), max_tokens)


def _paragraphs(text: str, lines: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Blank-line paragraphs, with headings and scene breaks split off as their own pieces
    even when no blank line separates them from the text around them."""
    out: list[tuple[int, int]] = []
    for start, end in block_spans(text, lines):
        piece_start = start
        for a, b in line_spans(text[start:end]):
            a, b = a + start, b + start
            line = text[a:b]
            if line.strip() and (_is_heading(line) or _SEPARATOR.match(line)):
                if a > piece_start and text[piece_start:a].strip():
                    out.append((piece_start, a))
                    piece_start = a
                # the heading/break line (and blank lines after it) is a piece of its own
                rest = text[b:end]
                if rest.strip():
                    out.append((piece_start, b))
                    piece_start = b
        out.append((piece_start, end))
    return [(s, e) for s, e in out if e > s]
