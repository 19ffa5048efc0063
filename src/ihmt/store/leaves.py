"""Leaf files: raw UTF-8 text behind a strict JSON header.

::

    <<<IHMT-META
    {"leaf_id": "L-personal-3f1c0a9e2b4d", "date": "2026-02-03", ...}
    IHMT-META>>>
    the text, exactly as it was saved

The header makes a leaf self-describing: if every derived file of the store is lost, the
leaves alone rebuild it.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..errors import DamagedFileError, UnreadableFileError
from ..model import Leaf

OPEN = "<<<IHMT-META\n"
CLOSE = "\nIHMT-META>>>\n"


def checksum(text: str) -> str:
    import hashlib  # imported on first use (see store.files.digest)

    return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


_KNOWN = ("leaf_id", "date", "saved_at", "data_type", "domain", "tags", "parent_id", "span",
          "checksum", "source", "extra")
_FOREIGN = "foreign_header"  # header keys we do not know, kept verbatim under extra


def header_of(leaf: Leaf) -> dict:
    foreign = leaf.extra.get(_FOREIGN) if isinstance(leaf.extra, dict) else None
    extra = {k: v for k, v in leaf.extra.items() if k != _FOREIGN}
    head = dict(foreign) if isinstance(foreign, dict) else {}
    head.update({
        "leaf_id": leaf.id,
        "date": leaf.date,
        "saved_at": leaf.saved_at,
        "data_type": leaf.data_type,
        "domain": leaf.domain,
        "tags": leaf.tags,
        "parent_id": leaf.parent,
        "span": leaf.span,
        "checksum": leaf.checksum or checksum(leaf.text),
        "source": leaf.source,
        "extra": extra,
    })
    return head


_ENCODE = json.JSONEncoder(ensure_ascii=False).encode  # one encoder, not one per value
_KEYS: dict[str, str] = {}


def format_leaf(leaf: Leaf) -> str:
    # One key a line, each value compact: readable in any editor, and every value goes
    # through the C encoder (an indented dump runs in pure Python, on every save).
    keys = _KEYS
    lines = ",\n".join(f" {keys.get(k) or keys.setdefault(k, json.dumps(k))}: {_ENCODE(v)}"
                        for k, v in header_of(leaf).items())
    return OPEN + "{\n" + lines + "\n}" + CLOSE + leaf.text


def parse_leaf(raw: str, where: str = "leaf") -> Leaf:
    """Parse a leaf file's content; raises DamagedFileError when the header is unusable."""
    if not raw.startswith(OPEN):
        raise DamagedFileError(f"{where}: does not start with the <<<IHMT-META header")
    end = raw.find(CLOSE, len(OPEN) - 1)
    if end < 0:
        raise DamagedFileError(f"{where}: header is not closed by IHMT-META>>>")
    try:
        head = json.loads(raw[len(OPEN) - 1 : end])
    except ValueError as exc:
        raise DamagedFileError(f"{where}: header is not valid JSON ({exc})") from exc
    if not isinstance(head, dict) or not isinstance(head.get("leaf_id"), str):
        raise DamagedFileError(f"{where}: header has no leaf_id")
    text = raw[end + len(CLOSE) :]
    tags = head.get("tags") or []
    extra = head.get("extra") if isinstance(head.get("extra"), dict) else {}
    foreign = {k: v for k, v in head.items() if k not in _KNOWN}
    if foreign:  # written by another version: keep what we do not understand
        extra = {**extra, _FOREIGN: foreign}
    when = head.get("date") if isinstance(head.get("date"), str) else None
    if when is None and isinstance(head.get("timestamp"), str):
        when = head["timestamp"]
    return Leaf(
        id=head["leaf_id"],
        text=text,
        domain=str(head.get("domain") or "general"),
        data_type=str(head.get("data_type") or "GENERIC"),
        date=when,
        saved_at=str(head.get("saved_at") or ""),
        tags=[str(t) for t in tags] if isinstance(tags, list) else [],
        parent=head.get("parent_id") if isinstance(head.get("parent_id"), str) else None,
        span=head.get("span") if isinstance(head.get("span"), dict) else None,
        checksum=str(head.get("checksum") or ""),
        source=head.get("source") if isinstance(head.get("source"), str) else None,
        extra=extra,
    )


def read_leaf(path: Path) -> Leaf:
    try:
        raw = path.read_text(encoding="utf-8", errors="surrogateescape")
    except OSError as exc:
        raise UnreadableFileError(
            f"leaf {path.name} cannot be read ({exc.strerror}); it was left in place: fix "
            f"the file's permissions, then run 'ihmt rebuild'") from exc
    return parse_leaf(raw, path.name)
