"""Shared pieces of the benchmark harnesses: metrics, percentiles, the flat BM25 baseline,
process facts and output.

Every figure a harness prints for the tree is computed by the same function for the flat
baseline, so the two columns can only differ by what was retrieved.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import os
import platform
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DIR = REPO_ROOT / ".." / "shared"

# The scorer the tree is meant to reproduce; the baseline is built with exactly these.
BM25_K1 = 1.5
BM25_B = 0.75
BM25_METHOD = "lucene"

# Relative tolerance under which two BM25 scores count as tied (ties may reorder).
SCORE_RTOL = 1e-6


# --------------------------------------------------------------------------- small helpers


def progress(message: str) -> None:
    """Progress lines go to stderr so that stdout stays one JSON object."""
    print(message, file=sys.stderr, flush=True)


def percentile(values: Sequence[float], q: float) -> float | None:
    """The q-th percentile (0-100) with linear interpolation, like numpy's default."""
    if not values:
        return None
    ordered = sorted(values)
    if len(ordered) == 1:
        return float(ordered[0])
    pos = (len(ordered) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = math.ceil(pos)
    if lo == hi:
        return float(ordered[lo])
    return float(ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo))


def mean(values: Sequence[float]) -> float | None:
    return float(sum(values) / len(values)) if values else None


def rounded(value: Any, digits: int = 4) -> Any:
    """Round floats (recursively) so the JSON stays readable; other values pass through."""
    if isinstance(value, float):
        return round(value, digits)
    if isinstance(value, dict):
        return {k: rounded(v, digits) for k, v in value.items()}
    if isinstance(value, list):
        return [rounded(v, digits) for v in value]
    return value


def rss_mb() -> float | None:
    """Peak resident memory of this process in MB (None where it cannot be read).

    On Linux the peak of this process's own address space (``VmHWM``): ``ru_maxrss``
    survives ``exec``, so a child started from a large parent would report the parent's
    size at the fork."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except (OSError, ValueError):
        pass
    try:
        import resource
    except ImportError:  # Windows
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # Linux reports kilobytes, macOS bytes.
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def env_info() -> dict[str, Any]:
    return {
        "python": platform.python_version(),
        "cores": os.cpu_count(),
        "date": _dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        "platform": platform.platform(terse=True),
    }


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    with Path(path).open(encoding="utf-8") as fh:
        for line in fh:
            line = line.strip()
            if line:
                rows.append(json.loads(line))
    return rows


def write_jsonl(path: Path, rows: Iterable[dict[str, Any]]) -> None:
    with Path(path).open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")


class Stopwatch:
    """``with Stopwatch() as sw: ...`` then ``sw.ms`` / ``sw.s``."""

    def __enter__(self) -> Stopwatch:
        self._t0 = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.s = time.perf_counter() - self._t0
        self.ms = self.s * 1000.0


# --------------------------------------------------------------------------- the library


def load_memory_api() -> tuple[Any, str | None]:
    """``(Memory, None)`` when ``ihmt.memory`` is importable, else ``(None, reason)``."""
    try:
        from ihmt.memory import Memory
    except ImportError as exc:
        return None, f"ihmt.memory is not available yet ({exc})"
    return Memory, None


def load_compact_answer() -> Callable[[Any], str] | None:
    """``ihmt.render.compact_answer`` when the library has it (the text an agent reads)."""
    try:
        from ihmt.render import compact_answer
    except ImportError:
        return None
    return compact_answer


def open_store(memory_cls: Any, path: Path, stemmer: str | None = None,
               branch_factor: int | None = None) -> Any:
    config: dict[str, Any] = {"stemmer": stemmer} if stemmer else {}
    if branch_factor:
        config["branch_factor"] = branch_factor
    try:
        return memory_cls.open(path, create=True, config=config or None)
    except TypeError:  # an API without the config keyword
        return memory_cls.open(path, create=True)


def store_stemmer(mem: Any, default: str = "english") -> str:
    cfg = getattr(mem, "config", None)
    return str(getattr(cfg, "stemmer", default) or default)


def hit_key(hit: Any, prefix: str) -> str | None:
    """The benchmark key carried by a hit as the tag ``<prefix><key>``, if any."""
    for tag in getattr(hit, "tags", None) or []:
        if isinstance(tag, str) and tag.startswith(prefix):
            return tag[len(prefix) :]
    return None


def saved_ids(receipt: Any) -> list[str]:
    """Leaf ids out of whatever ``Memory.save`` returned."""
    ids = getattr(receipt, "ids", None)
    if ids is None and isinstance(receipt, dict):
        ids = receipt.get("ids")
    return list(ids or [])


def files_read(result: Any) -> int:
    return int(getattr(result, "node_reads", 0) or 0) + int(getattr(result, "leaf_reads", 0) or 0)


# --------------------------------------------------------------------------- metrics


def kept_count(texts: Iterable[str], budget: int, count: Callable[[str], int]) -> int:
    """How many results, read in rank order, fit in ``budget`` tokens (the first always does).

    ``texts`` is consumed lazily: a result past the first overflow is never read.
    """
    total = 0
    kept = 0
    for text in texts:
        cost = count(text)
        if kept and total + cost > budget:
            break
        total += cost
        kept += 1
    return kept


def _count_tokens() -> Callable[[str], int]:
    from ihmt.text import count_tokens

    return count_tokens


@dataclass
class Query:
    text: str
    targets: list[str]
    group: str  # query kind, or LoCoMo category


@dataclass
class Outcome:
    """One query's figures for one retriever (tree or flat)."""

    group: str
    recall_at_budget: float
    recall_at_300: float
    hit_at_1: float
    hit_at_5: float
    kept_tokens: int
    search_ms: float
    files_read: int | None = None
    node_reads: int | None = None
    tokens: int | None = None  # what an agent would read (compact answer where available)
    status: str | None = None
    capped: bool = False
    junk_at_1: float | None = None  # a memory of almost no words came first
    junk_at_5: float | None = None  # ... or within the top 5


