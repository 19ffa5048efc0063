"""Facts: extraction from text, and the timeline that decides what is current."""

from __future__ import annotations

import json
import logging
import multiprocessing
import tempfile
import unicodedata
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ihmt.errors import InputError
from ihmt.model import Fact
from ihmt.timeline.extract import add_pattern, extract_facts, reset_patterns
from ihmt.timeline.facts import FactTimeline, Notice

MADRID_TO_VALENCIA = (
    "On 2024-03-11 you said user location = 'Madrid', but on 2026-02-03 you updated to 'Valencia'."
)


@pytest.fixture
def tl(tmp_path: Path) -> FactTimeline:
    return FactTimeline(tmp_path / "state")


@pytest.fixture(autouse=True)
def _no_custom_patterns() -> Iterator[None]:
    reset_patterns()
    yield
    reset_patterns()


def loc(value: str, date: str, source: str | None = None) -> Fact:
    return Fact("user", "location", value, date, source)


def values(text: str, date: str | None = "2026-02-03") -> list[tuple[str, str]]:
    return [(f.attribute, f.value) for f in extract_facts(text, date, "m1")]


# --- the spec scenarios ----------------------------------------------------------------------


def test_madrid_then_valencia(tl: FactTimeline) -> None:
    assert tl.record(loc("Madrid", "2024-03-11", "m1")) is None
    notice = tl.record(loc("Valencia", "2026-02-03", "m2"))

    assert isinstance(notice, Notice)
    assert notice.text == MADRID_TO_VALENCIA
    assert str(notice) == MADRID_TO_VALENCIA
    assert tl.active_state()["user::location"].value == "Valencia"
    assert tl.state_at("2024-12-31")["user::location"].value == "Madrid"
    assert tl.state_at("2026-02-03")["user::location"].value == "Valencia"
    assert tl.state_at("2024-01-01") == {}

    old, new = tl.timeline("user", "location")
    assert (old.value, old.status, old.superseded_by) == ("Madrid", "HISTORICAL", "Valencia")
    assert (old.valid_from, old.valid_to) == ("2024-03-11", "2026-02-03")
    assert (new.value, new.status, new.valid_from, new.valid_to) == (
        "Valencia",
        "ACTIVE",
        "2026-02-03",
        None,
    )
    assert tl.notices_for_leaf("m1") == [MADRID_TO_VALENCIA]
    assert tl.notices_for_leaf("m2") == []
    assert tl.superseded_sources() == {"m1"}
    (change,) = tl.conflicts()
    assert (change.old_value, change.old_source, change.new_value, change.new_source) == (
        "Madrid",
        "m1",
        "Valencia",
        "m2",
    )
    assert change.as_dict()["notice"] == MADRID_TO_VALENCIA


def test_employer_change_from_spanish_text(tl: FactTimeline) -> None:
    for fact in extract_facts("I work at Acme Corp since 2020", "2025-01-10", "m1"):
        tl.record(fact)
    (fact,) = extract_facts("trabajo en Nimbus Labs desde hoy", "2026-02-03", "m2")
    assert (fact.key, fact.value, fact.date) == ("user::employer", "Nimbus Labs", "2026-02-03")

    notice = tl.record(fact)
    assert notice is not None
    assert notice.text == (
        "On 2025-01-10 you said user employer = 'Acme Corp', but on 2026-02-03 you updated "
        "to 'Nimbus Labs'."
    )
    assert tl.active_state()["user::employer"].value == "Nimbus Labs"


def test_confirmation_is_not_a_contradiction(tl: FactTimeline) -> None:
    tl.record(loc("Valencia", "2026-02-03", "m1"))
    assert tl.record(loc("valéncia", "2026-05-01", "m2")) is None  # case and accents ignored

    assert tl.conflicts() == []
    assert [f.status for f in tl.timeline("user", "location")] == ["ACTIVE"]
    assert tl.superseded_sources() == set()
    # both statements are kept, both state the current value
    assert [(f.date, f.status) for f in tl.facts()] == [
        ("2026-02-03", "ACTIVE"),
        ("2026-05-01", "ACTIVE"),
    ]


