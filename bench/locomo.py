"""LoCoMo retrieval: evidence recall of the tree against a flat BM25, per conversation store.

    python -m bench.locomo [--data ../shared/data/locomo/locomo-dev.json] [--budget 900]
        [--conversations N] [--json]

One fresh store per conversation (an isolated haystack). Each dialogue turn is one memory:
``"{speaker}: {text}"`` plus ``" [image: {blip_caption}]"`` where the turn shared an image,
dated with its session's date and tagged ``locomo:<dia_id>``. The generated observations
and summaries are never ingested.

For every question of categories 1-4 with evidence: recall of the evidence turns within the
token budget (headline: 900) and within 300 tokens, hit@1, hit@5, files read and latency,
per category and overall (question-weighted), with a flat ``bm25s`` over the same turns
(IHMT's tokenizer and stemmer) alongside. For category 5 (unanswerable), the share of
questions the tree answers with NOT_FOUND or AMBIGUOUS; the flat baseline cannot say
either, so its figure is null.

The data is read in place (CC BY-NC 4.0, evaluation only); when the file is absent the
harness says so and exits 0 with ``{"skipped": ...}``.

``--semantic`` (needs ``ihmt[semantic]``) loads each store with vectors and asks every
question a second time with semantic search on: ``hybrid`` rows beside ``tree`` (BM25-only).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench import _semantic
from bench._common import (
    SHARED_DIR,
    FlatBM25,
    Outcome,
    Query,
    Stopwatch,
    emit,
    env_info,
    evaluate,
    format_table,
    load_memory_api,
    open_store,
    progress,
    rss_mb,
    store_stemmer,
    summarize,
    summarize_groups,
)

DEFAULT_DATA = SHARED_DIR / "data" / "locomo" / "locomo-dev.json"
PREFIX = "locomo:"
CATEGORIES = {1: "1_multi_hop", 2: "2_temporal", 3: "3_open_domain", 4: "4_single_hop"}
ABSTAIN = ("NOT_FOUND", "AMBIGUOUS")

_MONTHS = {
    m: i
    for i, names in enumerate(
        [("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"),
         ("may",), ("jun", "june"), ("jul", "july"), ("aug", "august"),
         ("sep", "sept", "september"), ("oct", "october"), ("nov", "november"),
         ("dec", "december")],
        start=1,
    )
    for m in names
}  # fmt: skip
_DATE = re.compile(r"(\d{1,2})\s+([A-Za-z]+)\.?,?\s+(\d{4})")
_EVIDENCE = re.compile(r"D:?(\d+):0*(\d+)")


def session_date(text: str) -> str | None:
    """'1:56 pm on 8 May, 2023' -> '2023-05-08' (None when no date can be read)."""
    m = _DATE.search(text or "")
    if not m:
        return None
    month = _MONTHS.get(m.group(2).lower())
    if month is None:
        return None
    return f"{int(m.group(3)):04d}-{month:02d}-{int(m.group(1)):02d}"


@dataclass
class Turn:
    dia_id: str
    text: str
    date: str | None


@dataclass
class Question:
    text: str
    category: int
    evidence: list[str]


@dataclass
class Conversation:
    sample_id: str
    turns: list[Turn] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)
    evidence_fixed: int = 0  # malformed entries repaired ("D:11:26", "D30:05", "a; b")
    evidence_dropped: int = 0  # entries naming no turn ("D", unknown ids)


def fix_evidence(raw: list[Any], known: set[str]) -> tuple[list[str], int, int]:
    """Clean one question's evidence list: (ids, repaired count, dropped count).

    Entries may hold several ids ("D8:6; D9:17", "D9:1 D4:4 D4:6"), a stray colon
    ("D:11:26"), a zero-padded turn ("D30:05"), or name no turn at all ("D").
    """
    out: list[str] = []
    fixed = dropped = 0
    for entry in raw or []:
        parts = [p for p in re.split(r"[;,\s]+", str(entry)) if p]
        if len(parts) > 1:
            fixed += 1
        for part in parts or [""]:
            m = _EVIDENCE.fullmatch(part)
            if not m:
                dropped += 1
                continue
            ident = f"D{int(m.group(1))}:{int(m.group(2))}"
            if ident != part and len(parts) == 1:
                fixed += 1
            if ident not in known:
                dropped += 1
                continue
            if ident not in out:
                out.append(ident)
    return out, fixed, dropped


def turn_text(turn: dict[str, Any]) -> str:
    text = f"{turn.get('speaker', '')}: {turn.get('text', '')}"
    caption = turn.get("blip_caption")
    if caption:
        text += f" [image: {caption}]"
    return text


def load(path: Path) -> list[Conversation]:
    """Read a LoCoMo-format file: dialogue turns and questions only."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    out: list[Conversation] = []
    for raw in data:
        conv = Conversation(str(raw.get("sample_id", f"conv-{len(out)}")))
        sessions = raw.get("conversation", {})
        numbers = sorted(
            int(k.split("_")[1])
            for k, v in sessions.items()
            if re.fullmatch(r"session_\d+", k) and isinstance(v, list)
        )
        for n in numbers:
            date = session_date(str(sessions.get(f"session_{n}_date_time", "")))
            for turn in sessions[f"session_{n}"]:
                conv.turns.append(Turn(str(turn["dia_id"]), turn_text(turn), date))
        known = {t.dia_id for t in conv.turns}
        for qa in raw.get("qa", []):
            ev, fixed, dropped = fix_evidence(qa.get("evidence") or [], known)
            conv.evidence_fixed += fixed
            conv.evidence_dropped += dropped
            conv.questions.append(Question(str(qa["question"]), int(qa["category"]), ev))
        out.append(conv)
    return out


