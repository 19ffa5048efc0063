"""Calendar dates in English and Spanish text: explicit, relative, and the time a query names.

Dates matter twice in IHMT: a leaf is stamped with the date its content is *about* (so recency
means "when it was true", not "when it was saved"), and a query that names a time ("where did I
live in 2023", "la semana pasada") narrows the search to it. Both need the same strict, fast and
deterministic reading of dates. General-purpose parsers such as ``dateparser`` guess
generously, cost milliseconds per call and pull in large data files; here a text either holds
a date in one of a known set of shapes or it holds none, which is what the temporal chunker
(one call per line) and ``save`` (one call per memory) can afford.

Shapes understood (case-insensitive, weekday optional, years with four digits):

* ISO ``2024-03-11`` / ``2024/03/11``;
* numeric day-first ``11/03/2024``, ``11-03-2024``, ``11.03.2024`` (read as month-first only
  when day-first is impossible, as in ``03/15/2024``);
* English ``March 11, 2024``, ``Mar 11 2024``, ``11 March 2024``, ``11th of March, 2024``;
* Spanish ``11 de marzo de 2024``, ``11 marzo 2024``, ``lunes 11 de marzo de 2024``.

Impossible dates (``2024-02-30``) are not dates. A month with a year but no day ("March 2024")
is a time span, not a date: :func:`find_date` ignores it, :func:`query_time_range` uses it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta

from ihmt.errors import InputError
from ihmt.lazy_re import lazy

__all__ = [
    "find_date",
    "leading_date",
    "parse_date_arg",
    "query_time_range",
    "resolve_relative",
    "strip_time_words",
]

_MIN_YEAR, _MAX_YEAR = 1000, 2999

FULL_MONTHS: dict[str, int] = {
    "january": 1, "enero": 1,
    "february": 2, "febrero": 2,
    "march": 3, "marzo": 3,
    "april": 4, "abril": 4,
    "may": 5, "mayo": 5,
    "june": 6, "junio": 6,
    "july": 7, "julio": 7,
    "august": 8, "agosto": 8,
    "september": 9, "septiembre": 9, "setiembre": 9,
    "october": 10, "octubre": 10,
    "november": 11, "noviembre": 11,
    "december": 12, "diciembre": 12,
}  # fmt: skip
_MONTHS: dict[str, int] = {
    **FULL_MONTHS,
    "jan": 1, "ene": 1, "feb": 2, "mar": 3, "apr": 4, "abr": 4, "jun": 6, "jul": 7,
    "aug": 8, "ago": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12, "dic": 12,
}  # fmt: skip

# Full weekday names (for "last Monday" / "el lunes pasado"), then every accepted spelling.
_WEEKDAYS: dict[str, int] = {
    "monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5,
    "sunday": 6, "lunes": 0, "martes": 1, "miércoles": 2, "miercoles": 2, "jueves": 3,
    "viernes": 4, "sábado": 5, "sabado": 5, "domingo": 6,
}  # fmt: skip
_WEEKDAY_SPELLINGS = [
    *_WEEKDAYS,
    *"mon tue tues wed thu thur thurs fri sat sun lun mar mié mie jue vie sáb sab dom".split(),
]

_NUM_EN: dict[str, int] = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "a couple of": 2, "couple of": 2,
}  # fmt: skip
_NUM_ES: dict[str, int] = {
    "un": 1, "una": 1, "uno": 1, "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6,
    "siete": 7, "ocho": 8, "nueve": 9, "diez": 10, "once": 11, "doce": 12, "un par de": 2,
}  # fmt: skip


def _alternation(words: list[str] | dict[str, int]) -> str:
    """A regex alternation that tries longer words first ('marzo' before 'mar')."""
    ordered = sorted(words, key=len, reverse=True)
    return "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in ordered)


_MON = rf"(?P<mon>{_alternation(_MONTHS)})\b\.?"
_FULL_MON = rf"(?P<mon>{_alternation(FULL_MONTHS)})\b"
_WD = _alternation(_WEEKDAY_SPELLINGS)
_N_EN = rf"(?P<n>\d{{1,3}}|{_alternation(_NUM_EN)})"
_N_ES = rf"(?P<n>\d{{1,3}}|{_alternation(_NUM_ES)})"
_UNIT_EN = r"(?P<unit>days?|weeks?|months?|years?)"
_UNIT_ES = r"(?P<unit>d[ií]as?|semanas?|mes(?:es)?|a[ñn]os?)"
_ORD = r"(?:st|nd|rd|th|º|ª|°)?"
_I = re.IGNORECASE

# Explicit dates. Each pattern names its groups y / m (number) / mon (name) / d.
_ISO = lazy(r"(?<![\d])(?P<y>\d{4})(?P<sep>[-/])(?P<m>\d{1,2})(?P=sep)(?P<d>\d{1,2})(?!\d)")
_NUMERIC = lazy(
    r"(?<![\d/.\-])(?P<a>\d{1,2})(?P<sep>[-/.])(?P<b>\d{1,2})(?P=sep)(?P<y>\d{4})(?![\d])"
)
_MONTH_FIRST = lazy(
    rf"\b{_MON}\s*(?P<d>\d{{1,2}}){_ORD}(?:\s*,\s*|\s+)(?P<y>\d{{4}})(?!\d)", _I
)
_DAY_FIRST = lazy(
    rf"\b(?P<d>\d{{1,2}}){_ORD}\.?\s+(?:of\s+|de\s+)?{_MON}(?:\s*,\s*|\s+)(?:del?\s+)?"
    rf"(?P<y>\d{{4}})(?!\d)",
    _I,
)
_EXPLICIT = (_ISO, _NUMERIC, _MONTH_FIRST, _DAY_FIRST)

# What may precede a date that opens a line: a list bullet, a markdown heading, bold, a
# bracket (chat stamps), then optionally a weekday.
_LINE_PREFIX = lazy(r"[ \t]*(?:[-*+•][ \t]+)?(?:#{1,6}[ \t]*)?(?:\*\*|__)?[\[(]?[ \t]*")
_YEAR = lazy(r"\d{4}")
_DIGIT = lazy(r"\d")
_LEAD_WINDOW = 64  # a date that opens a line has its 4-digit year in the first 64 characters
_WEEKDAY_PREFIX = lazy(rf"(?:{_WD})\b\.?[ \t]*,?[ \t]*", _I)


def _iso(y: int, m: int, d: int) -> str | None:
    """ISO form of a real calendar day, or None (Feb 30, month 13, year 0042 ...)."""
    if not _MIN_YEAR <= y <= _MAX_YEAR:
        return None
    try:
        return date(y, m, d).isoformat()
    except ValueError:
        return None


def _from_match(m: re.Match[str]) -> str | None:
    groups = m.groupdict()
    year = int(groups["y"])
    if "a" in groups:  # numeric: day-first unless that is impossible
        a, b = int(groups["a"]), int(groups["b"])
        return _iso(year, b, a) or _iso(year, a, b)
    month = int(groups["m"]) if "m" in groups else _MONTHS[groups["mon"].lower()]
    return _iso(year, month, int(groups["d"]))


def _nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def _to_date(value: str, what: str = "date") -> date:
    try:
        return date.fromisoformat(value[:10])
    except (TypeError, ValueError):
        raise InputError(f"invalid {what} '{value}': use YYYY-MM-DD") from None


def find_date(text: str) -> str | None:
    """The first explicit calendar date in ``text`` as ``YYYY-MM-DD``, or None.

    "First" is by position in the text; a match that is not a real day is skipped in favour
    of the next one.
    """
    if not text or not _DIGIT.search(text):  # every explicit date has digits
        return None
    text = _nfc(text)
    best: tuple[int, str] | None = None
    for rx in _EXPLICIT:
        for m in rx.finditer(text):
            if best is not None and m.start() >= best[0]:
                break
            iso = _from_match(m)
            if iso is not None:
                best = (m.start(), iso)
                break
    return best[1] if best else None


def _date_at(text: str, pos: int) -> tuple[str, int] | None:
    """A date starting exactly at ``pos`` (after an optional weekday): (iso, end offset)."""
    starts = [pos]
    wm = _WEEKDAY_PREFIX.match(text, pos)
    if wm and wm.end() > pos:
        starts.append(wm.end())
    for start in starts:
        for rx in _EXPLICIT:
            m = rx.match(text, start)
            if m:
                iso = _from_match(m)
                if iso is not None:
                    return iso, m.end()
    return None


def leading_date(line: str) -> str | None:
    """The date a line *starts* with, as ISO, or None.

    This is what marks a new entry in a journal, a chat log or a clinical record:
    ``2024-03-11``, ``## 2024-03-11``, ``[2024-03-11 10:00] Ana: ...``, ``- 11/03/2024:``,
    ``**Monday, March 11, 2024**``, ``Lunes 11 de marzo de 2024``. A date further into the
    line does not count: a sentence that mentions a date is not a new entry.
    """
    if not line:
        return None
    first = line.lstrip()[:1]
    if not first or not (first.isalnum() or first in "#[(*_-+•"):
        return None
    if _YEAR.search(line, 0, _LEAD_WINDOW) is None:  # cheap rejection of ordinary lines
        return None
    line = _nfc(line)
    prefix = _LINE_PREFIX.match(line)
    found = _date_at(line, prefix.end() if prefix else 0)
    return found[0] if found else None


# ----------------------------------------------------------------------------- arithmetic


def _add_months(d: date, months: int) -> date:
    """Same day ``months`` later (negative: earlier), clamped to the month's last day."""
    index = d.year * 12 + d.month - 1 + months
    year, month = divmod(index, 12)
    return date(year, month + 1, min(d.day, _month_end(year, month + 1).day))


