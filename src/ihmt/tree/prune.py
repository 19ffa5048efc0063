"""Taking one leaf out of the tree: what forgetting a memory does to the derived files.

A leaf's words live on above it: its parent branch holds its title, excerpt and exact term
counts, and every branch up to the trunk holds its terms' statistics and slot masks, and a
summary its words may have shaped. So every branch on the leaf's path is written again
without it, but only where the leaf counted:

- in its parent, the leaf's entry becomes a *placeholder* (``{"gone": 1}``, no id, no
  text, no terms) and the groups of the leaf's terms lose the leaf. The placeholder keeps
  the other children at their index and the branch at its slot width, so every mask above
  stays valid (see :class:`ihmt.store.branch.Branch`);
- in each ancestor, only the groups of those same terms are computed again for the child
  that changed, from that child's new statistics; a term that no leaf below holds any
  more is dropped from the branch;
- counts, dates, scopes and the summary are recomputed from the children that remain.

So the work is per level proportional to the forgotten memory's own terms: only the
buckets of the branch file that hold them (:mod:`ihmt.store.branch_file`) are decoded and
encoded again, the other buckets' bytes are copied into the new file as they are, and no
term table is parsed whole. (A branch still in the first format, one JSON object, is
read whole and rewritten in the current one the first time.) Branches keep their ids: the leaves below keep
their ``parent_id``, and the caller gives the trunk a new ``epoch`` so every other process
drops the branches it had cached. A rebuild from the leaves writes the tree without
placeholders.

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
from ..scope import GLOBAL
from ..store import branch_file
from ..store.branch import BranchBase
from ..store.branch_file import BranchEdit, PackedBranch
from ..store.store import length_band
from .consolidate import Consolidator, _minmax_dates, scopes_below, top_entry_of_branch

log = logging.getLogger(__name__)

PROBES = 8  # leaf terms checked at each level of the descent that finds the leaf
GONE = "gone"  # key of a placeholder child: a forgotten leaf's place


def is_gone(child: dict[str, Any]) -> bool:
    """Whether a branch's child entry is the placeholder of a forgotten leaf."""
    return bool(child.get(GONE))


def live_children(children: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The entries that stand for memories (placeholders left out)."""
    return [c for c in children if not c.get(GONE)]


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
        parent = path[-1]
        ci = next(i for i, c in enumerate(parent.children) if c.get("id") == leaf.id)
        length = int(parent.children[ci].get("len", 0)) or sum(tf.values())
        edit = self._edit(parent)
        # the leaf's terms as the tree holds them (its exact counts add up to its length)
        words = edit.child_terms(ci, tf, int(parent.children[ci].get("len", 0)))
        for term in words:
            edit.replace(term, ci, [])
        edit.data["children"][ci] = {"id": "", "layer": 0, GONE: 1, "domain": leaf.domain,
                                     "n_leaves": 0, "total_len": 0, "len": 0}
        changed = self._write(edit)
        for branch in reversed(path[:-1]):
            edit = self._edit(branch)
            children = edit.data["children"]
            ci = next(i for i, c in enumerate(children) if c.get("id") == changed.id)
            for term in words:
                sigs = changed.band_signatures(term)
                edit.replace(term, ci, [(band, *sig) for band, sig in sorted(sigs.items())])
            entry = children[ci]
            fresh = top_entry_of_branch(changed.data)
            entry.update({k: v for k, v in fresh.items() if k in entry or k == "scopes"})
            if "scopes" not in fresh:
                entry.pop("scopes", None)
            changed = self._write(edit)
        for i, entry in enumerate(top):
            if entry["id"] == changed.id:
                top[i] = top_entry_of_branch(changed.data)
                break
        self._count_out(root, leaf.domain, length)
        return True

    @staticmethod
    def _edit(branch: BranchBase) -> BranchEdit:
        """An edit of ``branch``; one of the first format is rewritten in the current one."""
        if not isinstance(branch, PackedBranch):
            branch = branch_file.convert(branch)
        return BranchEdit(branch)

    def _write(self, edit: BranchEdit) -> PackedBranch:
        """Counts, dates, scopes and summary from the children left; then the file."""
        data = edit.data
        live = live_children(data["children"])
        data["n_leaves"] = sum(int(c.get("n_leaves", 1)) for c in live)
        data["total_len"] = sum(int(c.get("total_len", 0)) for c in live)
        data["date_from"], data["date_to"] = _minmax_dates(live)
        scopes = scopes_below(live) if live else [GLOBAL]
        if scopes != [GLOBAL]:
            data["scopes"] = scopes
        else:
            data.pop("scopes", None)
        if live:
            summary = self.consolidator.summarizer.summarize(live, domain=data["domain"],
                                                             layer=int(data["layer"]))
            data["title"], data["summary"] = summary.title, summary.summary
            data["keywords"] = summary.keywords
        else:
            data["title"], data["summary"], data["keywords"] = "", "", []
        blob = edit.encode()
        return self.store.write_branch_file(data["id"], int(data["layer"]), blob, edit.decoded)

    @staticmethod
    def _count_out(root: dict[str, Any], domain: str, length: int) -> None:
        root["n_leaves"] = max(0, int(root["n_leaves"]) - 1)
        root["total_len"] = max(0, int(root["total_len"]) - length)
        dom = root["domains"].get(domain)
        if dom is not None:
            dom["n_leaves"] = max(0, int(dom.get("n_leaves", 1)) - 1)
            if not dom["n_leaves"]:
                del root["domains"][domain]

    def _path(self, root: dict[str, Any], leaf: Leaf, tf: Counter[str]) -> list[BranchBase] | None:
        """The branches from a top node down to the leaf's parent, or None.

        First only children holding the probes in the leaf's own length band are followed
        (a branch keeps a term's statistics per band, and the leaf's band holds all of its
        terms); if the tree does not count the leaf as it is counted now, every band."""
        probes = sorted(tf, key=lambda t: (-len(t), t))[:PROBES]
        for band in (length_band(sum(tf.values())), None):
            for entry in root["top"]:
                if entry["domain"] == leaf.domain and int(entry["layer"]) > 0:
                    found = self._descend(entry["id"], int(entry["layer"]), leaf, probes, band)
                    if found is not None:
                        return found
        return None

    def _descend(self, node_id: str, layer: int, leaf: Leaf, probes: list[str],
                 band: int | None) -> list[BranchBase] | None:
        branch, _ = self.store.branch(node_id, layer)
        bits = branch.band_bits
        low = (1 << bits) - 1 if band is not None and bits else 0
        kids: set[int] | None = None
        for term in probes:
            g = branch.groups(term)
            if g is None:
                return None
            has = {g[k] >> bits for k in range(0, len(g), 4) if not low or g[k] & low == band}
            kids = has if kids is None else kids & has
            if not kids:
                return None
        order = sorted(kids) if kids is not None else list(range(len(branch.children)))
        # the branch its header names as its parent first (it is right unless stale)
        order.sort(key=lambda ci: branch.children[ci].get("id") != leaf.parent)
        for ci in order:
            child = branch.children[ci]
            if child.get("id") == leaf.id:
                return [branch]
            if int(child["layer"]) > 0:
                below = self._descend(child["id"], int(child["layer"]), leaf, probes, band)
                if below is not None:
                    return [branch, *below]
        return None
