"""Reading dates in English and Spanish: explicit, relative, query spans, user arguments."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ihmt.ingest.dates as dates_mod
from ihmt.errors import InputError
from ihmt.ingest.dates import (
    find_date,
    leading_date,
    parse_date_arg,
    query_time_range,
    resolve_relative,
    strip_time_words,
)

# --------------------------------------------------------------------------- find_date


@pytest.mark.parametrize(
    "text",
    [
        "2024-03-11",
        "Deployed on 2024/03/11 after lunch",
        "11/03/2024",
        "el 11-03-2024 por la tarde",
        "11.03.2024",
        "March 11, 2024",
        "march 11 2024",
        "Mar 11 2024",
        "Mar. 11th, 2024",
        "11 March 2024",
        "11th of March, 2024",
        "Monday, March 11, 2024",
        "11 de marzo de 2024",
        "lunes 11 de marzo de 2024",
        "Lunes, 11 de Marzo del 2024",
        "11 marzo 2024",
        "we met on 11 mar 2024 in Madrid",
    ],
)
def test_find_date_formats(text: str) -> None:
    assert find_date(text) == "2024-03-11"


def test_numeric_dates_are_day_first_unless_impossible() -> None:
    assert find_date("05/03/2024") == "2024-03-05"  # 5 March, not May 3
    assert find_date("03/15/2024") == "2024-03-15"  # no month 15: read month-first
    assert find_date("31/12/2023") == "2023-12-31"


@pytest.mark.parametrize(
    "text",
    [
        "2024-02-30",
        "30/02/2024",
        "February 30, 2024",
        "31 de abril de 2023",
        "2023-13-01",
        "marzo de 2024",
        "March 2024",
        "version 1.2.3 shipped",
        "call 555-12-3456",
        "",
        "no dates here",
    ],
)
def test_find_date_rejects_non_dates(text: str) -> None:
    assert find_date(text) is None


def test_find_date_returns_first_by_position() -> None:
    assert find_date("from 12 de mayo de 2023 until 2024-01-02") == "2023-05-12"
    assert find_date("until 2024-01-02, from March 3, 2023") == "2024-01-02"


def test_find_date_skips_an_impossible_date_for_a_real_one() -> None:
    assert find_date("30/02/2024 or rather 2024-03-01") == "2024-03-01"


def test_leap_day() -> None:
    assert find_date("29 de febrero de 2024") == "2024-02-29"
    assert find_date("29 de febrero de 2023") is None


# --------------------------------------------------------------------------- leading_date


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("2024-03-11\n", "2024-03-11"),
        ("## 2024-03-11", "2024-03-11"),
        ("[2024-03-11 10:00] Ana: hola", "2024-03-11"),
        ("[11/03/2024, 10:00:15] Luis: ok", "2024-03-11"),
        ("- 11/03/2024: deploy", "2024-03-11"),
        ("**Monday, March 11, 2024**", "2024-03-11"),
        ("Lunes, 11 de marzo de 2024", "2024-03-11"),
        ("miércoles 13 de marzo de 2024", "2024-03-13"),
        ("I went out on 2024-03-11", None),
        ("Today was long", None),
        ("- 500 g de harina", None),
        ("", None),
    ],
)
def test_leading_date(line: str, expected: str | None) -> None:
    assert leading_date(line) == expected


# --------------------------------------------------------------------------- resolve_relative

ANCHOR = "2024-03-31"  # a Sunday


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("yesterday I moved", "2024-03-30"),
        ("ayer me mudé", "2024-03-30"),
        ("today", "2024-03-31"),
        ("hoy", "2024-03-31"),
        ("the day before yesterday", "2024-03-29"),
        ("anteayer", "2024-03-29"),
        ("antes de ayer", "2024-03-29"),
        ("last week", "2024-03-24"),
        ("la semana pasada", "2024-03-24"),
        ("last month", "2024-02-29"),  # 31 March -> clamped to the end of February
        ("el mes pasado", "2024-02-29"),
        ("last year", "2023-03-31"),
        ("el año pasado", "2023-03-31"),
        ("3 days ago", "2024-03-28"),
        ("hace 3 días", "2024-03-28"),
        ("hace 3 dias", "2024-03-28"),
        ("two weeks ago", "2024-03-17"),
        ("hace dos semanas", "2024-03-17"),
        ("a month ago", "2024-02-29"),
        ("hace un año", "2023-03-31"),
        ("twelve days ago", "2024-03-19"),
        ("hace doce días", "2024-03-19"),
        ("last Monday", "2024-03-25"),
        ("el lunes pasado", "2024-03-25"),
        ("tomorrow", "2024-04-01"),
    ],
)
def test_resolve_relative(text: str, expected: str) -> None:
    assert resolve_relative(text, ANCHOR) == expected


def test_resolve_relative_first_expression_wins_and_none_without_one() -> None:
    assert resolve_relative("Ayer llovió; la semana pasada no", ANCHOR) == "2024-03-30"
    assert resolve_relative("nothing relative here", ANCHOR) is None
    assert resolve_relative("", ANCHOR) is None
    # words that merely contain a relative word do not count
    assert resolve_relative("ahoy, the playera", ANCHOR) is None


def test_resolve_relative_leap_year_clamp() -> None:
    assert resolve_relative("last year", "2024-02-29") == "2023-02-28"


def test_resolve_relative_bad_anchor() -> None:
    with pytest.raises(InputError):
        resolve_relative("yesterday", "not a date")


# --------------------------------------------------------------------------- query_time_range

TODAY = "2024-07-15"  # a Monday


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("where did I live in 2023", ("2023-01-01", "2023-12-31")),
        ("¿dónde vivía en 2023?", ("2023-01-01", "2023-12-31")),
        ("last May", ("2024-05-01", "2024-05-31")),
        ("last September", ("2023-09-01", "2023-09-30")),
        ("el pasado mayo", ("2024-05-01", "2024-05-31")),
        ("qué hice en mayo", ("2024-05-01", "2024-05-31")),
        ("qué hice en agosto", ("2023-08-01", "2023-08-31")),
        ("in March 2024", ("2024-03-01", "2024-03-31")),
        ("en marzo de 2024", ("2024-03-01", "2024-03-31")),
        ("last summer", ("2023-06-01", "2023-08-31")),
        ("el verano pasado", ("2023-06-01", "2023-08-31")),
        ("last winter", ("2023-12-01", "2024-02-29")),
        ("summer of 2022", ("2022-06-01", "2022-08-31")),
        ("last week", ("2024-07-08", "2024-07-14")),
        ("la semana pasada", ("2024-07-08", "2024-07-14")),
        ("last month", ("2024-06-01", "2024-06-30")),
        ("el mes pasado", ("2024-06-01", "2024-06-30")),
        ("last year", ("2023-01-01", "2023-12-31")),
        ("el año pasado", ("2023-01-01", "2023-12-31")),
        ("this year", ("2024-01-01", "2024-07-15")),
        ("este año", ("2024-01-01", "2024-07-15")),
        ("yesterday", ("2024-07-14", "2024-07-14")),
        ("ayer", ("2024-07-14", "2024-07-14")),
        ("what happened on 2024-03-11?", ("2024-03-11", "2024-03-11")),
        ("el 11 de marzo de 2024", ("2024-03-11", "2024-03-11")),
        ("since 2022", ("2022-01-01", "2024-07-15")),
        ("desde el verano pasado", ("2023-06-01", "2024-07-15")),
        ("the last 3 days", ("2024-07-12", "2024-07-15")),
        ("hace dos meses", ("2024-05-01", "2024-05-31")),
    ],
)
def test_query_time_range(query: str, expected: tuple[str, str]) -> None:
    assert query_time_range(query, TODAY) == expected


@pytest.mark.parametrize(
    "query",
    ["where does Luis work", "may I use tabs", "port 8080 config", "", "deploy steps"],
)
def test_query_without_time(query: str) -> None:
    assert query_time_range(query, TODAY) is None


def test_query_time_range_depends_on_today() -> None:
    # "last May" asked in March 2024 is May 2023; asked in July 2024 it is May 2024.
    assert query_time_range("last May", "2024-03-01") == ("2023-05-01", "2023-05-31")
    assert query_time_range("last May", "2024-07-01") == ("2024-05-01", "2024-05-31")


# --------------------------------------------------------------------------- strip_time_words


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("where did I live in 2024", "where did I live"),
        ("where did I live in 2024?", "where did I live?"),
        ("¿Dónde vivía en marzo de 2024?", "¿Dónde vivía?"),
        ("what did we decide last week about caching", "what did we decide about caching"),
        ("qué cené ayer", "qué cené"),
        ("meeting notes", "meeting notes"),
    ],
)
def test_strip_time_words(query: str, expected: str) -> None:
    assert strip_time_words(query) == expected


# --------------------------------------------------------------------------- parse_date_arg


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2024-03-11", "2024-03-11"),
        (" 2024-3-5 ", "2024-03-05"),
        ("2024-03-11T10:00", "2024-03-11T10:00"),
        ("2024-03-11T10:00:05", "2024-03-11T10:00:05"),
        ("2024-03-11T10:00:05Z", "2024-03-11T10:00:05Z"),
        ("2024-03-11T10:00+01:00", "2024-03-11T10:00+01:00"),
        ("2024-03-11T10:00:05.5Z", "2024-03-11T10:00:05.5Z"),
        ("2024-03-11T10:00-0530", "2024-03-11T10:00-0530"),
        ("2024-03-11 10:00", "2024-03-11T10:00"),
        ("11 de marzo de 2024", "2024-03-11"),
        ("Monday, March 11, 2024", "2024-03-11"),
        ("11/03/2024", "2024-03-11"),
    ],
)
def test_parse_date_arg_accepts(value: str, expected: str) -> None:
    assert parse_date_arg(value) == expected


@pytest.mark.parametrize(
    "value",
    [
        "2024-02-30",
        "2024-13-01",
        "2024-03-11T25:00",
        "2024-03-11T10:61",
        "2024-03-11T10:00+15:00",
        "2024-02-30T10:00",
        "tomorrow",
        "",
        "   ",
        "buy milk 2024-03-11",
        "March 2024",
        "11/03/24",
    ],
)
def test_parse_date_arg_rejects(value: str) -> None:
    with pytest.raises(InputError, match=r"invalid date .*use YYYY-MM-DD"):
        parse_date_arg(value)


# --------------------------------------------------------------------------- the cue guard
# A text with no digit and no cue word skips every time pattern (and their compiling). The
# guard is only right if every string each pattern matches holds a cue: generated here from
# the patterns themselves, so a new pattern without a cue word fails this test.


@pytest.mark.parametrize("index", range(len(dates_mod._ALL)))
def test_every_time_pattern_holds_a_cue(index: int) -> None:
    rx = dates_mod._ALL[index].rx.compiled()

    @settings(max_examples=60, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.from_regex(rx, fullmatch=True))
    def check(text: str) -> None:
        assert dates_mod.may_hold_time(text), (rx.pattern[:60], text)

    check()


@pytest.mark.parametrize("index", range(len(dates_mod._EXPLICIT)))
def test_every_explicit_date_has_a_digit(index: int) -> None:
    rx = dates_mod._EXPLICIT[index].compiled()

    @settings(max_examples=60, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.from_regex(rx, fullmatch=True))
    def check(text: str) -> None:
        assert dates_mod._DIGIT.search(text), text

    check()


def test_a_text_without_cues_names_no_time_and_compiles_nothing() -> None:
    code = (
        "import ihmt.ingest.dates as d\n"
        "assert d.query_time_range('how do we deploy the billing service?', '2026-01-05') is None\n"
        "assert d.strip_time_words('how do we deploy it?') == 'how do we deploy it?'\n"
        "assert d.find_date('no date in here') is None\n"
        "print(sum(1 for e in d._ALL if e.rx._rx is not None))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "0"


def test_the_guard_lets_time_words_through() -> None:
    assert query_time_range("what did we decide last week?", "2026-01-07") is not None
    assert query_time_range("¿qué pasó ayer?", "2026-01-07") == ("2026-01-06", "2026-01-06")
    assert query_time_range("QUÉ HICIMOS EL MES PASADO", "2026-01-07") is not None
    assert query_time_range("in 2023", "2026-01-07") == ("2023-01-01", "2023-12-31")
