"""Retrieval at scale: the tree against a flat BM25 over the same memories, in one run.

    python -m bench.synthetic --n 50000 --queries 200 --seed 7 --out /tmp/syn
    python -m bench.retrieval --memories /tmp/syn/memories.jsonl \\
        --queries /tmp/syn/queries.jsonl --json

Steps: a fresh store (in a temporary folder unless ``--store``), every memory saved once
inside ``Memory.bulk()`` (or, with ``--one-by-one``, by plain saves as an agent makes them)
with its date and the tag ``bench:<id>``, ``flush()``, then 50
single saves into the full store (timed one by one), then every query, asked of the tree
and of a flat ``bm25s`` index (IHMT's tokenizer, the store's stemmer, Lucene BM25 with
k1=1.5, b=0.75) one after the other.

Figures, overall and per query kind: recall at the token budget and at 300 tokens, hit@1,
hit@5, search latency, files read, tokens of the compact answer; the same for the flat
baseline under ``flat_bm25``; ``agreement_top10``, the share of queries whose top-10 equals
the flat top-10 (score-tolerant: tied scores may swap places). When the memories carry the
generator's ``chain`` index, ``link_precision`` and ``link_recall`` score the links the store
made between versions of one fact (each version superseded by the next) against the chains.

``--semantic`` (needs ``ihmt[semantic]``) loads the store with vectors and asks every query
a second time with semantic search on: the ``hybrid`` rows beside ``tree`` (BM25-only) and
``flat``; half of the single saves then also compute their vector: ``hybrid.save_ms`` until
the save returns, ``hybrid.vectors_ready_ms`` until its vectors are on disk (they are
encoded on a worker thread just after the save returns).
``model`` and ``model_whole`` rank by the model alone with every vector scored (IHMT's
similarity of whole text and clauses; the whole-memory vectors only): the side the hybrid
must not fall below. Memories flagged ``"junk"`` (:mod:`bench.paraphrase`) give
``junk_at_1`` / ``junk_at_5``: how often one of them came first or in the top 5.
``hybrid.routing`` compares the semantic top 30 through the routing tree with the flat scan
of every vector (recall, vectors scored), and ``hybrid.flat_scan`` asks every query once more
with the flat scan (what routing costs in quality). ``--store DIR --reuse-store`` asks the
queries again of a store this harness loaded before with the same memories (query-time
changes re-measured without the load; the ingest and save figures stay those of that run).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench import _semantic
from bench._common import (
    FlatBM25,
    Query,
    Stopwatch,
    emit,
    env_info,
    evaluate,
    format_table,
    load_memory_api,
    open_store,
    percentile,
    progress,
    read_jsonl,
    rss_mb,
    saved_ids,
    store_stemmer,
    summarize,
    summarize_groups,
)

PREFIX = "bench:"


def extra_memories(n: int, seed: int = 90210) -> list[dict[str, Any]]:
    """``n`` further memories for the single-save timing: ids ``x1``..., never targets.

    They come from the synthetic generator with another seed, minus corrections (which could
    continue a chain of the corpus) and minus memories holding identifiers (which could
    collide with an exact query's identifier).
    """
    from bench.synthetic import _Generator

    gen = _Generator(seed)
    picked: list[dict[str, Any]] = []
    batch = max(4 * n, 50)
    for m in gen.memories(batch):
        if m.kind == "correction" or m.idents:
            continue
        picked.append({"id": f"x{len(picked) + 1}", "text": m.text, "date": m.date})
        if len(picked) == n:
            break
    return picked


def link_scores(rows: list[dict[str, Any]], links: dict[str, str]) -> dict[str, Any]:
    """Precision and recall of the supersession links a store made (``links``: older
    memory's key -> the key of the memory that superseded it) against the generator's
    chains (rows carrying ``"chain"``, in date order): each version should point at the next.
    """
    chains: dict[Any, list[dict[str, Any]]] = {}
    for r in rows:
        if r.get("chain") is not None:
            chains.setdefault(r["chain"], []).append(r)
    truth: set[tuple[str, str]] = set()
    for members in chains.values():
        members.sort(key=lambda r: str(r.get("date") or ""))
        truth.update((str(a["id"]), str(b["id"])) for a, b in zip(members, members[1:]))
    made = set(links.items())
    right = len(made & truth)
    return {
        "links_made": len(made),
        "links_expected": len(truth),
        "links_right": right,
        "link_precision": right / len(made) if made else None,
        "link_recall": right / len(truth) if truth else None,
    }


def _links(mem: Any, leaf_to_key: dict[str, str]) -> dict[str, str]:
    """The store's supersession marks, translated to benchmark keys (unknown ids kept)."""
    timeline = getattr(mem, "timeline", None)
    marks = timeline.outdated_map() if hasattr(timeline, "outdated_map") else {}
    return {leaf_to_key.get(old, old): leaf_to_key.get(new, new) for old, new in marks.items()}


def _save(mem: Any, row: dict[str, Any]) -> Any:
    return mem.save(row["text"], date=row.get("date"), domain="general",
                    tags=[f"{PREFIX}{row['id']}"])  # fmt: skip


def run(
    memories_path: Path,
    queries_path: Path,
    *,
    budget: int = 900,
    store: Path | None = None,
    limit_queries: int | None = None,
    top_k: int = 10,
    singles: int = 50,
    stemmer: str = "english",
    semantic: bool = False,
    branch_factor: int | None = None,
    one_by_one: bool = False,
    reuse: bool = False,
) -> dict[str, Any]:
    _semantic.select(semantic)
    memories = read_jsonl(memories_path)
    queries = [
        Query(q["query"], list(q["targets"]), q.get("kind") or "unknown")
        for q in read_jsonl(queries_path)
    ]
    if limit_queries is not None:
        queries = queries[:limit_queries]
    extras = extra_memories(singles)
    result: dict[str, Any] = {
        "n_memories": len(memories),
        "n_queries": len(queries),
        "n_singles": len(extras),
        "top_k": top_k,
        "budget": budget,
        "load": "single saves" if one_by_one else "bulk",
    }
    memory_cls, why = load_memory_api()
    tmp: tempfile.TemporaryDirectory[str] | None = None
    mem = None
    try:
        if memory_cls is None:
            progress(f"tree skipped: {why}; running the flat baseline only")
            result["tree_skipped"] = why
        else:
            if store is None:
                tmp = tempfile.TemporaryDirectory(prefix="ihmt-bench-")
                store_dir = Path(tmp.name) / "ihmt_memory"
            else:
                store_dir = store
                if not reuse and store_dir.exists() and any(store_dir.iterdir()):
                    raise SystemExit(f"--store {store_dir} is not empty: give a fresh folder")
            mem = open_store(memory_cls, store_dir, stemmer, branch_factor)
            result["branch_factor"] = int(getattr(mem.config, "branch_factor", 0) or 0)
            if semantic:
                _semantic.check(mem)
            stemmer = store_stemmer(mem, stemmer)
            hybrid_save_ms: list[float] = []
            ready_ms: list[float] = []  # hybrid save start -> its vectors on disk
            if reuse:  # a store this harness loaded before, with the same memories
                progress(f"reusing {store_dir}: no load and no single saves")
                result["reused_store"] = True
                _semantic.set_active(mem, False)  # the first pass is BM25-only
            else:
                progress(f"loading {len(memories)} memories into {store_dir}")
                step = max(1, len(memories) // 10)
                leaf_to_key: dict[str, str] = {}
                with Stopwatch() as load:
                    with mem.bulk() if not one_by_one else contextlib.nullcontext():
                        for n, row in enumerate(memories, 1):
                            for leaf_id in saved_ids(_save(mem, row)):
                                leaf_to_key[leaf_id] = str(row["id"])
                            if n % step == 0:
                                progress(f"  saved {n}/{len(memories)}")
                    with Stopwatch() as fl:
                        mem.flush()
                result["ingest_s"] = load.s
                result["flush_s"] = fl.s
                save_ms: list[float] = []
                for n, row in enumerate(extras):
                    # With --semantic, every other single save also computes its vector.
                    on = semantic and n % 2 == 1
                    _semantic.set_active(mem, on)
                    with Stopwatch() as sw:
                        rep = _save(mem, row)
                    (hybrid_save_ms if on else save_ms).append(sw.ms)
                    if on:  # the vectors are written just after the save returns
                        with Stopwatch() as wait:
                            _semantic.wait(mem)
                        ready_ms.append(sw.ms + wait.ms)
                    leaf_to_key.update((i, str(row["id"])) for i in saved_ids(rep))
                _semantic.set_active(mem, False)
                if any("chain" in r for r in memories):
                    result.update(link_scores(memories, _links(mem, leaf_to_key)))
                result["save_ms_p50"] = percentile(save_ms, 50)
                result["save_ms_p95"] = percentile(save_ms, 95)
            result["rss_mb_before_flat"] = rss_mb()
        corpus = memories + extras
        junk = frozenset(str(r["id"]) for r in memories if r.get("junk"))
        keys = [str(r["id"]) for r in corpus]
        texts = [str(r["text"]) for r in corpus]
        progress(f"flat bm25s over {len(texts)} memories (stemmer {stemmer})")
        with Stopwatch() as ix:
            flat = FlatBM25(texts, stemmer=stemmer)
        cmp = evaluate(mem, flat, keys, texts, queries, prefix=PREFIX, top_k=top_k,
                       budget=budget, label="", junk=junk)  # fmt: skip
        if mem is not None:
            tree = summarize(cmp.tree)
            result.update(tree)
            result["status_counts"] = _count(o.status for o in cmp.tree)
            result["capped"] = sum(o.capped for o in cmp.tree)
            result["node_reads_p50"] = percentile([o.node_reads or 0 for o in cmp.tree], 50)
            result["by_kind"] = summarize_groups(cmp.tree)
            result.update(cmp.agreement())
            if semantic:
                _semantic.set_active(mem, True)
                hyb = evaluate(mem, flat, keys, texts, queries, prefix=PREFIX, top_k=top_k,
                               budget=budget, label="hybrid: ", junk=junk)  # fmt: skip
                result["hybrid"] = _semantic.hybrid_summary(hyb.tree)
                result["hybrid"]["search_ms_warm_p50"] = percentile(hyb.warm_ms, 50)
                result["hybrid"]["save_ms_p50"] = percentile(hybrid_save_ms, 50)
                result["hybrid"]["save_ms_p95"] = percentile(hybrid_save_ms, 95)
                result["hybrid"]["vectors_ready_ms_p50"] = percentile(ready_ms, 50)
                result["hybrid"]["vectors_ready_ms_p95"] = percentile(ready_ms, 95)
                result["hybrid"]["routing"] = _semantic.routing_check(
                    mem, [q.text for q in queries])
                # The same hybrid with every vector scanned: what the routing tree costs.
                mem.semantic.vectors.route = False
                flat_hyb = evaluate(mem, flat, keys, texts, queries, prefix=PREFIX, top_k=top_k,
                                    budget=budget, label="hybrid, flat vector scan: ",
                                    junk=junk)
                mem.semantic.vectors.route = True
                result["hybrid"]["flat_scan"] = _semantic.hybrid_summary(flat_hyb.tree)
                progress("the model alone, every vector scored")
                for name, outs in _semantic.model_scan(mem, queries, PREFIX, top_k=top_k,
                                                       budget=budget, junk=junk).items():
                    result[name] = summarize(outs, with_files=False)
                    result[name]["by_kind"] = summarize_groups(outs, with_files=False)
        result["stemmer"] = stemmer
        flat_summary = summarize(cmp.flat, with_files=False)
        flat_summary["index_s"] = ix.s
        flat_summary["by_kind"] = summarize_groups(cmp.flat, with_files=False)
        result["flat_bm25"] = flat_summary
        result["rss_mb"] = rss_mb()
    finally:
        if mem is not None:
            mem.close()
        if tmp is not None:
            tmp.cleanup()
    result.update(env_info())
    return result


def _count(values: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for v in values:
        out[str(v)] = out.get(str(v), 0) + 1
    return out


QUALITY = ["recall_at_budget", "recall_at_300", "hit_at_1", "hit_at_5", "junk_at_1",
           "junk_at_5"]
LATENCY = ["search_ms_p50", "search_ms_p95", "files_read_p50", "tokens_p50", "kept_tokens_p50"]


def table(result: dict[str, Any]) -> str:
    """Tree and flat side by side, overall then per kind."""
    flat = result["flat_bm25"]
    rows: list[dict[str, Any]] = []
    groups = ["all"] + sorted(flat.get("by_kind", {}))
    for g in groups:
        f = flat if g == "all" else flat["by_kind"][g]
        t = result if g == "all" else result.get("by_kind", {}).get(g)
        h = result.get("hybrid")
        hsrc = None if h is None else (h if g == "all" else h.get("by_kind", {}).get(g))
        extra = [(name, result[name] if g == "all" else result[name]["by_kind"].get(g))
                 for name in ("model", "model_whole") if name in result]
        for name, src in (("tree", t), ("hybrid", hsrc), *extra, ("flat", f)):
            if src is None:
                continue
            row = {"kind": g, "who": name, "n": src.get("n_queries")}
            row.update({k: src.get(k) for k in QUALITY})
            row.update({k: src.get(k) for k in LATENCY})
            rows.append(row)
    cols = ["kind", "who", "n"] + QUALITY + LATENCY
    head = [
        f"{result['n_memories']} memories, {result['n_queries']} queries, top_k "
        f"{result['top_k']}, budget {result['budget']}, stemmer {result.get('stemmer')}",
    ]
    if "ingest_s" in result:
        head.append(
            f"ingest {result['ingest_s']:.1f} s (flush {result['flush_s']:.1f} s), single save "
            f"p50 {result['save_ms_p50']:.1f} ms p95 {result['save_ms_p95']:.1f} ms, "
            f"agreement_top10 {result.get('agreement_top10')}, rss {result['rss_mb']:.0f} MB"
        )
    if "links_made" in result:
        head.append(f"supersession links {result['links_made']} made, "
                    f"{result['links_expected']} expected: precision "
                    f"{result['link_precision']}, recall {result['link_recall']}")
    else:
        head.append(f"tree skipped: {result.get('tree_skipped')}")
    if result.get("hybrid"):
        h = result["hybrid"]
        saves = (f"single save p50 {h['save_ms_p50']:.1f} ms p95 {h['save_ms_p95']:.1f} ms "
                 f"(vectors ready p50 {h.get('vectors_ready_ms_p50') or 0:.1f} ms), "
                 if h.get("save_ms_p50") is not None else "")
        head.append(f"hybrid (tree + semantic): {saves}status {h['status_counts']}")
        if h.get("routing"):
            r = h["routing"]
            head.append(f"semantic routing: {r['rows']} vectors ({r['vectors_per_memory']:.1f} "
                        f"per memory), scanned p50 {r['scanned_p50']:.0f} (flat "
                        f"{r['flat_scanned_p50']:.0f}), routed top-30 recall "
                        f"{r['routed_recall_at_30']:.3f}")
    return "\n".join(head) + "\n" + format_table(rows, cols)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.retrieval",
                                 description=__doc__.split("\n")[0])  # fmt: skip
    ap.add_argument("--memories", type=Path, required=True, help="memories.jsonl")
    ap.add_argument("--queries", type=Path, required=True, help="queries.jsonl")
    ap.add_argument("--budget", type=int, default=900, help="token budget for recall")
    ap.add_argument("--store", type=Path, help="store folder to create (default: a temp dir)")
    ap.add_argument("--limit-queries", type=int, help="ask only the first K queries")
    ap.add_argument("--top-k", type=int, default=10, help="results asked of both retrievers")
    ap.add_argument("--singles", type=int, default=50, help="single saves timed after the load")
    ap.add_argument("--stemmer", default="english", help="stemmer of the new store")
    ap.add_argument("--branch-factor", type=int,
                    help="branch factor of the new store (default: the store's default)")
    ap.add_argument("--one-by-one", action="store_true",
                    help="load with one plain save per memory instead of Memory.bulk() "
                         "(a store grown the way an agent grows it)")
    ap.add_argument("--semantic", action="store_true",
                    help="also ask every query with semantic search on (needs ihmt[semantic])")
    ap.add_argument("--reuse-store", action="store_true",
                    help="ask the queries of a --store this harness already loaded with the "
                         "same memories (no load, no single saves)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    if args.reuse_store and args.store is None:
        ap.error("--reuse-store needs --store")
    for p in (args.memories, args.queries):
        if not p.exists():
            ap.error(f"{p} does not exist (generate it with python -m bench.synthetic)")
    result = run(
        args.memories, args.queries, budget=args.budget, store=args.store,
        limit_queries=args.limit_queries, top_k=args.top_k, singles=args.singles,
        stemmer=args.stemmer, semantic=args.semantic, branch_factor=args.branch_factor,
        one_by_one=args.one_by_one, reuse=args.reuse_store,
    )  # fmt: skip
    emit(result, args.json, table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
