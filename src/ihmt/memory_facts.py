"""The facade's fact-timeline methods (:class:`ihmt.memory.Memory` inherits them): record a
fact directly, read the facts, their conflicts and the state at a date. Each read first
makes sure the fact log is sound (``_check_timeline``)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from .model import Fact

if TYPE_CHECKING:
    from .config import Config
    from .store.store import Store
    from .timeline.facts import FactTimeline


class FactMethods:
    """Mixed into :class:`ihmt.memory.Memory`, which provides the attributes below."""

    store: Store
    config: Config
    timeline: FactTimeline
    _writing: Callable[..., AbstractContextManager[None]]
    _check_timeline: Callable[[], None]

    def record_fact(self, subject: str, attribute: str, value: str, date: str,
                    source: str | None = None) -> str | None:
        """Record a fact directly (the reliable path); returns a contradiction notice."""
        from .ingest.prepare import parse_date, screen_fact
        from .sync.gitsync import after_write
        from .text import shown

        value = screen_fact(self.config.secrets, subject, attribute, value)
        fact = Fact(subject=subject, attribute=attribute, value=value,
                    date=parse_date(date), source=source)
        with self._writing("record_fact"):
            notice = self.timeline.record_primary(fact)
            after_write(self.store, shown(f"fact {subject} {attribute} = {value} ({fact.date})"))
        return str(notice) if notice else None

    def facts(self, subject: str | None = None) -> list[Fact]:
        self._check_timeline()
        return self.timeline.facts(subject)

    def conflicts(self, subject: str | None = None) -> list[Any]:
        self._check_timeline()
        return self.timeline.conflicts(subject)

    def notices(self) -> list[str]:
        return [str(c) for c in self.conflicts()]

    def active_state(self) -> dict[str, Fact]:
        self._check_timeline()
        return self.timeline.active_state()

    def state_at(self, date: str) -> dict[str, Fact]:
        from .ingest.prepare import parse_date

        self._check_timeline()
        return self.timeline.state_at(parse_date(date))