def score_ranking(
    keys: Sequence[str | None],
    text_of: Callable[[int], str],
    targets: Iterable[str],
    *,
    budget: int,
    small_budget: int = 300,
) -> dict[str, Any]:
    """Recall at two budgets and hit@1/@5 of one ranked list against its target keys.

    ``keys[i]`` is the benchmark key of result i (None when it maps to none) and
    ``text_of(i)`` its text, asked for only while the budget is not yet exceeded.
    """
    count = _count_tokens()
    wanted = set(targets)
    cache: dict[int, str] = {}

    def texts() -> Iterable[str]:
        for i in range(len(keys)):
            if i not in cache:
                cache[i] = text_of(i)
            yield cache[i]

    out: dict[str, Any] = {}
    kept_big = 0
    for name, cap in (("recall_at_300", small_budget), ("recall_at_budget", budget)):
        n = kept_count(texts(), cap, count)
        inside = {k for k in keys[:n] if k is not None}
        out[name] = len(inside & wanted) / len(wanted) if wanted else 0.0
        kept_big = n
    out["kept_tokens"] = sum(count(cache[i]) for i in range(kept_big))
    out["hit_at_1"] = 1.0 if any(k in wanted for k in keys[:1]) else 0.0
    out["hit_at_5"] = 1.0 if any(k in wanted for k in keys[:5]) else 0.0
    return out


def junk_marks(keys: Sequence[str | None], junk: frozenset[str] | set[str]
               ) -> dict[str, float]:
    """``junk_at_1`` and ``junk_at_5`` of one ranked list (nothing when no junk given)."""
    if not junk:
        return {}
    return {"junk_at_1": float(any(k in junk for k in keys[:1])),
            "junk_at_5": float(any(k in junk for k in keys[:5]))}


def dedupe(keys: Iterable[str | None]) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for k in keys:
        if k is not None and k not in seen:
            seen.add(k)
            out.append(k)
    return out


def summarize(outcomes: Sequence[Outcome], *, with_files: bool = True) -> dict[str, Any]:
    """Quality means and latency/file percentiles of a list of query outcomes."""
    ms = [o.search_ms for o in outcomes]
    out: dict[str, Any] = {
        "n_queries": len(outcomes),
        "recall_at_budget": mean([o.recall_at_budget for o in outcomes]),
        "recall_at_300": mean([o.recall_at_300 for o in outcomes]),
        "hit_at_1": mean([o.hit_at_1 for o in outcomes]),
        "hit_at_5": mean([o.hit_at_5 for o in outcomes]),
        "search_ms_p50": percentile(ms, 50),
        "search_ms_p95": percentile(ms, 95),
        "kept_tokens_p50": percentile([o.kept_tokens for o in outcomes], 50),
    }
    junk = [o for o in outcomes if o.junk_at_5 is not None]
    if junk:
        out["junk_at_1"] = mean([o.junk_at_1 or 0.0 for o in junk])
        out["junk_at_5"] = mean([o.junk_at_5 or 0.0 for o in junk])
    tokens = [o.tokens for o in outcomes if o.tokens is not None]
    out["tokens_p50"] = percentile(tokens, 50) if tokens else out["kept_tokens_p50"]
    if with_files:
        files = [o.files_read for o in outcomes if o.files_read is not None]
        out["files_read_p50"] = percentile(files, 50)
        out["files_read_p90"] = percentile(files, 90)
        out["files_read_max"] = max(files) if files else None
    return out


