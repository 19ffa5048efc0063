"""The agent hooks: latency of a fresh hook process, injection quality on LoCoMo, silence.

    python -m bench.hooks [--sizes 500,5000] [--runs 30] [--semantic] [--conversations N]
        [--data ../shared/data/locomo/locomo-dev.json] [--skip-latency] [--skip-quality]
        [--skip-silence] [--json]

- ``latency``: ``python -m ihmt.faces.cli --path S hook prompt-submit|session-start`` as the
  agent runs it, timed from process start to its exit, p50/p95 over ``--runs`` calls per
  store after a first call timed apart (``first_ms``: no packed branch copies yet, as after
  a save that rewrote the top of the tree), then the same prompts again (``warm_``: the
  copies of every branch those prompts open are written); session-start also as
  ``session-start-changed``, each call with the kept digest removed, as after a save
  (:mod:`ihmt.faces.digest_cache`); synthetic memories from :mod:`bench.synthetic`,
  prompts that generator's queries, so most calls search. The children run with their
  bytecode cached, as an installed IHMT does. Baseline in the same run: ``python -c
  pass``, the interpreter's own start.
- ``quality``: each LoCoMo question (categories 1-4 with evidence) as a prompt against its
  conversation's store (one memory per turn, as in :mod:`bench.locomo`): share of prompts
  injected, precision (injections holding an evidence turn), recall (questions whose
  evidence was injected), tokens per prompt averaged over all prompts, for a sweep of
  confidence gates, beside flat BM25 top-3 injected unconditionally (the naive hook).
  Category 5 (unanswerable) is reported apart: every injection there is a false one.
- ``silence``: the ordinary coding prompts of ``bench/questions/coding_prompts.txt``
  against a 5,000-memory synthetic store: the share injected (target: at most 5 %), with
  the prompt filter and without it (the confidence gate alone).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import locomo, synthetic
from bench._common import (
    FlatBM25,
    emit,
    env_info,
    format_table,
    open_store,
    percentile,
    progress,
    store_stemmer,
)

PROMPTS = Path(__file__).parent / "questions" / "coding_prompts.txt"
GATES = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)


def coding_prompts() -> list[str]:
    lines = PROMPTS.read_text(encoding="utf-8").splitlines()
    return [x.strip() for x in lines if x.strip() and not x.startswith("#")]


class _Recorder:
    """Wraps a Memory: remembers the last search result the recall code asked for."""

    def __init__(self, mem: Any) -> None:
        self.mem = mem
        self.last: Any = None

    def search(self, query: str, top_k: int = 10, *, clue: str | None = None) -> Any:
        self.last = self.mem.search(query, top_k, clue=clue)
        return self.last


def _build_synthetic(path: Path, n: int, seed: int = 7) -> tuple[Any, list[dict[str, Any]]]:
    from ihmt.memory import Memory

    rows, queries = synthetic.generate(n, 60, seed)
    mem = open_store(Memory, path)
    with mem.bulk():
        for row in rows:
            mem.save(row["text"], date=row.get("date"), domain="general")
    mem.flush()
    return mem, queries


# ---------------------------------------------------------------------- latency
def _timed(cmd: list[str], stdin: str, env: dict[str, str]) -> tuple[float, str]:
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, input=stdin, capture_output=True, text=True, env=env, timeout=60)
    return time.perf_counter() - t0, proc.stdout


def _stats(values: list[float]) -> dict[str, Any]:
    return {"p50_ms": 1000 * (percentile(values, 50) or 0.0),
            "p95_ms": 1000 * (percentile(values, 95) or 0.0), "runs": len(values)}


def _child_env(tmp: str) -> dict[str, str]:
    """The hook's environment: as an installed IHMT runs, with its bytecode cached (written
    to a temporary folder, so that a PYTHONDONTWRITEBYTECODE in the caller's environment
    does not make every call compile the package again), and a time limit that measures
    the work rather than cutting it."""
    env = {**os.environ, "IHMT_HOOK_TIMEOUT": "30", "PYTHONPYCACHEPREFIX":
           str(Path(tmp) / "pycache")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def latency(sizes: list[int], runs: int, semantic: bool = False) -> dict[str, Any]:
    """With ``semantic`` the stores get vectors, and prompt-submit is also timed with
    ``IHMT_HOOK_SEMANTIC=on`` (the hook's default stays lexical).

    Per store and event: ``first_ms``, the first call (it finds no packed branch copies,
    as after a save that rewrote the top of the tree, and writes them), then p50/p95 over
    ``runs`` further calls."""
    from bench import _semantic

    _semantic.select(semantic)
    with tempfile.TemporaryDirectory(prefix="ihmt-hooks-env-") as envdir:
        env = _child_env(envdir)
        _timed([sys.executable, "-m", "ihmt.faces.cli", "--help"], "", env)  # bytecode
        base = [_timed([sys.executable, "-c", "pass"], "", env)[0] for _ in range(runs)]
        out: dict[str, Any] = {"python_start": _stats(base), "stores": []}
        for n in sizes:
            out["stores"].append(_store_latency(n, runs, semantic, env))
    return out


def _store_latency(n: int, runs: int, semantic: bool, env: dict[str, str]) -> dict[str, Any]:
    from ihmt.store import branch_cache

    with tempfile.TemporaryDirectory(prefix="ihmt-hooks-lat-") as tmp:
        store = Path(tmp) / "ihmt_memory"
        progress(f"latency: building a {n}-memory store")
        t0 = time.perf_counter()
        mem, queries = _build_synthetic(store, n)
        mem.close()
        built = time.perf_counter() - t0
        cmd = [sys.executable, "-m", "ihmt.faces.cli", "--path", str(store), "hook"]
        rows: dict[str, Any] = {"memories": n, "build_s": built, "semantic": semantic}
        # "session-start-changed": every call after a change, its kept digest removed
        # (ihmt.faces.digest_cache); "session-start": the store unchanged between calls
        events = ["prompt-submit", "session-start", "session-start-changed"] + (
            ["prompt-submit-semantic"] if semantic else [])
        for event in events:
            progress(f"latency: {n} memories, {event}")
            call_env = {**env, "IHMT_HOOK_SEMANTIC": "on"} \
                if event.endswith("-semantic") else env
            branch_cache.clear(store / "state")
            times: list[float] = []
            injected = 0
            for i in range(2 * runs + 1):  # the first call, a series, the series again
                q = queries[max(0, i - 1) % runs % len(queries)]["query"]
                payload = {"hook_event_name": "UserPromptSubmit", "cwd": tmp,
                           "session_id": "bench", "prompt": f"what was {q}?"} \
                    if event.startswith("prompt-submit") else \
                    {"hook_event_name": "SessionStart", "cwd": tmp, "source": "startup"}
                if event == "session-start-changed":
                    (store / "state" / "cache" / "digest.json").unlink(missing_ok=True)
                s, text = _timed(cmd + [event.removesuffix("-semantic").removesuffix(
                    "-changed")], json.dumps(payload), call_env)
                times.append(s)
                injected += bool(text.strip()) and 0 < i <= runs
            warm = _stats(times[runs + 1:])
            rows[event] = {**_stats(times[1:runs + 1]), "first_ms": 1000 * times[0],
                           "warm_p50_ms": warm["p50_ms"], "warm_p95_ms": warm["p95_ms"],
                           "with_output": injected}
    return rows


# ---------------------------------------------------------------------- quality
def quality(data: Path, conversations: int | None) -> dict[str, Any]:
    from bench import _semantic
    from ihmt.memory import Memory
    from ihmt.recall import is_recall_prompt, prompt_recall
    from ihmt.text import count_tokens

    _semantic.select(False)  # the hook searches lexically (see ihmt.faces.hook)
    convs = locomo.load(data)[:conversations] if conversations else locomo.load(data)
    rows: list[dict[str, Any]] = []  # one per answerable question
    adversarial: list[dict[str, Any]] = []
    naive: list[dict[str, Any]] = []
    for conv in convs:
        with tempfile.TemporaryDirectory(prefix="ihmt-hooks-locomo-") as tmp:
            mem = open_store(Memory, Path(tmp) / "ihmt_memory", "english")
            progress(f"quality: {conv.sample_id}: loading {len(conv.turns)} turns")
            with mem.bulk():
                for t in conv.turns:
                    mem.save(t.text, date=t.date, domain="general",
                             tags=[f"{locomo.PREFIX}{t.dia_id}"])
            mem.flush()
            flat = FlatBM25([t.text for t in conv.turns], stemmer=store_stemmer(mem))
            rec = _Recorder(mem)
            for q in conv.questions:
                if q.category not in locomo.CATEGORIES and q.category != 5:
                    continue
                if q.category != 5 and not q.evidence:
                    continue
                rec.last = None
                inj = prompt_recall(rec, q.text, gate=0.0)
                res = rec.last
                shown = set(inj.ids)
                keys = {t for h in (res.hits if res else []) if h.id in shown
                        for t in h.tags if t.startswith(locomo.PREFIX)}
                best = res.hits[0] if res is not None and res.hits else None
                row = {"filter": is_recall_prompt(q.text),
                       "answer_hit": bool(best is not None and best.id in shown and {
                           locomo.PREFIX + e for e in q.evidence} & set(best.tags)),
                       "found": bool(res is not None and res.status == "FOUND"),
                       "confidence": inj.confidence,
                       "hit": bool({locomo.PREFIX + e for e in q.evidence} & keys),
                       "tokens": count_tokens(inj.text) if inj.text else 0}
                if q.category == 5:
                    adversarial.append(row)
                    continue
                rows.append(row)
                top = flat.search(q.text, 3)
                texts = [conv.turns[i].text for i, _ in top]
                ids = {conv.turns[i].dia_id for i, _ in top}
                naive.append({"hit": bool(set(q.evidence) & ids),
                              "tokens": count_tokens("\n".join(texts)) if texts else 0})
            mem.close()

    def at(gate: float, items: list[dict[str, Any]]) -> dict[str, Any]:
        inj = [r for r in items if r["filter"] and r["found"] and r["confidence"] >= gate]
        n = len(items) or 1
        return {"gate": gate, "injected_share": len(inj) / n,
                "precision": sum(r["hit"] for r in inj) / len(inj) if inj else None,
                "recall": sum(r["hit"] for r in inj) / n,
                "answer_precision": sum(r.get("answer_hit", False) for r in inj) / len(inj)
                if inj else None,
                "tokens_per_prompt": sum(r["tokens"] for r in inj) / n}

    n = len(naive) or 1
    return {
        "data": str(data), "n_conversations": len(convs), "n_questions": len(rows),
        "passed_filter": sum(r["filter"] for r in rows) / (len(rows) or 1),
        "gates": [at(g, rows) for g in GATES],
        "naive_bm25_top3": {"injected_share": sum(bool(r["tokens"]) for r in naive) / n,
                            "precision": sum(r["hit"] for r in naive)
                            / (sum(bool(r["tokens"]) for r in naive) or 1),
                            "recall": sum(r["hit"] for r in naive) / n,
                            "tokens_per_prompt": sum(r["tokens"] for r in naive) / n},
        "category_5": {"n_questions": len(adversarial),
                       "gates": [{"gate": g, "injected_share": at(g, adversarial)
                                  ["injected_share"]} for g in GATES]},
    }


# ---------------------------------------------------------------------- silence
def silence(n: int) -> dict[str, Any]:
    from bench import _semantic
    from ihmt.recall import GATE, prompt_recall

    _semantic.select(False)  # the hook searches lexically (see ihmt.faces.hook)
    prompts = coding_prompts()
    with tempfile.TemporaryDirectory(prefix="ihmt-hooks-silence-") as tmp:
        progress(f"silence: building a {n}-memory store")
        mem, _ = _build_synthetic(Path(tmp) / "ihmt_memory", n)
        with_filter = [p for p in prompts if mem.recall_for_prompt(p).injected]
        gate_only = [p for p in prompts if prompt_recall(mem, p, gate=GATE,
                                                         check_prompt=False).injected]
        mem.close()
    return {"memories": n, "n_prompts": len(prompts), "gate": GATE,
            "false_injection_rate": len(with_filter) / len(prompts),
            "false_injections": with_filter,
            "gate_only_rate": len(gate_only) / len(prompts),
            "gate_only_examples": gate_only[:10]}


# ---------------------------------------------------------------------- output
def _table(result: dict[str, Any]) -> str:
    parts: list[str] = []
    lat = result.get("latency")
    if lat:
        rows = [{"memories": "python -c pass", "event": "-", **lat["python_start"]}]
        for s in lat["stores"]:
            for ev in ("prompt-submit", "session-start", "session-start-changed",
                       "prompt-submit-semantic"):
                if ev in s:
                    rows.append({"memories": s["memories"], "event": ev, **s[ev]})
        parts.append(format_table(rows, ["memories", "event", "p50_ms", "p95_ms", "first_ms",
                                         "warm_p50_ms", "warm_p95_ms", "runs",
                                         "with_output"]))
    q = result.get("quality")
    if q:
        rows = list(q["gates"]) + [{"gate": "naive BM25 top-3", **q["naive_bm25_top3"]}]
        parts.append(f"LoCoMo, {q['n_questions']} questions, {q['passed_filter']:.3f} pass "
                     "the prompt filter\n" + format_table(
                         rows, ["gate", "injected_share", "precision", "answer_precision",
                                "recall", "tokens_per_prompt"]))
        parts.append("category 5 injected: " + ", ".join(
            f"{g['gate']}: {g['injected_share']:.3f}" for g in q["category_5"]["gates"]))
    s = result.get("silence")
    if s:
        parts.append(f"silence: {s['n_prompts']} coding prompts, {s['memories']} memories: "
                     f"{s['false_injection_rate']:.3f} injected (gate alone, no filter: "
                     f"{s['gate_only_rate']:.3f})")
    return "\n\n".join(parts)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.hooks", description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="500,5000", help="store sizes for the latency runs")
    ap.add_argument("--runs", type=int, default=30, help="hook calls per store and event")
    ap.add_argument("--data", type=Path, default=locomo.DEFAULT_DATA)
    ap.add_argument("--conversations", type=int, default=None)
    ap.add_argument("--silence-size", type=int, default=5000)
    ap.add_argument("--semantic", action="store_true", help="latency: stores with vectors "
                    "(needs ihmt[semantic]); also time the hook with IHMT_HOOK_SEMANTIC=on")
    ap.add_argument("--skip-latency", action="store_true")
    ap.add_argument("--skip-quality", action="store_true")
    ap.add_argument("--skip-silence", action="store_true")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    result: dict[str, Any] = {"env": env_info()}
    if not args.skip_latency:
        result["latency"] = latency([int(x) for x in args.sizes.split(",") if x], args.runs,
                                    args.semantic)
    if not args.skip_quality:
        if args.data.exists():
            result["quality"] = quality(args.data, args.conversations)
        else:
            result["quality_skipped"] = f"{args.data} not found"
    if not args.skip_silence:
        result["silence"] = silence(args.silence_size)
    emit(result, args.json, _table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
