"""bench/changes.py on a few histories: the generator keeps its promises and the report has
its shape (no figures asserted: they are what the benchmark measures)."""

from __future__ import annotations

import json

import pytest
from bench import changes
from bench.changes_corpus import COMPONENTS

from ihmt.search import query


def test_generator_is_seeded_and_keeps_its_promises() -> None:
    hs = changes.generate(96, seed=5)
    again = changes.generate(96, seed=5)
    assert [e.text for h in hs for e in h.entries()] == \
        [e.text for h in again for e in h.entries()]
    assert [e.text for h in changes.generate(96, seed=6) for e in h.entries()] != \
        [e.text for h in hs for e in h.entries()]
    assert {h.half for h in hs} == {"dev", "held"}
    assert 0.25 <= sum(h.lang == "es" for h in hs) / len(hs) <= 0.4
    assert 0.3 <= sum(h.trap is not None for h in hs) / len(hs) <= 0.7
    assert {h.component for h in hs} == set(COMPONENTS)
    for h in hs:
        assert 2 <= len(h.versions) <= 3
        assert len({v.value for v in h.versions}) == len(h.versions)
        dates = [v.date for v in h.versions]
        assert dates == sorted(dates)
        assert all(v.value in v.text for v in h.versions)
        assert 18 <= sum(e.role == "noise" for e in h.others) <= 22
        saved = h.entries()
        assert [e for e in saved if e.role == "version"] == h.versions  # same-day order
        if h.trap is not None:
            assert h.trap.date > h.versions[-1].date
            assert any(v.value in h.trap.text for v in h.versions)
        values = COMPONENTS[h.component]["values"]
        assert not any(changes._names(e.text, v) for e in h.others if e.role == "noise"
                       for v in values)


def test_halves_draw_on_different_templates() -> None:
    hs = changes.generate(64, seed=1)
    qs = {half: {h.question for h in hs if h.half == half} for half in ("dev", "held")}
    assert qs["dev"] and qs["held"] and not qs["dev"] & qs["held"]


@pytest.mark.parametrize("off", [False, True])
def test_report_shape(off: bool, capsys: pytest.CaptureFixture[str]) -> None:
    kept = query.changes_first
    argv = ["--histories", "6", "--seed", "2", "--misses", "3", "--json"]
    assert changes.main(argv + (["--no-changes"] if off else [])) == 0
    assert query.changes_first is kept  # the switch does not outlive the run
    out = json.loads(capsys.readouterr().out)
    assert out["histories"] == 6 and out["changes_rule"] is not off
    label = "ihmt_lexical_no_changes" if off else "ihmt_lexical"
    assert set(out["systems"]) == {"flat_bm25", "newest_bm25", label}
    for fig in out["systems"].values():
        assert fig["n"] == 6
        for key in ("current_value_first", "newest_in_answer", "confident_stale"):
            assert 0.0 <= fig[key] <= 1.0
        assert fig["current_value_first"] + fig["confident_stale"] <= 1.0
        assert set(fig["by_half"]) == {"dev", "held"}
        assert set(fig["by_lang"]) == {"en", "es"}
        assert fig["by_half"]["dev"]["n"] + fig["by_half"]["held"]["n"] == 6
    assert len(out["misses"]) <= 3 and out["ihmt_misses"] >= len(out["misses"])
