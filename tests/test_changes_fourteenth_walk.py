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
  ``tests/test_semantic.py``, the test of a later version the change rule links);
- whether an answer is one is judged without the words that ask about the present
  ("today", "these days", "a día de hoy"), and the words of the question's context ("I
  need to add a route", "Before I add a job to sable:") weigh a quarter where the best
  memory lacks them; a young store's words are weighed as if it held 50 memories, so
  that a thing's subject, in each of its versions, is not outweighed by words no memory
  holds (whether a lone matched word is a strong one is still read on the store's own
  counts);
- two answers found by different question words, of one thing both name, are versions
  where the later gives the earlier's figure another number ("kept 14 days", later
  "retention 30 days");
- after a label, a capital before a version is a name ("unit tests: Jest 29"), and what
  comes with the value is no part of it ("Editor: VS Code with Vim keybindings");
- a word each version of one thing holds counts once in whether a lone matched word is a
  strong one;
- a value only put forward ("a friend recommended X. Maybe someday"), leading, gives way
  to the newest settled answer of the same thing, as a plan does;
- a memory that holds only the question's verb of use ("uses") ranks below memories that
  hold what the question asks about;
- a later note found by the answer's own words casts doubt on it only where it is of the
  same thing: two words in common, a name of the answer it lets go, the thing it states a
  value of, or one word only the two of them hold ("Swapped the office chair" is no news
  of a physio "closer to the new office");
- going back to a value ("Helix CI back on GitHub Actions") changes the note that moved
  away from it, the value taken up again read up to a colon or a bracket; terse forms let
  a value go ("jest superseded by vitest", "Biome eliminado", "contract not renewed");
