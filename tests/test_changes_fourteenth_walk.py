"""Answers the sixteenth and seventeenth walks (written blind, measured once before they
were read) showed served stale or refused, in words of their own:

- "planning" and "plan" as nouns ("sprint planning", "my phone plan") are no hedge: a
  change said of them is a change done, and a state said of them a state;
- "me di de baja del X" lets X go;
- Spanish shorthand "ya en X" / "ya con X" says the state reached;
- a belief ("I think we use X?", "creo que es X") gives way to a later answer, and "turns
  out the X is Y" corrects;
- a short acronym that starts a sentence ("CI is Buildkite now") is the thing, not a value;
- "deleted the X config", "removed X" let X go;
- a word only the answer holds finds nothing further: the look for later changes goes by
  the words it shares with other memories;
- a date's words (a year, a month, a day's number) name no thing two notes share;
- two notes that each name an item by its own key ("ADR for CX-1464", "ADR for MOB-5163")
  are two items, not two versions;
- (with the semantic extra, where the model's clear first is the lead the change rule put
  first or a version it replaced, the answer is FOUND though it shares few words:
  ``tests/test_semantic.py``, the test of a later version the change rule links).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ihmt.search.change_notes import read_note
from ihmt.search.change_words import ASSUMED, CORRECTION, CUE, NOT_DONE, OLD_SLOT
from ihmt.search.changes import rarest
from ihmt.text import fold

from .conftest import newer_leads, office_store, stands


@pytest.mark.parametrize("text", [
    "Sprint planning: Mondays 10:00, in the big room.",
    "Capacity planning moved to the first week of the quarter.",
    "My phone plan is the unlimited one with Vodafone.",
    "In the planning meeting we agreed on Fridays.",
])
def test_plan_as_a_noun_is_no_hedge(text: str) -> None:
    assert not NOT_DONE.search(fold(text))


@pytest.mark.parametrize("text", [
    "We are planning to move the search cluster to Vespa.",
    "Plan for next quarter: move deploys to Argo.",
    "The plan is to drop Jenkins.",
    "We plan to switch to pnpm.",
    "The cutover is planned for 2 May.",
    "Planning on moving the wiki to Notion.",
])
def test_plan_as_a_plan_is_a_hedge(text: str) -> None:
    assert NOT_DONE.search(fold(text))


def test_a_meeting_moved_though_it_is_called_planning(tmp_path: Path) -> None:
    old = "Quarterly planning: first Wednesday of the quarter, 2 hours."
    new = "Quarterly planning moved to the second Thursday since the board meets that week."
    m = office_store(tmp_path, (old, "2025-01-10"), (new, "2025-06-02"))
    res = m.search("when is quarterly planning?")
    newer_leads(res, new, old)
    assert res.status == "FOUND"


def test_cancelling_a_membership_lets_it_go(tmp_path: Path) -> None:
    assert OLD_SLOT.search(fold("Me di de baja del Holmes Place")).group(1) == "holmes"
    old = "Voy a nadar al Holmes Place de Chamberí los martes."
    new = "Me di de baja del Holmes Place; ahora nado en la piscina municipal de Vallehermoso."
    m = office_store(tmp_path, (old, "2025-02-01"), (new, "2025-09-20"))
    res = m.search("¿A qué gimnasio voy a nadar ahora?")
    newer_leads(res, new, old)


@pytest.mark.parametrize("text", ["facturación ya en Postgres 16", "el front ya con Vite 6"])
def test_spanish_shorthand_ya_en_says_the_state_reached(text: str) -> None:
    assert CUE.search(fold(text))


@pytest.mark.parametrize("text", ["Queue: I think we use RabbitMQ? saw amqp urls",
                                  "creo que el proxy es HAProxy",
                                  "probably Postgres 14, not sure"])
def test_a_belief_is_a_guess(text: str) -> None:
    assert ASSUMED.search(fold(text))


def test_turns_out_corrects_but_a_turn_of_talk_does_not() -> None:
    assert CORRECTION.search(fold("turns out the broker is actually Kafka"))
    assert not CORRECTION.search(fold("let me know how it turns out"))


def test_a_guess_gives_way_to_what_turned_out(tmp_path: Path) -> None:
    old = "Message broker: I think we use RabbitMQ? saw amqp urls in the env."
    new = "turns out the broker is Kafka; the amqp urls were a leftover of the old POC."
    m = office_store(tmp_path, (old, "2025-03-01"), (new, "2025-03-04"))
    res = m.search("which message broker do we run in production?")
    assert res.hits[0].text == new
    assert res.hits[1].text == old and res.hits[1].outdated


def test_an_acronym_starting_a_sentence_is_the_thing(tmp_path: Path) -> None:
    first = "App CI runs on Jenkins, config in the Jenkinsfile; the full build takes 20 min."
    second = "Moved CI over to CircleCI, deleted the Jenkins config."
    third = "CI is Drone now with our own runners; the hosted ones were too slow."
    m = office_store(tmp_path, (first, "2025-01-10"), (second, "2025-05-02"),
                     (third, "2025-11-20"))
    res = m.search("where do the app builds actually run these days?")
    assert res.hits[0].text == third
    assert all(h.outdated for h in res.hits if h.text in (first, second))
    assert read_note("Deleted the Jenkins config.", "english").gone == {"jenkin"}


def test_a_word_only_the_answer_holds_looks_no_further() -> None:
    df = {"jenkinsfile": 1, "jenkin": 2, "config": 3}
    assert rarest([["jenkinsfile", "jenkin", "config"]], df, 2) == ["jenkin", "config"]


def test_two_notes_of_one_month_share_no_thing(tmp_path: Path) -> None:
    moved = "2026-02-03\nMe mudé a Sevilla. The new flat is close to the river."
    job = "2026-02-10\nEmpiezo en Orbital Freight desde hoy. Mi stack es Go y Postgres."
    m = office_store(tmp_path, ("Vivo en Bilbao, en un piso cerca de la ría.", "2024-05-01"),
                     (moved, "2026-02-03"), (job, "2026-02-10"))
    res = m.search("where do I live?")
    stands(res, moved)
    assert res.status == "FOUND"


def test_two_items_each_named_by_its_key_are_no_versions(tmp_path: Path) -> None:
    one = "ADR for PAY-3120: refunds move to a queue; cron was rejected since it lagged."
    two = "ADR for OPS-4471: alerts move to Grafana OnCall; cron was rejected for paging."
    m = office_store(tmp_path, (one, "2025-02-01"), (two, "2025-06-01"))
    res = m.search("how are refunds processed?")
    stands(res, one)

