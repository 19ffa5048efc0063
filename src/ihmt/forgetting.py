"""Forgetting: a memory removed from every file of the store, not flagged.

The leaf goes, and so does everything derived from it: its place in the branches (their
term statistics, masks and summaries are written again without it, :mod:`ihmt.tree.prune`),
its catalog entry (a tombstone line), its vectors (erased where they lie,
:mod:`ihmt.semantic.erase`), the facts it stated and every outdated mark naming it (the
timeline is rewritten without them, so what it had superseded is current again, and the
versions that remain are linked again), and the ``superseded_by`` it had put into an
older memory's header. The trunk gets a new ``epoch``, so every other process drops the
branches it had cached.

Crash safety: before anything is removed, ``state/forgetting.json`` names the memories,
durably, under the write lock and the intent log. A process killed half way leaves the
marker and an unfinished intent; the next writer (or the next open) finishes the forget
from the marker (removes the leaves still there, rebuilds the tree from the leaves, cleans
the timeline and the vectors). So a memory is either fully there or fully gone.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from .errors import DamagedFileError, InputError, NotFoundError, UnreadableFileError
from .model import Fact, ForgetReport, Leaf
from .semantic.index import SemanticIndex
from .store import files
from .store.store import Store, copy_root, utcnow
from .sync.gitsync import after_write
from .text import clip, clip_shown, memory_terms
from .timeline.facts import FactTimeline
from .tree import refile
from .tree.consolidate import Consolidator
from .tree.prune import Pruner

log = logging.getLogger(__name__)

MARKER = "forgetting.json"
MAX_IDS = 10_000  # memories one call may forget


class Forgetter:
    """The forget path of one :class:`ihmt.Memory` (it shares the memory's lock)."""

    def __init__(self, store: Store, consolidator: Consolidator, timeline: FactTimeline,
                 semantic: SemanticIndex, writing: Callable[[str], AbstractContextManager[None]],
                 link_versions: Callable[[list[Fact]], None],
                 rebuild: Callable[[], dict[str, Any]]) -> None:
        self.store = store
        self.timeline = timeline
        self.semantic = semantic
        self.pruner = Pruner(consolidator)
        self._writing = writing
        self._link_versions = link_versions
        self._rebuild = rebuild

    @property
    def marker(self) -> Path:
        return self.store.state_dir / MARKER

    # ------------------------------------------------------------------ the forget
    def forget(self, ids: Iterable[str]) -> ForgetReport:
        wanted = _check_ids(ids)
        report = ForgetReport()
        self.store.check_writable()
        with self._writing("forget"):
            leaves = [self._leaf(i) for i in wanted]  # all found, or nothing is removed
            files.write_json(self.marker, {"ids": wanted, "at": utcnow()}, durable=True)
            for leaf in leaves:
                report.ids.append(leaf.id)
                report.excerpts[leaf.id] = clip_shown(leaf.text, 100)
            self._remove(leaves, report)
            self.marker.unlink(missing_ok=True)
            rels = [f"layer_0/{lf.domain}/{lf.id}.txt" for lf in leaves]
            after_write(self.store, "forget", report.ids, removed=rels)
        return report

    def _leaf(self, leaf_id: str) -> Leaf:
        try:
            return self.store.read_leaf(leaf_id)
        except UnreadableFileError as exc:
            raise InputError(f"{leaf_id} cannot be read ({exc}); fix the file's permissions "
                             "first, then forget it") from exc
        except DamagedFileError as exc:
            raise InputError(f"{leaf_id} has a damaged header and was moved to quarantine/ "
                             f"({exc}); delete it there") from exc

    def _remove(self, leaves: list[Leaf], report: ForgetReport) -> None:
        """Every step of a forget, in an order that a re-run from the marker finishes."""
        gone = {lf.id for lf in leaves}
        for leaf in leaves:
            self.store.delete_leaf(leaf.id, leaf.domain)
        self._clean_timeline(gone, report)
        root = copy_root(self.store.root())
        stem = self.store.config.stemmer
        moves = dict(root.get(refile.MOVES) or {})
        for leaf in leaves:
            if not self.pruner.remove(root, leaf, memory_terms(leaf.text, leaf.tags, stem)):
                report.rebuilt = True
            refile.count(root, refile.leaf_scope(leaf), -1)  # a move rewrote the header
            moves.pop(leaf.id, None)
        if refile.MOVES in root:
            root[refile.MOVES] = moves
        warning = self.semantic.forget(gone)
        if warning:
            report.warnings.append(warning)
        self.store.catalog_append([{"id": i, "forgotten": utcnow()} for i in sorted(gone)])
        if report.rebuilt:
            log.warning("forget: %s not found in the tree; rebuilding it from the leaves",
                        ", ".join(sorted(gone)))
            self._rebuild()
            return
        root["epoch"] = f"{utcnow()}+forget-{files.digest(*sorted(gone), length=8)}"
        root["facts_size"] = _size(self.timeline.path)
        self.store.write_root(root)

    def _clean_timeline(self, gone: set[str], report: ForgetReport) -> None:
        keys, freed, removed = self.timeline.forget(gone)
        report.facts_removed = removed
        for old in freed:  # their header named a forgotten memory as the newer one
            try:
                leaf = self.store.read_leaf(old)
            except (NotFoundError, DamagedFileError):
                continue
            if leaf.extra.get("superseded_by") in gone:
                leaf.extra.pop("superseded_by", None)
                leaf.extra.pop("superseded_implicitly", None)
                self.store.write_leaf(leaf, new=False)
        remaining = [f for s, a in keys for f in self.timeline.statements(s, a)]
        if remaining:
            self._link_versions(remaining)
        report.current_again = sorted(o for o in freed if self.timeline.outdated_by(o) is None)

    # ------------------------------------------------------------------ recovery
    def finish_interrupted(self) -> list[str]:
        """Called with the lock held before the rebuild that repairs an interrupted write:
        a forget named in the marker is carried through. Returns the ids it names."""
        try:
            data = files.read_json(self.marker)
            ids = [i for i in data.get("ids", []) if isinstance(i, str)]
        except FileNotFoundError:
            return []
        except (OSError, ValueError, AttributeError) as exc:
            log.warning("the marker of an interrupted forget cannot be read (%s)", exc)
            return []
        for leaf_id in ids:
            try:
                self.store.delete_leaf(leaf_id)
            except (NotFoundError, OSError) as exc:
                log.warning("interrupted forget: %s: %s", leaf_id, exc)
        return ids

    def after_rebuild(self, ids: list[str]) -> None:
        """The rest of an interrupted forget, once the tree was rebuilt without it."""
        gone = set(ids)
        self._clean_timeline(gone, ForgetReport())
        self.semantic.forget(gone)
        root = copy_root(self.store.root())
        root["facts_size"] = _size(self.timeline.path)
        self.store.write_root(root)
        self.marker.unlink(missing_ok=True)


def _check_ids(ids: Iterable[str]) -> list[str]:
    if isinstance(ids, str):
        ids = [ids]
    try:
        wanted = list(dict.fromkeys(i.strip() for i in ids))
    except (TypeError, AttributeError) as exc:
        raise InputError("forget needs memory ids (like L-notes-1a2b3c4d5e6f)") from exc
    if not wanted or not all(wanted):
        raise InputError("forget needs at least one memory id (like L-notes-1a2b3c4d5e6f)")
    if len(wanted) > MAX_IDS:
        raise InputError(f"at most {MAX_IDS} memories can be forgotten in one call")
    bad = [i for i in wanted if not i.startswith("L-")]
    if bad:
        raise InputError(f"{clip(bad[0], 60)!r} is not a memory id: ids look like "
                         "L-notes-1a2b3c4d5e6f (search shows them)")
    return wanted


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
