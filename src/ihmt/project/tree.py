"""The project index's tree: leaves in path order grouped into branches at content-defined
boundaries, so an edit rewrites only the few branches around it (see :mod:`.index`)."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable
from typing import Any

from ..errors import DamagedFileError
from ..model import Leaf
from ..store import files
from ..store.store import Store, domain_of_id, empty_root
from ..tree.consolidate import leaf_entry, top_entry_of_branch

BRANCH_DOMAIN = "project"


def build_tree(store: Store, consolidator: Any, order: list[str],
               fresh: dict[str, tuple[Leaf, Counter[str]]], rep: Any, *, full: bool,
               leaf_terms: Callable[[Leaf, str], Counter[str]]) -> None:
    """Group the leaves (in path order) into branches up to a trunk of at most
    ``branch_factor`` nodes, reusing every branch whose children did not change."""
    bf = store.config.branch_factor
    entries: dict[str, dict[str, Any]] = {}

    def leaf_ent(leaf_id: str) -> dict[str, Any]:
        e = entries.get(leaf_id)
        if e is None:
            got = fresh.get(leaf_id)
            if got is None:
                leaf = store.read_leaf(leaf_id)
                rep.leaves_read += 1
                got = (leaf, leaf_terms(leaf, store.config.stemmer))
            e = entries[leaf_id] = leaf_entry(*got)
        return e

    def branch_ent(node_id: str, layer: int) -> dict[str, Any]:
        br, _ = store.branch(node_id, layer)
        return top_entry_of_branch(br.data)

    if full:
        store.clear_cache()
    live: set[str] = set()
    level: list[tuple[str, int]] = [(i, 0) for i in order]
    layer = 0
    while len(level) > bf:
        nxt: list[tuple[str, int]] = []
        for group in _cut(level, bf):
            ids = [g[0] for g in group]
            node_id = f"N{layer + 1}-{BRANCH_DOMAIN}-" + files.digest(
                BRANCH_DOMAIN, str(layer + 1), *ids)
            if not full and store.branch_exists(node_id, layer + 1):
                rep.branches_kept += 1
            else:
                members = [leaf_ent(i) if lay == 0 else branch_ent(i, lay)
                           for i, lay in group]
                data = consolidator.build_branch(members, BRANCH_DOMAIN, layer + 1)
                data["id"] = node_id
                store.write_branch(data)
                rep.branches_written += 1
            live.add(node_id)
            nxt.append((node_id, layer + 1))
        level = nxt
        layer += 1
    top = [leaf_ent(i) if lay == 0 else branch_ent(i, lay) for i, lay in level]
    try:
        old = store.root()
        epoch = old.get("epoch")
        generation = int(old.get("generation", 0))
    except DamagedFileError:
        epoch, generation = None, 0
    root = empty_root()
    if epoch and not full:
        root["epoch"] = epoch
    root["generation"] = generation
    root["top"] = top
    root["n_leaves"] = len(order)
    root["total_len"] = sum(int(e.get("total_len", e.get("len", 0))) for e in top)
    root["n_branches"] = len(live)
    doms: Counter[str] = Counter(domain_of_id(i) for i in order)
    root["domains"] = {d: {"n_leaves": n} for d, n in sorted(doms.items())}
    store.write_root(root)
    for p in list(store.iter_branch_paths()):
        if p.stem not in live:
            p.unlink(missing_ok=True)
            rep.branches_deleted += 1


def _cut(level: list[tuple[str, int]], bf: int) -> list[list[tuple[str, int]]]:
    """Split a row of nodes into groups that end where a node's id hash says so (about one
    in ``bf``), at least 2 and at most ``2 * bf`` long: boundaries depend only on nearby
    ids, so a change moves only the groups around it."""
    groups: list[list[tuple[str, int]]] = []
    cur: list[tuple[str, int]] = []
    for node in level:
        cur.append(node)
        h = int(hashlib.blake2b(node[0].encode(), digest_size=4).hexdigest(), 16)
        if len(cur) >= 2 and (h % bf == 0 or len(cur) >= 2 * bf):
            groups.append(cur)
            cur = []
    if cur:
        groups.append(cur)
    return groups
