"""Checking a memory folder against itself, without changing it.

The leaves are the truth and everything else is derived, so the one property that matters
is that every leaf file on disk is reachable from the trunk (root -> branches -> leaves),
and that every leaf the tree points at exists and parses. A search can only find what the
walk finds: an unreachable leaf is a memory that is silently lost to every answer.

Unlike :class:`ihmt.Memory`, which repairs what it finds damaged (rebuild, quarantine),
the check only reads: it is safe to run beside live servers and on a copy sent for
diagnosis. Its advice for any problem is ``ihmt rebuild``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .errors import DamagedFileError, StoreError
from .store.leaves import checksum, read_leaf
from .store.store import Store, resolve_store_path
from .text import count
from .timeline.facts import FactTimeline
from .tree.prune import live_children

LIST_CAP = 20  # ids listed per kind of problem; the counts are always complete


def check_store(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Walk the tree from the trunk and compare it with the files on disk.

    Returns a JSON-ready dict: ``ok``, ``path``, ``problems`` (sentences), ``stats`` and
    the detailed findings (``unreachable``, ``missing``, ``damaged_leaves``,
    ``damaged_branches``, ``edited``, ``orphan_branches``, ``quarantined``).
    """
    spath = resolve_store_path(path)
    report: dict[str, Any] = {"path": str(spath), "ok": False, "problems": [], "stats": {}}
    if not (spath / "root.json").exists() and not (spath / "layer_0").exists():
        report["problems"].append(f"no memory at {spath}")
        return report
    try:
        store = Store.open(spath)
    except StoreError as exc:
        report["problems"].append(str(exc))
        return report
    problems: list[str] = report["problems"]

    on_disk, damaged_leaves, edited, parents = _scan_leaves(store)
    try:
        root = store.root()
    except DamagedFileError as exc:
        problems.append(f"{exc}: run 'ihmt rebuild' to recreate it from the leaves")
        report["stats"] = {"leaf_files": len(on_disk) + len(damaged_leaves)}
        return report

    reachable: dict[str, str | None] = {}  # leaf id -> parent branch id (None: at the trunk)
    branches_seen: set[str] = set()
    damaged_branches: list[str] = []
    depth = 0
    stack: list[tuple[dict[str, Any], str | None, int]] = [(e, None, 1) for e in root["top"]]
    while stack:
        entry, parent, level = stack.pop()
        node_id = str(entry.get("id"))
        layer = int(entry.get("layer", 0))
        if layer == 0:
            reachable[node_id] = parent
            depth = max(depth, level - 1)  # branch levels above it, as ``stats`` counts
            continue
        if node_id in branches_seen:
            continue
        branches_seen.add(node_id)
        try:
            branch, _ = store.branch(node_id, layer)
        except (DamagedFileError, ValueError) as exc:
            damaged_branches.append(f"{node_id}: {exc}")
            continue
        stack.extend((child, node_id, level + 1) for child in live_children(branch.children))

    unreachable = sorted(set(on_disk) - set(reachable))
    missing = sorted(i for i in reachable if i not in on_disk and i not in damaged_leaves)
    stale_parent = sorted(i for i, p in reachable.items() if i in parents and parents[i] != p)
    branch_files = {p.stem for p in store.iter_branch_paths()}
    orphan_branches = sorted(branch_files - branches_seen)
    qdir = spath / "quarantine"
    quarantined = sorted(p.name for p in qdir.glob("L-*")) if qdir.is_dir() else []

    if unreachable:
        problems.append(f"{_are(len(unreachable), 'memory file')} not reachable from the root, so "
                        "no search can find them: run 'ihmt rebuild'")
    if missing:
        problems.append(f"{count(len(missing), 'memory', 'memories')} the tree points at "
                        f"{'has' if len(missing) == 1 else 'have'} no file: "
                        "run 'ihmt rebuild'")
    if damaged_leaves:
        problems.append(f"{count(len(damaged_leaves), 'memory file')} cannot be parsed; 'ihmt rebuild' "
                        "moves them to quarantine/ (their text is kept)")
    if damaged_branches:
        problems.append(f"{_are(len(damaged_branches), 'branch file')} missing or damaged: "
                        "run 'ihmt rebuild'")
    catalog_ids = {i for i, e in store.catalog().items() if e.get("kind", "leaf") == "leaf"
                   and not i.startswith("N")}
    not_in_catalog = sorted(set(on_disk) - catalog_ids)
    if not_in_catalog:
        problems.append(f"{_are(len(not_in_catalog), 'memory file')} missing from the catalog: "
                        "run 'ihmt doctor --repair' (or 'ihmt rebuild')")
    timeline = FactTimeline(store.state_dir)
    dangling_facts = sorted({f.source for f in timeline.facts()
                             if f.source and f.source not in on_disk})
    if dangling_facts:
        problems.append(f"{count(len(dangling_facts), 'fact source')} "
                        f"name{'s' if len(dangling_facts) == 1 else ''} no memory: run 'ihmt doctor "
                        "--repair' to rebuild the timeline from the leaves")
    loose = _loose_permissions(spath)
    if loose:
        problems.append(f"{_are(len(loose), 'file or folder', 'files or folders')} readable by other users: run "
                        "'ihmt doctor --repair' (folders 0700, files 0600)")
    semantic = _semantic_report(store, on_disk)
    problems.extend(semantic.pop("problems"))
    if int(root.get("n_leaves", -1)) != len(reachable):
        problems.append(f"root.json counts {root.get('n_leaves')} leaves but the walk reached "
                        f"{len(reachable)}: run 'ihmt rebuild'")

    report.update(
        ok=not problems,
        stats={
            "leaves": len(reachable),
            "leaf_files": len(on_disk) + len(damaged_leaves),
            "branches": len(branches_seen),
            "branch_files": len(branch_files),
            "depth": depth,
            "top_nodes": len(root["top"]),
            "domains": {d: v.get("n_leaves", 0) for d, v in sorted(root["domains"].items())},
        },
        unreachable=_capped(unreachable),
        missing=_capped(missing),
        damaged_leaves=_capped(sorted(f"{k}: {v}" for k, v in damaged_leaves.items())),
        damaged_branches=_capped(sorted(damaged_branches)),
        # Informational: a leaf whose text no longer matches its checksum was edited by
        # hand (allowed: the files are the user's), a stale parent stamp or a leftover
        # branch of an interrupted event costs nothing.
        edited=_capped(sorted(edited)),
        stale_parent=_capped(stale_parent),
        orphan_branches=_capped(orphan_branches),
        quarantined=_capped(quarantined),
        not_in_catalog=_capped(not_in_catalog),
        dangling_facts=_capped(dangling_facts),
        loose_permissions=_capped(loose),
        # A write under way right now looks the same as one a crash cut short; either way
        # the next save finishes the repair, so it is reported but is not a failure.
        interrupted_write=store.interrupted(),
        sync=_sync_state(spath),
        semantic=semantic,
    )
    return report


