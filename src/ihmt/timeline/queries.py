"""The questions asked of the fact timeline: the periods of a value, what is true now
or was true on a day, the changes, and which memories they make outdated.

A mixin of :class:`ihmt.timeline.facts.FactTimeline`, which loads the log into the state
read here (``_stmts``, ``_outdated`` ...); every method takes the timeline's lock and
reads what has been loaded so far.
"""

from __future__ import annotations

import threading
from bisect import bisect_right
from dataclasses import replace

from ..model import Fact
from .views import Notice, Stmt, View, check_date


class TimelineQueries:
    """Read-only views over the statements a :class:`FactTimeline` has loaded."""

    _lock: threading.RLock
    _stmts: dict[str, list[Stmt]]
    _by_source: dict[str, set[str]]
    _outdated: dict[str, tuple[str, str]]
    _implicit: set[str]
    _superseded: set[str] | None

    def _ensure_loaded(self) -> None:  # pragma: no cover - provided by FactTimeline
        raise NotImplementedError

    def _view(self, key: str) -> View:  # pragma: no cover - provided by FactTimeline
        raise NotImplementedError


    def _keys(self, subject: str | None) -> list[str]:
        keys = sorted(self._stmts)
        if subject is None:
            return keys
        return [k for k in keys if self._stmts[k][0].subject == subject]

    def timeline(self, subject: str, attribute: str) -> list[Fact]:
        """One entry per period of an unchanged value, oldest first; the last is ACTIVE.

        A HISTORICAL entry carries ``superseded_by`` (the next value), ``valid_from`` (its
        first statement) and ``valid_to`` (when the next value was first stated).
        Confirmations are folded into their period.
        """
        with self._lock:
            self._ensure_loaded()
            key = f"{subject}::{attribute}"
            if key not in self._stmts:
                return []
            return [replace(p) for p in self._view(key).periods]

    def statements(self, subject: str, attribute: str) -> list[Fact]:
        """Every statement of one subject::attribute in date order (arrival order for equal
        dates), confirmations included. Costs that key's statements only, not the log's."""
        with self._lock:
            self._ensure_loaded()
            key = f"{subject}::{attribute}"
            if key not in self._stmts:
                return []
            return [Fact(s.subject, s.attribute, s.value, s.date, s.source)
                    for s in self._view(key).ordered]

    def active_state(self) -> dict[str, Fact]:
        """The current value of every subject::attribute."""
        with self._lock:
            self._ensure_loaded()
            return {k: replace(self._view(k).periods[-1]) for k in sorted(self._stmts)}

    def state_at(self, date: str) -> dict[str, Fact]:
        """What was true on ``date``: per key, the period of the latest statement up to then.

        A plain day includes the whole day. The entries keep today's status, so a value
        that has since changed says so (HISTORICAL, ``superseded_by``).
        """
        when = check_date(date, "state_at date")
        plain_day = len(when) == 10
        out: dict[str, Fact] = {}
        with self._lock:
            self._ensure_loaded()
            for key in sorted(self._stmts):
                view = self._view(key)
                i = bisect_right(view.days if plain_day else view.dates, when) - 1
                if i >= 0:
                    out[key] = replace(view.periods[view.run_of[i]])
        return out

    def conflicts(self, subject: str | None = None) -> list[Notice]:
        """Every genuine change of a value (not confirmations), oldest change first."""
        with self._lock:
            self._ensure_loaded()
            found = [c for k in self._keys(subject) for c in self._view(k).changes]
        return sorted(found, key=lambda c: (c.new_date, c.key))

    def changed_by(self, source: str) -> str | None:
        """The memory whose statement changed the value ``source`` stated (the latest such
        change, in :meth:`conflicts` order). Only the keys ``source`` states about are
        looked at: a search asks this for a few hits, in a process that may be a hook's,
        fresh on every prompt, and must not build every key's view for it."""
        with self._lock:
            self._ensure_loaded()
            found = [c for k in sorted(self._by_source.get(source, ()))
                     for c in self._view(k).changes
                     if c.old_source == source and c.new_source]
            if not found:
                return None
            found.sort(key=lambda c: (c.new_date, c.key))  # stable: as conflicts() orders
            return found[-1].new_source

    def facts(self, subject: str | None = None) -> list[Fact]:
        """Every recorded statement, confirmations included, by key then date.

        Each carries the status of its period: statements of the current value are ACTIVE,
        earlier ones HISTORICAL with their period's ``valid_from``/``valid_to`` and
        ``superseded_by``. Use :meth:`timeline` for one entry per period.
        """
        out: list[Fact] = []
        with self._lock:
            self._ensure_loaded()
            for key in self._keys(subject):
                view = self._view(key)
                for s, r in zip(view.ordered, view.run_of, strict=True):
                    p = view.periods[r]
                    out.append(replace(p, value=s.value, date=s.date, source=s.source))
        return out

    def _misleading(self, key: str) -> list[tuple[Stmt, int]]:
        """Statements of superseded periods whose value is not the current one again."""
        view = self._view(key)
        last = len(view.periods) - 1
        return [
            (s, r)
            for s, r in zip(view.ordered, view.run_of, strict=True)
            if r < last and s.norm != view.active_norm
        ]

    def notices_for_leaf(self, leaf_id: str) -> list[str]:
        """Why a memory can no longer be read as current: the change that superseded it, and
        the latest change if the value moved on again. Empty when nothing it says is outdated.

        A memory whose old value has become current again gets no notice: read as current,
        it is right. Manual marks are separate: see :meth:`outdated_by`.
        """
        out: list[str] = []
        with self._lock:
            self._ensure_loaded()
            for key in sorted(self._by_source.get(leaf_id, ())):
                view = self._view(key)
                for s, r in self._misleading(key):
                    if s.source != leaf_id:
                        continue
                    for notice in (view.changes[r], view.changes[-1]):
                        if notice.text not in out:
                            out.append(notice.text)
        return out

    def superseded_sources(self) -> set[str]:
        """Ids of memories stating a value that has since changed (see notices_for_leaf)."""
        with self._lock:
            self._ensure_loaded()
            if self._superseded is None:
                found: set[str] = set()
                for key, stmts in self._stmts.items():
                    if len(stmts) > 1:
                        found.update(s.source for s, _ in self._misleading(key) if s.source)
                self._superseded = found
            return set(self._superseded)

    def is_superseded(self, leaf_id: str) -> bool:
        """Whether ``leaf_id`` is in :meth:`superseded_sources`, looking only at the keys it
        states about (a search asks this for its few hits)."""
        with self._lock:
            self._ensure_loaded()
            if self._superseded is not None:
                return leaf_id in self._superseded
            return any(len(self._stmts[k]) > 1 and
                       any(s.source == leaf_id for s, _ in self._misleading(k))
                       for k in self._by_source.get(leaf_id, ()))

    def outdated_by(self, leaf_id: str) -> str | None:
        """The memory that corrected ``leaf_id`` via :meth:`mark_outdated` (latest mark wins)."""
        with self._lock:
            self._ensure_loaded()
            mark = self._outdated.get(leaf_id)
            return mark[0] if mark else None

    def keys_of(self, leaf_id: str) -> frozenset[str]:
        """The ``subject::attribute`` keys of the statements ``leaf_id`` is the source of."""
        with self._lock:
            self._ensure_loaded()
            return frozenset(self._by_source.get(leaf_id, ()))

    def implicit(self, leaf_id: str) -> bool:
        """Whether the latest mark on ``leaf_id`` was inferred rather than told."""
        with self._lock:
            self._ensure_loaded()
            return leaf_id in self._implicit

    def outdated_map(self) -> dict[str, str]:
        """Every manual mark as {old id: new id}, for annotating many hits at once."""
        with self._lock:
            self._ensure_loaded()
            return {old: new for old, (new, _) in self._outdated.items()}
