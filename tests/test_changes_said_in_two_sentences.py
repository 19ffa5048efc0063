"""A change said in one sentence and a plan about something else in the next, and a
question that spells out what the memories write as initials. Written in words of their
own after the semantic run of the eighth walk:

- "Runbooks now live in the repo. The Notion space will be closed next quarter." says a
  change done; the plan is about the old place, not about the change;
- "We might move CI to Buildkite. For now it stays on Jenkins." is still only a plan;
- "what do our service level objectives say?" finds the memory that writes "SLOs".
"""

from __future__ import annotations

from pathlib import Path

from ihmt.search.aliases import acronyms
from ihmt.search.change_notes import read_note
from ihmt.search.change_words import hedged, only_plans
from ihmt.text import fold, tokenize

from .conftest import office_store

_store = office_store


def test_a_plan_in_another_sentence_does_not_hedge_the_change() -> None:
    assert not hedged(fold("Runbooks now live in the repo under ops/runbooks. "
                           "The Notion space will be closed next quarter."))
    assert hedged(fold("We might move CI to Buildkite. For now it stays on Jenkins."))
    assert hedged(fold("Moving the wiki to Outline next sprint."))
    assert not hedged(fold("The wiki runs on Outline."))


def test_the_change_leads_though_the_next_sentence_plans(tmp_path: Path) -> None:
    old = "On-call runbooks are in Notion, in the Ops space."
    new = ("On-call runbooks now live in GitLab, in the infra repo. "
           "The Notion Ops space will be closed next quarter.")
    m = _store(tmp_path, (old, "2025-02-10"), (new, "2025-09-01"))
    res = m.search("where are the on-call runbooks these days?")
    assert res.hits[0].text == new
    assert res.status == "FOUND"
    stale = next(h for h in res.hits if h.text == old)
    assert stale.outdated


def test_a_plan_said_first_still_changes_nothing(tmp_path: Path) -> None:
    old = "CI runs on Jenkins, ci.internal."
    plan = "We might move CI to Buildkite. For now it stays on Jenkins."
    m = _store(tmp_path, (old, "2025-02-10"), (plan, "2025-09-01"))
    res = m.search("what runs our CI?")
    first = res.hits[0]
    assert not (first.text == old and first.outdated)
    assert not any(h.text == old and h.outdated for h in res.hits)


def test_initials_of_three_question_words() -> None:
    got = acronyms("what do our service level objectives say?", "english")
    assert got["slo"] == got["slos"] == ["servic", "level", "object"]
    # a function word or a comma ends the run; two letters are too few
    assert acronyms("time to recovery", "english") == {}
    assert acronyms("service, level objectives", "english") == {}
    assert acronyms("pull request", "english") == {}


def test_a_memory_written_with_initials_answers_the_long_form(tmp_path: Path) -> None:
    slo = "Checkout SLOs: 99.9% availability and p95 under 300 ms, reviewed monthly."
    m = _store(tmp_path, (slo, "2025-05-05"))
    res = m.search("what are the checkout service level objectives?")
    assert res.hits and res.hits[0].text == slo
    assert res.status == "FOUND"


def test_only_a_plan_when_the_hedge_governs_the_change() -> None:
    assert only_plans(fold("We might move CI to Buildkite. For now it stays on Jenkins."))
    assert only_plans(fold("Alguien tiró la idea de pasar a Liquibase, pero nadie la retomó."))
    assert not only_plans(fold("In May of last year, after a long search, I moved to Lisbon."))
    assert not only_plans(fold("I moved to Berlin; maybe I'll get a bike next month."))
    assert not only_plans(fold("CI runs on Jenkins."))
    assert not only_plans(fold("IntelliJ IDEA has fully replaced Sublime for me."))


def test_archived_or_read_only_is_a_value_let_go() -> None:
    assert "confluenc" in read_note("The Confluence wiki is read-only since May; docs moved "
                                    "to Outline.", "english").gone
    assert tokenize("Jira", "spanish")[0] in read_note(
        "Las tareas ya viven en Linear. Jira quedó en solo lectura.", "spanish").gone
    assert "trello" in read_note("Trello was archived after the move to Linear.",
                                 "english").gone
