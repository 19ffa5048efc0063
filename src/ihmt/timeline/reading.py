"""Reading the fact log (``state/facts.jsonl``) into memory: the part of
:class:`ihmt.timeline.facts.FactTimeline` that loads, catches up with what other processes
appended, and folds each event into the statements the queries read
(:mod:`ihmt.timeline.queries`). The writing side stays in :mod:`ihmt.timeline.facts`.
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path
from typing import Any

from ..errors import UnusableFileError
from . import snapshot
from .lines import parse_line
from .queries import TimelineQueries
from .views import Notice, Stmt, View, build_view, norm_value, valid_date

log = logging.getLogger("ihmt.timeline.facts")


class TimelineLog(TimelineQueries):
    """The fact log as read: statements, outdated marks and where reading stopped."""

    path: Path
    _lock: threading.RLock

    # -- loading ------------------------------------------------------------------------------

    def _reset(self) -> None:
        self._loaded = False
        self._offset = 0  # bytes consumed
        self._seen_size = -1
        self._seen_mtime = -1
        self._ident: tuple[int, int] | None = None
        self._head = b""
        self._lines = 0
        self._seq = 0
        self._damaged = 0
        self._torn_warned: tuple[tuple[int, int] | None, int] | None = None
        self._stmts: dict[str, list[Stmt]] = {}
        self._exact: set[tuple[str, str, str, str | None]] = set()
        self._by_source: dict[str, set[str]] = {}
        self._views: dict[str, View] = {}
        self._outdated: dict[str, tuple[str, str]] = {}
        self._implicit: set[str] = set()  # old ids whose latest mark was found, not told
        self._superseded: set[str] | None = None

    @property
    def damaged_lines(self) -> int:
        """Lines of the log that could not be read and were skipped (since the last reload)."""
        with self._lock:
            self._ensure_loaded()
            return self._damaged

    def _ensure_loaded(self) -> None:
        if not self._loaded:
            self.refresh()

    def refresh(self) -> int:
        """Read what was appended since the last call; return the number of events applied.

        Costs one ``stat`` when nothing changed. If the file shrank or was replaced (a
        rebuild by another process), everything is reloaded from the start.
        """
        with self._lock:
            return self._read(None)

    def _read(self, notices: list[Notice] | None) -> int:
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            if self._stmts or self._outdated or self._offset:
                self._reset()
            self._loaded = True
            return 0
        except OSError as exc:
            raise self._unusable(exc) from exc
        if (
            self._loaded
            and (st.st_dev, st.st_ino) == self._ident
            and st.st_size == self._seen_size
            and st.st_mtime_ns == self._seen_mtime
        ):
            return 0  # the common case: nothing new, one stat
        try:
            with open(self.path, "rb") as fh:
                st = os.fstat(fh.fileno())  # of the file we read, even if it was just replaced
                ident = (st.st_dev, st.st_ino)
                if self._loaded and (ident != self._ident or st.st_size < self._offset):
                    self._reset()
                elif self._head:
                    if fh.read(len(self._head)) != self._head:
                        self._reset()  # same inode, different content: rewritten in place
                if self._offset == 0 and self.snapshots and not self._stmts \
                        and not self._outdated:
                    packed = snapshot.load(self.path.parent, fh)  # (checked against fh)
                    if packed is not None:
                        self._install(packed)
                from_start = self._offset == 0
                fh.seek(self._offset)
                data = fh.read()
        except FileNotFoundError:
            return self._read(notices)  # removed between the stat and the open
        except OSError as exc:
            raise self._unusable(exc) from exc
        self._loaded = True
        self._ident = ident
        self._seen_size = st.st_size
        self._seen_mtime = st.st_mtime_ns
        if self._offset == 0:
            self._head = data[:64]
        applied = self._consume(data, notices)
        # A large log parsed whole: a packed copy spares the next fresh process the parse
        # (written later, by write_deferred_cache: a hook answers first).
        self._snapshot_due = from_start and self._offset >= snapshot.MIN_BYTES
        return applied

    # -- the packed copy (ihmt.timeline.snapshot) ----------------------------------------------

    snapshots = True  # False: never read or write a packed copy (tests of the parse)
    _snapshot_due = False

    def _install(self, packed: dict[str, Any]) -> None:
        """Take the state a packed copy holds (what its first ``offset`` bytes give)."""
        self._stmts = {key: [Stmt(*t) for t in rows] for key, rows in packed["stmts"]}
        for key, rows in self._stmts.items():
            for st in rows:
                self._exact.add((key, st.value, st.date, st.source))
                if st.source is not None:
                    self._by_source.setdefault(st.source, set()).add(key)
        self._outdated = dict(packed["outdated"])
        self._implicit = set(packed["implicit"])
        self._seq, self._lines = int(packed["seq"]), int(packed["lines"])
        self._damaged = int(packed["damaged"])
        self._offset, self._head = int(packed["offset"]), packed["head"]

    def write_deferred_cache(self) -> int:
        """Write the packed copy a whole parse of a large log made due; 1 when written.
        Nothing when this process wrote to the log since (its state is then more than the
        file's first ``offset`` bytes say) or the file changed under it."""
        with self._lock:
            if not (self._snapshot_due and self.snapshots):
                return 0
            self._snapshot_due = False
            try:
                with open(self.path, "rb") as fh:
                    st = os.fstat(fh.fileno())
                    if (st.st_dev, st.st_ino) != self._ident or st.st_size < self._offset:
                        return 0
                    state = {"offset": self._offset, "head": self._head,
                             "lines": self._lines, "damaged": self._damaged,
                             "seq": self._seq, "implicit": sorted(self._implicit),
                             "outdated": dict(self._outdated),
                             "stmts": [(key, [(r.seq, r.subject, r.attribute, r.value, r.date,
                                               r.source, r.norm) for r in rows])
                                       for key, rows in self._stmts.items()]}
                    snapshot.save(self.path.parent, fh, state)
            except OSError as exc:  # a copy not written is only slower
                log.debug("fact log copy not written: %s", exc)
                return 0
            return 1

    def _unusable(self, exc: OSError) -> UnusableFileError:
        shape = "is a folder, not a file" if isinstance(exc, IsADirectoryError) else (
            f"cannot be read ({exc.strerror or exc})")
        return UnusableFileError(
            f"the fact timeline {self.path} {shape}; the next save or search sets it aside "
            "and rebuilds it from the memories", self.path)

    def _consume(self, data: bytes, notices: list[Notice] | None) -> int:
        """Apply complete lines of ``data``; keep an unterminated tail unless it parses."""
        *complete, tail = data.split(b"\n")
        applied = 0
        bad: list[int] = []
        for raw in complete:
            self._lines += 1
            line = raw.strip()
            if not line:
                continue
            event = self._parse(line)
            if event is None or not self._apply(event, notices):
                bad.append(self._lines)
            else:
                applied += 1
        consumed = len(data) - len(tail)
        if tail.strip():
            event = self._parse(tail.strip())
            if event is not None and self._apply(event, notices):
                applied += 1
                consumed = len(data)
                self._lines += 1
            elif self._torn_warned != (self._ident, self._offset + consumed):
                self._torn_warned = (self._ident, self._offset + consumed)
                log.warning(
                    "%s ends with an incomplete line at byte %d (a write in progress or an "
                    "interrupted one); it is ignored until completed",
                    self.path,
                    self._offset + consumed,
                )
        self._offset += consumed
        if bad:
            self._damaged += len(bad)
            log.warning(
                "%s: skipped %d damaged line(s), first at line %d; the other facts are intact "
                "('ihmt rebuild' rewrites the log from the memories)",
                self.path,
                len(bad),
                bad[0],
            )
        return applied

    _parse = staticmethod(parse_line)  # one line's event (ihmt.timeline.lines)

    def _apply(self, event: dict[str, Any], notices: list[Notice] | None) -> bool:
        """Fold one event into memory; False when it is malformed."""
        op = event.get("op")
        if op == "fact":
            stmt = self._stmt_from(event)
            if stmt is None:
                return False
            self._add(stmt, notices)
            return True
        if op == "outdated":
            old, new, when = event.get("old"), event.get("new"), event.get("date")
            if not (isinstance(old, str) and old and isinstance(new, str) and new):
                return False
            self._outdated[old] = (new, when if isinstance(when, str) else "")
            if event.get("implicit") is True:
                self._implicit.add(old)
            else:
                self._implicit.discard(old)
            return True
        if isinstance(op, str):
            log.debug("ignoring unknown event op %r in %s", op, self.path)
            return True
        return False

    def _stmt_from(self, event: dict[str, Any]) -> Stmt | None:
        subject, attribute = event.get("subject"), event.get("attribute")
        value, when, source = event.get("value"), event.get("date"), event.get("source")
        if not (isinstance(subject, str) and subject and isinstance(attribute, str) and attribute):
            return None
        if not (isinstance(value, str) and value.strip() and valid_date(when)):
            return None
        if source is not None and not isinstance(source, str):
            return None
        assert isinstance(when, str)
        return Stmt(0, subject, attribute, value, when, source, norm_value(value))

    def _add(self, stmt: Stmt, notices: list[Notice] | None) -> None:
        key = f"{stmt.subject}::{stmt.attribute}"
        exact = (key, stmt.value, stmt.date, stmt.source)
        if exact in self._exact:
            return  # the same statement twice (a re-ingest): nothing new
        self._exact.add(exact)
        before = None
        if notices is not None and key in self._stmts:  # not while loading: views cost a sort
            before = self._view(key).active_norm
        self._seq += 1
        self._stmts.setdefault(key, []).append(Stmt(self._seq, stmt.subject, stmt.attribute,
                                                    stmt.value, stmt.date, stmt.source,
                                                    stmt.norm))
        if stmt.source is not None:
            self._by_source.setdefault(stmt.source, set()).add(key)
        self._views.pop(key, None)
        self._superseded = None
        if notices is not None and before is not None:
            view = self._view(key)
            if view.active_norm != before:
                notices.append(view.changes[-1])

    def _view(self, key: str) -> View:
        view = self._views.get(key)
        if view is None:
            view = self._views[key] = build_view(self._stmts[key])
        return view
