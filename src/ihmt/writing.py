"""Putting prepared leaves into the tree: one save at a time, or in bulk batches.

A single save holds the write lock for its few file operations: the leaf (synced), one
catalog line, the Summarization Events it makes due, the trunk. Inside
:meth:`Writer.bulk` saves are collected instead (no lock is held while they are) and
committed in batches of :data:`BULK_BATCH`, each ordered so that similar memories share
branches. A batch's vectors and order are computed without the lock; it is then written
in runs of :data:`LOCK_CHUNK` memories, each under one short hold of the lock, its leaves
synced together, so other processes' saves and searches get in between. Facts a leaf states go to the timeline, and a new value of a tracked fact links
the memory it supersedes (see :mod:`ihmt.timeline.supersede`).
"""

from __future__ import annotations

import os
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

from .errors import DamagedFileError, InputError, NotFoundError, StoreError, from_os_error
from .model import Fact, Leaf, SaveReport
from .recover import record_for
from .scope import GLOBAL
from .semantic.index import SemanticIndex
from .store.store import Store, copy_root, utcnow
from .sync.gitsync import after_write
from .text import clip, clip_shown
from .timeline.extract import extract_facts
from .timeline.facts import FactTimeline
from .timeline.supersede import implicit_links, statement_facts
from .tree import refile
from .tree.consolidate import Consolidator, leaf_entry
from .tree.order import similarity_order
from .tree.refile import leaf_scope

BULK_CACHE_LIMIT = 200_000  # branch-cache entries kept while a bulk load runs
BULK_BATCH = 16384  # saves grouped by similarity and committed together inside bulk()
LOCK_CHUNK = 1024  # memories of a batch committed under one hold of the write lock
LOCK_GAP_S = 0.06  # pause between two chunks: longer than a waiting writer's poll interval

Prepared = list[tuple[Leaf, Counter[str]]]
REPAIR_LATER = ("; nothing saved before was lost, and the next write repairs the store "
                "from the memories")


