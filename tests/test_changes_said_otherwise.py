"""Ways of saying a change (or no change) found by the seventh blind walk, each written
here in other words than the walk's:

- "from X" names a value let go only in a change: "served from Netlify" is a source;
- two words written as one ("sign up" and "signup", "front end" and "frontend");
- a decided start date is no plan: "moves to 9:45 starting next week";
- "Small fix:" corrects an earlier memory, whatever words the two share;
- a later memory that names the first answer's value as standing leaves it sure;
- another team's practice is no sure answer to a question about ours;
- "ack" and "acknowledge" are one word.
"""

from __future__ import annotations

from pathlib import Path

from ihmt.search.aliases import compounds
from ihmt.search.change_notes import read_note
from ihmt.text import tokenize

from .conftest import office_store

_store = office_store


def test_from_names_a_value_let_go_only_in_a_change() -> None:
    assert not read_note("Release builds are downloaded from Artifactory.", "english").gone
    assert "artifactori" in read_note("Release builds moved from Artifactory to GitHub "
                                      "Packages.", "english").gone
    # "from X to Y" says the change without a verb of change
    assert "artifactori" in read_note("Release builds: from Artifactory to Nexus.",
                                      "english").gone


def test_a_source_said_with_from_is_the_old_value_of_a_later_change(tmp_path: Path) -> None:
    old = "Release builds are downloaded from Artifactory."
    new = "Release build downloads went from Artifactory to GitHub Packages."
    m = _store(tmp_path, (old, "2026-03-01"), (new, "2026-03-01"))
    res = m.search("where do we download release builds from?")
    assert res.best.text == new and res.status == "FOUND", (res.status, res.best.text)
    assert next(h for h in res.hits if h.text == old).outdated


def test_two_words_written_as_one_are_found_by_either() -> None:
    words = tokenize("how do customers sign up?", "english")
    joined = compounds("how do customers sign up?", words, "english")
    assert joined.get("signup") == "sign"
    # a pair of which the question holds neither word gives nothing
    assert compounds("how do", [], "english") == {}


def test_a_question_in_two_words_finds_the_memory_in_one(tmp_path: Path) -> None:
    m = _store(tmp_path, ("Customer signup goes through Auth0 with magic links.",
                          "2026-03-01"))
    res = m.search("how do customers sign up?")
    assert res.status == "FOUND" and "Auth0" in res.best.text, (res.status, res.message)
    assert "sign" in res.best.matched  # counted as the question's own word


def test_a_decided_start_date_is_a_change_not_a_plan(tmp_path: Path) -> None:
    old = "The platform sync is every Tuesday at 9:00."
    new = "The platform sync is every Tuesday at 9:45 starting next week, for the Tokyo folks."
    m = _store(tmp_path, (old, "2026-03-01"), (new, "2026-06-01"))
    res = m.search("when is the platform sync?")
    assert res.best.text == new and res.status == "FOUND", (res.status, res.best.text)
    # a plan for next week is still a plan
    plan = "We might move the platform sync to 10:30 next week."
    m2 = _store(tmp_path / "plan", (old, "2026-03-01"), (plan, "2026-06-01"))
    res = m2.search("when is the platform sync?")
    assert res.best.text == old and not res.best.outdated, res.best.text


def test_a_small_fix_leaves_the_earlier_memory_unsure(tmp_path: Path) -> None:
    old = "Our contact at Acme Bank is Laura Diaz."
    new = "Small fix: the Acme Bank rep is Marta Gil. Laura only joined that first call."
    m = _store(tmp_path, (old, "2026-03-01"), (new, "2026-03-04"))
    res = m.search("who is our contact at Acme Bank?")
    assert not (res.status == "FOUND" and "Laura Diaz" in res.best.text), \
        (res.status, res.best.text)


def test_a_later_memory_naming_the_value_as_standing_leaves_the_answer_sure(
        tmp_path: Path) -> None:
    old = "Payments are processed by Braintree."
    new = "Payments went from Braintree to Adyen in the spring."
    aside = "Renamed the finance Slack channel; Adyen keeps processing payments."
    m = _store(tmp_path, (old, "2026-02-01"), (new, "2026-05-01"), (aside, "2026-08-01"))
    res = m.search("who processes our payments?")
    assert "Adyen" in res.best.text and res.status == "FOUND", (res.status, res.message)
    assert not res.best.unsettled


def test_another_team_s_practice_is_no_sure_answer_of_ours(tmp_path: Path) -> None:
    theirs = "The mobile team moved their bug reports from Trello to Asana."
    m = _store(tmp_path, (theirs, "2026-05-01"))
    res = m.search("where do we file our bug reports?")
    assert res.best.text == theirs  # shown: it is all memory has
    assert res.status == "AMBIGUOUS" and "another team" in res.message, res.status
    # said of us, it is an answer
    ours = "We moved our bug reports from Trello to Asana."
    m2 = _store(tmp_path / "ours", (ours, "2026-05-01"))
    assert m2.search("where do we file our bug reports?").status == "FOUND"


def test_ack_and_acknowledge_are_one_word(tmp_path: Path) -> None:
    m = _store(tmp_path, ("P2 incidents must be acknowledged within one hour.", "2026-03-01"))
    res = m.search("how fast do we have to ack a P2?")
    assert res.status == "FOUND" and "one hour" in res.best.text, (res.status, res.message)


