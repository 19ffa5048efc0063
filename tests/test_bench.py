"""Correctness of the benchmark harnesses (bench/): small runs only, no timing assertions."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
from bench import bulk_memory, locomo, retrieval, synthetic
from bench._common import FlatBM25, kept_count, load_memory_api, percentile, score_ranking

from ihmt.semantic import missing_packages

MEMORY, MEMORY_MISSING = load_memory_api()
needs_memory = pytest.mark.skipif(MEMORY is None, reason=f"{MEMORY_MISSING}")


# ----------------------------------------------------------------------------- generator


def _read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_generator_is_deterministic(tmp_path: Path) -> None:
    for name in ("a", "b"):
        assert synthetic.main(["--n", "400", "--queries", "40", "--seed", "11",
                               "--out", str(tmp_path / name), "--json"]) == 0  # fmt: skip
    for f in ("memories.jsonl", "queries.jsonl"):
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes()
    other, _ = synthetic.generate(400, 0, seed=12)
    assert [m["text"] for m in other] != [m["text"] for m in _read(tmp_path / "a" / "memories.jsonl")]


def test_generator_rows_and_query_targets_are_valid() -> None:
    memories, queries = synthetic.generate(1500, 80, seed=3, paraphrase=True)
    by_id = {m["id"]: m for m in memories}
    assert len(by_id) == len(memories) == 1500
    words = [len(m["text"].split()) for m in memories]
    assert min(words) >= 10 and max(words) <= 90
    assert any(re.search(r"\b(el|la|de)\b", m["text"]) for m in memories)  # some Spanish
    kinds = {q["kind"] for q in queries}
    assert {"exact", "descriptive", "update", "person"} <= kinds
    assert len(queries) == 80
    for q in queries:
        assert q["targets"] and all(t in by_id for t in q["targets"])
        target = by_id[q["targets"][0]]["text"]
        tokens = [t.strip("?,") for t in q["query"].split()]
        if q["kind"] == "exact":
            # Some token of the query is a rare identifier written in the target.
            idents = [t for t in tokens if re.search(r"[\d_/-]|[a-z][A-Z]", t)]
            assert any(t in target for t in idents), q
        if q["kind"] == "person":
            assert any(t in synthetic.FIRST_NAMES and t in target for t in tokens), q
        if q["kind"] == "update":
            assert len(q["targets"]) == 1


def test_descriptive_words_are_rare_together() -> None:
    memories, queries = synthetic.generate(1500, 80, seed=4)
    texts = [synthetic._content_words(m["text"]) for m in memories]
    index = {m["id"]: i for i, m in enumerate(memories)}
    filler = {"the", "one", "about", "and", "what", "was", "said"}
    for q in (q for q in queries if q["kind"] == "descriptive"):
        wanted = synthetic._content_words(q["query"]) - filler
        assert wanted <= texts[index[q["targets"][0]]], q
        assert sum(1 for ws in texts if wanted <= ws) <= 2, q


def test_update_targets_the_newest_of_a_chain() -> None:
    gen = synthetic._Generator(5)
    mems = gen.memories(800)
    queries = synthetic._QueryMaker(gen, mems).make(40, ["update"])
    assert queries
    by_id = {m.id: m for m in mems}
    for q in queries:
        target = by_id[q["targets"][0]]
        chain = gen.chains[target.chain or 0]
        assert target is chain.members[-1]
        assert all(m.date and target.date and m.date < target.date for m in chain.members[:-1])


def test_chains_have_two_to_four_versions_over_several_attributes() -> None:
    gen = synthetic._Generator(6)
    gen.memories(4000)
    full = [c for c in gen.chains if len(c.members) >= 2]
    assert {len(c.members) for c in full} == {2, 3, 4}
    texts = " ".join(m.text for c in full for m in c.members)
    for phrase in ("login provider", "rate limit", "backup schedule", "port"):
        assert phrase in texts
    rows, _ = synthetic.generate(600, 0, seed=6)
    chained = [r for r in rows if "chain" in r]
    assert chained and all(isinstance(r["chain"], int) for r in chained)
    assert all(set(r) <= {"id", "text", "date", "chain"} for r in rows)


def test_descriptive_and_person_queries_do_not_fit_a_later_version() -> None:
    gen = synthetic._Generator(8)
    mems = gen.memories(3000)
    maker = synthetic._QueryMaker(gen, mems)
    queries = maker.make(120, ["descriptive", "person"])
    by_id = {m.id: i for i, m in enumerate(mems)}
    checked = 0
    for q in queries:
        i = by_id[q["targets"][0]]
        wanted = synthetic._content_words(q["query"]) & maker.words[i]
        for j in maker.later.get(i, ()):
            checked += 1
            assert not wanted <= maker.words[j], q
    assert maker.later and any(maker.later.values())
    assert checked > 0  # some targets are older versions of a fact


def test_link_scores_against_the_chains() -> None:
    rows = [{"id": "m1", "chain": 0, "date": "2024-01-01"}, {"id": "m4", "text": "x"},
            {"id": "m2", "chain": 0, "date": "2024-02-01"},
            {"id": "m3", "chain": 0, "date": "2024-03-01"},
            {"id": "m5", "chain": 1, "date": "2024-01-05"},
            {"id": "m6", "chain": 1, "date": "2024-04-05"}]
    got = retrieval.link_scores(rows, {"m1": "m2", "m2": "m3", "m4": "m1"})
    assert got["links_expected"] == 3 and got["links_made"] == 3 and got["links_right"] == 2
    assert got["link_precision"] == pytest.approx(2 / 3)
    assert got["link_recall"] == pytest.approx(2 / 3)
    assert retrieval.link_scores(rows, {})["link_precision"] is None


# ----------------------------------------------------------------------------- metrics


def test_budget_keeps_the_first_and_stops_at_the_overflow() -> None:
    def count(text: str) -> int:
        return len(text)

    assert kept_count(["x" * 50], 10, count) == 1  # the first is always kept
    assert kept_count(["x" * 4, "x" * 4, "x" * 4], 10, count) == 2
    assert kept_count([], 10, count) == 0


def test_score_ranking_recall_and_hits() -> None:
    texts = ["a" * 400, "b" * 400, "c" * 400, "d" * 400]  # 100 tokens each
    keys = ["m1", "m2", "m3", "m4"]
    got = score_ranking(keys, lambda i: texts[i], ["m2", "m4"], budget=300, small_budget=100)
    assert got["recall_at_budget"] == 0.5  # m1..m3 fit in 300 tokens
    assert got["recall_at_300"] == 0.0  # only m1 fits in 100
    assert got["hit_at_1"] == 0.0 and got["hit_at_5"] == 1.0
    assert got["kept_tokens"] == 300


def test_percentile_interpolates() -> None:
    assert percentile([1.0, 2.0, 3.0, 4.0], 50) == 2.5
    assert percentile([5.0], 95) == 5.0
    assert percentile([], 50) is None


def test_flat_bm25_matches_a_hand_computed_lucene_score() -> None:
    docs = ["apple banana apple", "banana cherry", "cherry durian elderberry fig"]
    flat = FlatBM25(docs, stemmer="none")
    k1, b = 1.5, 0.75
    lengths = [3, 2, 4]
    avgdl = sum(lengths) / 3

    def idf(df: int) -> float:
        return math.log(1 + (3 - df + 0.5) / (df + 0.5))

    def part(tf: int, dl: int) -> float:
        return tf / (tf + k1 * (1 - b + b * dl / avgdl))

    # Query "apple cherry": apple in doc 0 twice (df 1); cherry in docs 1 and 2 (df 2).
    expected = [
        idf(1) * part(2, 3),
        idf(2) * part(1, 2),
        idf(2) * part(1, 4),
    ]
    scores = flat.scores("apple cherry")
    assert scores.tolist() == pytest.approx(expected, rel=1e-9)
    assert [i for i, _ in flat.search("apple cherry", 3)] == [0, 1, 2]
    # A repeated query word counts once, as in the tree's descent.
    assert flat.scores("apple apple cherry").tolist() == pytest.approx(expected, rel=1e-9)
    assert flat.search("zebra", 3) == []


# ----------------------------------------------------------------------------- harnesses


@needs_memory
def test_retrieval_small_run(tmp_path: Path) -> None:
    memories, queries = synthetic.generate(200, 24, seed=2)
    synthetic.write(tmp_path / "data", memories, queries)
    result = retrieval.run(tmp_path / "data" / "memories.jsonl",
                           tmp_path / "data" / "queries.jsonl", singles=5)  # fmt: skip
    assert result["n_memories"] == 200 and result["n_queries"] == 24
    for block in [result, result["flat_bm25"], *result["by_kind"].values(),
                  *result["flat_bm25"]["by_kind"].values()]:  # fmt: skip
        for key in ("recall_at_budget", "recall_at_300", "hit_at_1", "hit_at_5"):
            assert 0.0 <= block[key] <= 1.0, key
    assert 0.0 <= result["agreement_top10"] <= 1.0
    assert result["files_read_p50"] >= 0 and result["save_ms_p50"] > 0
    assert set(result["by_kind"]) == {"exact", "descriptive", "update", "person"}
    # the store linked the versions of a fact as the generator made them
    assert result["links_expected"] > 0 and result["link_recall"] > 0.5
    assert 0.5 < result["link_precision"] <= 1.0


@needs_memory
def test_retrieval_by_single_saves_with_another_branch_factor(tmp_path: Path) -> None:
    memories, queries = synthetic.generate(120, 12, seed=4)
    synthetic.write(tmp_path / "data", memories, queries)
    store = tmp_path / "store" / "ihmt_memory"
    result = retrieval.run(tmp_path / "data" / "memories.jsonl",
                           tmp_path / "data" / "queries.jsonl", singles=3, store=store,
                           branch_factor=5, one_by_one=True)  # fmt: skip
    assert result["load"] == "single saves" and result["branch_factor"] == 5
    assert 0.0 <= result["recall_at_budget"] <= 1.0
    config = json.loads((store / "ihmt.config.json").read_text())
    assert config["branch_factor"] == 5
    # Every memory went through a plain save: the write log shows saves and no bulk batch.
    log = (store / "state" / "intent.log").read_text().split("\n")
    assert sum(1 for line in log if " save " in line) >= 100
    assert not any(" bulk " in line for line in log)


@needs_memory
def test_bulk_memory_small_run(tmp_path: Path) -> None:
    memories, queries = synthetic.generate(60, 4, seed=5)
    synthetic.write(tmp_path, memories, queries)
    result = bulk_memory.run(tmp_path / "memories.jsonl", 40)
    lexical, semantic, rebuild = result["modes"]
    assert [m["mode"] for m in result["modes"]] == ["lexical", "semantic", "rebuild"]
    assert 30 <= lexical["memories"] <= 40  # the store may merge exact repeats
    assert 0 < lexical["rss_mb_before"] <= lexical["rss_mb_peak"]
    assert lexical["seconds"] > 0 and "vectors" not in lexical
    if missing_packages():
        assert "skipped" in semantic and "skipped" in rebuild  # reported, not failed
    else:
        for m in (semantic, rebuild):
            assert m["memories"] == lexical["memories"] == m["vectors"], m
            assert m["rss_mb_before"] > lexical["rss_mb_before"]  # the model is loaded


def test_retrieval_without_store_api_still_runs_the_baseline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(retrieval, "load_memory_api", lambda: (None, "test"))
    memories, queries = synthetic.generate(120, 12, seed=9)
    synthetic.write(tmp_path, memories, queries)
    result = retrieval.run(tmp_path / "memories.jsonl", tmp_path / "queries.jsonl", singles=3)
    assert result["tree_skipped"] == "test"
    assert 0.0 <= result["flat_bm25"]["recall_at_budget"] <= 1.0


def test_locomo_helpers() -> None:
    assert locomo.session_date("1:56 pm on 8 May, 2023") == "2023-05-08"
    assert locomo.session_date("10:37 am on 27 June, 2023") == "2023-06-27"
    known = {"D8:6", "D9:17", "D9:1", "D4:4", "D4:6", "D11:26", "D30:5"}
    ids, fixed, dropped = locomo.fix_evidence(
        ["D8:6; D9:17", "D9:1 D4:4 D4:6", "D:11:26", "D30:05", "D", "D99:1"], known
    )
    assert ids == ["D8:6", "D9:17", "D9:1", "D4:4", "D4:6", "D11:26", "D30:5"]
    assert (fixed, dropped) == (4, 2)
    assert locomo.turn_text({"speaker": "Ana", "text": "hi", "blip_caption": "a dog"}) == (
        "Ana: hi [image: a dog]"
    )


def test_locomo_skips_cleanly_without_data(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert locomo.main(["--data", str(tmp_path / "absent.json"), "--json"]) == 0
    assert "skipped" in json.loads(capsys.readouterr().out)


@pytest.mark.skipif(not locomo.DEFAULT_DATA.exists(), reason="LoCoMo data folder is absent")
def test_locomo_one_conversation() -> None:
    result = locomo.run(locomo.DEFAULT_DATA, conversations=1)
    assert result["n_conversations"] == 1 and result["n_questions"] > 0
    blocks = [result["flat_bm25"], *result["flat_bm25"]["by_category"].values()]
    if MEMORY is not None:
        blocks += [result, *result["by_category"].values()]
        c5 = result["category_5"]["not_found_or_ambiguous"]
        assert c5 is None or 0.0 <= c5 <= 1.0
    for block in blocks:
        for key in ("recall_at_budget", "recall_at_300", "hit_at_1"):
            assert 0.0 <= block[key] <= 1.0, key
    assert result["flat_bm25"]["category_5"]["not_found_or_ambiguous"] is None


def test_versions_benchmark_generates_histories_and_scores_them() -> None:
    from bench import versions

    hs = versions.generate(32, seed=1)
    assert {h.lang for h in hs} == {"en", "es"} and {h.half for h in hs} == {"dev", "held"}
    assert all(2 <= len(h.versions) <= 4 for h in hs)
    assert [d for d, _, _ in hs[0].versions] == sorted(d for d, _, _ in hs[0].versions)
    out = versions.run(hs[:8], semantic=False)
    summary = versions.summarize(out["rows"], "ihmt_lexical")
    assert set(summary) == {"flat_bm25", "newest_bm25", "ihmt_lexical"}
    assert summary["ihmt_lexical"]["n_current"] == 8


def test_paraphrase_set_shares_no_word_with_its_targets(tmp_path: Path) -> None:
    from bench import paraphrase
    from bench.paraphrase_pairs import PAIRS

    langs = [lang for _k, lang, _m, _q in PAIRS]
    assert len(PAIRS) >= 100 and langs.count("en") >= 40 and langs.count("es") >= 40
    memories, queries = paraphrase.generate(300, 20, seed=3, junk=10)
    text = {m["id"]: m["text"] for m in memories}
    para = [q for q in queries if q["kind"].startswith("para_")]
    assert len(para) == len(PAIRS)
    for q in para:
        for t in q["targets"]:
            assert not paraphrase.shared_terms(q["query"], text[t]), (q["query"], text[t])
    junk = [m for m in memories if m.get("junk")]
    assert len(junk) == 10 and not {m["id"] for m in junk} & {t for q in queries
                                                              for t in q["targets"]}
    # A pair that shares a word is refused (the check is not a formality).
    assert paraphrase.shared_terms("where is the coffee machine?", "The coffee machine broke.")
    for name in ("a", "b"):  # seeded: the same files twice
        assert paraphrase.main(["--n", "200", "--queries", "10", "--out", str(tmp_path / name),
                                "--json"]) == 0
    for f in ("memories.jsonl", "queries.jsonl"):
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes()


@pytest.mark.skipif(bool(missing_packages()), reason="ihmt[semantic] not installed")
def test_models_bench_scores_with_ihmts_similarity(tmp_path: Path) -> None:
    from bench import models

    texts = ["I adopted a small grey cat called Miso in March.",
             "Deployments to production happen every Tuesday, after the standup.",
             "My sister Ana works as a nurse in Madrid.",
             "The invoices table is partitioned by month.",
             "We chose Postgres for billing because invoices need transactions.",
             "The office Wi-Fi password changes on the first day of every month.",
             "I run five kilometres every Saturday along the river.",
             "The garden hose leaks near the tap."]
    synthetic.write(tmp_path, [{"id": f"m{i}", "text": t} for i, t in enumerate(texts)],
                    [{"query": "what pet do I have", "targets": ["m0"], "kind": "para_en"},
                     {"query": "which relative of mine is a nurse", "targets": ["m2"],
                      "kind": "para_en"}])
    result = models.run(tmp_path / "memories.jsonl", tmp_path / "queries.jsonl", ["default"])
    assert result["hit_at_5"]["default"]["para_en"] == 1.0
    assert set(result["hit_at_5"]) == {"default", "default whole"}
    assert result["models"]["default"]["vectors"] > len(texts)  # whole texts and clauses
    # One clause on each side: IHMT's similarity is the whole-text cosine.
    enc = models.Encoded(models.encoder("default"), texts[:1], ["what pet do I have"])
    sim, whole = enc.scores(0)
    assert float(sim[0]) == pytest.approx(float(whole[0]), abs=1e-6)


@needs_memory
def test_recover_bench_small_run() -> None:
    from bench import recover

    got = recover.run_size(150, runs=2, full_runs=1)
    assert got["memories"] == 150 and got["plain_save_p50_ms"] > 0
    assert got["after_p50_ms"] > 0 and got["before_p50_ms"] > 0