def test_out_of_order_arrival_is_placed_by_date(tl: FactTimeline) -> None:
    tl.record(loc("Valencia", "2026-02-03", "new"))
    assert tl.record(loc("Madrid", "2024-03-11", "old")) is None  # history, not a change now

    assert tl.active_state()["user::location"].value == "Valencia"
    assert [f.value for f in tl.timeline("user", "location")] == ["Madrid", "Valencia"]
    assert [c.text for c in tl.conflicts()] == [MADRID_TO_VALENCIA]
    assert tl.notices_for_leaf("old") == [MADRID_TO_VALENCIA]
    assert tl.state_at("2025-06-01")["user::location"].value == "Madrid"


def test_history_keeps_every_change_and_points_old_leaves_to_now(tl: FactTimeline) -> None:
    tl.record(loc("Madrid", "2024-03-11", "m1"))
    tl.record(loc("Valencia", "2026-02-03", "m2"))
    notice = tl.record(loc("Berlin", "2027-01-01", "m3"))
    assert notice is not None and notice.old_value == "Valencia"

    assert [f.status for f in tl.timeline("user", "location")] == [
        "HISTORICAL",
        "HISTORICAL",
        "ACTIVE",
    ]
    notes = tl.notices_for_leaf("m1")
    assert notes[0] == MADRID_TO_VALENCIA
    assert "'Berlin'" in notes[1]
    assert tl.superseded_sources() == {"m1", "m2"}


def test_a_value_that_is_current_again_does_not_flag_its_old_leaf(tl: FactTimeline) -> None:
    tl.record(loc("Madrid", "2024-03-11", "m1"))
    tl.record(loc("Valencia", "2025-02-03", "m2"))
    assert tl.record(loc("Madrid", "2026-02-03", "m3")) is not None

    assert tl.active_state()["user::location"].value == "Madrid"
    assert len(tl.conflicts()) == 2
    assert tl.superseded_sources() == {"m2"}
    assert tl.notices_for_leaf("m1") == []


def test_same_day_change_follows_arrival_order(tl: FactTimeline) -> None:
    tl.record(loc("Madrid", "2026-02-03", "m1"))
    notice = tl.record(loc("Valencia", "2026-02-03", "m2"))
    assert notice is not None
    assert tl.active_state()["user::location"].value == "Valencia"


def test_record_many_returns_the_notices_of_one_by_one(tl: FactTimeline) -> None:
    notices = tl.record_many(
        [loc("Madrid", "2024-03-11", "m1"), loc("Valencia", "2026-02-03", "m2")]
    )
    assert [n.text for n in notices] == [MADRID_TO_VALENCIA]
    assert tl.record_many([loc("Madrid", "2024-03-11", "m1")]) == []  # exact repeat
    assert len(tl.facts()) == 2


def test_facts_and_conflicts_filter_by_subject(tl: FactTimeline) -> None:
    tl.record(loc("Madrid", "2024-03-11"))
    tl.record(loc("Valencia", "2026-02-03"))
    tl.record(Fact("patient", "diagnosis", "flu", "2026-01-01"))
    tl.record(Fact("patient", "diagnosis", "covid", "2026-01-05"))
    assert {f.subject for f in tl.facts("patient")} == {"patient"}
    assert [c.new_value for c in tl.conflicts("patient")] == ["covid"]
    assert len(tl.conflicts()) == 2
    assert set(tl.active_state()) == {"user::location", "patient::diagnosis"}


def test_datetimes_and_state_at_a_whole_day(tl: FactTimeline) -> None:
    tl.record(loc("Madrid", "2024-03-11T09:30:00"))
    tl.record(loc("Valencia", "2024-03-11T18:00:00"))
    assert tl.state_at("2024-03-11")["user::location"].value == "Valencia"
    assert tl.state_at("2024-03-11T12:00:00")["user::location"].value == "Madrid"
    assert tl.conflicts()[0].text.startswith("On 2024-03-11 you said")


