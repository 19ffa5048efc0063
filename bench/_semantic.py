"""BM25-only versus hybrid (semantic) in one run: the switch shared by the harnesses.

Without ``--semantic`` the harnesses force ``IHMT_SEMANTIC=off``, so their tree figures
stay BM25-only even where the ``ihmt[semantic]`` extra is installed. With it the store is
loaded with vectors, and every query is asked twice of the same store: once with semantic
search switched off for the process (the BM25-only rows) and once with it on (``hybrid``).
"""

from __future__ import annotations

import os
from typing import Any

from bench._common import Outcome, summarize, summarize_groups


def select(semantic: bool) -> None:
    """Set the switch before a store is opened (it is read when Memory opens)."""
    os.environ["IHMT_SEMANTIC"] = "auto" if semantic else "off"


def check(mem: Any) -> None:
    """Stop with the reason when --semantic was asked but the extra is not usable."""
    idx = getattr(mem, "semantic", None)
    if idx is None or not idx.active:
        raise SystemExit(getattr(idx, "reason", "this IHMT has no semantic search"))


def set_active(mem: Any, on: bool) -> None:
    """Switch semantic search on or off for this process only (the vectors stay)."""
    idx = getattr(mem, "semantic", None)
    if idx is not None:
        idx.active = on


def wait(mem: Any) -> None:
    """Wait until the vectors of the saves made so far are written (older IHMT versions
    encode inside the save: nothing to wait for)."""
    idx = getattr(mem, "semantic", None)
    if idx is not None and hasattr(idx, "wait"):
        idx.wait(timeout=None)


def hybrid_summary(outcomes: list[Outcome], group: str = "by_kind") -> dict[str, Any]:
    out = summarize(outcomes)
    out[group] = summarize_groups(outcomes)
    statuses: dict[str, int] = {}
    for o in outcomes:
        statuses[str(o.status)] = statuses.get(str(o.status), 0) + 1
    out["status_counts"] = statuses
    return out


def routing_check(mem: Any, queries: list[str], k: int = 30) -> dict[str, Any]:
    """The semantic top-``k`` through the routing tree against the flat scan of every
    vector, for the same queries and store: recall of the flat top-``k``, and the vectors
    each scored (rows plus centroids) and its time."""
    import time

    from bench._common import percentile

    vs = mem.semantic.vectors
    vs.refresh()
    recall: list[float] = []
    scanned: list[float] = []
    flat_scanned: list[float] = []
    routed_ms: list[float] = []
    flat_ms: list[float] = []
    for text in queries:
        q = mem.semantic.query_matrix(text)
        vs.route = True
        t0 = time.perf_counter()
        got = vs.top(q, k, -1.0)
        routed_ms.append((time.perf_counter() - t0) * 1000)
        scanned.append(float(vs.scanned))
        vs.route = False
        t0 = time.perf_counter()
        flat = vs.top(q, k, -1.0)
        flat_ms.append((time.perf_counter() - t0) * 1000)
        flat_scanned.append(float(vs.scanned))
        vs.route = True
        recall.append(len({i for i, _ in got} & {i for i, _ in flat}) / max(1, len(flat)))
    return {
        "rows": vs.rows(),
        "vectors_per_memory": vs.rows() / max(1, vs.count()),
        "routed_recall_at_30": sum(recall) / max(1, len(recall)),
        "scanned_p50": percentile(scanned, 50),
        "flat_scanned_p50": percentile(flat_scanned, 50),
        "routed_ms_p50": percentile(routed_ms, 50),
        "flat_ms_p50": percentile(flat_ms, 50),
    }