def _month_end(year: int, month: int) -> date:
    if month == 12:
        return date(year, 12, 31)
    return date(year, month + 1, 1) - timedelta(days=1)


def _month_range(year: int, month: int) -> tuple[date, date]:
    return date(year, month, 1), _month_end(year, month)


def _week_range(d: date) -> tuple[date, date]:
    monday = d - timedelta(days=d.weekday())
    return monday, monday + timedelta(days=6)


def _year_range(year: int) -> tuple[date, date]:
    return date(year, 1, 1), date(year, 12, 31)


def _number(raw: str, table: dict[str, int]) -> int:
    raw = " ".join(raw.lower().split())
    return int(raw) if raw.isdigit() else table[raw]


def _unit(raw: str) -> str:
    """'días' / 'weeks' / 'meses' / 'años' -> day / week / month / year."""
    first = raw[0].lower()
    return {"d": "day", "w": "week", "s": "week", "m": "month", "y": "year", "a": "year"}[first]


def _shift(d: date, n: int, unit: str) -> date:
    if unit == "day":
        return d - timedelta(days=n)
    if unit == "week":
        return d - timedelta(weeks=n)
    if unit == "month":
        return _add_months(d, -n)
    return _add_months(d, -12 * n)


def _unit_range(d: date, unit: str) -> tuple[date, date]:
    if unit == "day":
        return d, d
    if unit == "week":
        return _week_range(d)
    if unit == "month":
        return _month_range(d.year, d.month)
    return _year_range(d.year)


