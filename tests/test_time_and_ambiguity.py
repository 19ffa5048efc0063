"""Time, facts and ambiguity through the library: the spec's own scenarios."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ihmt import Memory
from ihmt.errors import InputError, NotFoundError


@pytest.fixture
def journal(tmp_path: Path) -> Memory:
    m = Memory.open(tmp_path / "ihmt_memory", create=True, config={"branch_factor": 4})
    m.save("Vivo en Madrid, cerca de Lavapiés.", date="2024-03-11", domain="personal")
    m.save("I work at Acme Corp as a backend developer.", date="2024-03-12", domain="personal")
    m.save("Vacaciones en Benidorm con Luis, mi primo.", date="2024-07-22", domain="personal")
    m.save("Luis Marín revisó el pull request de stock.", date="2024-11-30", domain="personal")
    m.save("Fin de semana en El Saler con Luis Ortega, escalada.", date="2026-08-30",
           domain="personal")
    m.save("I moved to Valencia, near the Turia gardens.", date="2026-02-03", domain="personal")
    m.save("Trabajo en Nimbus Labs desde hoy.", date="2026-02-10", domain="personal")
    return m


def test_current_value_first_with_the_old_one_flagged(journal: Memory) -> None:
    res = journal.search("where do I live?")
    assert res.status == "FOUND"
    assert "Valencia" in res.best.text and not res.best.outdated
    old = next(h for h in res.hits if "Madrid" in h.text)
    assert old.outdated
    assert ("On 2024-03-11 you said user location = 'Madrid', but on 2026-02-03 you updated "
            "to 'Valencia'.") in old.notices


def test_a_past_period_answers_with_the_value_of_then(journal: Memory) -> None:
    res = journal.search("where did I live in 2024?")
    assert "Madrid" in res.best.text
    assert journal.state_at("2024-12-31")["user::location"].value == "Madrid"
    assert journal.active_state()["user::location"].value == "Valencia"


def test_employer_changes_from_acme_to_nimbus(journal: Memory) -> None:
    res = journal.search("where do I work")
    assert "Nimbus Labs" in res.best.text
    facts = {f.value: f for f in journal.facts("user") if f.attribute == "employer"}
    assert facts["Acme Corp"].status == "HISTORICAL"
    assert facts["Acme Corp"].superseded_by == "Nimbus Labs"
    assert facts["Nimbus Labs"].status == "ACTIVE"


def test_a_change_is_reported_when_it_is_saved(tmp_path: Path) -> None:
    m = Memory.open(tmp_path / "s", create=True)
    assert m.save("I live in Madrid", date="2024-03-11").notices == []
    rep = m.save("I live in Valencia now", date="2026-02-03")
    assert rep.notices == ["On 2024-03-11 you said user location = 'Madrid', but on "
                           "2026-02-03 you updated to 'Valencia'."]


def test_repeating_a_value_is_a_confirmation_not_a_contradiction(tmp_path: Path) -> None:
    m = Memory.open(tmp_path / "s", create=True)
    m.save("I live in Valencia", date="2026-02-03")
    rep = m.save("Still happy here: I live in Valencia.", date="2026-06-01")
    assert rep.notices == []
    assert m.conflicts() == []
    assert not any(h.outdated for h in m.search("Valencia").hits)


def test_three_people_called_luis_ask_for_a_clue(journal: Memory) -> None:
    res = journal.search("Luis")
    assert res.status == "AMBIGUOUS"
    assert len(res.hits) >= 3
    res = journal.search("Luis", clue="vacaciones en Benidorm")
    assert res.status == "FOUND" and "Benidorm" in res.best.text


def test_clue_loop_with_a_provider_and_a_user_who_declines(journal: Memory) -> None:
    asked: list[int] = []

    def provider(res):
        asked.append(len(res.hits))
        return "escalada El Saler"

    res = journal.ask("Luis", clue_provider=provider)
    assert asked and res.status == "FOUND" and "Saler" in res.best.text
    res = journal.ask("Luis", clue_provider=lambda r: "")
    assert res.status == "AMBIGUOUS"  # declining never turns into a guess


def test_not_found_for_a_stray_word(journal: Memory) -> None:
    res = journal.search("kubernetes helm chart for the staging cluster")
    assert res.status == "NOT_FOUND"
    res = journal.search("what is the wifi password of the Benidorm hotel")
    assert res.status == "NOT_FOUND"


def test_correction_by_replaces_flags_the_old_memory(tmp_path: Path) -> None:
    m = Memory.open(tmp_path / "s", create=True)
    old = m.save("The staging database runs on host db-eu-7.", date="2026-01-05").ids[0]
    rep = m.save("The staging database moved to host db-eu-9.", date="2026-03-01",
                 replaces="staging database host db-eu-7")
    assert rep.outdated == [old]
    res = m.search("staging database host")
    assert "db-eu-9" in res.best.text and not res.best.outdated
    flagged = next(h for h in res.hits if h.id == old)
    assert flagged.outdated and "db-eu-9" in flagged.notices[0]
    assert m.get(old).extra["superseded_by"] == rep.ids[0]  # survives loss of derived files
    (m.path / "state" / "facts.jsonl").unlink()
    m.rebuild()
    assert next(h for h in m.search("staging database host").hits if h.id == old).outdated


def test_correction_with_several_candidates_lists_them(tmp_path: Path) -> None:
    m = Memory.open(tmp_path / "s", create=True)
    a = m.save("Deploys go out on Tuesday from the blue slot.", date="2026-01-01").ids[0]
    b = m.save("Deploys go out on Thursday from the green slot.", date="2026-01-02").ids[0]
    rep = m.save("Deploys now go out on Monday.", date="2026-02-01", replaces="deploys go out")
    assert rep.outdated == [] and set(rep.candidates) >= {a, b}
    assert not any(h.outdated for h in m.search("deploys slot").hits)
    m.mark_outdated(a, rep.ids[0])
    assert next(h for h in m.search("deploys blue slot").hits if h.id == a).outdated


def test_mark_outdated_validates_ids(journal: Memory) -> None:
    some = journal.search("Benidorm").best.id
    with pytest.raises(NotFoundError):
        journal.mark_outdated("L-personal-000000000000", some)
    with pytest.raises(InputError):
        journal.mark_outdated(some, some)


def test_queries_naming_a_time_prefer_memories_of_that_time(tmp_path: Path) -> None:
    m = Memory.open(tmp_path / "s", create=True)
    m.save("Team offsite in Lisbon, we planned the billing rewrite.", date="2023-05-10")
    m.save("Team offsite in Porto, we planned the billing rewrite.", date="2025-05-10")
    assert "Lisbon" in m.search("billing offsite in 2023").best.text
    assert "Porto" in m.search("billing offsite in 2025").best.text


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(moves=st.lists(st.tuples(st.sampled_from(["Madrid", "Valencia", "Lisboa", "Oslo"]),
                                st.dates(min_value=__import__("datetime").date(2000, 1, 1),
                                         max_value=__import__("datetime").date(2030, 1, 1))),
                      min_size=1, max_size=12))
def test_no_sequence_of_saves_loses_a_fact(tmp_path_factory, moves) -> None:
    m = Memory.open(tmp_path_factory.mktemp("f") / "s", create=True)
    for city, day in moves:
        m.save(f"I live in {city}", date=day.isoformat())
    recorded = {(f.value, f.date[:10]) for f in m.facts()}
    for city, day in moves:
        assert (city, day.isoformat()) in recorded
    latest = max(day for _, day in moves)
    active = m.active_state()["user::location"]
    assert active.value in {city for city, day in moves if day == latest}


def test_the_correction_leads_even_when_only_the_old_words_match(tmp_path: Path) -> None:
    m = Memory.open(tmp_path / "s", create=True)
    old = m.save("The staging database runs on host db-eu-7.", date="2026-01-05").ids[0]
    rep = m.save("Moved: it is db-eu-9 from today.", date="2026-03-01",
                 replaces="staging database host db-eu-7")
    assert rep.outdated == [old]
    res = m.search("which host runs the staging database")
    assert res.status == "FOUND"
    assert res.best.id == rep.ids[0] and "db-eu-9" in res.best.text
    assert res.hits[1].id == old and res.hits[1].outdated


def test_a_memory_that_mentions_the_named_period_is_found(tmp_path: Path) -> None:
    """Saved in 2022, it tells of summer 2021: the words of an absolute period still match
    (LoCoMo dates each turn by its session, not by what it talks about)."""
    m = Memory.open(tmp_path / "s", create=True)
    m.save("Joanna: we drove around Indiana in summer 2021, best road trip ever",
           date="2022-03-04")
    for i in range(30):
        m.save(f"Joanna visited the state museum number {i} with her class", date="2021-07-10")
    res = m.search("What state did Joanna visit in summer 2021?", top_k=5)
    assert any("Indiana" in h.text for h in res.hits[:5])
    # A relative time adds no words: "last" or "may" must not become matches.
    m.save("You may want the last train", date="2022-01-01")
    assert all("train" not in h.text for h in m.search("what did Joanna visit last May?").hits)
