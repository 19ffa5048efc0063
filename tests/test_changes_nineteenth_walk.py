"""Answers the nineteenth walk (written blind, measured once before it was read) served
stale, in words of their own (the lexicon of kinds it also led to: ``tests/test_kinds.py``):

- "X ha dejado la empresa", "Tom left the team" let the holder go;
- "a Irene le cambian el piano a lunes" is a change done to someone, in the present;
- "new go-live date June 23" sets a new date, and a "still" in another comma-set part
  keeps only that part;
- a directive that opens a clause ("user: drop prettier, use biome") lets the value go;
  a product of the lexicon of kinds, in lower case, is a name that can be let go;
- two answers found by one question word (a name both give: "Irene") are versions where
  the later moves to days the earlier did not give;
- a question of up to 12 content words (a task-led one: "I need to change the footer …")
  still has its answer's later changes looked for.

Each fails on ``c15495e`` but the guards, which held before and keep the new forms in
bounds.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ihmt.search.change_words import CUE, OLD_SLOT
from ihmt.text import fold

from .conftest import newer_leads, office_store


def _gone(text: str) -> list[str]:
    return [g for m in OLD_SLOT.finditer(fold(text)) for g in m.groups() if g]


def test_leaving_the_company_lets_the_holder_go() -> None:
    assert "pablo" in _gone("Pablo ha dejado la empresa.")
    assert "tom" in _gone("Tom left the team last week.")


def test_the_new_owner_after_one_left(tmp_path: Path) -> None:
    old = "El responsable de Orion es Pablo Ruiz; las demos se le enseñan a él."
    new = "Pablo ha dejado la empresa. Sara Gil lleva Orion desde hoy."
    m = office_store(tmp_path, (old, "2025-02-01"), (new, "2025-09-01"))
    newer_leads(m.search("¿A quién le enseño la demo de Orion?"), new, old)


@pytest.mark.parametrize("text", [
    "a Irene le cambian el piano a lunes y jueves",
    "nos cambian la reunión al jueves",
    "new go-live date June 23",
    "user: drop prettier, use biome",
    "Drop Jenkins, use Buildkite",
])
def test_forms_that_say_a_change(text: str) -> None:
    assert CUE.search(fold(text))


@pytest.mark.parametrize("text", [
    "we could drop Jenkins next year",  # (a plan: no directive that opens a clause)
    "the drop in traffic after the launch",
    "a new laptop for the intern",
])
def test_guards_no_change_said(text: str) -> None:
    """(guards)"""
    assert not CUE.search(fold(text))


def test_a_present_change_done_to_someone_moves_the_days(tmp_path: Path) -> None:
    old = "Las clases de piano de Irene son martes y viernes a las 18:00 en el conservatorio."
    new = "a Irene le cambian el piano a lunes y jueves, misma hora"
    m = office_store(tmp_path, (old, "2025-09-01"),
                     ("Fútbol de Dani: domingos a las 11.", "2025-09-01"),
                     (new, "2025-10-10"))
    newer_leads(m.search("¿Qué tardes llevo a Irene al conservatorio?"), new, old)


def test_a_new_date_beside_what_stayed(tmp_path: Path) -> None:
    old = "Payments beta go-live: June 2. Docs need to be public a week before."
    new = "vendor sign-off slipped; new go-live date June 23, docs still a week before it"
    m = office_store(tmp_path, (old, "2025-03-01"), (new, "2025-05-10"))
    newer_leads(m.search("When do the payments beta docs need to be public?"), new, old)


def test_a_directive_drops_a_tool_written_in_lower_case(tmp_path: Path) -> None:
    old = "User prefers prettier with print width 120 in every web project."
    new = "user: drop prettier, use biome everywhere and keep its default width"
    m = office_store(tmp_path, (old, "2025-02-01"), (new, "2025-07-01"))
    res = m.search("what print width should the formatter use in the new web project?")
    newer_leads(res, new, old)


def test_a_long_task_led_question_still_looks_further(tmp_path: Path) -> None:
    """A question of nine content words ("I need to change the footer …") is a question,
    not a pasted text: what became of its answer is looked for beyond the hits (up to
    ``FOLLOW_MAX_WORDS``, 12; it was 8)."""
    old = "Billing invoices are rendered with Handlebars in the billing repo."
    new = "Swapped Handlebars for MJML; the old partials are gone."
    m = office_store(tmp_path, (old, "2025-01-10"), (new, "2025-06-01"))
    res = m.search("I need to change the footer of the billing invoices quickly, which engine "
                   "renders them right now?")
    newer_leads(res, new, old)