# --- extraction: clean values ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I live in Valencia now", ("location", "Valencia")),
        ("trabajo en Nimbus Labs desde hoy", ("employer", "Nimbus Labs")),
        ("I moved to Valencia last month.", ("location", "Valencia")),
        ("I work at Acme Corp since 2020", ("employer", "Acme Corp")),
        ("vivo en Madrid, en el centro", ("location", "Madrid")),
        ("I live in New York", ("location", "New York")),
        ("Me he mudado a San Sebastián", ("location", "San Sebastián")),
        ("me mude a san sebastian ayer", ("location", "san sebastian")),
        ("nos mudamos a Sevilla el mes pasado", ("location", "Sevilla")),
        ("We moved to Porto in 2023", ("location", "Porto")),
        ("I relocated to Austin, Texas", ("location", "Austin")),
        ("I'm living in Berlin with my partner", ("location", "Berlin")),
        ("I've just moved to Lisbon!", ("location", "Lisbon")),
        ("I live in Rio de Janeiro because of work", ("location", "Rio de Janeiro")),
        ("vivo en la Ciudad de México desde 2019", ("location", "Ciudad de México")),
        ("I moved to the Netherlands two years ago", ("location", "Netherlands")),
        ("I live in St. Louis", ("location", "St. Louis")),
        ("i live in valencia now", ("location", "valencia")),
        ("I work for Microsoft too", ("employer", "Microsoft")),
        ("trabajo para Google también", ("employer", "Google")),
        ("I joined Acme's data team in 2021", ("employer", "Acme")),
        ("I started at Google in March", ("employer", "Google")),
        ("me incorporé a BBVA el lunes", ("employer", "BBVA")),
        ("entré en Telefónica hace dos años", ("employer", "Telefónica")),
        ("I work as a backend engineer at Stripe", ("employer", "Stripe")),
        ("I work at the University of Valencia", ("employer", "University of Valencia")),
        ("I work at Acme Corp. Since 2020 I lead the team.", ("employer", "Acme Corp")),
        ("My stack is Python, FastAPI and Postgres now", ("stack", "Python, FastAPI and Postgres")),
        ("mi stack es Python y Django", ("stack", "Python y Django")),
        (
            "Our stack is TypeScript and Go, but we are moving to Rust",
            ("stack", "TypeScript and Go"),
        ),
        ("We use GitHub Actions for CI/CD", ("tool:ci/cd", "GitHub Actions")),
        ("usamos Redis como caché", ("tool:cache", "Redis")),
        ("We use Postgres for storage and Redis for caching", ("tool:storage", "Postgres")),
    ],
)
def test_clean_values(text: str, expected: tuple[str, str]) -> None:
    assert values(text) == [expected]


def test_decomposed_accents_and_ligatures_keep_the_value_intact() -> None:
    text = unicodedata.normalize("NFD", "Me he mudado a San Sebastián. Trabajo en Telefónica.")
    got = [unicodedata.normalize("NFC", f.value) for f in extract_facts(text, "2026-02-03")]
    assert got == ["San Sebastián", "Telefónica"]
    text = "ﬁnally I work at Jose\u0301 Ltd."  # a ligature, then a decomposed é
    assert [f.value for f in extract_facts(text, "2026-02-03")] == ["Jose\u0301 Ltd"]


def test_two_statements_on_one_line() -> None:
    assert values("I live in Madrid and work at Acme") == [
        ("location", "Madrid"),
        ("employer", "Acme"),
    ]
    assert values("vivo en Madrid y trabajo en Acme") == [
        ("location", "Madrid"),
        ("employer", "Acme"),
    ]
    facts = extract_facts("I live in Madrid. I moved to Valencia last month.", "2026-02-03")
    assert [f.value for f in facts] == ["Madrid", "Valencia"]


