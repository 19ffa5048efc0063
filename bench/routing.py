"""Semantic routing tree against the flat scan, on vectors alone, in one run.

    python -m bench.routing --sizes 5000 50000 200000 --queries 200 --json

For each size: a fresh vector file of that many random unit vectors drawn around seeded
cluster centres (two levels: topics, and sub-topics inside them, so the data has the
nested structure of real sentence vectors), appended in saves of 1,000 vectors exactly as
``ihmt`` appends them (each save routes its rows into the tree), then ``--queries`` queries
(a stored vector plus noise, cosine about 0.78), each asked of the routed search and of the flat scan of every
vector. Figures per size: vectors scored per query (``scanned``, p50; the flat scan scores
all), tree depth and bucket count, routed top-30 recall against the flat top-30, query p50
for both, and the time the saves spent in the tree. Needs ``ihmt[semantic]`` (numpy); no
model is loaded.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench._common import emit, env_info, format_table, percentile, progress


def clustered(n: int, seed: int) -> Any:
    import numpy as np

    from ihmt.semantic.encoder import DIM

    rng = np.random.default_rng(seed)
    topics = rng.normal(size=(64, DIM)).astype(np.float32)
    subs = max(64, n // 50)
    sub = topics[rng.integers(0, 64, subs)] + 0.6 * rng.normal(size=(subs, DIM))
    data = sub[rng.integers(0, subs, n)] + 0.45 * rng.normal(size=(n, DIM))
    data /= np.linalg.norm(data, axis=1, keepdims=True)
    return data.astype(np.float32)


def run_size(n: int, n_queries: int, k: int = 30, seed: int = 11) -> dict[str, Any]:
    import numpy as np

    from ihmt.semantic import tree as T
    from ihmt.semantic import vectors as V

    data = clustered(n, seed)
    with tempfile.TemporaryDirectory(prefix="ihmt-routing-") as tmp:
        vs = V.VectorStore(Path(tmp))
        tree = T.Tree(vs.dir, "bench")
        tree_s = 0.0
        step = 1000
        for at in range(0, n, step):
            ids = [f"L-bench-{i:012x}" for i in range(at, min(n, at + step))]
            block = data[at:at + len(ids)]
            placed = vs.append({"bench": (ids, [b[None, :] for b in block])})
            gen, first, end = placed["bench"]
            t0 = time.perf_counter()
            tree.insert(gen, end, lambda rows: vs.block_rows("bench", rows),
                        {first + i: block[i] for i in range(len(ids))})
            tree_s += time.perf_counter() - t0
        vs.refresh()
        rng = np.random.default_rng(seed + 1)
        picks = rng.choice(n, size=n_queries, replace=False)
        noise = rng.normal(size=(n_queries, data.shape[1]))
        noise /= np.linalg.norm(noise, axis=1, keepdims=True)
        queries = data[picks] + 0.8 * noise  # cosine about 0.78 to the stored vector
        queries = (queries / np.linalg.norm(queries, axis=1, keepdims=True)).astype(np.float32)
        routed_ms: list[float] = []
        flat_ms: list[float] = []
        scanned: list[int] = []
        recall: list[float] = []
        for q in queries:
            qm = q[None, :]
            vs.route = True
            t0 = time.perf_counter()
            got = vs.top(qm, k, -1.0)
            routed_ms.append((time.perf_counter() - t0) * 1000)
            scanned.append(vs.scanned)
            vs.route = False
            t0 = time.perf_counter()
            flat = vs.top(qm, k, -1.0)
            flat_ms.append((time.perf_counter() - t0) * 1000)
            recall.append(len({i for i, _ in got} & {i for i, _ in flat}) / max(1, len(flat)))
        buckets = len(list((vs.dir / "bench.tree").glob("b*")))
        return {
            "n": n,
            "depth": T.Tree(vs.dir, "bench").depth(),
            "buckets": buckets,
            "scanned_p50": percentile([float(s) for s in scanned], 50),
            "scanned_share": percentile([float(s) for s in scanned], 50) / n,
            "recall_at_30": sum(recall) / len(recall),
            "routed_ms_p50": percentile(routed_ms, 50),
            "flat_ms_p50": percentile(flat_ms, 50),
            "tree_insert_s": tree_s,
        }


def table(result: dict[str, Any]) -> str:
    cols = ["n", "depth", "buckets", "scanned_p50", "scanned_share", "recall_at_30",
            "routed_ms_p50", "flat_ms_p50", "tree_insert_s"]
    return (f"routing tree (branch {result['branch']}, bucket {result['cap']}, beam "
            f"{result['beam']}, probe {result['probe']}) versus the flat scan\n"
            + format_table(result["sizes"], cols))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.routing",
                                 description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[5000, 50000, 200000])
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    try:
        from ihmt.semantic import tree as T
    except ImportError as exc:  # pragma: no cover - numpy missing
        raise SystemExit(f"needs ihmt[semantic]: {exc}") from exc
    sizes = []
    for n in args.sizes:
        progress(f"routing: {n} vectors")
        sizes.append(run_size(n, args.queries))
    result = {"branch": T.BRANCH, "cap": T.CAP, "beam": T.BEAM, "probe": T.PROBE,
              "sizes": sizes}
    result.update(env_info())
    emit(result, args.json, table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
