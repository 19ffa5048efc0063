"""Read-only views of the hierarchy for :class:`ihmt.Memory`: the outline from the trunk
down, and every leaf entry with its path (a search does not import them)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

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