@pytest.mark.parametrize(
    "text",
    [
        "I don't live in Paris",
        "I do not work at Acme",
        "ya no vivo en Madrid",
        "no trabajo en Acme",
        "nunca he vivido en Roma y no vivo en Roma",
        "do I live in Madrid?",
        "Do I live in Madrid",
        "Where do I live now",
        "¿vivo en Madrid?",
        "I live in Madrid, right?",
        "If I live in Paris I will be happy",
        "I wish I lived in Paris",
        "I used to live in Paris",
        "I want to move to Berlin",
        "Ana lives in Paris",
        "Mi trabajo en Acme es duro",
        "trabajo en equipo",
        "I work at home",
        "I live in a small flat",
        "I joined the meeting late",
        "empecé en enero",
        "My stack is a mess",
        "We use it for everything",
        "We use Slack for years",
        "we don't use Jenkins for CI",
    ],
)
def test_no_fact_from_negations_questions_and_non_names(text: str) -> None:
    assert values(text) == []


def test_yes_is_not_if() -> None:
    assert values("Yo sí vivo en Madrid") == [("location", "Madrid")]
    assert values("No, trabajo en Acme") == [("employer", "Acme")]


def test_clinical_headers() -> None:
    text = (
        "Informe\nDiagnóstico: Diabetes tipo 2.\n"
        "Tratamiento: Metformina 850 mg, dos veces al día\n"
        "- **Medication:** ibuprofen 400mg\nDiagnosis in passing: not a header"
    )
    facts = extract_facts(text, "2026-01-20", "c1")
    assert [(f.key, f.value) for f in facts] == [
        ("patient::diagnosis", "Diabetes tipo 2"),
        ("patient::treatment", "Metformina 850 mg, dos veces al día"),
        ("patient::medication", "ibuprofen 400mg"),
    ]
    assert all(f.date == "2026-01-20" and f.source == "c1" for f in facts)


def test_relative_dates_are_resolved() -> None:
    pytest.importorskip("ihmt.ingest.dates")
    (fact,) = extract_facts("me mudé a Valencia ayer", "2026-02-03")
    assert (fact.value, fact.date) == ("Valencia", "2026-02-02")
    (fact,) = extract_facts("ayer me mudé a Valencia", "2026-02-03")
    assert fact.date == "2026-02-02"
    (fact,) = extract_facts("I moved to Valencia last month.", "2026-02-03")
    assert (fact.value, fact.date) == ("Valencia", "2026-01-03")


def test_undated_text_gives_no_facts_unless_a_fallback_is_given() -> None:
    assert extract_facts("I live in Madrid", None) == []
    (fact,) = extract_facts("I live in Madrid", None, "m1", fallback_date="2025-05-05")
    assert (fact.date, fact.source) == ("2025-05-05", "m1")


def test_repeated_statement_in_one_text_is_one_fact() -> None:
    assert values("I live in Madrid. Yes, I live in madrid.") == [("location", "Madrid")]


def test_bad_input_is_reported() -> None:
    with pytest.raises(InputError, match="ISO date"):
        extract_facts("I live in Madrid", "03/02/2026")
    with pytest.raises(InputError, match="calendar day"):
        extract_facts("I live in Madrid", "2026-02-30")
    with pytest.raises(InputError, match="needs text"):
        extract_facts(b"I live in Madrid", "2026-02-03")  # type: ignore[arg-type]


def test_add_pattern() -> None:
    add_pattern(r"my favou?rite editor is (?P<value>.+)", "editor")
    add_pattern(r"el proyecto se llama ([^,]+)", "project", subject="team", value_group=1)
    facts = extract_facts(
        "My favourite editor is Neovim now. El proyecto se llama Atlas, creo.", "2026-02-03"
    )
    assert [(f.key, f.value) for f in facts] == [
        ("user::editor", "Neovim"),
        ("team::project", "Atlas"),
    ]
    assert values("My favourite editor is not Emacs") == []

    reset_patterns()
    assert values("My favourite editor is Neovim") == []


def test_add_pattern_rejects_bad_patterns() -> None:
    with pytest.raises(InputError, match="invalid regular expression"):
        add_pattern(r"my (editor is", "editor")
    with pytest.raises(InputError, match="no group named"):
        add_pattern(r"my editor is (.+)", "editor")
    with pytest.raises(InputError, match="does not exist"):
        add_pattern(r"my editor is (.+)", "editor", value_group=2)
    with pytest.raises(InputError, match="attribute"):
        add_pattern(r"my editor is (?P<value>.+)", " ")