# Meteorological seasons of the northern hemisphere: (first month, months long). Winter of
# year Y runs from December Y to the end of February Y+1.
_SEASONS: dict[str, int] = {
    "spring": 3, "primavera": 3, "summer": 6, "verano": 6, "autumn": 9, "fall": 9,
    "otoño": 9, "otono": 9, "winter": 12, "invierno": 12,
}  # fmt: skip
_SEASON = rf"(?P<season>{_alternation(_SEASONS)})\b"
_SEASON_EN = r"(?P<season>spring|summer|autumn|fall|winter)\b"
_SEASON_ES = r"(?P<season>primavera|verano|oto[ñn]o|invierno)\b"


def _season_range(first_month: int, year: int) -> tuple[date, date]:
    start = date(year, first_month, 1)
    last = _add_months(start, 2)
    return start, _month_end(last.year, last.month)


def _last_season(first_month: int, today: date) -> tuple[date, date]:
    """The most recent season of that name that has already ended."""
    year = today.year
    while _season_range(first_month, year)[1] >= today:
        year -= 1
    return _season_range(first_month, year)


def _current_season(first_month: int, today: date) -> tuple[date, date]:
    """The season of that name in the current year (winter: the one around New Year)."""
    year = today.year - 1 if first_month == 12 and today.month <= 2 else today.year
    return _season_range(first_month, year)