def repair_store(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Repair what can be repaired: rebuild every derived file (tree, catalog, timeline)
    from the leaves, quarantine unparsable leaves, make the folder private again. Leaf
    content is never changed or deleted."""
    from .memory import Memory

    spath = resolve_store_path(path)
    mem = Memory.open(spath)
    rebuilt = mem.rebuild()
    embeddings = None
    if mem.semantic.active:
        health = mem.semantic.health({p.stem: "" for p in mem.store.iter_leaf_paths()})
        if (health["damaged"] or health.get("missing") or health.get("old_layout")
                or health.get("mismatch")):
            embeddings = mem.rebuild_embeddings(everything=False)
        elif health.get("unrouted"):
            embeddings = {"computed": 0, "routed": mem.rebuild_routing()}
    fixed = 0
    for p in _loose_permissions(spath, limit=None):
        try:
            os.chmod(p, 0o700 if Path(p).is_dir() else 0o600)
            fixed += 1
        except OSError:
            pass
    mem.close()
    return {"rebuilt": rebuilt, "permissions_fixed": fixed, "embeddings": embeddings}


def _are(n: int, one: str, many: str | None = None) -> str:
    """ "1 memory file is", "3 memory files are"."""
    return f"{count(n, one, many)} {'is' if n == 1 else 'are'}"


def _loose_permissions(root: Path, limit: int | None = 1000) -> list[str]:
    """Files and folders of the store that group or others may read or write."""
    out: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        if dirpath == str(root) and ".git" in dirnames:
            dirnames.remove(".git")  # 'ihmt sync': git's own files, inside the private folder
        for name in [*dirnames, *filenames]:
            p = os.path.join(dirpath, name)
            try:
                st = os.lstat(p)
            except OSError:
                continue
            if st.st_mode & 0o077 and not os.path.islink(p):
                out.append(p)
                if limit is not None and len(out) >= limit:
                    return out
        try:
            if os.lstat(dirpath).st_mode & 0o077 and dirpath == str(root):
                out.append(dirpath)
        except OSError:
            pass
    return out


def _scan_leaves(store: Store) -> tuple[dict[str, Path], dict[str, str], list[str],
                                        dict[str, str | None]]:
    """Every leaf file: parsed ones by id, damaged ones with the reason, hand-edited ids
    and each leaf's recorded parent."""
    on_disk: dict[str, Path] = {}
    damaged: dict[str, str] = {}
    edited: list[str] = []
    parents: dict[str, str | None] = {}
    for path in store.iter_leaf_paths():
        try:
            leaf = read_leaf(path)
        except DamagedFileError as exc:
            damaged[path.stem] = str(exc)
            continue
        if leaf.id != path.stem:
            damaged[path.stem] = f"its header names another id ({leaf.id})"
            continue
        on_disk[leaf.id] = path
        parents[leaf.id] = leaf.parent
        if leaf.checksum and leaf.checksum != checksum(leaf.text):
            edited.append(leaf.id)
    return on_disk, damaged, edited, parents


def _sync_state(path: Path) -> dict[str, Any]:
    """'ihmt sync' state from the local repository only (never the network)."""
    from .sync.gitsync import status

    try:
        return status(path)
    except Exception as exc:  # noqa: BLE001 - git missing or broken: report, never fail
        return {"enabled": (path / ".git").is_dir(), "error": str(exc)}


def _semantic_report(store: Store, on_disk: dict[str, Path]) -> dict[str, Any]:
    """Whether semantic search is on, how to turn it on, and the state of its vectors."""
    from .semantic.index import SemanticIndex

    index = SemanticIndex(store)
    out: dict[str, Any] = {"on": index.active, "message": index.reason, "problems": [],
                           "notes": []}
    if not index.active:
        return out
    health = index.health(dict.fromkeys(on_disk, ""))
    out.update(vectors=health["vectors"], missing=health["missing"], damaged=health["damaged"],
               model=health.get("model"), model_mismatch=health.get("mismatch"))
    if health.get("mismatch"):
        out["problems"].append(f"semantic vectors: {health['mismatch']}; search ranks "
                               "lexically until 'ihmt rebuild --embeddings' recomputes them")
    for dom, n in sorted(health["damaged"].items()):
        what = "its header is damaged" if n < 0 else f"{count(n, 'record is', 'records are')} damaged"
        out["problems"].append(f"vector file state/vectors/{dom}.vec: {what}; search uses the "
                               "lexical ranking for them: run 'ihmt rebuild --embeddings'")
    out["in_flight"] = health.get("in_flight", 0)
    if health["missing"]:
        out["problems"].append(f"{count(health['missing'], 'memory has', 'memories have')} no semantic vector: run "
                               "'ihmt doctor --repair' (or 'ihmt rebuild --embeddings')")
    if out["in_flight"]:
        out["notes"].append(f"{count(out['in_flight'], 'memory', 'memories')} saved moments ago by a running "
                            "process are being encoded (state/vectors/pending)")
    for dom, n in sorted(health.get("old_layout", {}).items()):
        out["notes"].append(f"{count(n, 'memory', 'memories')} of {dom} with one vector each (the first "
                            "layout): 'ihmt doctor --repair' adds the per-clause vectors "
                            "that find paraphrases better")
    for dom, n in sorted(health.get("unrouted", {}).items()):
        out["notes"].append(f"{count(n, 'vector', 'vectors')} of {dom} not in its routing tree yet (searches "
                            "scan them one by one; saves catch up): 'ihmt doctor --repair' "
                            "indexes them now")
    return out


def _capped(items: list[str]) -> dict[str, Any]:
    return {"count": len(items), "items": items[:LIST_CAP]}
