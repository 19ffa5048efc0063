"""bench/changes_blind.py: the blind corpus keeps its promises (sizes, halves, languages,
well-formed histories) and ``bench.changes --corpus blind`` runs without printing misses.
No figure is asserted: they are what the benchmark measures, and the corpus stays blind."""

from __future__ import annotations

import json
import re

import pytest
from bench import changes, changes_blind
from bench.changes_blind import CHANGES, NOISE_EN, NOISE_ES, TOPICS, fill, values_of
from bench.changes_blind_traps import TRAP_KINDS, TRAPS

ROUND = len(TOPICS)


def _all_values(spec: dict) -> list[str]:
    return values_of(spec, "en") + values_of(spec, "es")


def _named(value: str, text: str) -> bool:
    """The value is in the text, maybe contracted ("a el tren" is written "al tren")."""
    return value in text or (value.startswith("el ") and f"l {value[3:]}" in text)


def test_the_corpus_has_its_sizes() -> None:
    team = [n for n in TOPICS if n.startswith("team.")]
    own = [n for n in TOPICS if n.startswith("self.")]
    assert len(team) >= 14 and len(own) >= 8
    for name, spec in TOPICS.items():
        for lang in ("en", "es"):
            values = values_of(spec, lang)
            assert len(set(values)) == len(values) >= 6, name
            assert 3 <= len(spec[f"{lang}_state"]) <= 4, name
            said = changes_blind.changes_of(spec, lang)
            assert len(said) >= 4, name
            assert any("{o}" in t for t in said) and any("{o}" not in t for t in said), name
            assert len(spec[f"{lang}_q"]) == 4, name
            assert spec["attr"], name
    assert len(TRAP_KINDS) >= 8
    for family, by_lang in TRAPS.items():
        for lang in ("en", "es"):
            assert set(by_lang[lang]) == set(TRAP_KINDS), family
            assert all(len(by_lang[lang][k]) >= 3 for k in TRAP_KINDS), family
    for pool in (NOISE_EN, NOISE_ES):
        assert len(pool) >= 30
    words = {w for t in NOISE_EN for w in re.findall(r"\w+", t.lower())}
    assert {"use", "run", "keep", "store", "team", "app", "work"} <= words


def test_every_template_renders_with_its_value() -> None:
    """Each state, change and trap of each topic fills without a missing field, leaves no
    brace behind, and a version names the value it states."""
    for name, spec in TOPICS.items():
        for lang in ("en", "es"):
            v, o, x = values_of(spec, lang)[:3]
            fields = changes_blind._fields(spec, lang, v, o, x)
            for tpl in spec[f"{lang}_state"] + changes_blind.changes_of(spec, lang):
                text = fill(tpl, lang, fields, v=v, o=o)
                assert v in text and "{" not in text, (name, text)
            for kind in TRAP_KINDS:
                for tpl in TRAPS[spec["family"]][lang][kind]:
                    text = fill(tpl, lang, fields, c=v, p=o, x=x)
                    assert "{" not in text, (name, text)
                    assert any(_named(val, text) for val in (v, o, x)), (name, text)
    assert set(CHANGES) == {spec["family"] for spec in TOPICS.values()}


def test_generator_is_seeded_and_keeps_its_promises() -> None:
    hs = changes_blind.generate(6 * ROUND, seed=5)
    again = changes_blind.generate(6 * ROUND, seed=5)
    assert [e.text for h in hs for e in h.entries()] == \
        [e.text for h in again for e in h.entries()]
    assert [e.text for h in changes_blind.generate(6 * ROUND, seed=6) for e in h.entries()] \
        != [e.text for h in hs for e in h.entries()]
    assert sum(h.lang == "es" for h in hs) * 3 == len(hs)  # a third, exactly per 3 rounds
    assert {h.half for h in hs} == {"dev", "held"}
    assert 0.45 <= sum(h.trap is not None for h in hs) / len(hs) <= 0.75
    for name in TOPICS:  # six rounds: every topic in both languages and both halves
        mine = [h for h in hs if h.component == name]
        assert {h.lang for h in mine} == {"en", "es"}, name
        assert {h.half for h in mine} == {"dev", "held"}, name
    for h in hs:
        spec = TOPICS[h.component]
        every = _all_values(spec)
        assert 2 <= len(h.versions) <= 3
        assert len({v.value for v in h.versions}) == len(h.versions)
        assert all(v.value in values_of(spec, h.lang) for v in h.versions)
        assert all(v.value in v.text for v in h.versions)
        dates = [v.date for v in h.versions]
        assert dates == sorted(dates)
        assert 18 <= sum(e.role == "noise" for e in h.others) <= 22
        assert [e for e in h.entries() if e.role == "version"] == h.versions
        assert not any(changes_blind.names(e.text, v) for e in h.others
                       if e.role == "noise" for v in every)
        if h.trap is not None:
            assert h.trap_kind in TRAP_KINDS
            assert h.trap.date > h.versions[-1].date
            assert any(_named(val, h.trap.text) for val in values_of(spec, h.lang))
        assert h.question in spec[f"{h.lang}_q"]
        assert h.old_named == (h.versions[-2].value in h.versions[-1].text)


def test_halves_draw_on_different_templates() -> None:
    hs = changes_blind.generate(4 * ROUND, seed=1)
    qs = {half: {h.question for h in hs if h.half == half} for half in ("dev", "held")}
    assert qs["dev"] and qs["held"] and not qs["dev"] & qs["held"]
    firsts = {half: {h.versions[0].text.replace(h.versions[0].value, "{v}")
                     for h in hs if h.half == half} for half in ("dev", "held")}
    assert not firsts["dev"] & firsts["held"]


def test_words_alone_reach_most_answers() -> None:
    """The corpus is harder than the main one but not a paraphrase test: in most histories
    the newest version shares a word with the question or is linked to one that does."""
    got = changes_blind.reach(changes_blind.generate(4 * ROUND, seed=3))
    assert got["newest_reachable"] >= 0.7 and got["no_version_shares"] <= 0.15
    assert got["newest_shares"] <= got["newest_reachable"]


def test_the_harness_runs_on_it_without_misses(capsys: pytest.CaptureFixture[str]) -> None:
    assert changes.main(["--corpus", "blind", "--histories", "3", "--seed", "2",
                         "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["corpus"] == "blind" and out["histories"] == 3
    assert set(out["words_reach"]) == {"newest_shares", "newest_reachable",
                                       "no_version_shares"}
    assert "misses" not in out
    assert set(out["systems"]) == {"flat_bm25", "newest_bm25", "ihmt_lexical"}
    for fig in out["systems"].values():
        assert fig["n"] == 3
        assert set(fig["by_lang"]) == {"en", "es"}


def test_the_harness_refuses_to_print_blind_misses(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        changes.main(["--corpus", "blind", "--histories", "3", "--misses", "2", "--json"])
    assert exc.value.code == 2
    assert "unblind" in capsys.readouterr().err
