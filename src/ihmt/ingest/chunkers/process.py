"""Splitter for procedures: recipes, runbooks, protocols, checklists.

A step means nothing without the heading it belongs to ("Rollback:", "Ingredientes:"), so
a section is a heading plus everything up to the next heading, and it is never cut.
Headings are markdown headings (``## Steps``), short lines ending in a colon
(``Ingredientes:``, ``Steps:``), ALL-CAPS lines (``ROLLBACK PLAN``) and bold lines
(``**Preparación**``). Numbered or ``Step 1``/``Paso 1`` lines are steps, not headings: they
stay inside their section, and so does anything in a fenced code block. A heading with
nothing under it (a recipe's title above "Ingredientes:") travels with the next section.
Sections are packed up to ``target_tokens``; one above ``max_tokens`` stays whole and is
flagged oversized.
"""

from __future__ import annotations

import re

from ihmt.ingest.chunkers.generic import Unit, build_chunks, check_budget, line_spans, pack
from ihmt.model import Chunk

__all__ = ["chunk_process", "heading_of"]

_MAX_COLON_HEADING_CHARS = 60
_MAX_COLON_HEADING_WORDS = 6
_MAX_CAPS_HEADING_CHARS = 80

_MARKDOWN = re.compile(r"^[ \t]{0,3}(#{1,6})[ \t]+(?P<title>\S.*?)[ \t]*#*[ \t]*$")
_BOLD = re.compile(r"^[ \t]*(?:\*\*|__)(?P<title>[^*_\n]{1,80})(?:\*\*|__)[ \t]*:?[ \t]*$")
_STEP = re.compile(
    r"^[ \t]*(?:#{1,6}[ \t]*)?(?:[-*+•][ \t]+)?(?:\*\*|__)?"
    r"(?:step|paso|fase|phase|etapa|stage)[ \t]*\d+",
    re.IGNORECASE,
)
_FENCE = re.compile(r"^[ \t]{0,3}(?:```|~~~)")
_LIST_ITEM = re.compile(r"^[ \t]*(?:[-*+•>]|\d{1,3}[.)]|[a-zA-Z][.)])[ \t]+")


def heading_of(line: str) -> str | None:
    """The heading title if ``line`` is a section heading, else None."""
    stripped = line.strip()
    if not stripped or _STEP.match(line):
        return None
    m = _MARKDOWN.match(stripped)
    if m:
        return m.group("title").strip()
    m = _BOLD.match(stripped)
    if m:
        return m.group("title").strip().rstrip(":").strip()
    if _LIST_ITEM.match(line):
        return None
    if (
        stripped.endswith(":")
        and len(stripped) <= _MAX_COLON_HEADING_CHARS
        and len(stripped.split()) <= _MAX_COLON_HEADING_WORDS
    ):
        return stripped[:-1].strip() or None
    letters = [c for c in stripped if c.isalpha()]
    if (
        len(letters) >= 3
        and len(stripped) <= _MAX_CAPS_HEADING_CHARS
        and all(c.isupper() for c in letters)
    ):
        return stripped.rstrip(":").strip()
    return None


def chunk_process(text: str, *, target_tokens: int = 2000, max_tokens: int = 3000) -> list[Chunk]:
    """Heading-led sections packed up to ``target_tokens``; kind ``section``, name = the
    first heading in the chunk."""
    check_budget(target_tokens, max_tokens)
    if not text:
        return []
    lines = line_spans(text)

    # A heading opens a section, unless only blank lines precede it in the current one.
    # Inside a fenced code block ("# restart the pods" in a bash snippet) nothing is a heading.
    sections: list[tuple[int, int, int | None]] = []  # (first line, end line, heading line)
    start, heading_line = 0, None
    in_fence = False
    for i, (a, b) in enumerate(lines):
        line = text[a:b]
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence or heading_of(line) is None:
            continue
        if text[lines[start][0] : a].strip():
            sections.append((start, i, heading_line))
            start = i
        heading_line = i
    sections.append((start, len(lines), heading_line))

    units: list[Unit] = []
    for lo, hi, h in sections:
        a, b = lines[lo][0], lines[hi - 1][1]
        if h is None:
            units.append(Unit(a, b, kind="section"))
            continue
        title = heading_of(text[lines[h][0] : lines[h][1]])
        body = text[lines[h][1] : b]
        units.append(Unit(a, b, kind="section", name=title, glue=not body.strip()))
    return build_chunks(text, pack(text, units, target_tokens), max_tokens)