def _started_season(first_month: int, today: date) -> tuple[date, date]:
    """The most recent season of that name that has begun (possibly still running)."""
    year = today.year
    while _season_range(first_month, year)[0] > today:
        year -= 1
    return _season_range(first_month, year)


def _season_of(m: re.Match[str]) -> int:
    return _SEASONS[m.group("season").lower()]


# ----------------------------------------------------------------------------- expressions

_Point = Callable[[re.Match[str], date], date | None]
_Range = Callable[[re.Match[str], date], tuple[date, date] | None]


@dataclass(frozen=True)
class _Expr:
    """One shape of time expression: how to find it, the day it names, the span it names."""

    rx: re.Pattern[str]
    point: _Point | None = None
    span: _Range | None = None


def _rx(pattern: str) -> re.Pattern[str]:
    return lazy(pattern, _I)  # compiled on first use: a fresh hook process seldom needs it


def _days(n: int) -> tuple[_Point, _Range]:
    def point(_m: re.Match[str], t: date) -> date:
        return t + timedelta(days=n)

    def span(_m: re.Match[str], t: date) -> tuple[date, date]:
        d = t + timedelta(days=n)
        return d, d

    return point, span


def _ago_point(table: dict[str, int]) -> _Point:
    def point(m: re.Match[str], t: date) -> date:
        return _shift(t, _number(m.group("n"), table), _unit(m.group("unit")))

    return point


def _ago_span(table: dict[str, int]) -> _Range:
    def span(m: re.Match[str], t: date) -> tuple[date, date]:
        unit = _unit(m.group("unit"))
        return _unit_range(_shift(t, _number(m.group("n"), table), unit), unit)

    return span


def _window(table: dict[str, int]) -> _Range:
    def span(m: re.Match[str], t: date) -> tuple[date, date]:
        return _shift(t, _number(m.group("n"), table), _unit(m.group("unit"))), t

    return span


def _last_weekday(m: re.Match[str], t: date) -> date:
    wd = _WEEKDAYS[m.group("wd").lower()]
    return t - timedelta(days=(t.weekday() - wd) % 7 or 7)


def _point_span(point: _Point) -> _Range:
    def span(m: re.Match[str], t: date) -> tuple[date, date] | None:
        d = point(m, t)
        return (d, d) if d else None

    return span


def _explicit_span(m: re.Match[str], _t: date) -> tuple[date, date] | None:
    iso = _from_match(m)
    if iso is None:
        return None
    day = date.fromisoformat(iso)
    return day, day


def _month_year_span(m: re.Match[str], _t: date) -> tuple[date, date] | None:
    year = int(m.group("y"))
    if not _MIN_YEAR <= year <= _MAX_YEAR:
        return None
    return _month_range(year, _MONTHS[m.group("mon").lower()])


def _year_span(m: re.Match[str], _t: date) -> tuple[date, date]:
    return _year_range(int(m.group("y")))


def _month_last(m: re.Match[str], t: date) -> tuple[date, date]:
    """'last May': this year's May if it is over, else last year's."""
    month = FULL_MONTHS[m.group("mon").lower()]
    year = t.year if month < t.month else t.year - 1
    return _month_range(year, month)


def _month_in(m: re.Match[str], t: date) -> tuple[date, date]:
    """'in May' / 'en mayo': the most recent May that has begun (memories are about the past)."""
    month = FULL_MONTHS[m.group("mon").lower()]
    year = t.year if month <= t.month else t.year - 1
    return _month_range(year, month)