def summarize_groups(
    outcomes: Sequence[Outcome], *, with_files: bool = True
) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[Outcome]] = {}
    for o in outcomes:
        groups.setdefault(o.group, []).append(o)
    return {g: summarize(v, with_files=with_files) for g, v in sorted(groups.items())}


def same_top(
    tree_keys: Sequence[str],
    flat_keys: Sequence[str],
    flat_score: Callable[[str], float],
    k: int = 10,
) -> tuple[bool, bool]:
    """(exact, score-tolerant) equality of two top-k lists.

    Tolerant: position by position, the flat scores of the two lists' entries are equal
    within a relative tolerance, so ties that reorder (or swap at the k-th place) still
    count as the same answer.
    """
    a, b = list(tree_keys[:k]), list(flat_keys[:k])
    if a == b:
        return True, True
    if len(a) != len(b):
        return False, False
    for x, y in zip(a, b, strict=True):
        sx, sy = flat_score(x), flat_score(y)
        if not math.isclose(sx, sy, rel_tol=SCORE_RTOL, abs_tol=1e-9):
            return False, False
    return False, True


# --------------------------------------------------------------------------- flat baseline


class FlatBM25:
    """BM25 over every document at once with ``bm25s``, seeing text through IHMT's tokenizer.

    Lucene variant, k1=1.5, b=0.75, float64 scores: the scorer the tree is meant to return
    the top-k of. A repeated query word counts once, as in the tree's descent (set
    ``dedupe_query=False`` for bm25s' own behaviour, where it counts twice).
    """

    def __init__(
        self,
        texts: Sequence[str],
        *,
        stemmer: str = "english",
        k1: float = BM25_K1,
        b: float = BM25_B,
        dedupe_query: bool = True,
    ) -> None:
        import bm25s

        from ihmt.text import tokenize

        self._tokenize = tokenize
        self.stemmer = stemmer
        self.dedupe_query = dedupe_query
        self.n_docs = len(texts)
        vocab: dict[str, int] = {}
        ids = [[vocab.setdefault(t, len(vocab)) for t in tokenize(x, stemmer)] for x in texts]
        if not vocab:  # bm25s needs at least one term
            vocab["\x00"] = 0
        self.vocab = vocab
        self.doc_len = [len(d) for d in ids]
        self._model = bm25s.BM25(k1=k1, b=b, method=BM25_METHOD, dtype="float64")
        # Building from (ids, vocab) sidesteps bm25s guessing the input type from doc 0.
        self._model.index((ids, dict(vocab)), show_progress=False)

    def query_ids(self, query: str) -> list[int]:
        terms = self._tokenize(query, self.stemmer)
        if self.dedupe_query:
            terms = list(dict.fromkeys(terms))
        return [self.vocab[t] for t in terms if t in self.vocab]

    def scores(self, query: str) -> Any:
        """Score of every document (a numpy array, zero where no query term occurs)."""
        import numpy as np

        qids = self.query_ids(query)
        if not qids or self.n_docs == 0:
            return np.zeros(self.n_docs, dtype="float64")
        return np.asarray(self._model.get_scores_from_ids(qids), dtype="float64")

    def search(self, query: str, top_k: int = 10) -> list[tuple[int, float]]:
        """(document index, score) of the best ``top_k`` with a positive score.

        Ties break by document order, so the ranking is deterministic.
        """
        scores = self.scores(query)
        return self.top(scores, top_k) if len(scores) else []

    @staticmethod
    def top(scores: Any, top_k: int) -> list[tuple[int, float]]:
        import numpy as np

        positive = np.flatnonzero(scores > 0)
        if positive.size == 0:
            return []
        if positive.size > top_k * 4:
            cut = np.partition(scores[positive], -top_k)[-top_k]
            positive = positive[scores[positive] >= cut]
        order = np.lexsort((positive, -scores[positive]))[:top_k]
        return [(int(positive[i]), float(scores[positive[i]])) for i in order]


    def search_scored(self, query: str, top_k: int = 10) -> tuple[list[tuple[int, float]], Any]:
        """``search`` plus the full score array (for comparing rankings)."""
        scores = self.scores(query)
        return (self.top(scores, top_k) if len(scores) else []), scores


# --------------------------------------------------------------------------- one run


