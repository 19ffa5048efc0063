"""Consolidation: Summarization Events that grow the tree from the leaves up.

When ``branch_factor`` unconsolidated nodes of one domain sit at the same layer, they are
condensed into a parent branch. The parent file is written first and only then are the
children stamped with it and removed from the trunk, so an interrupted event is simply
run again (same children, same parent id) instead of orphaning anything. Branch files are
never modified after they are written.

Every branch stores, per child, the statistics that let a search bound the BM25 score of
any leaf below that child without opening it (see :class:`ihmt.store.branch.Branch`).
"""

from __future__ import annotations

import logging
import re
from collections import Counter, defaultdict
from typing import Any

from ..ingest.dates import find_date
from ..model import Leaf
from ..scope import GLOBAL, scope_of
from ..store.files import digest
from ..store.store import BAND_BITS, Store, length_band, utcnow
from ..text import clip, clip_shown, shown
from .summarize import SummarizerBackend, display_keywords

log = logging.getLogger(__name__)

# Keys of a top/child entry that travel into the parent branch (tf stays out: it becomes
# the parent's routing terms).
CHILD_KEYS = (
    "id", "layer", "domain", "title", "excerpt", "keywords", "n_leaves", "total_len", "len",
    "date_from", "date_to", "tags", "source", "data_type", "saved_at", "scope",
    "scopes",
)


def leaf_entry(leaf: Leaf, tf: Counter[str]) -> dict[str, Any]:
    """The trunk/child entry of a leaf: display fields plus its exact term counts, and
    its project when it has one (a search filters on it without opening the leaf)."""
    length = sum(tf.values())
    scope = scope_of(leaf.extra)
    visible = shown(leaf.text)  # display fields never carry a secret (ihmt.secrets)
    entry = {
        "id": leaf.id,
        "layer": 0,
        "domain": leaf.domain,
        "title": leaf_title(leaf, visible),
        "excerpt": clip(visible, 160),
        "keywords": display_keywords(visible, 6),
        "n_leaves": 1,
        "total_len": length,
        "len": length,
        "date_from": leaf.date,
        "date_to": leaf.date,
        "tags": leaf.tags[:12],
        "source": leaf.source,
        "data_type": leaf.data_type,
        "saved_at": leaf.saved_at,
        "tf": dict(tf),
    }
    if scope != GLOBAL:
        entry["scope"] = scope
    return entry


_LETTERS = re.compile(r"[^\W\d_]")


def leaf_title(leaf: Leaf, visible: str | None = None) -> str:
    """A one-line label: the symbol for code, else the first line that says something
    (not a bare date, not comment punctuation)."""
    name = leaf.extra.get("name") if isinstance(leaf.extra, dict) else None
    if leaf.data_type == "CODE" and isinstance(name, str) and name:
        return clip(name, 80)
    for line in (shown(leaf.text) if visible is None else visible).splitlines():
        s = line.strip(" \t/*#-=<>\"'`[]()")
        if len(_LETTERS.findall(s)) < 3:
            continue
        if len(s.split()) <= 5 and find_date(s):
            continue
        return clip(s, 80)
    return clip_shown(leaf.text, 80)


def _minmax_dates(children: list[dict[str, Any]]) -> tuple[str | None, str | None]:
    lo = [c["date_from"] for c in children if c.get("date_from")]
    hi = [c["date_to"] for c in children if c.get("date_to")]
    return (min(lo) if lo else None, max(hi) if hi else None)