def _day_month_span(m: re.Match[str], t: date) -> tuple[date, date] | None:
    """'5 de mayo' / 'May 5' without a year: the most recent such day up to today."""
    month, day = _MONTHS[m.group("mon").lower()], int(m.group("d"))
    for year in (t.year, t.year - 1, t.year - 2, t.year - 3, t.year - 4):
        iso = _iso(year, month, day)
        if iso and date.fromisoformat(iso) <= t:
            day = date.fromisoformat(iso)
            return day, day
    return None


def _month_day_span(m: re.Match[str], t: date) -> tuple[date, date] | None:
    """'May 5' in a query: as :func:`_day_month_span`, but lower-case 'may 5' is a verb."""
    return None if m.group("mon") == "may" else _day_month_span(m, t)


def _season(kind: str) -> _Range:
    def span(m: re.Match[str], t: date) -> tuple[date, date]:
        first = _season_of(m)
        if kind == "last":
            return _last_season(first, t)
        if kind == "this":
            return _current_season(first, t)
        return _started_season(first, t)

    return span


def _season_year(m: re.Match[str], _t: date) -> tuple[date, date]:
    return _season_range(_season_of(m), int(m.group("y")))


_PREV_WEEK = _rx(
    r"\b(?:last|past|previous)\s+week\b|\bla\s+(?:semana\s+pasada|pasada\s+semana)\b"
    r"|\bsemana\s+pasada\b"
)
_PREV_MONTH = _rx(
    r"\b(?:last|past|previous)\s+month\b|\bel\s+(?:mes\s+pasado|pasado\s+mes)\b|\bmes\s+pasado\b"
)
_PREV_YEAR = _rx(
    r"\b(?:last|past|previous)\s+year\b|\bel\s+(?:a[ñn]o\s+pasado|pasado\s+a[ñn]o)\b"
    r"|\ba[ñn]o\s+pasado\b"
)
_MONTH_DAY_Q = _rx(rf"\b{_MON}\s+(?P<d>\d{{1,2}}){_ORD}\b(?!\s*,?\s*\d)")

_yesterday = _days(-1)
_before_yesterday = _days(-2)
_today = _days(0)
_tomorrow = _days(1)
_after_tomorrow = _days(2)

# Relative expressions: they name a day (point) and a span. resolve_relative uses the points.
_RELATIVE: tuple[_Expr, ...] = (
    _Expr(_rx(r"\b(?:the\s+)?day\s+before\s+yesterday\b"), *_before_yesterday),
    _Expr(_rx(r"\b(?:anteayer|antier|antes\s+de\s+ayer)\b"), *_before_yesterday),
    _Expr(_rx(r"\byesterday\b|\bayer\b"), *_yesterday),
    _Expr(_rx(r"\b(?:the\s+)?day\s+after\s+tomorrow\b|\bpasado\s+ma[ñn]ana\b"), *_after_tomorrow),
    _Expr(_rx(r"\btomorrow\b"), *_tomorrow),
    _Expr(
        _rx(
            r"\b(?:today|tonight|this\s+(?:morning|afternoon|evening))\b"
            r"|\b(?:hoy|esta\s+(?:ma[ñn]ana|tarde|noche))\b"
        ),
        *_today,
    ),
    _Expr(
        _PREV_WEEK,
        lambda _m, t: t - timedelta(days=7),
        lambda _m, t: _week_range(t - timedelta(days=7)),
    ),
    _Expr(
        _PREV_MONTH,
        lambda _m, t: _add_months(t, -1),
        lambda _m, t: _month_range(_add_months(t, -1).year, _add_months(t, -1).month),
    ),
    _Expr(
        _PREV_YEAR, lambda _m, t: _add_months(t, -12), lambda _m, t: _year_range(t.year - 1)
    ),
    _Expr(
        _rx(r"\b(?:this|current)\s+week\b|\besta\s+semana\b"),
        lambda _m, t: t,
        lambda _m, t: (_week_range(t)[0], t),
    ),
    _Expr(
        _rx(r"\b(?:this|current)\s+month\b|\beste\s+mes\b"),
        lambda _m, t: t,
        lambda _m, t: (date(t.year, t.month, 1), t),
    ),
    _Expr(
        _rx(r"\b(?:this|current)\s+year\b|\beste\s+a[ñn]o\b"),
        lambda _m, t: t,
        lambda _m, t: (date(t.year, 1, 1), t),
    ),
    _Expr(_rx(rf"\b{_N_EN}\s+{_UNIT_EN}\s+ago\b"), _ago_point(_NUM_EN), _ago_span(_NUM_EN)),
    _Expr(_rx(rf"\bhace\s+{_N_ES}\s+{_UNIT_ES}"), _ago_point(_NUM_ES), _ago_span(_NUM_ES)),
    _Expr(_rx(rf"\b{_N_ES}\s+{_UNIT_ES}\s+atr[áa]s\b"), _ago_point(_NUM_ES), _ago_span(_NUM_ES)),
    _Expr(
        _rx(r"\b(?:last|past|previous)\s+(?P<wd>monday|tuesday|wednesday|thursday|friday"
            r"|saturday|sunday)\b"),
        _last_weekday,
        _point_span(_last_weekday),
    ),
    _Expr(
        _rx(r"\bel\s+(?P<wd>lunes|martes|mi[ée]rcoles|jueves|viernes|s[áa]bado|domingo)"
            r"\s+pasado\b"),
        _last_weekday,
        _point_span(_last_weekday),
    ),
)  # fmt: skip