# --- the log: several processes, damage, rebuild ---------------------------------------------


def test_two_instances_on_one_folder(tmp_path: Path) -> None:
    a = FactTimeline(tmp_path / "state")
    b = FactTimeline(tmp_path / "state")
    a.record(loc("Madrid", "2024-03-11", "m1"))
    assert b.active_state()["user::location"].value == "Madrid"

    # b's record refreshes first, so its notice is computed against a's latest write
    a.record(Fact("user", "employer", "Acme", "2024-05-01", "m2"))
    notice = b.record(loc("Valencia", "2026-02-03", "m3"))
    assert notice is not None and notice.text == MADRID_TO_VALENCIA

    assert "user::location" in a.active_state()
    assert a.active_state()["user::location"].value == "Madrid"  # not yet refreshed
    assert a.refresh() == 1
    assert a.active_state()["user::location"].value == "Valencia"
    assert a.refresh() == 0
    assert b.active_state()["user::employer"].value == "Acme"


def _append_facts(state_dir: str, lock_path: str, worker: int, n: int) -> None:
    from filelock import FileLock

    tl = FactTimeline(Path(state_dir))
    for i in range(n):
        with FileLock(lock_path):  # what the store's write lock does for real callers
            tl.record(Fact("user", f"w{worker}", f"v{i}", f"2024-01-{i + 1:02d}", f"m{i}"))


