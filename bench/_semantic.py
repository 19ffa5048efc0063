"""BM25-only versus hybrid (semantic) in one run: the switch shared by the harnesses.

Without ``--semantic`` the harnesses force ``IHMT_SEMANTIC=off``, so their tree figures
stay BM25-only even where the ``ihmt[semantic]`` extra is installed. With it the store is
loaded with vectors, and every query is asked twice of the same store: once with semantic
search switched off for the process (the BM25-only rows) and once with it on (``hybrid``).
"""

from __future__ import annotations

import os
from typing import Any

from bench._common import (
    Outcome,
    Query,
    hit_key,
    junk_marks,
    score_ranking,
    summarize,
    summarize_groups,
)


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
    for o in outcomes:  # per group too, and how often a right first answer was FOUND
        g = out[group][o.group]
        counts = g.setdefault("status_counts", {})
        counts[str(o.status)] = counts.get(str(o.status), 0) + 1
        right = g.setdefault("right_first", {})
        if o.hit_at_1:
            right[str(o.status)] = right.get(str(o.status), 0) + 1
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


def model_scan(mem: Any, queries: list[Query], prefix: str, top_k: int = 10,
               budget: int = 900, junk: frozenset[str] | set[str] = frozenset()
               ) -> dict[str, list[Outcome]]:
    """The model alone, every vector scored (no routing tree, no lexical signal): what the
    hybrid must not lose. ``model`` ranks memories by IHMT's similarity (whole text and
    clauses, :meth:`ihmt.semantic.vectors.DomainVectors.scores`), ``model_whole`` by the
    cosine of the whole query with the whole memory only (one vector per memory)."""
    import time

    import numpy as np

    vs = mem.semantic.vectors
    vs.refresh()
    keys: dict[str, tuple[str | None, str]] = {}

    def key_text(leaf_id: str) -> tuple[str | None, str]:
        if leaf_id not in keys:
            try:
                leaf = mem.store.read_leaf(leaf_id)
            except Exception:  # noqa: BLE001 - a vector of a leaf that is gone
                keys[leaf_id] = (None, "")
            else:
                keys[leaf_id] = (hit_key(leaf, prefix), leaf.text)
        return keys[leaf_id]

    out: dict[str, list[Outcome]] = {"model": [], "model_whole": []}
    for q in queries:
        t0 = time.perf_counter()
        qmat = mem.semantic.query_matrix(q.text)
        vs.route = False
        try:
            ranked = [i for i, _ in vs.top(qmat, top_k, -1.0)]
        finally:
            vs.route = True
        ms = (time.perf_counter() - t0) * 1000
        whole: list[tuple[float, str]] = []
        for d in vs.domains.values():
            if not d.leaves:
                continue
            start, _span = d.arrays()
            ok = start < d.n
            sims = d.sims(start[ok], qmat[:1])[:, 0]
            ids = [d.leaves[j] for j in np.flatnonzero(ok)]
            top = np.argsort(-sims)[:top_k]
            whole.extend((float(sims[j]), ids[j]) for j in top)
        whole.sort(key=lambda x: -x[0])
        for name, ids in (("model", ranked), ("model_whole", [i for _, i in whole[:top_k]])):
            ks = [key_text(i)[0] for i in ids]
            sc = score_ranking(ks, lambda n, ids=ids: key_text(ids[n])[1], q.targets,
                               budget=budget)
            out[name].append(Outcome(q.group, search_ms=ms, **sc, **junk_marks(ks, junk)))
    return out