# Spans only a query names ("in 2023", "last summer", "en marzo de 2024", an explicit date).
_SPANS: tuple[_Expr, ...] = (
    *(_Expr(rx, span=_explicit_span) for rx in _EXPLICIT),
    _Expr(_rx(rf"\b(?:last|past)\s+{_N_EN}\s+{_UNIT_EN}"), span=_window(_NUM_EN)),
    _Expr(
        _rx(rf"\b(?:(?:los|las)\s+)?[úu]ltim[oa]s\s+{_N_ES}\s+{_UNIT_ES}"), span=_window(_NUM_ES)
    ),
    _Expr(_rx(rf"\b{_MON}\s*,?\s+(?:of\s+|de\s+|del\s+)?(?P<y>\d{{4}})(?![\d/-])"),
          span=_month_year_span),
    _Expr(
        _rx(r"\b(?:in|during|since|from|of|en|durante|desde|del|de)\s+"
            r"(?:the\s+year\s+|el\s+a[ñn]o\s+|el\s+)?(?P<y>(?:19|20|21)\d{2})\b(?![-/]\d)"),
        span=_year_span,
    ),
    _Expr(
        _rx(r"\b(?:(?:the\s+)?year|(?:el\s+)?a[ñn]o)\s+(?P<y>(?:19|20|21)\d{2})\b(?![-/]\d)"),
        span=_year_span,
    ),
    _Expr(_rx(rf"\b(?:last|past)\s+{_SEASON_EN}"), span=_season("last")),
    _Expr(_rx(rf"\b(?:el\s+|la\s+)?{_SEASON_ES}\s+pasad[oa]\b"), span=_season("last")),
    _Expr(_rx(rf"\b(?:el\s+|la\s+)?pasad[oa]\s+{_SEASON_ES}"), span=_season("last")),
    _Expr(_rx(rf"\b(?:this|current|est[ea])\s+{_SEASON}"), span=_season("this")),
    _Expr(_rx(rf"\b{_SEASON}\s*(?:of\s+|de\s+|del\s+)?(?P<y>(?:19|20|21)\d{{2}})\b"),
          span=_season_year),
    _Expr(
        _rx(r"\b(?:in|during)\s+(?:the\s+)?(?P<season>spring|summer|autumn|fall|winter)\b"
            r"|\b(?:en|durante)\s+(?:el\s+|la\s+)?"
            r"(?P<season2>primavera|verano|oto[ñn]o|invierno)\b"),
        span=lambda m, t: _started_season(
            _SEASONS[(m.group("season") or m.group("season2")).lower()], t
        ),
    ),
    _Expr(_rx(rf"\b(?:last|past)\s+{_FULL_MON}"), span=_month_last),
    _Expr(_rx(rf"\b(?:el\s+)?pasado\s+{_FULL_MON}"), span=_month_last),
    _Expr(_rx(rf"\b{_FULL_MON}\s+pasado\b"), span=_month_last),
    _Expr(
        _rx(rf"\b(?:in|during|since|en|durante|desde|de)\s+{_FULL_MON}"
            r"(?!\s*,?\s*(?:of\s+|de\s+)?\d)"),
        span=_month_in,
    ),
    _Expr(
        _rx(rf"\b(?P<d>\d{{1,2}}){_ORD}\s+(?:of\s+|de\s+)?{_MON}(?!\s*,?\s*(?:of\s+|del?\s+)?\d)"),
        span=_day_month_span,
    ),
    _Expr(_MONTH_DAY_Q, span=_month_day_span),
)  # fmt: skip

