"""What the timeline derives from its statements: one :class:`View` per
subject::attribute (its periods of equal value, the last one ACTIVE) and the
:class:`Notice` of each genuine change of value."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date as _date
from typing import Any

from ..errors import InputError
from ..model import Fact
from ..secrets import mask_value
from ..text import fold

ACTIVE = "ACTIVE"
HISTORICAL = "HISTORICAL"


_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}(?:[T ][0-9:.,+\-Z]*)?$")


def valid_date(value: object) -> bool:
    """An ISO date (a day, or a day and a time) that exists on the calendar."""
    if not isinstance(value, str) or not _ISO.match(value):
        return False
    try:
        _date.fromisoformat(value[:10])
    except ValueError:
        return False
    return True


def check_date(value: object, what: str) -> str:
    if not isinstance(value, str) or not valid_date(value.strip()):
        raise InputError(f"{what} must be an ISO date like 2026-02-03, got {value!r}")
    return value.strip()


def norm_value(value: str) -> str:
    """How values are compared: 'valencia ' and 'Valéncia.' state the same thing."""
    return " ".join(fold(value).split()).strip(" .,;:!?")


def day_of(value: str) -> str:
    return value[:10]


@dataclass(frozen=True)
class Notice:
    """One genuine change of a fact's value: what was said, what replaced it, and where."""

    subject: str
    attribute: str
    old_value: str
    old_date: str
    old_source: str | None
    new_value: str
    new_date: str
    new_source: str | None

    @property
    def key(self) -> str:
        return f"{self.subject}::{self.attribute}"

    @property
    def text(self) -> str:
        """The sentence shown next to an outdated memory, so it never reads as current.

        A value that is a secret ("office wifi password" = ...) is masked here: the sentence
        is what agents relay to the user, and the new value would otherwise stand alone
        after "updated to", where no detector could tell it from a city."""
        name = f"{self.subject} {self.attribute}"
        old = mask_value(self.old_value, name).text
        new = mask_value(self.new_value, name).text
        return (
            f"On {day_of(self.old_date)} you said {self.subject} {self.attribute} = "
            f"'{old}', but on {day_of(self.new_date)} you updated to '{new}'."
        )

    def __str__(self) -> str:
        return self.text

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form for the CLI and the MCP server."""
        return {
            "subject": self.subject,
            "attribute": self.attribute,
            "old_value": self.old_value,
            "old_date": self.old_date,
            "old_source": self.old_source,
            "new_value": self.new_value,
            "new_date": self.new_date,
            "new_source": self.new_source,
            "notice": self.text,
        }


@dataclass(frozen=True, slots=True)
class Stmt:
    """One recorded statement; ``seq`` is its arrival order, the tie-break for equal dates."""

    seq: int
    subject: str
    attribute: str
    value: str
    date: str
    source: str | None
    norm: str


@dataclass
class View:
    """Everything derived for one subject::attribute, rebuilt only when it gets a new event."""

    ordered: list[Stmt]  # by (date, seq)
    run_of: list[int]  # run index of each ordered statement
    periods: list[Fact]  # one per run of equal values; the last is ACTIVE
    changes: list[Notice]  # changes[i]: run i -> run i + 1
    days: list[str]  # day_of(date) of each ordered statement, for state_at
    dates: list[str]  # full date of each ordered statement

    @property
    def active_norm(self) -> str:
        return self.ordered[-1].norm


def build_view(stmts: list[Stmt]) -> View:
    ordered = sorted(stmts, key=lambda s: (s.date, s.seq))
    runs: list[list[Stmt]] = []
    run_of: list[int] = []
    for s in ordered:
        if not runs or runs[-1][-1].norm != s.norm:
            runs.append([])
        runs[-1].append(s)
        run_of.append(len(runs) - 1)
    periods: list[Fact] = []
    changes: list[Notice] = []
    for i, run in enumerate(runs):
        first = run[0]
        nxt = runs[i + 1][0] if i + 1 < len(runs) else None
        periods.append(
            Fact(
                subject=first.subject,
                attribute=first.attribute,
                value=first.value,
                date=first.date,
                source=first.source,
                status=HISTORICAL if nxt else ACTIVE,
                valid_from=first.date,
                valid_to=nxt.date if nxt else None,
                superseded_by=nxt.value if nxt else None,
            )
        )
        if nxt is not None:
            changes.append(
                Notice(
                    first.subject,
                    first.attribute,
                    first.value,
                    first.date,
                    first.source,
                    nxt.value,
                    nxt.date,
                    nxt.source,
                )
            )
    return View(
        ordered,
        run_of,
        periods,
        changes,
        [day_of(s.date) for s in ordered],
        [s.date for s in ordered],
    )
