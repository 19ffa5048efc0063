"""Taking one leaf out of the tree: what forgetting a memory does to the derived files.

A leaf's words live on above it: its parent branch holds its title, its excerpt and its
exact term counts, and every branch up to the trunk holds term statistics, slot masks and
a summary that its words may have shaped. So the branches on the leaf's path are written
again, bottom up, from their remaining children, exactly as a Summarization Event would
write them (:meth:`ihmt.tree.consolidate.Consolidator.build_branch`). The cost is one
branch per level plus the siblings it reads (most of them already cached): it grows with
the depth of the tree, not with the number of memories.

The rewritten branches keep their ids, so the leaves below them keep their ``parent_id``
and nothing else is rewritten; the caller gives the trunk a new ``epoch``, which makes
every other process drop the branches it cached. A branch left without children goes
away with its file.

The leaf is found without a parent index: a descent from the trunk that follows only the
children whose statistics hold a few of the leaf's own terms (every ancestor holds them
all), so it opens about one branch per level.
"""

from __future__ import annotations

import logging
from collections import Counter
from typing import Any

from ..errors import DamagedFileError
from ..model import Leaf
from ..store.branch import Branch
from .consolidate import Consolidator, top_entry_of_branch

log = logging.getLogger(__name__)

PROBES = 4  # leaf terms checked at each level of the descent that finds the leaf


def leaf_counts(branch: Branch) -> dict[int, dict[str, int]]:
    """Per child index, the exact term counts of the leaf children of ``branch`` (a leaf
    child's groups are exact: its count of each term, its length, 1)."""
    out: dict[int, dict[str, int]] = {}
    leaf_kids = {i for i, c in enumerate(branch.children) if int(c["layer"]) == 0}
    if not leaf_kids:
        return out
    shift = branch.band_bits
    for term in branch.terms:
        g = branch.groups(term)
        if g is None:
            continue
        for k in range(0, len(g), 4):
            ci = g[k] >> shift
            if ci in leaf_kids:
                out.setdefault(ci, {})[term] = int(g[k + 1])
    return out


class Pruner:
    """Removes leaves from the tree of a store whose write lock the caller holds."""

    def __init__(self, consolidator: Consolidator) -> None:
        self.consolidator = consolidator
        self.store = consolidator.store

    def remove(self, root: dict[str, Any], leaf: Leaf, tf: Counter[str]) -> bool:
        """Take ``leaf`` out of the tree whose trunk is ``root`` (mutated; the caller
        writes it). False when the leaf is nowhere in the tree (the caller rebuilds)."""
        top = root["top"]
        for i, entry in enumerate(top):
            if entry["id"] == leaf.id and int(entry["layer"]) == 0:
                del top[i]
                self._count_out(root, leaf.domain, int(entry.get("len", 0)))
                return True
        try:
            path = self._path(root, leaf, tf)
        except DamagedFileError as exc:
            log.warning("the tree above %s cannot be read (%s)", leaf.id, exc)
            return False
        if path is None:
            return False
        removed: str | None = leaf.id
        changed: tuple[str, dict[str, Any]] | None = None
        gone: list[Branch] = []
        length = 0
        for branch in reversed(path):
            counts = leaf_counts(branch)
            members: list[dict[str, Any]] = []
            for ci, child in enumerate(branch.children):
                if child["id"] == removed:
                    length = length or int(child.get("len", child.get("total_len", 0)))
                    continue
                if changed is not None and child["id"] == changed[0]:
                    members.append(changed[1])
                    continue
                member = dict(child)
                if int(child["layer"]) == 0:
                    member["tf"] = counts.get(ci, {})
                    member.setdefault("len", sum(member["tf"].values()))
                members.append(member)
            if not members:
                gone.append(branch)
                removed, changed = branch.id, None
                continue
            data = self.consolidator.build_branch(members, branch.domain, branch.layer)
            data["id"] = branch.id  # same id: the leaves below keep their parent_id
            self.store.write_branch(data)
            removed, changed = None, (branch.id, top_entry_of_branch(data))
        head = path[0]
        for i, entry in enumerate(top):
            if entry["id"] == head.id:
                if changed is None:
                    del top[i]
                else:
                    top[i] = changed[1]
                break
        for branch in gone:
            self.store.remove_branch(branch.id, branch.layer)
        root["n_branches"] = max(0, int(root.get("n_branches", 0)) - len(gone))
        self._count_out(root, leaf.domain, length or sum(tf.values()))
        return True

    @staticmethod
    def _count_out(root: dict[str, Any], domain: str, length: int) -> None:
        root["n_leaves"] = max(0, int(root["n_leaves"]) - 1)
        root["total_len"] = max(0, int(root["total_len"]) - length)
        dom = root["domains"].get(domain)
        if dom is not None:
            dom["n_leaves"] = max(0, int(dom.get("n_leaves", 1)) - 1)
            if not dom["n_leaves"]:
                del root["domains"][domain]

    def _path(self, root: dict[str, Any], leaf: Leaf, tf: Counter[str]) -> list[Branch] | None:
        """The branches from a top node down to the leaf's parent, or None."""
        probes = sorted(tf, key=lambda t: (-len(t), t))[:PROBES]
        for entry in root["top"]:
            if entry["domain"] == leaf.domain and int(entry["layer"]) > 0:
                found = self._descend(entry["id"], int(entry["layer"]), leaf.id, probes)
                if found is not None:
                    return found
        return None

    def _descend(self, node_id: str, layer: int, target: str,
                 probes: list[str]) -> list[Branch] | None:
        branch, _ = self.store.branch(node_id, layer)
        kids: set[int] | None = None
        for term in probes:
            g = branch.groups(term)
            if g is None:
                return None
            has = {g[k] >> branch.band_bits for k in range(0, len(g), 4)}
            kids = has if kids is None else kids & has
            if not kids:
                return None
        order = sorted(kids) if kids is not None else range(len(branch.children))
        for ci in order:
            child = branch.children[ci]
            if child["id"] == target:
                return [branch]
            if int(child["layer"]) > 0:
                below = self._descend(child["id"], int(child["layer"]), target, probes)
                if below is not None:
                    return [branch, *below]
        return None