_ALL: tuple[_Expr, ...] = _RELATIVE + _SPANS

# Words that lead into a time expression and go with it when it is stripped.
_LEAD_IN = lazy(
    r"(?:\b(?:in|on|at|during|from|since|of|for|en|el|la|durante|desde|del|de|a\s+partir\s+de)"
    r"\s+(?:the\s+)?|\bthe\s+)$",
    _I,
)
_SINCE = lazy(r"(?:since|desde|a\s+partir\s+de)\b", _I)


@dataclass(frozen=True)
class _Found:
    start: int
    end: int
    expr: _Expr
    match: re.Match[str]


# Every time expression above holds a digit or one of these words (matched inside words, on
# the case-folded text), so a text with neither holds none and its patterns need not run, or
# even be compiled: most prompts and queries name no time. tests/test_dates.py checks each
# pattern against strings generated from it.
_CUES: tuple[str, ...] = (
    "yesterday", "ayer", "antier", "tomorrow", "today", "tonight", "morning", "afternoon",
    "evening", "hoy", "esta", "este", "week", "month", "year", "semana", "ago", "hace",
    "atr", "last", "past", "previous", "pasad", "ltim",
    *FULL_MONTHS, *_SEASONS, *_WEEKDAYS,
)  # fmt: skip


def may_hold_time(text: str) -> bool:
    """False only when ``text`` surely names no time: no digit and no word of :data:`_CUES`."""
    if _DIGIT.search(text):
        return True
    folded = text.casefold()
    return any(cue in folded for cue in _CUES)


def _find_all(text: str, exprs: tuple[_Expr, ...]) -> list[_Found]:
    """Every time expression in ``text``, non-overlapping, earliest then longest first."""
    found: list[_Found] = []
    if not may_hold_time(text):
        return found
    for expr in exprs:
        for m in expr.rx.finditer(text):
            start = m.start()
            lead = _LEAD_IN.search(text, 0, start)
            if lead is not None:
                start = lead.start()
            found.append(_Found(start, m.end(), expr, m))
    found.sort(key=lambda f: (f.start, -(f.end - f.start)))
    kept: list[_Found] = []
    for f in found:
        if not kept or f.start >= kept[-1].end:
            kept.append(f)
    return kept


def resolve_relative(text: str, anchor: str) -> str | None:
    """The day a relative expression in ``text`` names, counted from the ISO ``anchor`` date.

    Understands yesterday/ayer, today/hoy, the day before yesterday/anteayer, tomorrow,
    last week/la semana pasada (anchor - 7 days), last month/el mes pasado (same day, clamped
    to the month's end), last year/el año pasado, "3 days ago", "hace dos semanas",
    "last Monday"/"el lunes pasado". The first expression in the text wins. Raises
    :class:`InputError` when ``anchor`` is not a date.
    """
    base = _to_date(anchor, "anchor date")
    if not text:
        return None
    text = _nfc(text)
    for f in _find_all(text, _RELATIVE):
        if f.expr.point is None:
            continue
        try:
            d = f.expr.point(f.match, base)
        except (ValueError, OverflowError, KeyError):
            d = None
        if d is not None:
            return d.isoformat()
    return None