- a later note that says the asked thing stayed ("... staging upgraded to 7.2; prod
  unchanged") is no version of it;
- a capital right after a label's colon, alone in its clause, is a name ("Tech lead for
  payments: Rui."), and "New payments lead is Sadia" puts the new value after "is";
- a place left ("last day at X today", "último día en X") and a thing traded in ("traded
  the Pixel in for an iPhone 16") let the old value go.

Each test fails on ``7c56073`` but the guards, which held before and keep the new rules
in bounds: a plan is still a hedge, two notes of one month or two items named by their
keys are no versions once the look for later changes goes by shared words (as is a note
sharing one common word: it fails on the commits between), and a stray or a common word
is still no answer in a young store.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ihmt.search.asked import context_terms
from ihmt.search.change_notes import read_note
from ihmt.search.change_words import ASSUMED, CORRECTION, CUE, NOT_DONE, OLD_SLOT
from ihmt.search.changes import rarest
from ihmt.search.intent import now_terms
from ihmt.text import fold

from .conftest import newer_leads, office_store, stands, store_with


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



def test_the_words_of_a_questions_context_and_of_now() -> None:
    q = "Which proxy fronts the orders API today? I need to add a route."
    assert context_terms(q, "english") == {"need", "add", "rout"}
    assert now_terms(q, "english") == {"today"}
    assert context_terms("Antes de tocar el cron de informes: ¿a qué hora corre ahora?",
                         "spanish") >= {"cron", "inform"}
    assert now_terms("¿qué editor uso a día de hoy?", "spanish") == {"dia", "hoy"}
    # one part, or no part that asks: no context
    assert context_terms("which proxy fronts the orders API?", "english") == frozenset()
    assert context_terms("Orders API proxy. Envoy or Kong.", "english") == frozenset()


def test_a_young_stores_answer_is_not_refused_for_the_questions_context(
        tmp_path: Path) -> None:
    # two versions of one repository's branch, another note of it and a note of another
    # repository: "heron" is in three of four notes, the words of the context ("I need to
    # open a PR") in none
    m = store_with(tmp_path, [], ("Repo heron: default branch is master.", "2025-01-10"),
                   ("Repo heron: release branches are cut every second Tuesday.",
                    "2025-02-10"),
                   ("Repo heron: default branch renamed to trunk (was master).",
                    "2025-06-01"),
                   ("Repo osprey keeps master as its default branch.", "2025-06-02"))
    res = m.search("What is heron's base branch these days? I need to open a PR against it.")
    assert res.hits[0].text.endswith("(was master).")
    assert res.status != "NOT_FOUND"  # (AMBIGUOUS: another note of heron's branches is close)


def test_a_stray_word_is_still_no_answer_in_a_young_store(tmp_path: Path) -> None:
    m = store_with(tmp_path, [], ("Repo heron: default branch is master.", "2025-01-10"),
                   ("The dentist moved my cleaning to Friday.", "2025-02-10"))
    res = m.search("which helm chart deploys the heron staging cluster?")
    assert res.status == "NOT_FOUND"


def test_a_word_every_note_of_a_young_store_holds_is_no_strong_match(
        tmp_path: Path) -> None:
    m = store_with(tmp_path, [], *[(f"Deploy note {i}: the worker {w} restarts nightly.",
                                    "2026-01-01")
                                   for i, w in enumerate(["zeus", "hera", "iris", "eos"])])
    assert m.search("worker ares").status == "NOT_FOUND"


def test_a_figure_renumbered_links_notes_found_by_different_words(tmp_path: Path) -> None:
    # the question finds the earlier by "database" ("DB", its alias) and the later by
    # "snapshots"; both say "backup", and the later gives the days kept another number
    old = "DB backups run every night at 01:00, kept 7 days."
    new = "Dropped the nightly-only backup: snapshots every 4 hours now, retention 21 days."
    m = office_store(tmp_path, (old, "2025-03-01"), (new, "2025-10-01"))
    res = m.search("How often do we snapshot the database?")
    newer_leads(res, new, old)


def test_a_capital_before_a_version_after_a_label_is_a_name(tmp_path: Path) -> None:
    assert read_note("integration tests: Mocha 10, with nyc.", "english").states[0].value \
        == {"mocha", "10"}
    old = "integration tests: Mocha 10, with nyc."
    new = "integration tests: Vitest, twice as fast in CI."
    m = office_store(tmp_path, (old, "2025-02-01"), (new, "2025-08-01"))
    newer_leads(m.search("what do our integration tests run on?"), new, old)


def test_what_comes_with_a_labelled_value_is_no_part_of_it(tmp_path: Path) -> None:
    old = "User's terminal: iTerm2 with the Solarized theme."
    new = "User's terminal: WezTerm with a Lua config, kept in the dotfiles repo."
    assert read_note(old, "english").states[0].value == {"iterm2"}
    m = store_with(tmp_path, [], (old, "2025-01-05"),
                   ("Teammate Jonas swears by Alacritty.", "2025-02-01"), (new, "2025-06-01"))
    res = m.search("what's my terminal setup these days?")
    newer_leads(res, new, old)
    # "terminal" is in both versions of the one thing: a strong word, counted once
    assert res.status == "FOUND"


def test_a_place_in_a_series_is_no_figure(tmp_path: Path) -> None:
    assert not read_note("Release step 2: tag the build.", "english").named
    m = store_with(tmp_path, [], ("Release step 1: freeze the branch.", "2026-01-01"),
                   ("Release step 2: tag the build.", "2026-01-01"))
    assert not any(h.outdated for h in m.search("release step").hits)


def test_a_value_only_put_forward_does_not_answer_for_now(tmp_path: Path) -> None:
    old = "My homepage is served from a Netlify site, free tier."
    new = "Moved the homepage to a Hetzner box with Caddy, Netlify site deleted."
    pitch = "A friend recommended Render for the homepage. Maybe someday, not now."
    m = store_with(tmp_path, [], (old, "2025-01-10"), (new, "2025-05-02"),
                   (pitch, "2026-02-01"))
    res = m.search("where is my homepage hosted?")
    newer_leads(res, new, old)
    assert res.status == "FOUND"


def test_a_memory_holding_only_the_verb_of_use_ranks_below_the_subject(
        tmp_path: Path) -> None:
    m = store_with(tmp_path, [], ("Persistence layer: MikroORM, entities in src/db.", "2025-01-10"),
                   ("ORM is Drizzle now, schema in src/schema.ts.", "2025-06-01"),
                   ("The data team uses dbt and likes it; no change for us.", "2025-08-01"))
    hits = m.search("What ORM does our backend use?").hits
    assert "dbt" not in hits[0].text and "dbt" in hits[2].text


def test_a_later_note_sharing_one_common_word_casts_no_doubt(tmp_path: Path) -> None:
    old = "My physio is Marta Gil at the clinic on Calle Sol."
    new = "Switched physios - now seeing Dr. Ibarra at Fisiocentro, closer to the new office."
    m = store_with(tmp_path, ["The office fridge gets cleaned on Fridays.",
                              "Office wifi password rotates monthly."],
                   (old, "2025-01-10"), (new, "2025-09-01"),
                   ("Swapped the office chair for a standing desk.", "2026-03-01"))
    res = m.search("Who's my physio now?")
    newer_leads(res, new, old)
    assert not res.hits[0].unsettled and res.status == "FOUND"


def test_going_back_changes_the_move_away(tmp_path: Path) -> None:
    first = "Project wren CI runs on Travis."
    away = "Wren CI moved from Travis to Semaphore for the ARM runners."
    back = "Wren CI back on Travis: Semaphore contract not renewed; configs restored."
    m = store_with(tmp_path, [], (first, "2025-01-05"), (away, "2025-03-01"),
                   (back, "2025-09-01"))
    res = m.search("Which CI service builds wren right now?")
    newer_leads(res, back, away)
    assert read_note(back, "english").reverts == {"travi"}


@pytest.mark.parametrize(("text", "gone"), [
    ("Project ember: mocha superseded by vitest.", "mocha"),
    ("Volvimos a Prettier; Rome eliminado.", "rome"),
    ("Pagerduty contract not renewed, paging moves to Opsgenie.", "pagerduti"),
])
def test_terse_forms_of_letting_a_value_go(text: str, gone: str) -> None:
    assert gone in read_note(text, "english").gone


def test_a_later_note_that_says_the_asked_thing_stayed_changes_it_not(
        tmp_path: Path) -> None:
    old = "Orion production Postgres: RDS, 14.9."
    new = "Orion production Postgres upgraded to 15.4 (RDS)."
    sibling = "Orion staging Postgres upgraded to 16.1 for testing; prod unchanged."
    m = store_with(tmp_path, [], (old, "2025-01-05"), (new, "2025-04-01"),
                   (sibling, "2025-08-01"))
    res = m.search("What Postgres version does orion run in prod?")
    assert not next(h for h in res.hits if h.text == new).outdated


def test_a_new_holder_said_with_new_replaces_the_labelled_one(tmp_path: Path) -> None:
    old = "Tech lead for the checkout squad: Benedikt."
    new = "New checkout lead is Yara, starting Monday."
    assert "benedikt" in read_note(old, "english").names
    assert "yara" in read_note(new, "english").moved_to
    m = store_with(tmp_path, [], (old, "2025-03-01"),
                   ("Tech lead for the search squad: Odile.", "2025-03-01"), (new, "2026-01-12"))
    res = m.search("who leads the checkout team now?")
    newer_leads(res, new, old)
    assert res.status == "FOUND"


@pytest.mark.parametrize(("old", "new", "question", "answer"), [
    ("I work at Initrode on the payments team.",
     "Last day at Initrode today; starting at Vandelay Industries on Monday.",
     "where do I work?", "Vandelay"),
    ("Trabajo en Cervezas Tramuntana.",
     "Hoy fue mi último día en Cervezas Tramuntana; el lunes empiezo en Olivares Bio.",
     "¿dónde trabajo?", "Olivares"),
    ("My phone is a Galaxy S21.", "Traded the Galaxy in for a Fairphone 5.",
     "what phone do I have?", "Fairphone"),
])
def test_a_place_left_or_a_thing_traded_in(tmp_path: Path, old: str, new: str,
                                           question: str, answer: str) -> None:
    m = office_store(tmp_path, (old, "2025-01-10"), (new, "2025-09-01"))
    res = m.search(question)
    assert answer in res.hits[0].text and res.status == "FOUND"
    assert next(h for h in res.hits if h.text == old).outdated
