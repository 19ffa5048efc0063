"""Read-only views of the hierarchy for :class:`ihmt.Memory`: the outline from the trunk
down, every leaf entry with its path (a search does not import them), and the counts."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..config import Config
from ..store.store import Store


def tree(store: Store, root: dict[str, Any], depth: int | None) -> dict[str, Any]:
    """See :meth:`ihmt.Memory.tree`."""
    from .prune import live_children  # here: it brings the consolidator, a search does not

    def node(entry: dict[str, Any], level: int) -> dict[str, Any]:
        out = {k: entry.get(k) for k in ("id", "layer", "domain", "title", "n_leaves",
                                         "date_from", "date_to", "keywords")}
        if int(entry["layer"]) > 0 and (depth is None or level < depth):
            br, _ = store.branch(entry["id"], int(entry["layer"]))
            out["children"] = [node(c, level + 1) for c in live_children(br.children)]
        return out

    return {"id": "root", "leaves": root["n_leaves"],
            "children": [node(e, 1) for e in root["top"]]}


def walk(store: Store, root: dict[str, Any]) -> Iterator[tuple[list[str], dict[str, Any]]]:
    """See :meth:`ihmt.Memory.walk`."""
    from .prune import live_children
    stack: list[tuple[list[str], dict[str, Any]]] = [(["root"], e) for e in root["top"]]
    while stack:
        path, entry = stack.pop()
        if int(entry["layer"]) == 0:
            yield path + [entry["id"]], entry
            continue
        br, _ = store.branch(entry["id"], int(entry["layer"]))
        stack.extend((path + [br.id], c) for c in live_children(br.children))


def stats(root: dict[str, Any], path: Path, config: Config) -> dict[str, Any]:
    """See :meth:`ihmt.Memory.stats`."""
    layers: Counter[int] = Counter(int(e["layer"]) for e in root["top"])
    depth = max((int(e["layer"]) for e in root["top"]), default=0)
    return {
        "path": str(path),
        "leaves": root["n_leaves"],
        "branches": root.get("n_branches", 0),
        "depth": depth,
        "top_nodes": len(root["top"]),
        "top_by_layer": {str(k): v for k, v in sorted(layers.items())},
        "domains": {d: v["n_leaves"] for d, v in sorted(root["domains"].items())},
        "avg_leaf_terms": round(root["total_len"] / root["n_leaves"], 1)
        if root["n_leaves"] else 0,
        "config": config.to_dict(),
    }