def query_time_range(query: str, today: str) -> tuple[str, str] | None:
    """The time a search query names, as an inclusive ISO (start, end), or None.

    Spans are calendar spans: "last week" is Monday-Sunday of the previous week, "last month"
    and "last year" the previous calendar month and year, "this year" from 1 January to
    today, "in 2023" the whole year, "in March 2024" the whole month, "last May" the most
    recent May that is over, "en mayo" the most recent May that has begun, seasons are
    meteorological seasons of the northern hemisphere (summer = June 1 to August 31),
    "since 2023"/"desde 2023" runs to today. An explicit date or "yesterday" is that one day.
    When a query names several times, the first one wins.
    """
    base = _to_date(today, "date for today")
    if not query:
        return None
    query = _nfc(query)
    for f in _find_all(query, _ALL):
        if f.expr.span is None:
            continue
        try:
            span = f.expr.span(f.match, base)
        except (ValueError, OverflowError, KeyError):
            span = None
        if span is None:
            continue
        start, end = span
        if _SINCE.match(query, f.start) and start <= base:
            end = base
        return start.isoformat(), end.isoformat()
    return None


def strip_time_words(query: str) -> str:
    """``query`` with its time expressions (and the preposition leading into them) removed.

    "where did I live in 2024?" becomes "where did I live?", so the content words can be
    matched while the time becomes a filter. The text is returned in Unicode NFC form.
    """
    if not query:
        return query
    query = _nfc(query)
    pieces: list[str] = []
    pos = 0
    probe = date(2000, 6, 15)
    for f in _find_all(query, _ALL):
        if f.expr.span is not None:
            try:
                if f.expr.span(f.match, probe) is None and f.expr.point is None:
                    continue
            except (ValueError, OverflowError, KeyError):
                continue
        pieces.append(query[pos : f.start])
        pieces.append(" ")
        pos = f.end
    pieces.append(query[pos:])
    out = " ".join("".join(pieces).split())
    out = re.sub(r"\s+([?.!,;:])", r"\1", out)
    out = re.sub(r"([¿¡])\s+", r"\1", out)
    return out.strip(" ,;")


# ----------------------------------------------------------------------------- user input

_ISO_ARG = lazy(r"(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})")
_DATETIME_ARG = lazy(
    r"(?P<date>\d{4}-\d{2}-\d{2})[T ](?P<h>\d{2}):(?P<mi>\d{2})(?::(?P<s>\d{2})(?:\.\d{1,6})?)?"
    r"(?:Z|[+-](?P<tzh>\d{2}):?(?P<tzm>\d{2}))?"
)


def _valid_datetime(m: re.Match[str]) -> bool:
    """Checked field by field: ``datetime.fromisoformat`` accepts different shapes on
    different Python versions (3.10 rejects "Z" and 1-digit fractions)."""
    if _iso(*(int(part) for part in m.group("date").split("-"))) is None:
        return False
    if int(m.group("h")) > 23 or int(m.group("mi")) > 59 or int(m.group("s") or 0) > 59:
        return False
    return int(m.group("tzh") or 0) <= 14 and int(m.group("tzm") or 0) <= 59


def parse_date_arg(value: str) -> str:
    """Check a date a user passes (``--date``, ``save(date=...)``) and return it normalised.

    Accepts ``YYYY-MM-DD`` (returned zero-padded), ``YYYY-MM-DDTHH:MM[:SS][Z|±HH:MM]``
    (returned as given, with a space separator turned into ``T``) and any whole-string date
    :func:`find_date` reads, such as "11 de marzo de 2024" or "March 11, 2024" (returned as
    ``YYYY-MM-DD``). Anything else raises :class:`InputError` rather than being guessed.
    """
    raw = value.strip() if isinstance(value, str) else ""
    error = InputError(f"invalid date '{value}': use YYYY-MM-DD")
    if not raw:
        raise error
    m = _ISO_ARG.fullmatch(raw)
    if m:
        iso = _iso(int(m.group("y")), int(m.group("m")), int(m.group("d")))
        if iso is None:
            raise error
        return iso
    m = _DATETIME_ARG.fullmatch(raw)
    if m:
        if not _valid_datetime(m):
            raise error
        return raw[:10] + "T" + raw[11:]
    text = _nfc(raw)
    found = _date_at(text, 0)
    if found is not None and not text[found[1] :].strip(" .,;"):
        return found[0]
    raise error