class Consolidator:
    """Runs Summarization Events on a store whose write lock the caller holds."""

    def __init__(self, store: Store, summarizer: SummarizerBackend) -> None:
        self.store = store
        self.summarizer = summarizer
        # Leaves saved in bulk mode that are not on disk yet: written when stamped.
        self.pending: dict[str, Leaf] = {}
        # Leaves already in memory (during a rebuild), to avoid re-reading them.
        self.known: dict[str, Leaf] = {}

    # ------------------------------------------------------------------ events
    def run(self, root: dict[str, Any], *, force: bool = False) -> list[str]:
        """Fire every due event (and with ``force`` close each domain to one top node).

        Mutates ``root`` in place; the caller writes it. Returns the new branch ids.
        """
        created: list[str] = []
        bf = self.store.config.branch_factor
        while True:
            groups: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
            for entry in root["top"]:
                groups[(entry["domain"], int(entry["layer"]))].append(entry)
            due = [(k, v) for k, v in groups.items() if len(v) >= bf]
            if due:
                (domain, layer), members = min(due, key=lambda kv: (kv[0][1], kv[0][0]))
                created.append(self._event(root, members[:bf], domain, layer + 1))
                continue
            if not force:
                break
            by_domain: dict[str, list[dict[str, Any]]] = defaultdict(list)
            for entry in root["top"]:
                by_domain[entry["domain"]].append(entry)
            open_domains = sorted(d for d, v in by_domain.items() if len(v) > 1)
            if not open_domains:
                break
            domain = open_domains[0]
            members = sorted(by_domain[domain], key=lambda e: int(e["layer"]))[:bf]
            layer = max(int(e["layer"]) for e in members) + 1
            created.append(self._event(root, members, domain, layer))
        return created

    def _event(
        self, root: dict[str, Any], members: list[dict[str, Any]], domain: str, layer: int
    ) -> str:
        data = self.build_branch(members, domain, layer)
        self.store.write_branch(data)
        # Only now stamp the children: a crash before this point re-runs the same event.
        catalog: list[dict[str, Any]] = [{
            "id": data["id"], "kind": "branch", "layer": layer, "domain": domain,
            "children": [c["id"] for c in data["children"]], "at": utcnow(),
        }]
        for entry in members:
            if int(entry["layer"]) == 0:
                self._stamp_leaf(entry["id"], domain, data["id"])
                catalog.append({"id": entry["id"], "parent": data["id"]})
        self.store.catalog_append(catalog)
        ids = {e["id"] for e in members}
        root["top"] = [e for e in root["top"] if e["id"] not in ids]
        root["top"].append(top_entry_of_branch(data))
        root["n_branches"] = int(root.get("n_branches", 0)) + 1
        return data["id"]

    def _stamp_leaf(self, leaf_id: str, domain: str, parent: str) -> None:
        leaf = self.pending.pop(leaf_id, None)
        if leaf is not None:
            # Bulk mode: not on disk yet; synced with its batch when the bulk commits.
            leaf.parent = parent
            self.store.write_leaf(leaf, durable=False)
            return
        leaf = self.known.get(leaf_id)
        if leaf is None:
            try:
                leaf = self.store.read_leaf(leaf_id, domain)
            except Exception as exc:  # noqa: BLE001 - a missing/damaged leaf must not stop the tree
                log.warning("could not stamp %s with its parent: %s", leaf_id, exc)
                return
        if leaf.parent == parent:
            return
        leaf.parent = parent
        self.store.write_leaf(leaf, durable=True, new=False)

    def build_branch(
        self, members: list[dict[str, Any]], domain: str, layer: int
    ) -> dict[str, Any]:
        terms: dict[str, list[int]] = {}
        # Slot masks (see ihmt.store.branch.Branch), only where a child is a branch: for a
        # leaf child the statistics are already exact.
        masks: dict[str, list[int]] | None = (
            {} if any(int(e["layer"]) > 0 for e in members) else None)
        children: list[dict[str, Any]] = []
        widths: list[int] = []
        for ci, entry in enumerate(members):
            widths.append(1)
            if int(entry["layer"]) == 0:
                length = int(entry["len"])
                code = ci << BAND_BITS | length_band(length)
                for term, tf in entry["tf"].items():
                    g = terms.get(term)
                    if g is None:
                        terms[term] = [code, int(tf), length, 1]
                        if masks is not None:
                            masks[term] = [1]
                    else:
                        g.extend((code, int(tf), length, 1))
                        if masks is not None:
                            masks[term].append(1)
            else:
                child, _ = self.store.branch(entry["id"], int(entry["layer"]))
                widths[ci] = child.slot_width()
                base = ci << BAND_BITS
                for term, per_band in child.all_band_signatures():
                    g = terms.get(term)
                    if g is None:
                        g = terms[term] = []
                        masks[term] = []  # type: ignore[index]
                    ms = masks[term]  # type: ignore[index]
                    for band, mx, mn, df, sig in per_band:
                        g.extend((base | band, mx, mn, df))
                        ms.append(sig)
            children.append({k: entry[k] for k in CHILD_KEYS if k in entry})
        scopes = scopes_below(children)
        summary = self.summarizer.summarize(children, domain=domain, layer=layer)
        date_from, date_to = _minmax_dates(children)
        node_id = f"N{layer}-{domain}-" + digest(domain, str(layer), *[c["id"] for c in children])
        return {
            "id": node_id,
            "layer": layer,
            "domain": domain,
            "title": summary.title,
            "summary": summary.summary,
            "keywords": summary.keywords,
            "n_leaves": sum(int(c.get("n_leaves", 1)) for c in children),
            "total_len": sum(int(c.get("total_len", 0)) for c in children),
            "date_from": date_from,
            "date_to": date_to,
            "created_at": utcnow(),
            "children": children,
            "terms": terms,
            "bands": BAND_BITS,
            **(_mask_fields(masks, widths) if masks is not None else {}),
            **({"scopes": scopes} if scopes != [GLOBAL] else {}),
        }


def _mask_fields(masks: dict[str, list[int]], widths: list[int]) -> dict[str, Any]:
    """The masks as the store writes them (:meth:`ihmt.store.store.Store.write_branch`):
    one int per group, the bytes each needs (the widest one's)."""
    top = max((m for ms in masks.values() for m in ms), default=1)
    return {"slot_widths": widths, "mask_bytes": max(1, -(-top.bit_length() // 8)),
            "masks": masks}


def scopes_below(children: list[dict[str, Any]]) -> list[str]:
    """The scopes of the leaves below these entries (a branch written before scopes
    existed holds global memories only). Lets a search skip a branch of another project."""
    found: set[str] = set()
    for c in children:
        if int(c["layer"]) == 0:
            found.add(c.get("scope") or GLOBAL)
        else:
            found.update(c.get("scopes") or [GLOBAL])
    return sorted(found)


def top_entry_of_branch(data: dict[str, Any]) -> dict[str, Any]:
    extra = {"scopes": data["scopes"]} if data.get("scopes") else {}
    return {
        "id": data["id"],
        "layer": data["layer"],
        "domain": data["domain"],
        "title": data["title"],
        "keywords": data["keywords"][:8],
        "n_leaves": data["n_leaves"],
        "total_len": data["total_len"],
        "date_from": data["date_from"],
        "date_to": data["date_to"],
        **extra,
    }
