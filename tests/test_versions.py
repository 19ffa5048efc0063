"""The current value first, however the change was said (``ihmt.search.topic``).

A question about the user's own state (employer, home, manager, editor, CI, runtime,
commute, standup time) is answered from a version group: the timeline's sources and every
dated memory that uses the attribute's vocabulary. The newest leads; a question naming a
year gets the version of then; rejections and passing mentions stay out; the timeline is
one signal, never the whole answer.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ihmt import Memory
from ihmt.errors import InputError
from ihmt.render import compact_answer
from ihmt.timeline.supersede import find_statements

from .mcp_client import running_server
from .test_cli import ihmt

# (attribute, [(date, text), ...] oldest first, question about now): the newest must lead.
FAMILIES = [
    ("employer-en", [("2023-02-01", "I work at Acme Warehouse on the night shift."),
                     ("2025-06-09", "Accepted an offer and joined Initech as an SRE.")],
     "where do I work?"),
    ("employer-es", [("2023-02-01", "Trabajo en Acme Warehouse en el turno de noche."),
                     ("2025-06-09", "Me contrataron en Nimbus Labs como SRE.")],
     "¿dónde trabajo?"),
    ("location-en", [("2022-04-01", "I live in Madrid near the Retiro park."),
                     ("2025-01-15", "Signed the lease for a flat in Valencia.")],
     "where do I live?"),
    ("location-es", [("2022-04-01", "Vivo en Madrid, cerca del Retiro."),
                     ("2025-01-15", "Nos trasladamos a Valencia en enero.")],
     "¿dónde vivo?"),
    ("manager-en", [("2023-05-01", "My manager is Helen Ward."),
                    ("2025-03-01", "After the reorg I report to Tomás Rivera.")],
     "who is my manager?"),
    ("manager-es", [("2023-05-01", "Mi jefa es Helen Ward."),
                    ("2025-03-01", "Desde marzo reporto a Tomás Rivera.")],
     "¿quién es mi jefe?"),
    ("editor-en", [("2022-01-10", "My editor is Emacs with evil mode."),
                   ("2025-02-02", "Switched my editor to Zed for the speed.")],
     "which editor do I use?"),
    ("editor-es", [("2022-01-10", "Mi editor es Emacs con evil mode."),
                   ("2025-02-02", "Me pasé a Zed como editor por la velocidad.")],
     "¿qué editor uso?"),
    ("ci-en", [("2022-06-01", "Jenkins runs every pipeline we have."),
               ("2025-06-01", "Jenkins is gone; all builds run in GitHub Actions.")],
     "what CI do we use?"),
    ("ci-es", [("2022-06-01", "Jenkins ejecuta todos nuestros pipelines."),
               ("2025-06-01", "Migramos los pipelines a GitHub Actions.")],
     "¿qué CI usamos?"),
    ("runtime-en", [("2023-01-01", "Our services run on Python 3.11."),
                    ("2025-09-01", "We bumped the services to Python 3.13.")],
     "which Python version do our services use?"),
    ("runtime-es", [("2023-01-01", "Los servicios usan Python 3.11."),
                    ("2025-09-01", "Actualizamos los servicios a Python 3.13.")],
     "¿qué versión de Python usan los servicios?"),
    ("commute-en", [("2023-01-01", "I drive to the office every day."),
                    ("2025-04-01", "Sold the car, I cycle to the office on my bike now.")],
     "how do I get to the office?"),
    ("commute-es", [("2023-01-01", "Voy a la oficina en coche."),
                    ("2025-04-01", "Vendí el coche: ahora voy a la oficina en bici.")],
     "¿cómo voy a la oficina?"),
    ("handover-en", [("2023-05-01", "My boss is Dana Brooks."),
                     ("2025-03-01", "Our team has been handed over to Ravi Patel.")],
     "who do I report to?"),
    ("handover-es", [("2023-05-01", "Mi jefa es Ana Gil."),
                     ("2025-03-01", "Nuestro equipo ha pasado a manos de Jorge Lema.")],
     "¿quién es mi jefe?"),
    ("editor-name-en", [("2022-01-10", "I write everything in PyCharm."),
                        ("2025-02-02", "Gave Sublime Text a proper try and kept it.")],
     "which editor do I use?"),
    ("editor-name-es", [("2022-01-10", "Todo lo escribo en PyCharm."),
                        ("2025-02-02", "Cambié PyCharm por VSCode hace un mes.")],
     "¿qué editor uso?"),
    ("schedule-en", [("2023-01-01", "The daily standup is at 9:30."),
                     ("2025-04-01", "Standup moved to 10:15 for the new hires.")],
     "when is standup?"),
    ("schedule-es", [("2023-01-01", "La daily es a las 9:30."),
                     ("2025-04-01", "La daily pasó a las 10:15.")],
     "¿a qué hora es la daily?"),
]


def _store(tmp_path: Path, items: list[tuple[str, str]], name: str = "m") -> tuple[Memory,
                                                                                   list[str]]:
    mem = Memory.open(tmp_path / name, create=True)
    ids = [mem.save(text, date=date).ids[0] for date, text in items]
    mem.save("Bought a new kettle for the kitchen.", date="2024-05-05")
    return mem, ids


@pytest.mark.parametrize("family,items,question", FAMILIES, ids=[f[0] for f in FAMILIES])
def test_the_newest_version_leads_in_each_family(tmp_path: Path, family: str,
                                                 items: list[tuple[str, str]],
                                                 question: str) -> None:
    mem, ids = _store(tmp_path, items)
    res = mem.search(question)
    assert res.status == "FOUND", (family, res.message)
    assert res.best.id == ids[-1], (family, [h.text for h in res.hits])
    older = next(h for h in res.hits if h.id == ids[0])
    assert older.outdated and items[-1][0] in older.notices[0]  # the newer memory's date


def test_a_question_naming_a_year_gets_the_version_of_then(tmp_path: Path) -> None:
    mem, ids = _store(tmp_path, [("2022-03-01", "I work at Acme Warehouse."),
                                 ("2024-06-01", "Today was my first day at Initech."),
                                 ("2025-09-01", "Joined Globex as a staff engineer.")])
    assert mem.search("where did I work in 2022?").best.id == ids[0]
    res = mem.search("¿dónde trabajaba en 2024?")
    assert res.status == "FOUND" and res.best.id == ids[1]
    assert mem.search("where do I work?").best.id == ids[2]


def test_a_rejected_alternative_or_an_old_value_in_passing_changes_nothing(tmp_path: Path
                                                                           ) -> None:
    mem, ids = _store(tmp_path, [("2022-03-01", "I live in Madrid."),
                                 ("2024-06-01", "We moved to Valencia in June.")])
    mem.save("We looked at flats in Bilbao but decided against moving there.", date="2025-01-01")
    mem.save("Visited Madrid for a conference last week.", date="2025-02-01")
    mem.save("My old flat in Madrid finally sold.", date="2025-03-01")
    mem.save("Miramos pisos en Sevilla, pero al final no nos mudamos.", date="2025-04-01")
    res = mem.search("where do I live?")
    assert res.best.id == ids[1], [h.text for h in res.hits]
    assert mem.search("¿dónde vivo?").best.id == ids[1]


def test_the_timeline_never_answers_alone(tmp_path: Path) -> None:
    # The rules extract Acme; nothing extracts the newer memory, yet it speaks about work.
    mem, ids = _store(tmp_path, [("2024-03-11", "Trabajo en Acme Warehouse."),
                                 ("2025-06-09", "Nuevo empleo: estoy en Nimbus Labs.")])
    assert [f.value for f in mem.facts("user") if f.attribute == "employer"] == \
        ["Acme Warehouse"]
    res = mem.search("where do I work?")
    assert res.best.id == ids[1]
    assert res.confidence < 0.9 and "Acme Warehouse" in res.message  # they disagree: said
    assert "check with the user" in compact_answer(res)
    assert any(h.id == ids[0] and h.outdated for h in res.hits)
    # When the timeline and the newest memory agree the answer is confident.
    mem.save("Empecé a trabajar en Nimbus Labs.", date="2025-06-10")
    assert mem.search("where do I work?").confidence >= 0.9


def test_an_old_memory_only_the_timeline_knew_is_still_found(tmp_path: Path) -> None:
    mem = Memory.open(tmp_path / "m", create=True)
    old = mem.save("Big news: Umbrella Labs it is!", date="2023-01-01",
                   states="user :: employer = Umbrella Labs").ids[0]
    res = mem.search("where did I work in 2023?")
    assert res.status == "FOUND" and res.best.id == old


def test_a_fact_stated_by_the_agent_is_recorded_and_survives_a_rebuild(tmp_path: Path) -> None:
    mem = Memory.open(tmp_path / "m", create=True)
    mem.save("Started on the payments team.", date="2024-01-01",
             states="user :: employer = Hooli")
    rep = mem.save("Big change this week, more soon.", date="2025-01-01",
                   states="user :: employer = Pied Piper")
    assert rep.notices and "Pied Piper" in rep.notices[0]
    assert mem.get(rep.ids[0]).extra["states"] == [["user", "employer", "Pied Piper"]]
    mem.rebuild()
    values = [(f.value, f.status) for f in mem.facts("user")]
    assert values == [("Hooli", "HISTORICAL"), ("Pied Piper", "ACTIVE")]
    assert mem.search("who is my employer?").best.id == rep.ids[0]
    for bad in ("employer = x", "user :: employer =", "user employer Hooli"):
        with pytest.raises(InputError, match="subject :: attribute = value"):
            mem.save("Something new.", states=bad)


def test_states_through_the_cli(tmp_path: Path) -> None:
    store = str(tmp_path / "mem")
    r = ihmt("--path", store, "save", "Joined a new place.", "--date", "2025-01-01",
             "--states", "user :: employer = Initech", "--json")
    assert r.returncode == 0, r.stderr
    r = ihmt("--path", store, "facts", "--json")
    assert r.returncode == 0, r.stderr
    assert "Initech" in r.stdout
    r = ihmt("--path", store, "save", "x", "--states", "nonsense")
    assert r.returncode == 2 and "subject :: attribute = value" in r.stderr


def test_states_through_the_mcp_server(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with running_server(home, tmp_path / "server.log") as client:
        client.text("save_memory", content="I work at Acme Warehouse.")
        client.text("save_memory", content="Today was my first day.",
                    states="user :: employer = Initech")
        answer = client.text("search_memory", query="where do I work")
        lines = answer.splitlines()
        assert lines[0].startswith("FOUND") and lines[1] == "Today was my first day."
        assert "Acme Warehouse" in answer and "OUTDATED" in answer
        assert "subject :: attribute" in client.error("save_memory", content="x",
                                                      states="bad")


def test_runs_on_a_platform_is_not_a_version() -> None:
    [s] = find_statements("The Atlas billing service runs on GitHub Actions.")
    assert (s.attribute, s.value) == ("platform", "GitHub Actions")
    [s] = find_statements("The Atlas billing service runs on Python 3.12.")
    assert s.attribute == "version"


def test_compact_answer_counts_are_true(tmp_path: Path) -> None:
    mem, ids = _store(tmp_path, [("2024-03-11", "I work at Acme Warehouse.")])
    res = mem.search("where do I work?")
    assert res.message == "the one memory about your employer"
    assert "1 memories" not in compact_answer(res)
    assert json.dumps(res.message)


def test_the_notice_shown_is_about_what_was_asked(tmp_path: Path) -> None:
    mem = Memory.open(tmp_path / "m", create=True)
    mem.save("Vivo en Madrid. Trabajo en Acme Corp.", date="2024-03-11")
    mem.save("Me mudé a Valencia.", date="2026-02-03")
    mem.save("Trabajo en Nimbus Labs desde hoy.", date="2026-02-10")
    old_line = compact_answer(mem.search("where do I live")).split("Other matches:")[1]
    first_notice = next(line for line in old_line.splitlines() if "OUTDATED:" in line)
    assert "location" in first_notice and "employer" not in first_notice


def test_a_replaced_value_named_again_in_passing_does_not_lead(tmp_path: Path) -> None:
    mem, ids = _store(tmp_path, [("2023-01-01", "Our services run on Python 3.11."),
                                 ("2025-01-01", "We bumped the services to Python 3.13.")])
    mem.save("A script from the Python 3.11 days still sits in the tools repo.",
             date="2025-06-01")
    assert mem.search("which Python version do our services use?").best.id == ids[1]
    # A value named again through a recorded fact is a real return, and leads.
    back = mem.save("Rolled the services back.", date="2025-07-01",
                    states="services :: runtime = Python 3.11").ids[0]
    assert back


def test_something_seen_or_read_about_changes_nothing(tmp_path: Path) -> None:
    mem, ids = _store(tmp_path, [("2022-03-01", "I drive to the office every day."),
                                 ("2024-06-01", "Since the move I take the tram to the office.")])
    mem.save("Read an article about cycling to the office in winter.", date="2025-01-01")
    mem.save("Vi un vídeo sobre ir en patinete a la oficina.", date="2025-02-01")
    mem.save("Watched a short video on motorbike commuting.", date="2025-03-01")
    assert mem.search("how do I get to the office?").best.id == ids[1]
    assert mem.search("¿cómo voy a la oficina?").best.id == ids[1]


def test_someone_elses_state_changes_nothing(tmp_path: Path) -> None:
    mem, ids = _store(tmp_path, [("2022-03-01", "I live in Madrid."),
                                 ("2024-06-01", "We finally settled in Lisbon.")])
    mem.save("Helped a friend move to Berlin last weekend.", date="2025-01-01")
    mem.save("Le eché una mano a mi hermana con la mudanza a Sevilla.", date="2025-02-01")
    assert mem.search("where do I live?").best.id == ids[1]
    assert mem.search("¿dónde vivo?").best.id == ids[1]


def test_a_question_about_a_time_before_every_memory_says_so(tmp_path: Path) -> None:
    mem, ids = _store(tmp_path, [("2023-01-01", "I live in Madrid."),
                                 ("2025-01-01", "I moved to Valencia.")])
    res = mem.search("where did I live in 2019?")
    assert res.best.id == ids[0] and res.confidence < 0.9
    assert "dated that early" in compact_answer(res)


# An unrelated later memory that shares a word with the attribute must not take the lead.
UNRELATED = {
    "where do I live?": ("I live in Madrid near the Retiro.", [
        "We moved the standup to Thursdays.", "The living room needs a new lamp.",
        "Home office setup: two monitors and a dock.", "Mudamos la reunión al jueves.",
        "El piso de arriba hace mucho ruido."]),
    "where do I work?": ("I work at Acme Warehouse.", [
        "The job queue is backed up again.", "Work on the parser is done.",
        "The company retreat is in the mountains this year.",
        "El trabajo del parser está terminado.", "La empresa de limpieza viene el lunes."]),
    "who is my manager?": ("My manager is Helen Ward.", [
        "The parcel was handed over to the courier.", "Dependo del tren para llegar.",
        "I filed a report on the outage.", "The lead time for orders is two weeks.",
        "Reports are due on Friday.", "El responsable del catering es Luis.",
        "The manager of the Lisbon store is Rui Costa.",
        "The kitchen lead this month is Priya.", "El jefe de cocina es Andrés Pardo."]),
    "which editor do I use?": ("My editor is Emacs.", [
        "Code review is on Fridays.", "The newsletter editor is Ana Diaz.",
        "Coding dojo next week.", "The cursor blinks too fast in the terminal.",
        "Kate from accounting sent the invoice.", "Eclipse viewing party on Friday night.",
        "Lunch with Kate and Marco tomorrow.", "We watched the solar Eclipse from the roof.",
        "Talked to Kate about the budget.", "Kate's team ships the billing API.",
        "Printed a poster of the Helix Nebula for the hallway.",
        "Cursor position is saved in the form draft.",
        "Le pasé el informe a Kate para que lo revise.",
        "La editora de la revista es Marta Gil."]),
    "what CI do we use?": ("Jenkins runs every pipeline we have.", [
        "The build of the new house starts in May.", "The jobs page on the site was updated.",
        "Sales pipeline review on Monday."]),
    "how do I get to the office?": ("I drive to the office every day.", [
        "Saw a billboard for a car dealership near the office.",
        "The office plants need water.", "Car insurance renewal is due.",
        "Train tickets for the conference are booked.",
        "The car park behind the office is closing for repairs.",
        "Bus 42 timetable changed on Sundays.", "Bought a bike lock as a present for Ana.",
        "El seguro del coche vence en marzo."]),
    "when is standup?": ("The daily standup is at 9:30.", [
        "Meeting notes are in the wiki.", "The daily newspaper arrived late.",
        "Team meeting about the budget went long."]),
}
CASES = [(q, true, other) for q, (true, others) in UNRELATED.items() for other in others]


@pytest.mark.parametrize("question,true,other", CASES)
def test_an_unrelated_later_memory_does_not_lead(tmp_path: Path, question: str, true: str,
                                                 other: str) -> None:
    mem = Memory.open(tmp_path / "m", create=True)
    want = mem.save(true, date="2023-01-01").ids[0]
    mem.save(other, date="2025-01-01")
    res = mem.search(question)
    assert res.best is not None and res.best.id == want, [h.text for h in res.hits]


# Editor names that are also first names or words lead where they are used as a tool.
@pytest.mark.parametrize("old,new,question", [
    ("I code in Emacs every day.", "Switched to Zed last month.", "which editor do I use?"),
    ("My editor is Vim.", "These days I write everything in Helix.", "what editor do I use?"),
    ("Mi editor es Sublime Text.", "Ahora programo en Kate.", "¿qué editor uso?"),
    ("Uso IntelliJ IDEA en el trabajo.", "Me pasé a Zed hace un mes.", "¿qué editor uso?"),
    ("I use VS Code for everything.", "Trying Cursor as my daily driver, sticking with it.",
     "which editor do I use?"),
])
def test_an_ambiguous_editor_name_used_as_a_tool_leads(tmp_path: Path, old: str, new: str,
                                                       question: str) -> None:
    mem, ids = _store(tmp_path, [("2023-01-01", old), ("2025-01-01", new)])
    mem.save("Lunch with Kate and Marco tomorrow.", date="2025-06-01")
    assert mem.search(question).best.id == ids[1]


def test_a_past_version_without_the_attribute_words_is_found_by_the_name_it_gives(
        tmp_path: Path) -> None:
    """The change names the old employer; the memory of then only names it too."""
    mem, ids = _store(tmp_path, [
        ("2021-03-01", "At Vandelay Imports I mostly maintain the billing scripts."),
        ("2023-05-01", "Left Vandelay Imports and joined Kramerica as a developer.")])
    mem.save("Vandelay Imports sent a holiday card to my old team.", date="2024-01-01")
    res = mem.search("which company was I working for in 2021?")
    assert res.best.id == ids[0]
    assert res.confidence < 0.9  # found by a name, not by the attribute's words: said so
    assert mem.search("where do I work?").best.id == ids[1]


def test_a_product_named_first_is_a_value_of_then(tmp_path: Path) -> None:
    mem, ids = _store(tmp_path, [("2021-04-18", "Neovim es lo primero que abro cada día."),
                                 ("2022-11-25", "Probé Helix un mes y me quedé con él.")])
    assert mem.search("¿cuál era mi editor en 2021?").best.id == ids[0]
    assert mem.search("¿qué editor uso?").best.id == ids[1]


def test_a_sentence_start_is_no_name_that_links_another_attribute(tmp_path: Path) -> None:
    """"Trabajo" opens a sentence in the home memory and the job memory: no shared value."""
    mem, ids = _store(tmp_path, [
        ("2024-03-11", "Vivo en Madrid, cerca de Lavapiés. Trabajo en Acme Corp."),
        ("2026-02-03", "Me mudé a Valencia. The new flat is near the Turia gardens.")])
    mem.save("Trabajo en Nimbus Labs desde hoy. Mi stack es Python.", date="2026-02-10")
    assert mem.search("where do I live?").best.id == ids[1]