def run(
    data: Path,
    *,
    budget: int = 900,
    conversations: int | None = None,
    top_k: int = 10,
    stemmer: str = "english",
    semantic: bool = False,
) -> dict[str, Any]:
    _semantic.select(semantic)
    convs = load(data)
    if conversations is not None:
        convs = convs[:conversations]
    memory_cls, why = load_memory_api()
    if memory_cls is None:
        progress(f"tree skipped: {why}; running the flat baseline only")
    tree_out: list[Outcome] = []
    flat_out: list[Outcome] = []
    hybrid_out: list[Outcome] = []
    hybrid_abstain: list[str] = []
    abstain: list[str] = []
    no_match: list[bool] = []
    same_exact = same_tol = 0
    per_conv: list[dict[str, Any]] = []
    ingest_total = 0.0
    no_evidence = 0
    for conv in convs:
        questions = [
            Query(q.text, q.evidence, CATEGORIES[q.category])
            for q in conv.questions
            if q.category in CATEGORIES and q.evidence
        ]
        no_evidence += sum(1 for q in conv.questions if q.category in CATEGORIES
                           and not q.evidence)  # fmt: skip
        adversarial = [q.text for q in conv.questions if q.category == 5]
        keys = [t.dia_id for t in conv.turns]
        texts = [t.text for t in conv.turns]
        row: dict[str, Any] = {"sample_id": conv.sample_id, "turns": len(conv.turns),
                               "questions": len(questions)}  # fmt: skip
        with tempfile.TemporaryDirectory(prefix="ihmt-locomo-") as tmp:
            mem = None
            conv_stemmer = stemmer
            try:
                if memory_cls is not None:
                    mem = open_store(memory_cls, Path(tmp) / "ihmt_memory", stemmer)
                    if semantic:
                        _semantic.check(mem)
                    conv_stemmer = store_stemmer(mem, stemmer)
                    progress(f"{conv.sample_id}: loading {len(conv.turns)} turns")
                    with Stopwatch() as load_sw:
                        with mem.bulk():
                            for t in conv.turns:
                                mem.save(t.text, date=t.date, domain="general",
                                         tags=[f"{PREFIX}{t.dia_id}"])  # fmt: skip
                        mem.flush()
                    _semantic.set_active(mem, False)
                    row["ingest_s"] = load_sw.s
                    ingest_total += load_sw.s
                flat = FlatBM25(texts, stemmer=conv_stemmer)
                cmp = evaluate(mem, flat, keys, texts, questions, prefix=PREFIX, top_k=top_k,
                               budget=budget, label=f"{conv.sample_id}: ")  # fmt: skip
                if mem is not None:
                    for q in adversarial:
                        res = mem.search(q, top_k=top_k)
                        abstain.append(str(res.status))
                        no_match.append(not res.hits)
                if mem is not None and semantic:
                    _semantic.set_active(mem, True)
                    hyb = evaluate(mem, flat, keys, texts, questions, prefix=PREFIX,
                                   top_k=top_k, budget=budget,
                                   label=f"{conv.sample_id} hybrid: ")  # fmt: skip
                    hybrid_out += hyb.tree
                    for q in adversarial:
                        hybrid_abstain.append(str(mem.search(q, top_k=top_k).status))
            finally:
                if mem is not None:
                    mem.close()
        tree_out += cmp.tree
        flat_out += cmp.flat
        same_exact += cmp.same_exact
        same_tol += cmp.same_tolerant
        if cmp.tree:
            row["recall_at_budget"] = summarize(cmp.tree)["recall_at_budget"]
        row["flat_recall_at_budget"] = summarize(cmp.flat, with_files=False)["recall_at_budget"]
        per_conv.append(row)

    result: dict[str, Any] = {
        "data": str(data),
        "n_conversations": len(convs),
        "n_turns": sum(len(c.turns) for c in convs),
        "n_questions": len(flat_out),
        "questions_without_evidence": no_evidence,
        "evidence_fixed": sum(c.evidence_fixed for c in convs),
        "evidence_dropped": sum(c.evidence_dropped for c in convs),
        "budget": budget,
        "top_k": top_k,
        "stemmer": stemmer,
    }
    if memory_cls is None:
        result["tree_skipped"] = why
    else:
        result["ingest_s"] = ingest_total
        result.update(summarize(tree_out))
        result["by_category"] = summarize_groups(tree_out)
        n = len(tree_out)
        result["agreement_top10"] = same_tol / n if n else None
        result["agreement_top10_exact"] = same_exact / n if n else None
        counts: dict[str, int] = {}
        for s in abstain:
            counts[s] = counts.get(s, 0) + 1
        result["category_5"] = {
            "n_questions": len(abstain),
            "not_found_or_ambiguous": (
                sum(counts.get(s, 0) for s in ABSTAIN) / len(abstain) if abstain else None
            ),
            "status_counts": counts,
            # "Before": a search without the confidence rules says NOT FOUND only when no
            # memory shares a word with the question.
            "without_confidence_rules": (
                sum(no_match) / len(no_match) if no_match else None
            ),
        }
    if hybrid_out:
        hybrid = _semantic.hybrid_summary(hybrid_out, "by_category")
        hybrid["category_5"] = {
            "n_questions": len(hybrid_abstain),
            "not_found_or_ambiguous": (
                sum(1 for s in hybrid_abstain if s in ABSTAIN) / len(hybrid_abstain)
                if hybrid_abstain else None
            ),
        }
        result["hybrid"] = hybrid
    flat_summary = summarize(flat_out, with_files=False)
    flat_summary["by_category"] = summarize_groups(flat_out, with_files=False)
    flat_summary["category_5"] = {"not_found_or_ambiguous": None}
    result["flat_bm25"] = flat_summary
    result["per_conversation"] = per_conv
    result["rss_mb"] = rss_mb()
    result.update(env_info())
    return result