def test_two_processes_appending_lose_nothing(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context(
        "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    )
    args = (str(tmp_path / "state"), str(tmp_path / "lock"))
    procs = [ctx.Process(target=_append_facts, args=(*args, w, 20)) for w in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    tl = FactTimeline(tmp_path / "state")
    assert len(tl.facts()) == 40
    assert tl.damaged_lines == 0
    assert {k: f.value for k, f in tl.active_state().items()} == {
        "user::w0": "v19",
        "user::w1": "v19",
    }


def test_garbage_lines_are_skipped_and_counted(
    tl: FactTimeline, caplog: pytest.LogCaptureFixture
) -> None:
    tl.record(loc("Madrid", "2024-03-11", "m1"))
    with open(tl.path, "ab") as fh:
        fh.write(b"not json at all\n\xff\xfe\n[1, 2]\n")
        fh.write(b'{"op": "fact", "subject": "user"}\n')  # missing fields
        fh.write(b'{"op": "some-future-op", "x": 1}\n')  # unknown: ignored, not damage
        fh.write(b"\n")
    tl.record(loc("Valencia", "2026-02-03", "m2"))

    caplog.clear()  # the writer has reported them too; look at one reader's report
    fresh = FactTimeline(tl.state_dir)
    with caplog.at_level(logging.WARNING, logger="ihmt.timeline.facts"):
        assert fresh.active_state()["user::location"].value == "Valencia"
    assert fresh.damaged_lines == 4
    assert len([r for r in caplog.records if "damaged" in r.getMessage()]) == 1


def test_torn_last_line_is_ignored_then_closed_by_the_next_write(tl: FactTimeline) -> None:
    tl.record(loc("Madrid", "2024-03-11", "m1"))
    with open(tl.path, "ab") as fh:
        fh.write(b'{"op": "fact", "subject": "us')  # a crash in the middle of a write

    reader = FactTimeline(tl.state_dir)
    assert [f.value for f in reader.facts()] == ["Madrid"]
    assert reader.damaged_lines == 0

    writer = FactTimeline(tl.state_dir)
    assert writer.record(loc("Valencia", "2026-02-03", "m2")) is not None
    reader.refresh()
    assert reader.active_state()["user::location"].value == "Valencia"
    assert reader.damaged_lines == 1  # the torn line, now terminated
    lines = tl.path.read_bytes().splitlines()
    assert json.loads(lines[-1])["value"] == "Valencia"


def test_a_completed_tail_becomes_visible(tl: FactTimeline) -> None:
    line = json.dumps(
        {
            "op": "fact",
            "subject": "user",
            "attribute": "location",
            "value": "Madrid",
            "date": "2024-03-11",
            "source": "m1",
        }
    ).encode()
    tl.state_dir.mkdir(parents=True)
    tl.path.write_bytes(line[:20])
    assert tl.facts() == []
    with open(tl.path, "ab") as fh:
        fh.write(line[20:] + b"\n")
    tl.refresh()
    assert [f.value for f in tl.facts()] == ["Madrid"]
    assert tl.damaged_lines == 0


def test_the_state_folder_is_created_on_first_write(tmp_path: Path) -> None:
    tl = FactTimeline(tmp_path / "deep" / "state")
    tl.record(loc("Madrid", "2024-03-11"))
    assert (tmp_path / "deep" / "state" / "facts.jsonl").is_file()
    with pytest.raises(InputError):
        tl.state_at("last year")


def test_missing_or_empty_log_is_an_empty_timeline(tl: FactTimeline) -> None:
    assert tl.facts() == [] and tl.active_state() == {} and tl.conflicts() == []
    assert tl.notices_for_leaf("x") == [] and tl.outdated_by("x") is None
    tl.state_dir.mkdir(parents=True)
    tl.path.write_bytes(b"")
    assert tl.refresh() == 0


def test_rebuild_keeps_manual_facts_and_marks(tmp_path: Path) -> None:
    tl = FactTimeline(tmp_path / "state")
    other = FactTimeline(tmp_path / "state")
    tl.record(loc("Madrid", "2024-03-11", "m1"))
    tl.record(Fact("user", "editor", "vim", "2024-01-01"))  # programmatic: no source
    tl.mark_outdated("m1", "m9", "2026-01-01")
    assert other.outdated_by("m1") == "m9"

    count = tl.rebuild([loc("Valencia", "2026-02-03", "m3")])
    assert count == 2
    assert {(f.value, f.source) for f in tl.facts()} == {("vim", None), ("Valencia", "m3")}
    assert tl.outdated_by("m1") == "m9"
    assert not list(tl.state_dir.glob("*.tmp*"))

    other.refresh()  # the file was replaced: other reloads from the start
    assert {f.value for f in other.facts()} == {"vim", "Valencia"}

    tl.clear()
    assert [f.value for f in tl.facts()] == ["vim"]
    tl.clear(everything=True)
    assert tl.facts() == [] and tl.outdated_by("m1") is None


def test_mark_outdated(tl: FactTimeline) -> None:
    tl.mark_outdated("m1", "m2", "2026-02-03")
    tl.mark_outdated("m1", "m3", "2026-02-04")
    assert tl.outdated_by("m1") == "m3"
    assert tl.outdated_map() == {"m1": "m3"}
    assert tl.outdated_by("m2") is None
    with pytest.raises(InputError, match="by itself"):
        tl.mark_outdated("m1", "m1", "2026-02-03")
    with pytest.raises(InputError):
        tl.mark_outdated("", "m1", "2026-02-03")


def test_record_rejects_bad_facts(tl: FactTimeline) -> None:
    with pytest.raises(InputError, match="ISO date"):
        tl.record(loc("Madrid", "yesterday"))
    with pytest.raises(InputError, match="non-empty value"):
        tl.record(loc("  ", "2024-01-01"))
    with pytest.raises(InputError, match="::"):
        tl.record(Fact("a::b", "x", "y", "2024-01-01"))
    with pytest.raises(InputError, match="needs a Fact"):
        tl.record({"value": "Madrid"})  # type: ignore[arg-type]
    assert not tl.path.exists()


def test_odd_characters_round_trip(tl: FactTimeline) -> None:
    tl.record(loc('Zürich \udc80 "quoted" \\ back', "2024-01-01", "m1"))
    fresh = FactTimeline(tl.state_dir)
    assert fresh.facts()[0].value == 'Zürich \udc80 "quoted" \\ back'
    assert fresh.damaged_lines == 0


# --- property: nothing recorded is ever lost ---------------------------------------------------

_statement = st.tuples(
    st.sampled_from(["location", "employer"]),
    st.sampled_from(["Madrid", "madrid", "Valencia", "Berlin", "Nimbus Labs"]),
    st.dates(min_value=date(2020, 1, 1), max_value=date(2026, 12, 31)).map(date.isoformat),
    st.sampled_from([None, "m1", "m2", "m3"]),
)


@settings(max_examples=40, deadline=None)
@given(st.lists(_statement, max_size=8))
def test_no_sequence_of_records_loses_a_fact(stmts: list[tuple[str, str, str, str | None]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tl = FactTimeline(Path(tmp))
        for attribute, value, day, source in stmts:
            tl.record(Fact("user", attribute, value, day, source))

        got = {(f.attribute, f.value, f.date) for f in tl.facts()}
        assert {(a, v, d) for a, v, d, _ in stmts} <= got
        reread = FactTimeline(Path(tmp))
        assert {(f.attribute, f.value, f.date) for f in reread.facts()} == got

        for attribute in {a for a, *_ in stmts}:
            periods = tl.timeline("user", attribute)
            assert [p.status for p in periods].count("ACTIVE") == 1
            assert periods[-1].status == "ACTIVE"
            # an exact repeat is the same statement: it keeps its first arrival
            first_seen = list(dict.fromkeys(s for s in stmts if s[0] == attribute))
            latest = max((d, i, v) for i, (_, v, d, _) in enumerate(first_seen))[2]
            assert periods[-1].value.lower() == latest.lower()
            assert [p.valid_from for p in periods] == sorted(p.valid_from for p in periods)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["location", "employer", "editor"]),
                          st.sampled_from(["Madrid", "Valencia", "Initech", "vim"]),
                          st.dates(date(2020, 1, 1), date(2020, 1, 20)).map(str),
                          st.sampled_from(["m1", "m2", "m3", "m4", None])), max_size=12))
def test_per_hit_answers_agree_with_the_whole_store_ones(
        stmts: list[tuple[str, str, str, str | None]]) -> None:
    # A search asks is_superseded and changed_by for its few hits (looking only at their
    # keys); the answers must be those of the indexes built over every key.
    with tempfile.TemporaryDirectory() as tmp:
        tl = FactTimeline(Path(tmp))
        for attribute, value, day, source in stmts:
            tl.record(Fact("user", attribute, value, day, source))
        fresh = FactTimeline(Path(tmp))  # nothing computed yet, as in a hook's process
        superseded = tl.superseded_sources()
        newer: dict[str, str] = {}
        for c in tl.conflicts():  # later changes win
            if c.old_source and c.new_source:
                newer[c.old_source] = c.new_source
        for source in ["m1", "m2", "m3", "m4", "m9"]:
            assert fresh.is_superseded(source) == (source in superseded)
            assert fresh.changed_by(source) == newer.get(source)


def _reference_parse(line: bytes) -> dict | None:
    try:
        event = json.loads(line)
    except ValueError:
        return None
    return event if isinstance(event, dict) else None


_LINE_PIECES = [b'{"op":"fact","subject":"user","value":"Madrid"}', b'{"op":"outdated"}', b"{",
                b"}", b"[1]", b'"x"', b" ", b"\t", b"\x00", b"\xff\xfe", b"\xef\xbb\xbf",
                b"\xfe\xff", b"\xe9", b"\\ud800", b'"\\ud800"', b"1", b",", b":", b"nul",
                b"null", b'{"a":', b"\x0c", b'{"a":"\xc3\xa9"}', b"\xed\xa0\x80"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_LINE_PIECES), max_size=6) | st.binary(max_size=24).map(
    lambda b: [b]))
def test_a_log_line_reads_as_json_loads_reads_it(pieces: list[bytes]) -> None:
    line = b"".join(pieces).strip()
    if not line:
        return
    assert FactTimeline._parse(line) == _reference_parse(line)
