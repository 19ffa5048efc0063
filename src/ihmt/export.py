"""Export every memory to one file, and restore such a file into a store.

``Memory.export()`` walks the leaf files one at a time (a store of any size is exported
without holding its memories together), and writes each memory with everything its leaf
header records: id, text, dates, domain, data type, scope, tags, source, the facts its
saver named, and whether it is outdated (the correction that replaced it, as the timeline
and the header record it, and the same OUTDATED flag a search shows).

Two formats:

* ``jsonl``: the archive. A header line ``{"ihmt_export": 1, ...}``, one object per
  memory, an ``end`` line with the count. ``ihmt ingest`` recognises it by its header and
  restores it (:func:`restore`): the leaves come back with their ids and headers, so the
  tree, the facts and the supersessions are re-derived exactly as a rebuild would, and
  restoring the same export twice adds nothing the second time.
* ``markdown``: for a person to read: one section per memory with its metadata. It is
  not read back.

The reading side (recognising a file, checking each line) is :mod:`ihmt.ingest.restore`.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from .errors import DamagedFileError, InputError
from .ingest.prepare import screen_secrets
from .ingest.restore import (
    FORMAT_KEY,
    FORMAT_VERSION,
    GLOBAL,
    PROMOTED,
    SCOPE_KEY,
    ExportReader,
)
from .model import Fact, Leaf, SaveReport
from .store import files
from .store.leaves import checksum, read_leaf
from .store.store import Store, utcnow
from .text import clip, count, memory_terms
from .timeline.facts import FactTimeline
from .writing import STATED_KEY, Writer, leaf_facts

log = logging.getLogger(__name__)

FORMATS = ("jsonl", "markdown")
ALL = "all"
_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def leaf_scope(leaf: Leaf) -> str:
    """``"global"``, or the project id the leaf header names (``extra["scope"]``)."""
    scope = leaf.extra.get(SCOPE_KEY)
    return scope if isinstance(scope, str) and scope.strip() else GLOBAL


def check_scope(scope: str | None) -> str:
    """``all`` (also for None), ``global`` or a project id, checked."""
    if scope is None:
        return ALL
    if not isinstance(scope, str) or not scope.strip():
        raise InputError("scope must be 'all', 'global' or a project id")
    return scope.strip()


class Export:
    """The lines of one export, produced as they are read (an iterator of text chunks,
    each ending in a newline). ``exported`` and ``skipped`` are final once it is spent."""

    def __init__(self, store: Store, timeline: FactTimeline, *, scope: str | None = None,
                 fmt: str = "jsonl") -> None:
        if fmt not in FORMATS:
            raise InputError(f"export format {fmt!r} is not one of {', '.join(FORMATS)}")
        self.store = store
        self.timeline = timeline
        self.scope = check_scope(scope)
        self.fmt = fmt
        self.exported = 0
        self.skipped: list[tuple[str, str]] = []  # (leaf file, why it was not exported)
        self._lines = self._jsonl() if fmt == "jsonl" else self._markdown()

    def __iter__(self) -> Iterator[str]:
        return self

    def __next__(self) -> str:
        return next(self._lines)

    # ------------------------------------------------------------------ records
    def records(self) -> Iterator[dict[str, Any]]:
        """One dict per memory in the scope, in leaf-file order (domain, then id)."""
        self.timeline.refresh()
        superseded = self.timeline.superseded_sources()
        for path in self.store.iter_leaf_paths():
            try:
                leaf = read_leaf(path)  # no repair here: an export only reads
            except DamagedFileError as exc:
                log.warning("not exported: %s", exc)
                self.skipped.append((path.name, str(exc)))
                continue
            scope = leaf_scope(leaf)
            if self.scope != ALL and scope != self.scope:
                continue
            self.exported += 1
            yield memory_record(leaf, scope, self.timeline, superseded)

    def _header(self) -> dict[str, Any]:
        from . import __version__  # (ihmt/__init__ imports this module's importer)

        return {FORMAT_KEY: FORMAT_VERSION, "kind": "header", "ihmt_version": __version__,
                "exported_at": utcnow(), "scope": self.scope}

    def _jsonl(self) -> Iterator[str]:
        yield _ENCODE(self._header()) + "\n"
        for rec in self.records():
            yield _ENCODE(rec) + "\n"
        yield _ENCODE({"kind": "end", "memories": self.exported}) + "\n"

    def _markdown(self) -> Iterator[str]:
        head = self._header()
        yield (f"# IHMT memories\n\nExported {head['exported_at']} by IHMT "
               f"{head['ihmt_version']}, "
               f"scope {self.scope}. For reading: to restore a memory, use the JSONL export "
               "(`ihmt export --format jsonl`).\n")
        for rec in self.records():
            yield "\n" + markdown_section(rec)
        yield f"\n---\n\n{count(self.exported, 'memory', 'memories')}.\n"


def memory_record(leaf: Leaf, scope: str, timeline: FactTimeline, superseded: set[str]
                  ) -> dict[str, Any]:
    """What an export says of one memory. ``outdated`` is the flag a search shows: a
    correction recorded for it, or a fact it states that has since changed."""
    newer = timeline.outdated_by(leaf.id)
    implicit = timeline.implicit(leaf.id) if newer else False
    if not newer and isinstance(leaf.extra.get("superseded_by"), str):
        newer = leaf.extra["superseded_by"]
        implicit = bool(leaf.extra.get("superseded_implicitly"))
    states = [s for s in leaf.extra.get(STATED_KEY) or [] if isinstance(s, list)]
    extra = {k: v for k, v in leaf.extra.items() if k not in PROMOTED}
    return {
        "kind": "memory", "id": leaf.id, "text": leaf.text, "date": leaf.date,
        "saved_at": leaf.saved_at, "domain": leaf.domain, "data_type": leaf.data_type,
        "scope": scope, "tags": leaf.tags, "source": leaf.source, "span": leaf.span,
        "states": states, "superseded_by": newer, "superseded_implicitly": implicit,
        "outdated": bool(newer) or leaf.id in superseded, "extra": extra,
    }


def markdown_section(rec: dict[str, Any]) -> str:
    """One memory as a Markdown section: a heading, its metadata, its text verbatim."""
    flag = "OUTDATED · " if rec["outdated"] else ""
    title = clip(rec["text"], 70).replace("#", "\\#")
    meta = [f"- id: `{rec['id']}`",
            f"- date: {(rec['date'] or 'undated')} · saved {rec['saved_at'] or 'unknown'}",
            f"- domain: {rec['domain']} · type: {rec['data_type']} · scope: {rec['scope']}"]
    if rec["tags"]:
        meta.append("- tags: " + ", ".join(rec["tags"]))
    if rec["source"]:
        meta.append(f"- source: {rec['source']}")
    for s in rec["states"]:
        meta.append(f"- states: {s[0]} :: {s[1]} = {s[2]}")
    if rec["superseded_by"]:
        meta.append(f"- OUTDATED: corrected by `{rec['superseded_by']}`")
    elif rec["outdated"]:
        meta.append("- OUTDATED: a fact it states has changed since")
    fence = "`" * max(4, _longest_backticks(rec["text"]) + 1)  # the text cannot close it
    body = rec["text"] if rec["text"].endswith("\n") else rec["text"] + "\n"
    return (f"## {flag}{rec['date'] or 'undated'} · {title}\n\n" + "\n".join(meta)
            + f"\n\n{fence}text\n{body}{fence}\n")


def _longest_backticks(text: str) -> int:
    best = run = 0
    for c in text:
        run = run + 1 if c == "`" else 0
        best = max(best, run)
    return best


# ---------------------------------------------------------------------- files
def write_file(chunks: Iterable[str], path: str | os.PathLike[str], *, force: bool = False
               ) -> Path:
    """Write ``chunks`` to ``path`` atomically: into a temporary file beside it, synced,
    then moved into place, so the file is complete or absent. An existing file is never
    replaced unless ``force``."""
    target = Path(path).expanduser()
    if target.is_dir():
        raise InputError(f"{target} is a folder: give a file name for the export")
    if not force and target.exists():
        raise InputError(f"{target} already exists: choose another file, or add --force "
                         "to replace it")
    if not target.parent.is_dir():
        raise InputError(f"{target.parent}: no such folder")
    tmp = target.parent / f".{target.name}.{os.getpid()}.{threading.get_ident()}.part"
    try:
        with open(tmp, "x", encoding="utf-8", newline="\n", errors="surrogatepass") as fh:
            for chunk in chunks:
                fh.write(chunk)
            fh.flush()
            os.fsync(fh.fileno())
        if force:
            os.replace(tmp, target)
        else:
            _move_new(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    files.fsync_dir(target.parent)
    return target


def _move_new(tmp: Path, target: Path) -> None:
    """Move ``tmp`` to ``target`` unless a file appeared there meanwhile (a hard link
    fails on an existing name; where links are not supported, check, then rename)."""
    try:
        os.link(tmp, target)
    except FileExistsError as exc:
        raise InputError(f"{target} already exists: choose another file, or add --force "
                         "to replace it") from exc
    except OSError:
        if target.exists():
            raise InputError(f"{target} already exists: choose another file, or add "
                             "--force to replace it") from None
        os.replace(tmp, target)
        return
    os.unlink(tmp)


# ---------------------------------------------------------------------- restore
def restore(lines: Iterable[str], where: str, *, writer: Writer, timeline: FactTimeline,
            store: Store, secrets: str, max_bytes: int, stemmer: str,
            mutex: threading.RLock) -> SaveReport:
    """Store the memories of an export (``lines``, as read from ``where``).

    Each leaf keeps its id and header, so the timeline learns its facts on the way in
    and the supersessions the facts imply are linked again; corrections that were told
    (``replaces``, ``mark-outdated``) are recorded from the headers afterwards, as a
    rebuild does. Memories already stored (same id) are counted as duplicates. A damaged
    line raises InputError naming it; what came before it is kept.
    """
    reader = ExportReader(lines, where, max_bytes)
    report = SaveReport(data_type="IHMT export")
    domains: Counter[str] = Counter()
    marks: list[tuple[str, str, str]] = []
    unused: list[Fact] = []  # facts are recorded as each leaf is committed
    try:
        with writer.bulk():
            for number, leaf in reader:
                leaf.text = screen_secrets(leaf.text, secrets, report.warnings,
                                           where=f"{where}, line {number}")
                leaf.checksum = checksum(leaf.text)
                report.ids.append(leaf.id)
                domains[leaf.domain] += 1
                leaf_facts(leaf, unused, marks)
                unused.clear()
                writer.commit([(leaf, memory_terms(leaf.text, leaf.tags, stemmer))], report)
    finally:
        _record_marks(marks, timeline, store, mutex)
        report.domain = (", ".join(sorted(domains)) if len(domains) <= 3
                         else count(len(domains), "domain"))
    if not reader.ended:
        report.warnings.append(f"{where} has no end line: the export was cut short, and the "
                               "memories after the last complete line are missing")
    elif reader.declared is not None and reader.declared != len(report.ids):
        report.warnings.append(f"{where} says it holds "
                               f"{count(reader.declared, 'memory', 'memories')}, "
                               f"{len(report.ids)} were read")
    return report


def _record_marks(marks: list[tuple[str, str, str]], timeline: FactTimeline, store: Store,
                  mutex: threading.RLock) -> None:
    """Corrections the restored headers record, into the timeline (those it lacks)."""
    if not marks:
        return
    with mutex, store.lock.hold():
        timeline.refresh()
        known = timeline.outdated_map()
        for old, new, when in marks:
            if known.get(old) != new:
                timeline.mark_outdated(old, new, when or None)
