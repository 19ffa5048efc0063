"""The merge rules of a sync, for the paths both machines changed (see
:mod:`ihmt.sync.gitsync`): leaves, the fact logs, the quarantine's reasons, the config."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace

from ..errors import DamagedFileError
from ..model import Leaf
from ..store import files
from ..store.leaves import checksum, format_leaf, parse_leaf

FACTS = "state/facts.jsonl"
PRIMARY = "state/facts.primary.jsonl"  # facts recorded directly (primary data)
TRACKED_STATE = [FACTS, PRIMARY]  # the files of state/ that the repository carries
CONFIG = "ihmt.config.json"
REASONS = "quarantine/REASONS.txt"


def blob_sha(data: bytes) -> str:
    """The id git gives a file's content (to compare a file with a commit's version)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()  # noqa: S324


def resolve(rel: str, base: bytes | None, ours: bytes | None, theirs: bytes | None, *,
            prefer_theirs_config: bool = False
            ) -> tuple[bytes | None, dict[str, bytes | None], str | None]:
    """The merged content of one path both sides changed: (data or None to delete,
    extra files to add, a sentence for the report or None)."""
    if rel in TRACKED_STATE:
        return merge_logs(base, ours, theirs), {}, None
    if ours is None or theirs is None:
        kept = ours if theirs is None else theirs
        if base is not None and _forgotten(rel, base, kept):
            return None, {}, None  # a forget beats a copy whose memory did not change
        return kept, {}, None  # changed on one side, deleted on the other: keep
    if ours == theirs:
        return ours, {}, None
    if rel.startswith("layer_0/") and rel.endswith(".txt"):
        return resolve_leaf(rel, ours, theirs)
    if rel == REASONS:
        return _union_lines(ours, theirs), {}, None
    if rel == CONFIG and prefer_theirs_config:
        return theirs, {}, None
    return ours, {}, (f"{rel} was changed on both machines: kept this machine's version "
                      "(the other one is in the history)")


def resolve_leaf(rel: str, ours: bytes, theirs: bytes
                 ) -> tuple[bytes, dict[str, bytes | None], str | None]:
    """One leaf written on both machines: the same memory (merge the headers), or two
    different texts (keep both, the other as a new leaf)."""
    name = rel.rsplit("/", 1)[-1]
    domain = rel.split("/")[1] if rel.count("/") >= 2 else "general"
    o, t = _parse(ours, name), _parse(theirs, name)
    if o is None or t is None:
        keep, other = (theirs, ours) if o is None and t is not None else (ours, theirs)
        spare = f"quarantine/{name}.sync-conflict.{blob_sha(other)[:8]}"
        return keep, {spare: other}, (f"{name} could not be read on one machine: kept the "
                                      f"readable version, the other is in {spare}")
    if o.text == t.text:
        stamps = [s for s in (o.saved_at, t.saved_at) if s]
        merged = replace(o, saved_at=min(stamps) if stamps else "",
                         tags=list(dict.fromkeys(o.tags + t.tags)),
                         extra={**t.extra, **o.extra})
        return format_leaf(merged).encode("utf-8", "surrogateescape"), {}, None
    new_id = f"L-{domain}-" + files.digest(domain, "sync-conflict", t.id, t.text)
    copy = replace(t, id=new_id, parent=None, checksum=checksum(t.text),
                   extra={**t.extra, "conflict_of": o.id})
    xrel = f"layer_0/{domain}/{new_id}.txt"
    return ours, {xrel: format_leaf(copy).encode("utf-8", "surrogateescape")}, (
        f"{o.id} was edited differently on two machines: kept both, this machine's text "
        f"as {o.id} and the other as {new_id}")


def _parse(data: bytes, name: str) -> Leaf | None:
    try:
        return parse_leaf(data.decode("utf-8", "surrogateescape"), name)
    except DamagedFileError:
        return None


def merge_facts(blobs: list[bytes | None]) -> bytes:
    """Union of fact-log lines, de-duplicated and ordered by date (then by content, so
    every machine orders them the same way). Unreadable lines are dropped."""
    seen: set[bytes] = set()
    items: list[tuple[str, bytes]] = []
    for blob in blobs:
        for raw in (blob or b"").split(b"\n"):
            line = raw.strip()
            if not line or line in seen:
                continue
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if not isinstance(event, dict):
                continue
            seen.add(line)
            when = event.get("date")
            items.append((when if isinstance(when, str) else "", line))
    items.sort()
    return b"".join(line + b"\n" for _, line in items)


def _forgotten(rel: str, base: bytes, kept: bytes) -> bool:
    """A leaf deleted on one side (forgotten) whose other copy only gained annotations."""
    if not (rel.startswith("layer_0/") and rel.endswith(".txt")):
        return False
    name = rel.rsplit("/", 1)[-1]
    b, k = _parse(base, name), _parse(kept, name)
    return b is not None and k is not None and b.text == k.text


def _events(blob: bytes | None) -> dict[str, bytes]:
    """Canonical form -> line, for the readable events of a log."""
    out: dict[str, bytes] = {}
    for raw in (blob or b"").split(b"\n"):
        line = raw.strip()
        if not line:
            continue
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict):
            out.setdefault(json.dumps(event, sort_keys=True, ensure_ascii=False), line)
    return out


def merge_logs(base: bytes | None, ours: bytes | None, theirs: bytes | None) -> bytes:
    """A three-way merge of a fact log: what either side added is kept, and what either
    side removed since ``base`` (a forget drops its memory's lines) stays removed, so a
    deletion is never undone by the other machine's unchanged copy. Ordered like
    :func:`merge_facts`."""
    b, o, t = _events(base), _events(ours), _events(theirs)
    gone = (b.keys() - o.keys()) | (b.keys() - t.keys())
    lines = [line for key, line in {**t, **o}.items() if key not in gone]
    return merge_facts([b"\n".join(lines)])


def _union_lines(a: bytes, b: bytes) -> bytes:
    lines = list(dict.fromkeys(x for x in (a + b"\n" + b).split(b"\n") if x.strip()))
    return b"".join(x + b"\n" for x in lines)
