"""bench/hooks.py on tiny inputs: the harness runs end to end and its figures add up."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bench import hooks

TURNS = [
    ("Caroline", "I went to the LGBTQ support group yesterday and it was powerful."),
    ("Melanie", "I painted a sunrise over the lake last weekend."),
    ("Caroline", "I am researching adoption agencies for next year."),
    ("Melanie", "We adopted a puppy named Biscuit from the shelter."),
]
QA = [
    {"question": "When did Caroline go to the LGBTQ support group?", "evidence": ["D1:1"],
     "category": 2, "answer": "x"},
    {"question": "What did Melanie name the puppy from the shelter?", "evidence": ["D1:4"],
     "category": 4, "answer": "x"},
    {"question": "What is Melanie's favourite opera?", "evidence": [], "category": 5,
     "answer": "x"},
]


def test_quality_on_a_tiny_conversation(tmp_path: Path) -> None:
    data = [{"sample_id": "c1", "qa": QA, "conversation": {
        "speaker_a": "Caroline", "speaker_b": "Melanie",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [{"speaker": s, "dia_id": f"D1:{i}", "text": t}
                      for i, (s, t) in enumerate(TURNS, 1)]}}]
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps(data))
    q = hooks.quality(path, None)
    assert q["n_questions"] == 2 and q["category_5"]["n_questions"] == 1
    naive = q["naive_bm25_top3"]
    assert naive["injected_share"] == 1.0 and naive["recall"] == 1.0  # 4 turns, top 3
    for row in q["gates"]:
        assert 0.0 <= row["injected_share"] <= 1.0
        assert row["recall"] <= row["injected_share"]
        if row["precision"] is not None:
            assert row["recall"] == pytest.approx(row["precision"] * row["injected_share"])
    assert q["gates"][0]["recall"] > 0  # the distinctive questions are answered


def test_coding_prompts_are_many_and_distinct() -> None:
    prompts = hooks.coding_prompts()
    assert len(prompts) >= 200 and len(set(prompts)) == len(prompts)
    starts = {" ".join(p.lower().split()[:2]) for p in prompts}
    assert len(starts) >= 60  # not a few templates


def test_silence_and_latency_on_small_stores() -> None:
    s = hooks.silence(60)
    assert s["n_prompts"] >= 200 and 0.0 <= s["false_injection_rate"] <= 1.0
    lat = hooks.latency([60], 2)
    row = lat["stores"][0]
    assert row["memories"] == 60 and row["prompt-submit"]["runs"] == 2
    assert row["session-start"]["p50_ms"] > 0 and lat["python_start"]["p50_ms"] > 0