class Writer:
    """The write path of one :class:`ihmt.Memory` (it shares the memory's mutex)."""

    def __init__(self, store: Store, consolidator: Consolidator, timeline: FactTimeline,
                 semantic: SemanticIndex, mutex: threading.RLock,
                 writing: Callable[..., AbstractContextManager[None]],
                 recover: Callable[[], None], ensure_root: Callable[[], dict[str, Any]]
                 ) -> None:
        self.store = store
        self.consolidator = consolidator
        self.timeline = timeline
        self.semantic = semantic
        self._mutex = mutex
        self._writing = writing  # lock + intent log around one write
        self._recover = recover  # finish a write a dead process left (lock held)
        self._ensure_root = ensure_root
        self._depth = 0
        self._catalog: list[dict[str, Any]] = []
        self._batch: list[tuple[Prepared, SaveReport]] = []
        self._count = 0
        self._cache_limit = store.branch_cache_limit

    def failed(self, exc: BaseException, what: str, untouched: bool) -> StoreError | None:
        """What a write that raised ``exc`` part way (lock held, intent open) becomes: a
        one-line StoreError for an OSError (a full disk, a name too long ...), else None
        (``exc`` as it is). If it changed no file of the store, its intent is closed:
        nothing needs repairing; otherwise the next write repairs, as after a crash."""
        if untouched:
            try:
                self.store.end_write()
            except OSError:
                untouched = False
        if not isinstance(exc, OSError) or isinstance(exc, StoreError):
            return None  # not a system error, or one already said in one line
        return from_os_error(exc, f"the {what}", "; nothing was changed" if untouched
                             else REPAIR_LATER)

    # ------------------------------------------------------------------ saves
    def commit(self, prepared: Prepared, report: SaveReport) -> None:
        """Store the leaves of one save (or queue them inside a bulk)."""
        with self._mutex:
            if self._depth:
                self._batch.append((prepared, report))
                self._count += len(prepared)
                if self._count >= BULK_BATCH:
                    self._commit_batch(reopen=True)
                return
            self.store.check_writable()
            with self._writing("save", lambda: record_for(
                    self.store, [leaf for leaf, _ in prepared], self.consolidator.pending)):
                root = copy_root(self._ensure_root())
                # Journalled first: a process killed once a leaf is on disk leaves it to
                # the next one. Vectors come right after, off the save's path.
                self.semantic.note([leaf for leaf, _ in prepared])
                lines = self._add_leaves(root, prepared, report, durable=True)
                written = {line["id"] for line in lines}
                self.semantic.later([leaf for leaf, _ in prepared if leaf.id in written],
                                    noted=True)
                self.store.catalog_append(lines)
                root["facts_size"] = self.facts_size()
                self.store.write_root(root)
                # Old memories an implicit link annotated are committed with the save.
                after_write(self.store, "save", report.ids + report.outdated,
                            prepared[0][0].text)

    def add_existing(self, root: dict[str, Any], prepared: Prepared,
                     report: SaveReport) -> list[dict[str, Any]]:
        """File leaves whose files a write that died had already written (lock held;
        :mod:`ihmt.recover`) exactly as that write would have. Returns their catalog lines."""
        return self._add_leaves(root, prepared, report, durable=False, existing=True)

    def _add_leaves(self, root: dict[str, Any], prepared: Prepared, report: SaveReport, *,
                    durable: bool, existing: bool = False) -> list[dict[str, Any]]:
        """Add new leaves to the trunk (``durable``: written and synced now; else kept
        pending until their batch writes them; ``existing``: on disk already), record
        their facts, run due events. Returns their catalog lines."""
        top_ids = {e["id"] for e in root["top"]}
        lines: list[dict[str, Any]] = []
        for leaf, tf in prepared:
            if (leaf.id in top_ids or leaf.id in self.consolidator.pending
                    or (not existing and self.store.leaf_exists(leaf.id, leaf.domain))):
                report.duplicates += 1
                continue
            if existing:
                pass
            elif durable:
                self.store.write_leaf(leaf, durable=True)
            else:
                self.consolidator.pending[leaf.id] = leaf
            entry = leaf_entry(leaf, tf)
            root["top"].append(entry)
            top_ids.add(leaf.id)
            root["n_leaves"] += 1
            root["total_len"] += entry["len"]
            dom = root["domains"].setdefault(leaf.domain, {"n_leaves": 0})
            dom["n_leaves"] += 1
            refile.count(root, leaf_scope(leaf), 1)
            report.new += 1
            facts = facts_of(leaf)
            if facts:
                report.notices.extend(str(n) for n in self.timeline.record_many(facts))
                self.link_versions(facts, report)
            lines.append({
                "id": leaf.id, "kind": "leaf",
                "path": f"layer_0/{leaf.domain}/{leaf.id}.txt", "domain": leaf.domain,
                "date": leaf.date, "saved_at": leaf.saved_at, "source": leaf.source,
                **({"scope": entry["scope"]} if "scope" in entry else {}),
            })
        report.events += len(self.consolidator.run(root))
        return lines

    def mark_outdated(self, old_id: str, new_id: str) -> dict[str, Any]:
        """See :meth:`ihmt.Memory.mark_outdated`."""
        if old_id == new_id:
            raise InputError("a memory cannot replace itself")
        old = self.store.read_leaf(old_id)
        new = self.store.read_leaf(new_id)
        with self._writing("mark_outdated"):
            self.timeline.mark_outdated(old_id, new_id, (new.date or utcnow())[:10])
            old = self.store.read_leaf(old_id)
            if old.extra.get("superseded_by") != new_id or "superseded_implicitly" in old.extra:
                old.extra["superseded_by"] = new_id
                old.extra.pop("superseded_implicitly", None)
                self.store.write_leaf(old, new=False)
            after_write(self.store, f"outdated by {new_id}", [old_id])
        return {"old": old_id, "new": new_id, "old_excerpt": clip_shown(old.text, 100),
                "new_excerpt": clip_shown(new.text, 100)}

    def link_versions(self, facts: list[Fact], report: SaveReport | None = None) -> None:
        """Record implicit supersessions (:mod:`ihmt.timeline.supersede`) exactly as a
        ``replaces`` correction: in the timeline and in the old leaf's own header. One
        project's memory never supersedes another project's."""
        for old, new, when in implicit_links(self.timeline, facts):
            leaf = self.consolidator.pending.get(old)
            pending = leaf is not None
            if leaf is None:
                try:
                    leaf = self.store.read_leaf(old)
                except (NotFoundError, DamagedFileError):
                    leaf = None
            if leaf is not None and _other_projects(leaf_scope(leaf), self._scope_of(new)):
                continue
            self.timeline.mark_outdated(old, new, when or None, implicit=True)
            if leaf is None:
                continue
            if not pending:
                if leaf.extra.get("superseded_by") != new:
                    leaf.extra.update(superseded_by=new, superseded_implicitly=True)
                    self.store.write_leaf(leaf, durable=not self._depth, new=False)
            else:
                leaf.extra.update(superseded_by=new, superseded_implicitly=True)
            if report is not None and new in report.ids:
                report.outdated.append(old)

    def _scope_of(self, leaf_id: str) -> str:
        leaf = self.consolidator.pending.get(leaf_id)
        if leaf is None:
            try:
                leaf = self.store.read_leaf(leaf_id)
            except (NotFoundError, DamagedFileError):
                return GLOBAL
        return leaf_scope(leaf)

    def facts_size(self) -> int:
        try:
            return self.timeline.path.stat().st_size
        except OSError:
            return 0

    # ------------------------------------------------------------------ bulk
    @contextmanager
    def bulk(self) -> Iterator[None]:
        """Batch saves: see the module docstring. Re-entrant; the outermost block commits."""
        with self._mutex:
            if self._depth == 0:
                self._begin_batch()
                # Consolidation only re-reads the latest siblings: keep the cache small
                # while loading, so a bulk load's memory does not grow with the store.
                self._cache_limit = self.store.branch_cache_limit
                self.store.branch_cache_limit = min(self._cache_limit, BULK_CACHE_LIMIT)
                self.timeline.sync = False  # each batch ends with os.sync()
            self._depth += 1
        try:
            yield
        finally:
            with self._mutex:
                if self._depth == 1:
                    # Still inside the bulk while its last batch commits: its saves are
                    # journalled and written like the batches before it.
                    try:
                        self._commit_batch(reopen=False)
                    finally:
                        self._depth = 0
                        self.store.branch_cache_limit = self._cache_limit
                        self.timeline.sync = True
                else:
                    self._depth -= 1

    def _begin_batch(self) -> None:
        """Start collecting a batch. No lock is taken here: the lock is held only while
        a batch commits, in chunks (:data:`LOCK_CHUNK`), so single saves and searches of
        other processes get in between, however long the caller takes between saves."""
        self.store.check_writable()
        self._catalog = []
        self._batch = []
        self._count = 0

    def _commit_batch(self, *, reopen: bool) -> None:
        batch, self._batch = self._batch, []
        self._count = 0
        items = [(leaf, tf, rep) for prepared, rep in batch for leaf, tf in prepared]
        if items:
            # Vectors and the grouping by similarity cost the most and need no lock.
            encoded = self.semantic.encode((leaf for leaf, _, _ in items), bulk=True)
            order = similarity_order([tf.keys() for _, tf, _ in items])
            for start in range(0, len(order), LOCK_CHUNK):
                if start:
                    # The lock is polled, not queued: a writer that took it again at once
                    # would starve the others, so leave them a window between chunks.
                    time.sleep(LOCK_GAP_S)
                self._commit_chunk([items[i] for i in order[start:start + LOCK_CHUNK]],
                                   encoded)
        if reopen:
            self._begin_batch()

    def _commit_chunk(self, items: list[tuple[Leaf, Counter[str], SaveReport]],
                      encoded: dict[str, tuple[list[str], list[Any]]] | None) -> None:
        """Similar memories of the batch go into the same branches (tighter bounds): the
        chunk is a run of the batch's similarity order, committed under the lock."""
        with self._writing("bulk", lambda: record_for(
                self.store, [leaf for leaf, _, _ in items], self.consolidator.pending)):
            root = copy_root(self._ensure_root())
            ids = {leaf.id for leaf, _, _ in items}
            if encoded:
                self.semantic.append({dom: ([i for i in got if i in ids],
                                            [b for i, b in zip(got, blocks) if i in ids])
                                      for dom, (got, blocks) in encoded.items()})
            catalog: list[dict[str, Any]] = []
            for leaf, tf, rep in items:
                catalog.extend(self._add_leaves(root, [(leaf, tf)], rep, durable=False))
            try:
                for leaf in list(self.consolidator.pending.values()):
                    self.store.write_leaf(leaf, durable=False)
            finally:
                self.consolidator.pending.clear()
            os.sync()
            self.store.catalog_append(catalog)
            root["facts_size"] = self.facts_size()
            self.store.write_root(root)
            after_write(self.store, "bulk", [lf.id for lf, _, _ in items]
                        + [old for _, _, rep in items for old in rep.outdated])


