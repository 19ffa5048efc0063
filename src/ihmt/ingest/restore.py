"""Reading an ``ihmt export`` JSONL file back: recognising it, and turning each line into the
leaf it describes.

The format (written by :mod:`ihmt.export`) is one JSON object a line::

    {"ihmt_export": 1, "kind": "header", "ihmt_version": "0.1.0", "scope": "all", ...}
    {"kind": "memory", "id": "L-personal-3f1c0a9e2b4d", "text": "...", "date": ..., ...}
    ...
    {"kind": "end", "memories": 2}

The first line is what tells an export from any other ``.jsonl`` file: a JSON object with
the ``ihmt_export`` key, whose value is the format's version. Everything else is checked
line by line as it is read, so a file of any size is restored without being held in
memory, and a damaged line stops the restore with its line number: the memories of the
lines before it are already stored, and ingesting the file again after the fix skips them
(a memory keeps its id, and an id already stored is a duplicate).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..model import DATA_TYPES, Leaf
from ..store import files
from ..store.leaves import checksum
from ..text import clip
from .prepare import clean_tags

FORMAT_KEY = "ihmt_export"
FORMAT_VERSION = 1
GLOBAL = "global"  # the scope of a leaf without extra["scope"]
SCOPE_KEY = "scope"  # leaf header (extra): absent or "global", else a project id
_PEEK_BYTES = 64 * 1024  # a header line is a few hundred bytes
# Record fields that are leaf-header values of their own; the rest of ``extra`` travels
# under "extra", verbatim.
PROMOTED = ("states", SCOPE_KEY, "superseded_by", "superseded_implicitly")


def header_of_text(first_line: str) -> dict[str, Any] | None:
    """The export header if ``first_line`` is one, else None (an ordinary JSON line, or any
    text: only a short line that opens an object naming the key is parsed at all)."""
    line = first_line.strip()
    if not line.startswith("{") or len(line) > _PEEK_BYTES or f'"{FORMAT_KEY}"' not in line:
        return None
    try:
        head = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return head if isinstance(head, dict) and FORMAT_KEY in head else None


def is_export(path: str | os.PathLike[str]) -> bool:
    """Whether the file at ``path`` starts with an export header (False when unreadable:
    reading it as a document then says why)."""
    try:
        with open(path, "rb") as fh:
            start = fh.read(_PEEK_BYTES)
    except OSError:
        return False
    first = start.split(b"\n", 1)[0].decode("utf-8-sig", "replace")
    return header_of_text(first) is not None


def looks_like_export(text: str) -> bool:
    """Whether ``text`` (a whole document handed over, e.g. on stdin) is an export."""
    return header_of_text(text.lstrip("\ufeff").split("\n", 1)[0]) is not None


class ExportReader:
    """Iterate the leaves of an export, line by line; raises InputError naming the line.

    ``ended`` says, once iteration is over, whether the closing ``end`` line was there: a
    file without it was cut short (a full disk, a copy interrupted).
    """

    def __init__(self, lines: Iterable[str], where: str, max_bytes: int) -> None:
        self.lines = lines
        self.where = where
        self.max_bytes = max_bytes
        self.header: dict[str, Any] = {}
        self.ended = False
        self.declared: int | None = None  # the memory count the end line gives

    def __iter__(self) -> Iterator[tuple[int, Leaf]]:
        seen_header = False
        for number, raw in enumerate(self.lines, 1):
            line = raw.lstrip("\ufeff") if number == 1 else raw
            if not line.strip():
                continue
            if self.ended:
                raise self._error(number, "text after the end line; the file was joined "
                                          "with another one or damaged")
            rec = self._parse(number, line)
            if not seen_header:
                self._check_header(number, rec)
                seen_header = True
                continue
            kind = rec.get("kind")
            if kind == "memory":
                yield number, self._leaf(number, rec)
            elif kind == "end":
                self.ended = True
                n = rec.get("memories")
                self.declared = n if isinstance(n, int) and not isinstance(n, bool) else None
            else:
                raise self._error(number, f"unknown record kind {clip(str(kind), 40)!r} "
                                          "(expected 'memory' or 'end')")
        if not seen_header:
            raise InputError(f"{self.where}: empty, not an IHMT export")

    # ------------------------------------------------------------------ checks
    def _error(self, number: int, why: str) -> InputError:
        return InputError(f"{self.where}: line {number}: {why}")

    def _parse(self, number: int, line: str) -> dict[str, Any]:
        if len(line) > self.max_bytes * 6 + 64_000:  # the text, escaped, and its header
            raise self._error(number, "line too long for one memory")
        try:
            rec = json.loads(line)
        except (ValueError, RecursionError) as exc:
            raise self._error(number, f"not valid JSON ({exc}); the line is damaged, fix "
                                      "or remove it and ingest the file again (memories "
                                      "already restored are not duplicated)") from exc
        if not isinstance(rec, dict):
            raise self._error(number, "not a JSON object")
        return rec

    def _check_header(self, number: int, rec: dict[str, Any]) -> None:
        version = rec.get(FORMAT_KEY)
        if version != FORMAT_VERSION or isinstance(version, bool):
            raise self._error(number, f"export format version {clip(repr(version), 30)} is "
                                      f"not one this IHMT reads (version {FORMAT_VERSION}); "
                                      "restore it with the IHMT version that wrote it, or "
                                      "a newer one")
        self.header = rec

    def _leaf(self, number: int, rec: dict[str, Any]) -> Leaf:
        def field(name: str, kinds: tuple[type, ...], required: bool = False) -> Any:
            value = rec.get(name)
            if value is None and not required:
                return None
            if not isinstance(value, kinds) or isinstance(value, bool) and bool not in kinds:
                raise self._error(number, f"field {name!r} is missing or of the wrong kind")
            return value

        text = field("text", (str,), True)
        if not text.strip():
            raise self._error(number, "the memory's text is empty")
        if len(text.encode("utf-8", "surrogatepass")) > self.max_bytes:
            raise self._error(number, f"the memory's text is over the {self.max_bytes:,}-byte "
                                      "limit for one memory (max_input_bytes)")
        domain = field("domain", (str,), True)
        try:
            if files.safe_name(domain, "domain") != domain:
                raise InputError(f"domain {domain!r} is not a stored domain name")
        except InputError as exc:
            raise self._error(number, str(exc)) from exc
        leaf_id = field("id", (str,), True)
        if (not leaf_id.startswith(f"L-{domain}-") or len(leaf_id) > 190
                or leaf_id.count("-") < 2 or any(c in leaf_id for c in "/\\\x00")
                or ".." in leaf_id or "-" in leaf_id[len(domain) + 3:]):
            raise self._error(number, f"id {clip(leaf_id, 60)!r} is not a memory id of "
                                      f"domain {domain!r} (L-{domain}-<digest>)")
        data_type = field("data_type", (str,)) or "GENERIC"
        if data_type not in DATA_TYPES:
            raise self._error(number, f"data type {clip(data_type, 30)!r} is not one of "
                                      f"{', '.join(DATA_TYPES)}")
        try:
            tags = clean_tags(field("tags", (list,)) or [])
        except InputError as exc:
            raise self._error(number, str(exc)) from exc
        extra = dict(field("extra", (dict,)) or {})
        for key in PROMOTED:
            extra.pop(key, None)
        scope = field("scope", (str,)) or GLOBAL
        if not scope.strip():
            raise self._error(number, "the scope is empty")
        if scope != GLOBAL:
            extra[SCOPE_KEY] = scope
        states = field("states", (list,)) or []
        if not all(isinstance(s, list) and len(s) == 3
                   and all(isinstance(x, str) and x for x in s) for s in states):
            raise self._error(number, "'states' must be a list of [subject, attribute, value]")
        if states:
            extra["states"] = states
        newer = field("superseded_by", (str,))
        if newer:
            extra["superseded_by"] = newer
            if rec.get("superseded_implicitly") is True:
                extra["superseded_implicitly"] = True
        return Leaf(
            id=leaf_id, text=text, domain=domain, data_type=data_type,
            date=field("date", (str,)), saved_at=field("saved_at", (str,)) or "",
            tags=tags, parent=None, span=field("span", (dict,)), checksum=checksum(text),
            source=field("source", (str,)), extra=extra,
        )


def open_lines(path: Path) -> Iterator[str]:
    """The lines of a UTF-8 file, read as they are needed."""
    try:
        with open(path, encoding="utf-8", newline="") as fh:
            yield from fh
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not valid UTF-8 (byte {exc.start}); the export is "
                         "damaged") from exc
