"""Keeping the derived files true to the leaves: the full rebuild, and the fact timeline's
own repair when its log was damaged, truncated or lost facts recorded directly.

Used by :class:`ihmt.Memory` (which holds the lock around these calls); the timeline is
derived from the leaves (their facts and ``superseded_by`` headers) plus the primary log of
facts recorded directly, so both repairs re-read the leaves and rewrite the log whole.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from .errors import DamagedFileError, NotFoundError
from .model import Fact
from .store.store import Store, copy_root
from .text import count
from .timeline.facts import FactTimeline
from .tree.consolidate import Consolidator
from .tree.rebuild import rebuild as _rebuild
from .writing import Writer, leaf_facts

log = logging.getLogger(__name__)


class Upkeep:
    """The repairs of one memory (it shares the memory's mutex)."""

    def __init__(self, store: Store, consolidator: Consolidator, timeline: FactTimeline,
                 writer: Writer, mutex: threading.RLock) -> None:
        self.store = store
        self.consolidator = consolidator
        self.timeline = timeline
        self.writer = writer
        self._mutex = mutex
        self._facts_damage = 0  # damaged log lines already repaired (reported once)

    def rebuild_locked(self) -> dict[str, Any]:
        """Re-derive the tree, the catalog and the timeline from the leaves (lock held)."""
        facts: list[Fact] = []
        marks: list[tuple[str, str, str]] = []
        rep = _rebuild(self.store, self.consolidator, force_close=True,
                       on_leaf=lambda leaf: leaf_facts(leaf, facts, marks))
        rep["facts"] = self.reset_timeline(facts, marks)
        return rep

    def reset_timeline(self, facts: list[Fact], marks: list[tuple[str, str, str]]) -> int:
        """Rewrite the timeline from what the leaves say (lock held)."""
        facts.sort(key=lambda f: (f.date, f.source or ""))
        n = self.timeline.rebuild(facts)
        known = self.timeline.outdated_map()
        sync, self.timeline.sync = self.timeline.sync, False  # one fsync for every mark
        try:
            for old, new, when in marks:
                if known.get(old) != new:
                    self.timeline.mark_outdated(old, new, when or None)
            self.writer.link_versions(facts)
        finally:
            self.timeline.sync = sync
        self.timeline.fsync()
        root = copy_root(self.store.root())
        root["facts_size"] = self.writer.facts_size()
        self.store.write_root(root)
        self._facts_damage = self.timeline.damaged_lines
        return n

    def check_timeline(self, found: tuple[bool, int] | None = None) -> None:
        """A fact log shorter than the trunk says, or with damaged lines, is rebuilt from
        the leaves (it is derived from them), and the repair is reported once. ``found``:
        what :meth:`FactTimeline.needs_rebuild` just said, when the caller asked it first
        (with no damage seen before)."""
        if found is None:
            found = self.timeline.needs_rebuild(int(self.store.root().get("facts_size", 0)),
                                                self._facts_damage)
        rebuild, lost = found
        if not rebuild:
            return
        with self._mutex, self.store.lock.hold():
            facts: list[Fact] = []
            marks: list[tuple[str, str, str]] = []
            for path in self.store.iter_leaf_paths():
                try:
                    leaf = self.store.read_leaf(path.stem, path.parent.name)
                except (DamagedFileError, NotFoundError):
                    continue
                leaf_facts(leaf, facts, marks)
            self.reset_timeline(facts, marks)
        msg = ("the fact timeline (state/facts.jsonl) was damaged or truncated; it was rebuilt "
               "from the memories and from the facts recorded directly "
               "(state/facts.primary.jsonl)")
        if lost and self.timeline.primary_missing():
            msg = (f"the fact timeline (state/facts.jsonl) lost {count(lost, 'fact')} "
                   "recorded directly and they could not be restored: check "
                   "state/facts.primary.jsonl")
        log.warning(msg)
        self.store.problems.append(msg)
