"""Encoding off the save path: a save writes its leaf and returns; the leaf's vectors are
computed right after on a worker thread and appended under the write lock.

Encoding a memory and its clauses costs 20-30 ms on two cores, ten times the rest of a
save. Deferred, a single save returns in a few milliseconds and its vectors land one
encoding later. What keeps that safe:

- A search in the same process first waits (a bounded time) for the saves queued before
  it, so "save, then search" finds the new memory by meaning too.
- The worker is not a daemon thread: a process that exits normally (a CLI call, a server
  whose client hung up) finishes its queue first, and :meth:`ihmt.Memory.close` waits too.
- Before a leaf is written, a line naming it is appended to the journal
  ``state/vectors/pending`` (id, domain, process id, time) under the save's lock. The worker
  drops the lines of the leaves whose vectors are on disk. A process killed in between
  leaves its lines behind; the next process that uses semantic search on the store finds
  them (their process is gone, or they are older than :data:`STALE_S`), encodes those
  leaves and appends them. Two processes catching up the same leaf append its block twice,
  which readers resolve (the newest block wins).
- Nothing here stops a save or a search: a failure is logged and reported once, the
  batch is tried once more after the process's next save, the journal keeps the leaf for
  the next process, and ``ihmt doctor`` counts memories without a vector (``ihmt doctor
  --repair`` encodes them).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from pathlib import Path
from typing import Any

from ..store import files

log = logging.getLogger(__name__)

JOURNAL = "pending"
STALE_S = 120.0  # a journal line this old is caught up even if its process still runs
WAIT_S = 10.0  # longest a search waits for this process's queued saves
BATCH = 64  # leaves encoded together when saves queue up faster than they are encoded


def _orphaned(pid: int, stamp: float, now: float) -> bool:
    """A journal line whose writer is gone, or that has waited too long for it."""
    return not files.pid_alive(pid) or now - stamp > STALE_S


class Deferred:
    """The queue of one :class:`ihmt.semantic.index.SemanticIndex` (one per Memory)."""

    def __init__(self, index: Any) -> None:
        self.index = index
        self._cond = threading.Condition()
        self._queue: list[Any] = []  # leaves this process saved, oldest first
        self._orphans: list[tuple[str, str]] = []  # (id, domain) another process left
        self._retry: list[Any] = []  # leaves of a failed batch, tried once more later
        self._queued = 0  # leaves queued so far by this process's saves
        self._done = 0  # of those, how many were encoded (or given up on)
        self._thread: threading.Thread | None = None
        self._looked = False  # journal searched for orphans yet

    @property
    def path(self) -> Path:
        return self.index.vectors.dir / JOURNAL

    # ------------------------------------------------------------------ the save side
    def note(self, leaves: list[Any]) -> None:
        """Journal leaves about to be written (the caller holds the write lock). Written
        before the leaves, so a process killed anywhere after a leaf reached the disk
        leaves its line for the next process; a line whose leaf was never written is
        pruned like any other."""
        if not leaves:
            return
        stamp = f"{os.getpid()}\t{time.time():.0f}"
        lines = "".join(f"{lf.id}\t{lf.domain}\t{stamp}\n" for lf in leaves)
        try:
            files.append_line(self.path, lines)
        except OSError as exc:  # the vectors still come; only a crash would lose them
            log.warning("semantic journal not written (%s)", exc)

    def add(self, leaves: list[Any], *, noted: bool = False) -> None:
        """Queue new leaves (the caller holds the write lock and has written them);
        ``noted``: :meth:`note` journalled them already."""
        if not leaves:
            return
        if not noted:
            self.note(leaves)
        with self._cond:
            self._orphans.extend((lf.id, lf.domain) for lf in self._retry)
            self._retry = []
            self._queue.extend(leaves)
            self._queued += len(leaves)
            self._start()

    def look_for_orphans(self) -> None:
        """Once per process: queue the journal's leaves whose writer is gone."""
        if self._looked:
            return
        self._looked = True
        now = time.time()
        found = [(i, d) for i, d, pid, t in self._read_journal() if _orphaned(pid, t, now)]
        if not found:
            return
        with self._cond:
            have = {i for i, _ in self._orphans}
            self._orphans.extend(x for x in found if x[0] not in have)
            self._start()

    def in_flight(self) -> set[str]:
        """Journal ids a live process is still encoding (not orphans)."""
        now = time.time()
        return {i for i, _, pid, t in self._read_journal() if not _orphaned(pid, t, now)}

    def wait(self, timeout: float | None = WAIT_S) -> bool:
        """Block until the leaves this process queued so far have their vectors (or were
        given up on). False when ``timeout`` ran out first."""
        with self._cond:
            target = self._queued
            if self._done >= target:
                return True
            if self.index.store.lock.owned():
                return False  # the worker needs the lock this thread holds: do not wait
            return self._cond.wait_for(lambda: self._done >= target, timeout)

    def idle(self, timeout: float | None = None) -> bool:
        """Block until the worker has nothing left, orphans included."""
        with self._cond:
            if self._thread is not None and self.index.store.lock.owned():
                return False
            return self._cond.wait_for(lambda: self._thread is None, timeout)

    # ------------------------------------------------------------------ the worker
    def _start(self) -> None:
        if self._thread is None:  # caller holds self._cond
            self._thread = threading.Thread(target=self._run, name="ihmt-vectors",
                                            daemon=False)
            self._thread.start()

    def _run(self) -> None:
        while True:
            own = True
            with self._cond:
                if self._queue:
                    batch, self._queue = self._queue[:BATCH], self._queue[BATCH:]
                elif self._orphans:
                    todo, self._orphans = self._orphans[:BATCH], self._orphans[BATCH:]
                    own = False
                else:
                    self._thread = None
                    self._cond.notify_all()
                    return
            try:
                if not own:
                    batch = self._load(todo)
                self._process(batch)
            except Exception as exc:  # noqa: BLE001 - the journal keeps them for later
                self.index._fail("encoding after a save", exc)
                if own:  # tried once more with the next save (a lock held too long, ...)
                    with self._cond:
                        self._retry.extend(batch)
            finally:
                with self._cond:
                    if own:
                        self._done += len(batch)
                    self._cond.notify_all()

    def _load(self, todo: list[tuple[str, str]]) -> list[Any]:
        store = self.index.store
        out = []
        for leaf_id, dom in todo:
            try:
                out.append(store.read_leaf(leaf_id, dom))
            except Exception:  # noqa: BLE001 - forgotten since, or damaged: nothing to do
                continue
        return out

    def _process(self, leaves: list[Any]) -> None:
        """Encode (no lock held), then append and prune the journal under the lock. A leaf
        forgotten meanwhile is skipped; one that has a vector already (an orphan another
        process caught up first) is not appended again."""
        store, vs = self.index.store, self.index.vectors
        leaves = [lf for lf in leaves if store.leaf_exists(lf.id, lf.domain)]
        encoded = self.index.encode_all(leaves) if leaves else {}
        with store.lock.hold():
            vs.refresh()
            for dom, (ids, blocks) in list(encoded.items()):
                # (checked again under the lock: a forget may have run since the encoding)
                keep = [k for k, i in enumerate(ids)
                        if not vs.has(i) and store.leaf_exists(i, dom)]
                if len(keep) < len(ids):
                    encoded[dom] = ([ids[k] for k in keep], [blocks[k] for k in keep])
            if any(ids for ids, _ in encoded.values()):
                self.index.append(encoded)
            self._prune()

    def _read_journal(self) -> list[tuple[str, str, int, float]]:
        try:
            raw = self.path.read_text("utf-8", errors="replace")
        except OSError:
            return []
        out = []
        for line in raw.splitlines():
            parts = line.split("\t")
            if len(parts) != 4:
                continue  # a line cut by a crash
            try:
                out.append((parts[0], parts[1], int(parts[2]), float(parts[3])))
            except ValueError:
                continue
        return out

    def _prune(self) -> None:
        """Keep the journal lines of leaves that still have no vector (lock held). The
        journal holds only what is in flight, so this is a small file."""
        entries = self._read_journal()
        if not entries:
            return
        vs = self.index.vectors
        vs.refresh()
        store = self.index.store
        keep = [e for e in entries
                if not vs.has(e[0]) and store.leaf_exists(e[0], e[1])]
        if len(keep) == len(entries):
            return
        try:
            if keep:
                files.atomic_write(self.path, "".join(
                    f"{i}\t{d}\t{pid}\t{t:.0f}\n" for i, d, pid, t in keep).encode("utf-8"))
            else:
                os.truncate(self.path, 0)
        except OSError as exc:
            log.warning("semantic journal not pruned (%s)", exc)
