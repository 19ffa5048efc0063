"""The fact timeline: what was true when, what is true now, and which memories are outdated.

Storage is one append-only event log, ``<store>/state/facts.jsonl``, one JSON object a line:

    {"op": "fact", "subject": "user", "attribute": "location", "value": "Madrid",
     "date": "2024-03-11", "source": "m12"}
    {"op": "outdated", "old": "m12", "new": "m40", "date": "2026-02-03"}

Why a log and not a state file: a save appends one short line instead of rewriting a file
that grows with the store, and other processes catch up by reading only the bytes appended
since their last look (:meth:`FactTimeline.refresh`). Everything else (which value is
ACTIVE, the validity intervals, the notices) is derived from the events, so facts that
arrive out of order are still placed by their date, and nothing is ever deleted.

Writers are expected to hold the store's cross-process write lock; this module does not
lock files. Readers tolerate what a crash can leave behind: a torn last line is ignored
until it is completed, garbage lines are skipped and counted (:attr:`damaged_lines`).
Unknown ``op`` values are ignored, so an older reader survives a newer writer.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..errors import InputError, StoreError, UnusableFileError
from ..model import Fact
from ..store.files import append_line, atomic_write
from . import snapshot
from .lines import encode_event
from .reading import TimelineLog
from .views import Notice, check_date

__all__ = ["FACTS_FILE", "FactTimeline", "Notice"]

log = logging.getLogger(__name__)

FACTS_FILE = "facts.jsonl"
PRIMARY_FILE = "facts.primary.jsonl"  # facts recorded directly: primary data, append-only

_MAX_VALUE = 4000


class FactTimeline(TimelineLog):
    """Dated facts per (subject, attribute), kept in ``<state_dir>/facts.jsonl``.

    Views reflect the events read so far: call :meth:`refresh` to see what other processes
    appended. :meth:`record` and the other writers refresh first, so a notice is always
    computed against the latest state. Returned :class:`Fact` objects are copies.
    """

    def __init__(self, state_dir: Path | str) -> None:
        self.state_dir = Path(state_dir)
        self.path = self.state_dir / FACTS_FILE
        # False while a caller syncs the whole batch itself (Memory.bulk ends with os.sync)
        self.sync = True
        self._lock = threading.RLock()
        self._reset()

    # -- writing -------------------------------------------------------------------------------

    def _append(self, lines: list[bytes]) -> None:
        """Append whole lines with one write and an fsync; terminate a torn tail first."""
        self._snapshot_due = False  # this process's state now runs ahead of what it read
        try:
            self.state_dir.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
            with os.fdopen(fd, "a+b") as fh:
                end = fh.seek(0, os.SEEK_END)
                prefix = b""
                if end:
                    fh.seek(end - 1)
                    if fh.read(1) != b"\n":
                        prefix = b"\n"  # a crash left half a line: don't glue ours to it
                fh.write(prefix + b"".join(lines))
                fh.flush()
                if self.sync:
                    os.fsync(fh.fileno())
        except OSError as exc:
            raise StoreError(
                f"cannot append to {self.path}: {exc}. Check the folder's permissions and "
                "free disk space."
            ) from exc

    def fsync(self) -> None:
        """Make what was appended with :attr:`sync` off durable: one fsync for many."""
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except FileNotFoundError:
            return
        except OSError as exc:
            raise StoreError(f"cannot open {self.path}: {exc}") from exc
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    @staticmethod
    def _fact_event(fact: Fact) -> dict[str, Any]:
        if not isinstance(fact, Fact):
            raise InputError(f"record() needs a Fact, got {type(fact).__name__}")
        for name in ("subject", "attribute", "value"):
            val = getattr(fact, name)
            if not isinstance(val, str) or not val.strip():
                raise InputError(f"a fact needs a non-empty {name}, got {val!r}")
        if "::" in fact.subject:
            raise InputError(f"a fact's subject cannot contain '::' (got {fact.subject!r})")
        if len(fact.value) > _MAX_VALUE:
            raise InputError(
                f"a fact value is limited to {_MAX_VALUE} characters (got {len(fact.value)}); "
                "store long text as a memory and record a short value"
            )
        if fact.source is not None and (not isinstance(fact.source, str) or not fact.source):
            raise InputError(f"a fact's source must be a leaf id or None, got {fact.source!r}")
        when = check_date(fact.date, f"the date of fact {fact.key}")
        return {
            "op": "fact",
            "subject": fact.subject,
            "attribute": fact.attribute,
            "value": fact.value,
            "date": when,
            "source": fact.source,
        }

    def record(self, fact: Fact) -> Notice | None:
        """Append a statement; return a notice when it changes the value that is current.

        The same value said again later is a confirmation (no notice, same ACTIVE period).
        A statement dated before the current one goes into the history: it can add a past
        change to :meth:`conflicts` but does not change what is current, so no notice.
        """
        notices = self.record_many([fact])
        return notices[0] if notices else None

    def record_many(self, facts: Iterable[Fact]) -> list[Notice]:
        """Like :meth:`record` for several facts, with a single write and fsync.

        Returns the notices that recording them one by one would have returned, in order.
        """
        events = [self._fact_event(f) for f in facts]
        with self._lock:
            self._read(None)
            lines: list[bytes] = []
            batch: set[tuple[str, str, str, str | None]] = set()
            for ev in events:
                exact = (
                    f"{ev['subject']}::{ev['attribute']}",
                    ev["value"],
                    ev["date"],
                    ev["source"],
                )
                if exact in self._exact or exact in batch:
                    continue
                batch.add(exact)
                lines.append(encode_event(ev))
            if not lines:
                return []
            self._append(lines)
            notices: list[Notice] = []
            self._read(notices)
            return notices

    def mark_outdated(self, old_id: str, new_id: str, date: str | None = None, *,
                      implicit: bool = False) -> None:
        """Record that memory ``old_id`` was corrected by ``new_id`` (on ``date``, else today).

        Survives :meth:`rebuild`. ``implicit``: the link was inferred from two statements of
        the same subject and attribute (:mod:`ihmt.timeline.supersede`), not told.
        """
        for name, val in (("old_id", old_id), ("new_id", new_id)):
            if not isinstance(val, str) or not val.strip():
                raise InputError(f"mark_outdated needs a memory id for {name}, got {val!r}")
        if old_id == new_id:
            raise InputError(f"memory {old_id} cannot be marked outdated by itself")
        if date is None:
            date = datetime.now(timezone.utc).date().isoformat()
        when = check_date(date, "mark_outdated date")
        event: dict[str, Any] = {"op": "outdated", "old": old_id, "new": new_id, "date": when}
        if implicit:
            event["implicit"] = True
        with self._lock:
            self._read(None)
            self._append([encode_event(event)])
            self._read(None)

    def record_primary(self, fact: Fact) -> Notice | None:
        """Record a fact given directly (``Memory.record_fact``): such a fact is primary
        data, which no leaf may be able to re-derive, so it is also appended to
        ``facts.primary.jsonl``, a log that :meth:`rebuild` reads and never rewrites."""
        event = self._fact_event(fact)
        with self._lock:
            try:
                append_line(self.state_dir / PRIMARY_FILE,
                            encode_event(event).decode("utf-8").rstrip(), durable=self.sync)
            except OSError as exc:
                raise self._primary_error(exc, "written") from exc
            return self.record(fact)

    def _primary_error(self, exc: OSError, verb: str) -> UnusableFileError:
        path = self.state_dir / PRIMARY_FILE
        if isinstance(exc, IsADirectoryError):
            return UnusableFileError(
                f"{path} is a folder, not the log of the facts recorded directly: move it out "
                "of the memory folder, and IHMT begins the log again (the facts recorded "
                "so far are still in state/facts.jsonl)", path)
        return UnusableFileError(
            f"cannot {'read' if verb == 'read' else 'write'} {path} ({exc.strerror or exc}): "
            "it holds the facts recorded directly; fix its permissions (or free disk space), "
            "then try again", path)

    def _primary_events(self) -> list[dict[str, Any]]:
        try:
            data = (self.state_dir / PRIMARY_FILE).read_bytes()
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise self._primary_error(exc, "read") from exc
        out = []
        for line in data.splitlines():
            ev = self._parse(line)
            if ev is not None and ev.get("op") == "fact":
                out.append(ev)
        return out

    def needs_rebuild(self, expected_size: int, seen_damage: int) -> tuple[bool, int]:
        """Whether the log must be rebuilt from the leaves, and how many facts recorded
        directly it lost: it is shorter than the ``expected_size`` the trunk recorded, has
        more damaged lines than the ``seen_damage`` already repaired, or lost such facts.
        Reads what was appended first. (The lost count is reported once: ask again only
        after a rebuild.)"""
        self.refresh()
        try:
            size = self.path.stat().st_size
        except OSError:
            size = 0
        lost = self.primary_missing()
        return (size < expected_size or self.damaged_lines > seen_damage or bool(lost)), lost

    def primary_missing(self) -> int:
        """How many facts recorded directly the log has lost (damage, truncation): the
        caller rebuilds it, and :meth:`rebuild` brings them back from the primary log."""
        with self._lock:
            self._ensure_loaded()
            try:
                st = os.stat(self.state_dir / PRIMARY_FILE)
            except OSError:
                return 0
            sig = (st.st_size, st.st_mtime_ns, self._offset)
            if sig == getattr(self, "_primary_sig", None):
                return 0
            missing = sum(
                (f"{ev.get('subject')}::{ev.get('attribute')}", ev.get("value"),
                 ev.get("date"), ev.get("source")) not in self._exact
                for ev in self._primary_events())
            if not missing:
                self._primary_sig = sig
            return missing

    def rebuild(self, facts: Iterable[Fact]) -> int:
        """Replace the leaf-derived facts with ``facts``; return how many facts the log holds.

        Kept: every fact recorded directly (from ``facts.primary.jsonl``, with or without a
        source), facts without a source still in the current log, and outdated marks. The log is rewritten atomically (temporary
        file, fsync, rename), so a crash leaves either the old log or the new one.
        """
        events = [self._fact_event(f) for f in facts]
        with self._lock:
            self._read(None)
            manual = sorted(
                (s for stmts in self._stmts.values() for s in stmts if s.source is None),
                key=lambda s: s.seq,
            )
            kept = [
                {
                    "op": "fact",
                    "subject": s.subject,
                    "attribute": s.attribute,
                    "value": s.value,
                    "date": s.date,
                    "source": None,
                }
                for s in manual
            ]
            kept = self._primary_events() + kept  # direct facts, sourced ones included
            marks = [
                {"op": "outdated", "old": old, "new": new, "date": when,
                 **({"implicit": True} if old in self._implicit else {})}
                for old, (new, when) in self._outdated.items()
            ]
            self._rewrite(marks + kept + events)
            self._reset()
            self._read(None)
            return sum(len(v) for v in self._stmts.values())

    def forget(self, sources: set[str]) -> tuple[list[tuple[str, str]], list[str], int]:
        """Drop every statement of the memories ``sources`` and every outdated mark that
        names one of them (a forget; the caller holds the write lock).

        The log, and the primary log when it holds such a fact, are rewritten atomically
        without those lines: only lines that contain one of the ids are parsed, and the
        in-memory views are updated in place instead of re-reading the log. Returns the
        (subject, attribute) keys that lost statements, and the memories whose mark
        pointed at a forgotten one (current again, unless a remaining statement says
        otherwise: the caller links versions again), and how many statements went.
        """
        with self._lock:
            self._read(None)
            needles = [s.encode("utf-8") for s in sources]
            snapshot.remove(self.state_dir)  # it holds the facts being forgotten
            self._snapshot_due = False

            def named(ev: dict[str, Any]) -> bool:
                return (ev.get("source") in sources or ev.get("old") in sources
                        or ev.get("new") in sources)

            for path in (self.state_dir / PRIMARY_FILE, self.path):
                try:
                    data = path.read_bytes()
                except FileNotFoundError:
                    continue
                except OSError as exc:
                    raise StoreError(f"cannot read {path}: {exc}") from exc
                out = _without_lines(data, needles,
                                     lambda ln: bool((ev := self._parse(ln.strip()))
                                                     and named(ev)))
                if out is not None:
                    atomic_write(path, out, durable=True)
            keys = sorted({k for s in sources for k in self._by_source.pop(s, ())})
            removed = 0
            for key in keys:
                stmts = []
                for st in self._stmts[key]:
                    if st.source in sources:  # (every exact statement is in _stmts once)
                        self._exact.discard((key, st.value, st.date, st.source))
                        removed += 1
                    else:
                        stmts.append(st)
                if stmts:
                    self._stmts[key] = stmts
                else:
                    del self._stmts[key]
                self._views.pop(key, None)
            freed = [old for old, (new, _) in self._outdated.items()
                     if new in sources and old not in sources]
            for old in [o for o, (n, _) in self._outdated.items() if o in sources or n in sources]:
                del self._outdated[old]
                self._implicit.discard(old)
            self._superseded = None
            self._resync()
            pairs = [tuple(k.split("::", 1)) for k in keys]
            return pairs, freed, removed  # type: ignore[return-value]

    def _resync(self) -> None:
        """Take the rewritten log as read (its content is what memory holds now)."""
        try:
            with open(self.path, "rb") as fh:
                st = os.fstat(fh.fileno())
                data = fh.read()
        except FileNotFoundError:
            self._ident, self._offset, self._head = None, 0, b""
            self._seen_size = self._seen_mtime = -1
            return
        self._ident = (st.st_dev, st.st_ino)
        self._seen_size, self._seen_mtime = st.st_size, st.st_mtime_ns
        self._offset = len(data) - len(data.rsplit(b"\n", 1)[-1]) if b"\n" in data else 0
        self._head = data[:64]

    def clear(self, *, everything: bool = False) -> None:
        """Drop the leaf-derived facts (``rebuild([])``), or with ``everything`` the whole log."""
        if not everything:
            self.rebuild([])
            return
        with self._lock:
            self._rewrite([])
            self._reset()
            self._read(None)

    def _rewrite(self, events: list[dict[str, Any]]) -> None:
        snapshot.remove(self.state_dir)  # (it may hold facts the new log drops)
        self._snapshot_due = False
        seen: set[bytes] = set()
        payload: list[bytes] = []
        for ev in events:
            line = encode_event(ev)
            if line not in seen:
                seen.add(line)
                payload.append(line)
        try:
            atomic_write(self.path, b"".join(payload), durable=True)
        except OSError as exc:
            raise StoreError(
                f"cannot rewrite {self.path}: {exc}. Check the folder's permissions and free "
                "disk space; the previous log is untouched."
            ) from exc


def _without_lines(data: bytes, needles: list[bytes], drop: Any) -> bytes | None:
    """``data`` without its lines that hold one of ``needles`` and that ``drop`` (given
    the line) says go, or None when none goes. Only the lines holding a needle are looked
    at (found by ``bytes.find``): the cost is the file's bytes, not its lines."""
    cuts: set[tuple[int, int]] = set()
    for needle in needles:
        at = data.find(needle)
        while at >= 0:
            start = data.rfind(b"\n", 0, at) + 1
            end = data.find(b"\n", at)
            end = len(data) if end < 0 else end
            if (start, end) not in cuts and drop(data[start:end]):
                cuts.add((start, end))
            at = data.find(needle, end)
    if not cuts:
        return None
    parts = []
    prev = 0
    for start, end in sorted(cuts):
        parts.append(data[prev:start])
        prev = end + 1  # the line and its newline
    parts.append(data[prev:])
    out = b"".join(parts)
    if prev > len(data) and out.endswith(b"\n"):
        out = out[:-1]  # the last line went, and it had no newline: neither has the rest
    return out
