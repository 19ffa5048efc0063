"""Maintenance of the semantic vectors, for :class:`ihmt.Memory`: re-encoding them from the
leaves, queueing the missing ones, rebuilding the routing trees. Each holds the memory's
mutex and the store's write lock while it reads the leaves."""

from __future__ import annotations

import threading
from collections.abc import Callable

from ..errors import DamagedFileError, InputError, NotFoundError
from ..store.store import Store
from .index import SemanticIndex


def rebuild_embeddings(store: Store, semantic: SemanticIndex, mutex: threading.RLock, *,
                       everything: bool, progress: Callable[[int, int], None] | None,
                       wait_s: float) -> dict[str, int]:
    """See :meth:`ihmt.Memory.rebuild_embeddings`."""
    if not semantic.active:
        raise InputError(semantic.reason)
    semantic.wait(timeout=wait_s)  # before the lock: the worker needs it
    with mutex, store.lock.hold():
        leaves = []
        for path in store.iter_leaf_paths():
            try:
                leaves.append(store.read_leaf(path.stem, path.parent.name))
            except (DamagedFileError, NotFoundError):
                continue
        return semantic.rebuild(leaves, everything=everything, progress=progress)


def queue_missing_vectors(store: Store, semantic: SemanticIndex,
                          mutex: threading.RLock) -> int:
    """See :meth:`ihmt.Memory.queue_missing_vectors`."""
    if not semantic.active:
        return 0
    with mutex, store.lock.hold():
        vs = semantic.vectors
        vs.refresh()
        todo = []
        for path in store.iter_leaf_paths():
            if vs.has(path.stem):
                continue
            try:
                todo.append(store.read_leaf(path.stem, path.parent.name))
            except (DamagedFileError, NotFoundError):
                continue
        semantic.later(todo)
    return len(todo)


def rebuild_routing(store: Store, semantic: SemanticIndex,
                    mutex: threading.RLock) -> dict[str, int]:
    """See :meth:`ihmt.Memory.rebuild_routing`."""
    if not semantic.active:
        raise InputError(semantic.reason)
    with mutex, store.lock.hold():
        return semantic.rebuild_routing()