QUALITY = ["recall_at_budget", "recall_at_300", "hit_at_1", "hit_at_5"]


def table(result: dict[str, Any]) -> str:
    if "skipped" in result:
        return f"skipped: {result['skipped']}"
    flat = result["flat_bm25"]
    rows: list[dict[str, Any]] = []
    for g in ["all"] + sorted(flat.get("by_category", {})):
        f = flat if g == "all" else flat["by_category"][g]
        t = result if g == "all" else result.get("by_category", {}).get(g)
        h = result.get("hybrid")
        hsrc = None if h is None else (h if g == "all" else h["by_category"].get(g))
        for name, src in (("tree", t), ("hybrid", hsrc), ("flat", f)):
            if src is None or (name == "tree" and "tree_skipped" in result):
                continue
            row = {"category": g, "who": name, "n": src.get("n_queries")}
            row.update({k: src.get(k) for k in QUALITY})
            row.update({k: src.get(k) for k in ("search_ms_p50", "files_read_p50")})
            rows.append(row)
    cols = ["category", "who", "n"] + QUALITY + ["search_ms_p50", "files_read_p50"]
    head = (f"LoCoMo {result['n_conversations']} conversations, {result['n_turns']} turns, "
            f"{result['n_questions']} questions (categories 1-4), budget {result['budget']}, "
            f"top_k {result['top_k']}")  # fmt: skip
    lines = [head]
    if "tree_skipped" in result:
        lines.append(f"tree skipped: {result['tree_skipped']}")
    else:
        c5 = result["category_5"]
        lines.append(
            f"category 5: {c5['n_questions']} questions, NOT_FOUND or AMBIGUOUS "
            f"{c5['not_found_or_ambiguous']}; agreement_top10 {result['agreement_top10']}"
        )
        if result.get("hybrid"):
            lines.append("hybrid category 5: NOT_FOUND or AMBIGUOUS "
                         f"{result['hybrid']['category_5']['not_found_or_ambiguous']}")
    return "\n".join(lines) + "\n" + format_table(rows, cols)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.locomo",
                                 description=__doc__.split("\n")[0])  # fmt: skip
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA, help="a LoCoMo-format JSON file")
    ap.add_argument("--budget", type=int, default=900, help="token budget for recall")
    ap.add_argument("--conversations", type=int, help="use only the first N conversations")
    ap.add_argument("--top-k", type=int, default=10, help="results asked of both retrievers")
    ap.add_argument("--stemmer", default="english", help="stemmer of the new stores")
    ap.add_argument("--semantic", action="store_true",
                    help="also ask every question with semantic search on (ihmt[semantic])")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    if not args.data.exists():
        why = f"LoCoMo data not found at {args.data.resolve()} (see shared/data/locomo/README.md)"
        progress(f"skipping: {why}")
        emit({"skipped": why}, args.json, table)
        return 0
    result = run(args.data, budget=args.budget, conversations=args.conversations,
                 top_k=args.top_k, stemmer=args.stemmer, semantic=args.semantic)  # fmt: skip
    emit(result, args.json, table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