STATED_KEY = "states"  # leaf header (extra): facts the saver named, [subject, attribute, value]


def parse_states(states: str) -> list[str]:
    """``"user :: employer = Initech"`` -> ``["user", "employer", "Initech"]``."""
    if not isinstance(states, str):
        raise InputError("states must be text like 'user :: employer = Initech'")
    head, eq, value = states.partition("=")
    subject, sep, attribute = head.partition("::")
    parts = [" ".join(x.split()) for x in (subject, attribute, value)]
    if not (eq and sep and all(parts)) or len(parts[2]) > 200:
        raise InputError(f"states must look like 'user :: employer = Initech' (subject :: "
                         f"attribute = value, value under 200 characters), got {clip(states, 80)!r}")
    parts[0] = parts[0].lower()
    parts[1] = parts[1].lower()
    return parts


def _other_projects(a: str, b: str) -> bool:
    return a != b and a != GLOBAL and b != GLOBAL


def facts_of(leaf: Leaf) -> list[Fact]:
    """The facts and statements a dated, non-code leaf states (code states none), and the
    facts its saver named (``states``), dated by the leaf or the day it was saved.

    In a project's memory "we use pnpm for packages" is about that project, not about the
    user everywhere: facts read about ``user`` get the subject ``user @ <project>``, so
    another project's value neither supersedes nor contradicts it."""
    named = []
    for item in leaf.extra.get(STATED_KEY) or []:
        if isinstance(item, list) and len(item) == 3 and all(isinstance(x, str) and x
                                                             for x in item):
            when = (leaf.date or leaf.saved_at or "")[:10]
            if when:
                named.append(Fact(subject=item[0], attribute=item[1], value=item[2],
                                  date=when, source=leaf.id))
    if not leaf.date or leaf.data_type == "CODE":
        return named
    read = (extract_facts(leaf.text, leaf.date, source=leaf.id)
            + statement_facts(leaf.text, leaf.date, leaf.id))
    scope = leaf_scope(leaf)
    if scope != GLOBAL:
        for f in read:
            if f.subject == "user":
                f.subject = f"user @ {scope}"
    return named + read


def leaf_facts(leaf: Leaf, facts: list[Fact], marks: list[tuple[str, str, str]]) -> None:
    """What a leaf contributes to the timeline: its facts, and a correction it records."""
    facts.extend(facts_of(leaf))
    newer = leaf.extra.get("superseded_by")
    if isinstance(newer, str) and not leaf.extra.get("superseded_implicitly"):
        # (an inferred link is derived again from the statements: link_versions)
        marks.append((leaf.id, newer, (leaf.date or leaf.saved_at or "")[:10]))