def test_a_word_in_quotes_is_a_name_that_a_rename_replaces(tmp_path: Path) -> None:
    old = "The billing worker is called 'ledger' in the deploy scripts and dashboards."
    new = "ledger was renamed to billing-worker in the scripts and the dashboards."
    m = _store(tmp_path, (old, "2026-03-01"), (new, "2026-09-01"))
    res = m.search("what is the billing worker named now?")
    assert res.best.text == new and res.status == "FOUND", (res.status, res.best.text)
    assert next(h for h in res.hits if h.text == old).outdated
    # a quoted identifier of several parts is another thing: no version of the first
    m2 = _store(tmp_path / "other", ("The `web` repo deploys to Render.", "2026-03-01"),
                ("The `web-admin` repo moved from Heroku to Railway.", "2026-09-01"))
    res = m2.search("where does the web repo get deployed?")
    assert "Render" in res.best.text and not res.best.outdated, res.best.text


def test_a_plan_gives_way_to_the_newest_settled_memory_of_the_same_thing(
        tmp_path: Path) -> None:
    old = "The search index is kept in Elasticsearch 7."
    now = "The search index is kept in Elasticsearch 8 since the upgrade."
    plan = ("We are planning to move the search index for the product catalog to "
            "OpenSearch next quarter.")
    m = _store(tmp_path, (old, "2026-01-15"), (now, "2026-02-01"), (plan, "2026-05-01"))
    res = m.search("where is the search index for the product catalog kept?")
    assert res.best.text == now, [h.text for h in res.hits[:3]]
    # asked about the plan itself, the plan stays first
    res = m.search("what are we planning for the search index next quarter?")
    assert res.best.text == plan, res.best.text


def test_a_change_said_past_a_long_memory_s_first_lines_is_read(tmp_path: Path) -> None:
    old = "Expense reports go to gastos@ejemplo.org every month."
    new = ("Notes from the finance sync: the quarter closes on the 27th, travel costs must be "
           "filed before the 20th, and the office moves to the third floor in March. Also, "
           "expense reports no longer go to the old inbox; from now on they are sent to "
           "reembolsos@ejemplo.org so they land in the ledger. Team lunch is on the 12th.")
    m = _store(tmp_path, (old, "2026-03-01"), (new, "2026-09-01"))
    res = m.search("where do expense reports go?")
    assert res.best.text == new and res.status == "FOUND", (res.status, res.best.text[:40])


def test_spanish_handovers_and_endings_are_changes(tmp_path: Path) -> None:
    cases = [
        ("La persona de contacto para las compras es Pablo Núñez.",
         "Pablo deja la empresa en junio; Irene Soto asume como contacto para las compras.",
         "¿quién es el contacto para las compras?", "Irene Soto"),
        ("Con la agencia de diseño trabajamos por un tablero de Trello.",
         "Lo de Trello con la agencia de diseño se acabó, ahora todo va por Jira.",
         "¿por dónde trabajamos con la agencia de diseño?", "Jira"),
        ("El dominio del panel interno es panel.ejemplo.net.",
         "El dominio del panel interno pasó a ser admin.ejemplo.net tras la migración.",
         "¿cuál es el dominio del panel interno?", "admin.ejemplo.net"),
    ]
    for n, (old, new, question, value) in enumerate(cases):
        m = _store(tmp_path / str(n), (old, "2026-03-01"), (new, "2026-09-01"))
        res = m.search(question)
        assert value in res.best.text and res.status == "FOUND", (question, res.status,
                                                                   res.best.text)
        assert next(h for h in res.hits if h.text == old).outdated, question


def test_done_with_a_lower_case_value_is_a_change(tmp_path: Path) -> None:
    old = "Nadia likes tabs for indentation in her Go services."
    new = "Nadia is done with tabs; she wants spaces for indentation from now on."
    m = _store(tmp_path, (old, "2026-03-01"), (new, "2026-09-01"))
    res = m.search("what indentation does Nadia want in her services?")
    assert res.best.text == new and res.status == "FOUND", (res.status, res.best.text)
    assert next(h for h in res.hits if h.text == old).outdated


def test_our_memory_comes_before_another_team_s(tmp_path: Path) -> None:
    ours = "Dropped the old Drone server. Every pipeline is a Buildkite job now."
    theirs = "The data team's pipelines run on Airflow; they host it themselves."
    m = _store(tmp_path, (ours, "2026-03-01"), (theirs, "2026-09-01"))
    res = m.search("where do our pipelines run these days?")
    assert res.best.text == ours, [h.text for h in res.hits[:2]]
    assert 0.0 <= res.confidence <= 1.0


def test_a_wish_that_changes_nothing_keeps_its_place(tmp_path: Path) -> None:
    from ihmt.search.change_doubts import settled_first

    assert settled_first([], set(), "english") == []
    wish = "Ines would love to go hiking in the Picos de Europa next summer."
    other = "Ines went hiking in the Alps last year."
    m = _store(tmp_path, (other, "2026-03-01"), (wish, "2026-05-01"))
    res = m.search("where does Ines love hiking next summer?")
    assert res.best.text == wish, res.best.text
