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

So the work is per level proportional to the forgotten memory's own terms, plus reading
and writing each branch file on the path. Branches keep their ids: the leaves below keep
their ``parent_id``, and the caller gives the trunk a new ``epoch`` so every other process
drops the branches it had cached. A rebuild from the leaves writes the tree without
placeholders.

The leaf is found without a parent index: a descent from the trunk that follows only the
children whose statistics hold a few of the leaf's own terms (every ancestor holds them
all), so it opens about one branch per level.
"""

from __future__ import annotations

import base64
import logging
import zlib
from collections import Counter
from typing import Any

from ..errors import DamagedFileError
from ..model import Leaf
from ..scope import GLOBAL
from ..store import files
from ..store.branch import Branch
from .consolidate import Consolidator, _minmax_dates, scopes_below, top_entry_of_branch

log = logging.getLogger(__name__)

PROBES = 4  # leaf terms checked at each level of the descent that finds the leaf
GONE = "gone"  # key of a placeholder child: a forgotten leaf's place


def is_gone(child: dict[str, Any]) -> bool:
    """Whether a branch's child entry is the placeholder of a forgotten leaf."""
    return bool(child.get(GONE))


def live_children(children: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The entries that stand for memories (placeholders left out)."""
    return [c for c in children if not c.get(GONE)]


class _Groups:
    """The term groups and slot masks of one branch file, edited term by term."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data
        self.terms: dict[str, list[int]] = data["terms"]
        self.bits = int(data.get("bands", 0))
        self.width = int(data.get("mask_bytes", 0))
        self.raw: bytes | None = None
        self.offset: dict[str, int] = {}
        self.edited: dict[str, list[int]] = {}  # term -> its new masks (when masked)
        if data.get("masks") is not None and self.width:
            n = 0
            for term, groups in self.terms.items():
                self.offset[term] = n
                n += len(groups) // 4
            self.raw = zlib.decompress(base64.b64decode(data["masks"]))

    def masks(self, term: str) -> list[int]:
        if term in self.edited:
            return self.edited[term]
        o, w = self.offset[term], self.width
        n = len(self.terms[term]) // 4
        raw = self.raw
        assert raw is not None
        return [int.from_bytes(raw[(o + j) * w:(o + j + 1) * w], "little") for j in range(n)]

    def child_terms(self, ci: int) -> list[str]:
        """Terms with a group of child ``ci``."""
        b = self.bits
        return [t for t, g in self.terms.items()
                if any(g[k] >> b == ci for k in range(0, len(g), 4))]

    def replace(self, term: str, ci: int, new: list[tuple[int, int, int, int, int]]) -> None:
        """Child ``ci``'s groups of ``term`` become ``new`` ((band, max_tf, min_len, df,
        mask) per band); the term goes when no child holds it any more."""
        g = self.terms.get(term)
        if g is None and not new:
            return
        b = self.bits
        old = g or []
        ms = self.masks(term) if (self.raw is not None and g is not None) else []
        keep = [k for k in range(0, len(old), 4) if old[k] >> b != ci]
        groups = [x for k in keep for x in old[k:k + 4]]
        masks = [ms[k // 4] for k in keep] if self.raw is not None else []
        for band, mx, mn, df, sig in new:
            groups.extend((ci << b | band, mx, mn, df))
            masks.append(sig)
        if groups:
            self.terms[term] = groups
        else:
            self.terms.pop(term, None)
        if self.raw is not None:
            self.edited[term] = masks if groups else []

    def finish(self) -> None:
        """Write the masks back (same layout: the groups in the order of the terms)."""
        if self.raw is None:
            return
        w = self.width
        need = max((m.bit_length() for ms in self.edited.values() for m in ms), default=0)
        if need > 8 * w:  # cannot happen (removing a leaf only clears bits); stay exact
            w = -(-need // 8)
        parts: list[bytes] = []
        for term, groups in self.terms.items():
            if term in self.edited:
                parts.extend(m.to_bytes(w, "little") for m in self.edited[term])
            elif w == self.width:
                o = self.offset[term]
                parts.append(self.raw[o * w:(o + len(groups) // 4) * w])
            else:
                parts.extend(m.to_bytes(w, "little") for m in self.masks(term))
        # level 1: a tenth of the time of the level 6 a consolidation uses, a little larger
        self.data["masks"] = base64.b64encode(zlib.compress(b"".join(parts), 1)).decode("ascii")
        self.data["mask_bytes"] = w


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
        data = self._raw(parent)
        groups = _Groups(data)
        words = groups.child_terms(ci)  # the leaf's terms, as the tree holds them
        for term in words:
            groups.replace(term, ci, [])
        data["children"][ci] = {"id": "", "layer": 0, GONE: 1, "domain": leaf.domain,
                                "n_leaves": 0, "total_len": 0, "len": 0}
        changed = self._write(data, groups)
        for branch in reversed(path[:-1]):
            data = self._raw(branch)
            groups = _Groups(data)
            ci = next(i for i, c in enumerate(data["children"]) if c.get("id") == changed.id)
            for term in words:
                sigs = changed.band_signatures(term)
                groups.replace(term, ci, [(band, *sig) for band, sig in sorted(sigs.items())])
            entry = data["children"][ci]
            fresh = top_entry_of_branch(changed.data)
            entry.update({k: v for k, v in fresh.items() if k in entry or k == "scopes"})
            if "scopes" not in fresh:
                entry.pop("scopes", None)
            changed = self._write(data, groups)
        for i, entry in enumerate(top):
            if entry["id"] == changed.id:
                top[i] = top_entry_of_branch(changed.data)
                break
        self._count_out(root, leaf.domain, length)
        return True

    def _raw(self, branch: Branch) -> dict[str, Any]:
        """The branch file as written (the cached object no longer holds its groups)."""
        try:
            data = files.read_json(self.store.branch_path(branch.id, branch.layer))
        except (OSError, ValueError) as exc:
            raise DamagedFileError(f"branch {branch.id} cannot be read ({exc})") from exc
        if not isinstance(data, dict) or not isinstance(data.get("terms"), dict):
            raise DamagedFileError(f"branch {branch.id} has no terms")
        return data

    def _write(self, data: dict[str, Any], groups: _Groups) -> Branch:
        """Counts, dates, scopes and summary from the children left; then the file."""
        groups.finish()
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
        return self.store.write_branch(data)

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
            if child.get("id") == target:
                return [branch]
            if int(child["layer"]) > 0:
                below = self._descend(child["id"], int(child["layer"]), target, probes)
                if below is not None:
                    return [branch, *below]
        return None