@dataclass
class Comparison:
    """Tree and flat outcomes of the same queries, plus how often their top-10 agreed."""

    tree: list[Outcome] = field(default_factory=list)
    flat: list[Outcome] = field(default_factory=list)
    same_exact: int = 0
    same_tolerant: int = 0
    warm_ms: list[float] = field(default_factory=list)  # tree, second pass over the queries

    def agreement(self) -> dict[str, Any]:
        n = len(self.tree)
        return {
            "agreement_top10": self.same_tolerant / n if n else None,
            "agreement_top10_exact": self.same_exact / n if n else None,
            # The first pass reads each branch from disk once; a long-running server has
            # them cached, which the second pass measures.
            "search_ms_warm_p50": percentile(self.warm_ms, 50),
            "search_ms_warm_p95": percentile(self.warm_ms, 95),
        }


def _compact_tokens(compact: Callable[..., str], result: Any, budget: int) -> int:
    count = _count_tokens()
    try:
        return count(compact(result, budget))
    except TypeError:
        return count(compact(result))


def evaluate(
    mem: Any,
    flat: FlatBM25,
    flat_keys: Sequence[str],
    flat_texts: Sequence[str],
    queries: Sequence[Query],
    *,
    prefix: str,
    top_k: int = 10,
    budget: int = 900,
    small_budget: int = 300,
    label: str = "",
    junk: frozenset[str] | set[str] = frozenset(),
) -> Comparison:
    """Ask every query of the tree (``mem``, may be None) and of the flat baseline, in turn.

    The two retrievers alternate query by query so a noisy moment of the machine hits both.
    Tree files read are counted after the compact answer an agent would get, before the
    benchmark reads further texts to measure recall. ``junk``: keys of memories that hold
    almost no words; when given, each outcome says whether one of them came first or in
    the top 5.
    """
    compact = load_compact_answer()
    index = {k: i for i, k in enumerate(flat_keys)}
    out = Comparison()
    k_cmp = min(10, top_k)
    step = max(1, len(queries) // 10)
    for n, q in enumerate(queries):
        if n and n % step == 0:
            progress(f"{label}query {n}/{len(queries)}")
        with Stopwatch() as sw:
            top, scores = flat.search_scored(q.text, top_k)
        fkeys = [flat_keys[i] for i, _ in top]
        fsc = score_ranking(fkeys, lambda i, top=top: flat_texts[top[i][0]], q.targets,
                            budget=budget, small_budget=small_budget)
        out.flat.append(Outcome(q.group, search_ms=sw.ms, **fsc, **junk_marks(fkeys, junk)))
        if mem is None:
            continue
        with Stopwatch() as sw:
            res = mem.search(q.text, top_k=top_k)
        tokens = _compact_tokens(compact, res, budget) if compact else None
        files = files_read(res)
        keys = [hit_key(h, prefix) for h in res.hits]
        tsc = score_ranking(keys, lambda i, res=res: res.hits[i].text, q.targets,
                            budget=budget, small_budget=small_budget)
        out.tree.append(Outcome(
            q.group, search_ms=sw.ms, files_read=files,
            node_reads=int(getattr(res, "node_reads", 0) or 0), tokens=tokens,
            status=getattr(res, "status", None), capped=bool(getattr(res, "capped", False)),
            **tsc, **junk_marks(keys, junk),
        ))  # fmt: skip

        def flat_score(key: str, scores: Any = scores) -> float:
            i = index.get(key)
            return float(scores[i]) if i is not None else -1.0

        exact, tolerant = same_top(dedupe(keys), fkeys, flat_score, k=k_cmp)
        out.same_exact += int(exact)
        out.same_tolerant += int(tolerant)
    if mem is not None:
        for q in queries:
            with Stopwatch() as sw:
                mem.search(q.text, top_k=top_k)
            out.warm_ms.append(sw.ms)
    return out


# --------------------------------------------------------------------------- output


def format_table(rows: Sequence[dict[str, Any]], columns: Sequence[str]) -> str:
    """A plain fixed-width table (no colours, safe to paste into BENCHMARKS.md)."""

    def cell(v: Any) -> str:
        if v is None:
            return "-"
        if isinstance(v, float):
            return f"{v:.3f}" if abs(v) < 1000 else f"{v:.0f}"
        return str(v)

    body = [[cell(r.get(c)) for c in columns] for r in rows]
    widths = [max([len(c)] + [len(b[i]) for b in body]) for i, c in enumerate(columns)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(v.ljust(w) for v, w in zip(b, widths, strict=True)) for b in body]
    return "\n".join(lines)


def emit(result: dict[str, Any], as_json: bool, table: Callable[[dict[str, Any]], str]) -> None:
    """Print the result: one JSON object with ``--json``, a human table otherwise."""
    result = rounded(result)
    if as_json:
        print(json.dumps(result, ensure_ascii=False))
    else:
        print(table(result))
