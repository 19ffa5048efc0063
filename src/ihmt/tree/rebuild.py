"""Rebuilding every derived file (branches, trunk, catalog) from the leaves alone."""

from __future__ import annotations

import json
import logging
import shutil
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import DamagedFileError, UnreadableFileError
from ..model import Leaf
from ..store import branch_cache, files
from ..store.leaves import read_leaf
from ..store.store import Store, empty_root
from ..text import memory_terms
from . import refile
from .consolidate import Consolidator, leaf_entry
from .order import similarity_order

log = logging.getLogger(__name__)


def rebuild(store: Store, consolidator: Consolidator, *, force_close: bool = True,
            on_leaf: Callable[[Leaf], None] | None = None) -> dict[str, Any]:
    """Re-derive the tree from ``layer_0``. The caller holds the write lock.

    Within each domain, leaves are regrouped so that memories sharing words share
    branches (:mod:`ihmt.tree.order`): a rebuild also tightens the tree of a store that
    grew one save at a time. The order depends only on the leaves, so rebuilding an intact
    store again gives the same branch ids; a leaf is only rewritten when its parent
    changes. Leaves with a broken header are quarantined (kept, with the reason logged).
    """
    leaves: list[Leaf] = []
    quarantined: list[str] = []
    unreadable: list[str] = []
    for path in list(store.iter_leaf_paths()):
        try:
            leaves.append(read_leaf(path))
        except UnreadableFileError as exc:  # not damaged: reported, left in place
            unreadable.append(path.name)
            store.problems.append(str(exc))
        except DamagedFileError as exc:
            store.quarantine(path, str(exc))
            quarantined.append(path.name)
    leaves.sort(key=lambda lf: (lf.saved_at or "", lf.id))

    layers = store.path / "layers"
    shutil.rmtree(layers, ignore_errors=True)
    files.ensure_dir(layers)
    branch_cache.clear(store.state_dir)
    store.clear_cache()

    root = empty_root()
    consolidator.known = {lf.id: lf for lf in leaves}
    stem = store.config.stemmer
    catalog: list[dict[str, Any]] = []
    seen: set[str] = set()
    by_domain: dict[str, list[tuple[Leaf, Counter[str]]]] = {}
    for leaf in leaves:
        if leaf.id in seen:
            continue
        seen.add(leaf.id)
        if on_leaf is not None:
            on_leaf(leaf)
        tf = memory_terms(leaf.text, leaf.tags, stem)
        by_domain.setdefault(leaf.domain, []).append((leaf, tf))
    ordered: list[tuple[Leaf, Counter[str]]] = []
    for domain in sorted(by_domain):
        items = by_domain[domain]
        ordered.extend(items[i] for i in similarity_order([tf.keys() for _, tf in items]))
    for leaf, tf in ordered:
        entry = leaf_entry(leaf, tf)
        root["top"].append(entry)
        root["n_leaves"] += 1
        root["total_len"] += entry["len"]
        dom = root["domains"].setdefault(leaf.domain, {"n_leaves": 0})
        dom["n_leaves"] += 1
        refile.count(root, refile.leaf_scope(leaf), 1)  # scopes are what the headers say
        catalog.append(_catalog_line(store, leaf))
        consolidator.run(root)
    if force_close:
        consolidator.run(root, force=True)
    # Leaves that stayed at the trunk have no parent: clear stale stamps.
    for entry in root["top"]:
        if int(entry["layer"]) == 0:
            lf = consolidator.known.get(entry["id"])
            if lf is not None and lf.parent is not None:
                lf.parent = None
                store.write_leaf(lf, new=False)
    consolidator.known = {}
    text = "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in catalog)
    store.write_catalog(text)
    store.write_root(root)
    return {
        "leaves": root["n_leaves"],
        "branches": root["n_branches"],
        "quarantined": quarantined,
        "unreadable": unreadable,
        "top_nodes": len(root["top"]),
    }


def rewrite_catalog(store: Store) -> int:
    """Write the catalog anew from the leaf files, as a rebuild does, without touching the
    tree: for a catalog that had to be begun again (lock held). Returns the lines written."""
    lines = []
    for path in store.iter_leaf_paths():
        try:
            leaf = read_leaf(path)
        except DamagedFileError:  # unreadable or damaged: the rebuild that meets it reports it
            continue
        lines.append(json.dumps(_catalog_line(store, leaf), ensure_ascii=False) + "\n")
    store.write_catalog("".join(lines))
    return len(lines)


def _catalog_line(store: Store, leaf: Leaf) -> dict[str, Any]:
    rel: Path = store.leaf_path(leaf.id, leaf.domain).relative_to(store.path)
    return {
        "id": leaf.id, "kind": "leaf", "path": str(rel), "domain": leaf.domain,
        "date": leaf.date, "saved_at": leaf.saved_at, "source": leaf.source,
        **({"scope": refile.leaf_scope(leaf)} if refile.leaf_scope(leaf) != "global" else {}),
    }
