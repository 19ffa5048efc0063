"""Scopes in the tree: counting them, reading an entry's scope, re-filing a memory.

The truth is the leaf header (``extra["scope"]``, :mod:`ihmt.scope`). Two derived copies
let a search filter without opening a leaf:

- each trunk/branch child entry of a leaf carries ``"scope"`` when it is not global
  (:func:`ihmt.tree.consolidate.leaf_entry`, one of the keys that travel into branches);
- the trunk keeps ``"scopes"``, the number of memories of each project (global ones are
  the rest of ``n_leaves``, so a store from before scopes counts right with no key), and
  ``"scope_moves"``, the new scope of each memory re-filed since its branch was written
  (branch files never change). A rebuild writes every entry from the leaves again and
  empties it.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from ..model import Leaf
from ..scope import GLOBAL, SCOPE_KEY, scope_of
from ..store.store import Store, copy_root

COUNTS = "scopes"
MOVES = "scope_moves"


def leaf_scope(leaf: Leaf) -> str:
    return scope_of(leaf.extra)


def set_leaf_scope(leaf: Leaf, scope: str) -> None:
    if scope == GLOBAL:
        leaf.extra.pop(SCOPE_KEY, None)
    else:
        leaf.extra[SCOPE_KEY] = scope


def entry_scope(entry: dict[str, Any], moves: dict[str, str] | None) -> str:
    """The scope of a leaf's trunk/child entry, a later move included."""
    if moves:
        moved = moves.get(entry["id"])
        if moved is not None:
            return moved
    value = entry.get("scope")
    return value if isinstance(value, str) and value else GLOBAL


def count(root: dict[str, Any], scope: str, n: int) -> None:
    """Add ``n`` memories to ``scope`` in a trunk being written (a copy: the cached trunk
    other threads read is never changed in place)."""
    if scope == GLOBAL or n == 0:
        return
    counts = dict(root.get(COUNTS) or {})
    left = int(counts.get(scope, 0)) + n
    if left > 0:
        counts[scope] = left
    else:
        counts.pop(scope, None)
    root[COUNTS] = counts


def counts(root: dict[str, Any]) -> dict[str, int]:
    """Memories per scope, global first, then projects by size (true counts)."""
    projects = {str(k): int(v) for k, v in (root.get(COUNTS) or {}).items() if int(v) > 0}
    n_global = int(root.get("n_leaves", 0)) - sum(projects.values())
    out = {GLOBAL: max(0, n_global)}
    out.update(sorted(projects.items(), key=lambda kv: (-kv[1], kv[0])))
    return out


def move(store: Store, root: dict[str, Any], leaf: Leaf, scope: str) -> str:
    """Re-file ``leaf`` to ``scope`` (the caller holds the write lock and writes ``root``).

    The header is rewritten first, atomically and synced: if the process dies before the
    trunk is written, the interrupted write makes the next writer rebuild the tree from the
    headers, which already say the new scope. Returns the scope it had.
    """
    old = leaf_scope(leaf)
    set_leaf_scope(leaf, scope)
    store.write_leaf(leaf, durable=True, new=False)
    top = root["top"]
    for i, entry in enumerate(top):
        if entry["id"] == leaf.id and int(entry["layer"]) == 0:
            fresh = dict(entry)
            fresh.pop("scope", None)
            if scope != GLOBAL:
                fresh["scope"] = scope
            top[i] = fresh
            break
    else:  # inside a branch file, which is never rewritten: the trunk remembers the move
        moves = dict(root.get(MOVES) or {})
        moves[leaf.id] = scope
        root[MOVES] = moves
    count(root, old, -1)
    count(root, scope, 1)
    store.catalog_append([{"id": leaf.id, "scope": scope}])
    return old


def move_memory(store: Store, writing: Callable[[str], AbstractContextManager[None]],
                leaf_id: str, scope: str) -> dict[str, str]:
    """:meth:`ihmt.Memory.move`: ``writing`` holds the write lock and the intent mark."""
    store.read_leaf(leaf_id)  # an unknown id fails here, before anything is written
    with writing("move"):
        leaf = store.read_leaf(leaf_id)
        old = leaf_scope(leaf)
        if old != scope:
            root = copy_root(store.root())
            move(store, root, leaf, scope)
            store.write_root(root)
            from ..sync.gitsync import after_write  # a search does not need git

            after_write(store, f"moved {leaf_id} to {scope}", [leaf_id])
    return {"id": leaf_id, "from": old, "to": scope}
