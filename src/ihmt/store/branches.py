"""The branch files of a store: where they lie, how they are read (both formats), written
and removed, and the process's cache of them (:class:`BranchFiles`, a part of
:class:`ihmt.store.store.Store`).

Branch files change only when a forget takes a memory out of them, and a forget gives
the trunk a new ``epoch``: a long-running process caches them and drops its cache when it
sees another epoch (:meth:`ihmt.store.store.Store.root`).
"""

from __future__ import annotations

import json
import logging
import threading
from collections import OrderedDict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import DamagedFileError, NotFoundError
from . import branch_cache, branch_file, files
from .branch import Branch, BranchBase, pack_masks
from .branch_file import Bucket, PackedBranch

log = logging.getLogger(__name__)


class BranchFiles:
    """The branch side of a :class:`ihmt.store.store.Store` (a mixin: it uses the store's
    ``path``, ``state_dir`` and ``changes``)."""

    path: Path
    changes: int
    # True: new branches are written in the first format (JSON), as IHMT did before
    # ihmt.store.branch_file; only tests set it, to make stores as they were written then.
    legacy_branches = False

    @property
    def state_dir(self) -> Path:
        return self.path / "state"

    def _init_branches(self) -> None:
        self._branches: OrderedDict[str, BranchBase] = OrderedDict()
        self._cache_lock = threading.Lock()  # tool calls arrive on worker threads
        self._branch_weight = 0
        self.branch_cache_limit = 1_500_000  # term entries kept in memory (LRU), ~200 MB
        # True: packed copies of large first-format branches (ihmt.store.branch_cache) are
        # kept for write_deferred_cache() instead of written at once (a hook answers first).
        self.defer_branch_cache = False
        self._deferred: list[tuple[str, bytes, Branch]] = []

    def _drop_branches(self) -> None:
        with self._cache_lock:
            self._branches.clear()
            self._branch_weight = 0

    def branch_path(self, node_id: str, layer: int) -> Path:
        """The branch's file, ``layers/<N>/<id>.json``: of the current format
        (:mod:`ihmt.store.branch_file`) or, in a store written before it, of the first
        one (one JSON object), read as it is and replaced when the branch is next written."""
        if not files.valid_id(node_id):
            raise NotFoundError(f"{node_id!r} is not a node id")
        return self.path / "layers" / str(int(layer)) / f"{node_id}.json"

    def branch_exists(self, node_id: str, layer: int) -> bool:
        return self.branch_path(node_id, layer).exists()

    def write_branch(self, data: dict[str, Any]) -> BranchBase:
        """Write a new branch (``data`` as the consolidator builds it: ``terms`` and
        ``masks`` as dicts) in the current format, or the first one when
        :attr:`legacy_branches` says so (tests of stores written before it)."""
        node_id, layer = data["id"], int(data["layer"])
        if self.legacy_branches:
            if data.get("masks") is not None:
                data["masks"], data["mask_bytes"] = pack_masks(
                    [m for ms in data["masks"].values() for m in ms])
            files.write_json(self.branch_path(node_id, layer), data)
            self.changes += 1
            # The packed copy of the old file goes with it (a reader would ignore it
            # anyway: it is checked against the file's bytes; this keeps no stale copy).
            branch_cache.forget(self.state_dir, node_id)
            branch: BranchBase = Branch(data)
            self._cache_branch(branch)
            return branch
        return self.write_branch_file(node_id, layer, branch_file.encode_data(data))

    def write_branch_file(self, node_id: str, layer: int, blob: bytes,
                          decoded: dict[int, Bucket] | None = None) -> PackedBranch:
        """Put a branch file of the current format in place (whole, renamed over the old
        one: a reader has the old or the new version). ``decoded``: buckets of it the
        writer has parsed already."""
        branch = PackedBranch(blob, node_id, decoded)
        files.atomic_write(self.branch_path(node_id, layer), blob)
        self.changes += 1
        branch_cache.forget(self.state_dir, node_id)  # a packed copy of a first-format file
        self._cache_branch(branch)
        return branch

    def remove_branch(self, node_id: str, layer: int) -> None:
        """Delete a branch file that no longer has children (a forget; lock held)."""
        with self._cache_lock:
            old = self._branches.pop(node_id, None)
            if old is not None:
                self._branch_weight -= old.weight()
        self.changes += 1
        self.branch_path(node_id, layer).unlink(missing_ok=True)
        branch_cache.forget(self.state_dir, node_id)

    def branch(self, node_id: str, layer: int) -> tuple[BranchBase, bool]:
        """The branch and whether it had to be read from disk (False: served from cache)."""
        with self._cache_lock:
            cached = self._branches.get(node_id)
            if cached is not None:
                self._branches.move_to_end(node_id)
                return cached, False
        try:
            blob = self.branch_path(node_id, layer).read_bytes()
        except FileNotFoundError as exc:
            raise DamagedFileError(f"branch {node_id} is missing") from exc
        except OSError as exc:
            raise DamagedFileError(f"branch {node_id} cannot be read ({exc})") from exc
        if branch_file.is_branch_file(blob):
            branch: BranchBase = PackedBranch(blob, node_id)
            if branch.id != node_id:
                raise DamagedFileError(f"branch {node_id}: the file holds {branch.id}")
        else:
            branch = self._legacy_branch(node_id, blob)
        self._cache_branch(branch)
        return branch, True

    def _legacy_branch(self, node_id: str, raw: bytes) -> Branch:
        """A branch of the first format (one JSON object with its whole term table)."""
        # A large file's packed form, kept by an earlier process (derived, checked against
        # these very bytes; see ihmt.store.branch_cache).
        branch = branch_cache.load(self.state_dir, node_id, raw)
        if branch is None:
            try:
                data = json.loads(raw.decode("utf-8"))
            except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError
                raise DamagedFileError(f"branch {node_id} cannot be parsed ({exc})") from exc
            if not isinstance(data, dict):
                raise DamagedFileError(f"branch {node_id} is not a JSON object")
            branch = Branch(data)
            if not self.defer_branch_cache:
                branch_cache.save(self.state_dir, node_id, raw, branch)
            elif len(raw) >= branch_cache.MIN_BYTES:
                self._deferred.append((node_id, raw, branch))
        return branch

    def write_deferred_cache(self) -> int:
        """Write the packed copies kept while :attr:`defer_branch_cache` was on; returns how
        many were written or tried (failures are ignored, as a cache's are)."""
        n = 0
        while self._deferred:
            node_id, raw, branch = self._deferred.pop(0)
            branch_cache.save(self.state_dir, node_id, raw, branch)
            n += 1
        return n

    def _cache_branch(self, branch: BranchBase) -> None:
        with self._cache_lock:
            old = self._branches.pop(branch.id, None)
            if old is not None:
                self._branch_weight -= old.weight()
            self._branches[branch.id] = branch
            self._branch_weight += branch.weight()
            while self._branch_weight > self.branch_cache_limit and len(self._branches) > 1:
                _, dropped = self._branches.popitem(last=False)
                self._branch_weight -= dropped.weight()

    def iter_branch_paths(self) -> Iterator[Path]:
        base = self.path / "layers"
        if not base.is_dir():
            return
        for layer_dir in sorted(base.iterdir(), key=lambda p: (len(p.name), p.name)):
            if layer_dir.is_dir() and layer_dir.name.isdigit():
                yield from sorted(layer_dir.glob("N*.json"))
