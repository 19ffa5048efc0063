"""Shared fixtures: every test gets its own memory folder on real files."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from ihmt import Memory

# The suite runs lexical-only, as without the ``ihmt[semantic]`` extra, so every existing
# expectation holds either way; tests/test_semantic.py switches semantic search on where
# it needs it. ``IHMT_SEMANTIC=auto pytest`` runs the suite with it on: then only the tests
# of tests/test_search.py that compare the lexical descent with a flat BM25 scan or count
# the files it opens fail, by design (the hybrid list is not the lexical one, and it asks
# the descent for 30 candidates), and the GUI's NOT FOUND check: its "never said" query shares
# "Kubernetes" with a demo memory close enough in meaning that the hybrid asks for a clue.
os.environ.setdefault("IHMT_SEMANTIC", "off")
SEMANTIC = os.environ["IHMT_SEMANTIC"]


@pytest.fixture(autouse=True)
def _semantic_switch_restored() -> Iterator[None]:
    """The benchmark harnesses set IHMT_SEMANTIC for their process; give every test the
    switch the suite started with, whatever the test before it ran."""
    os.environ["IHMT_SEMANTIC"] = SEMANTIC
    yield
    os.environ["IHMT_SEMANTIC"] = SEMANTIC


@pytest.fixture
def mem(tmp_path: Path) -> Memory:
    m = Memory.open(tmp_path / "ihmt_memory", create=True, config={"branch_factor": 4})
    yield m
    m.close()


def leaf_files(m: Memory) -> set[str]:
    return {p.stem for p in m.store.iter_leaf_paths()}


def reachable(m: Memory) -> list[str]:
    return [path[-1] for path, _ in m.walk()]


def store_with(tmp_path: Path, background: list[str], *texts_and_dates: tuple[str, str]
               ) -> Memory:
    """A new store under ``tmp_path`` holding ``background`` (dated 2026-01-01), then each
    ``(text, date)`` in order."""
    m = Memory.open(tmp_path / "s", create=True)
    for note in background:
        m.save(note, date="2026-01-01")
    for text, when in texts_and_dates:
        m.save(text, date=when)
    return m


# Everyday notes of a team, none of them about what a change test asks.
OFFICE_NOTES = [
    "Standup is at 9:30 on weekdays.", "We squash-merge every pull request.",
    "The design review happens on Thursdays.", "Lunch orders close at 11:00.",
    "Releases are tagged with semantic versions.", "I prefer dark themes in every editor.",
    "La reunión de equipo es los martes.", "The office plants are watered on Mondays.",
]


def office_store(tmp_path: Path, *texts_and_dates: tuple[str, str]) -> Memory:
    """:func:`store_with` over :data:`OFFICE_NOTES`."""
    return store_with(tmp_path, OFFICE_NOTES, *texts_and_dates)


def newer_leads(res, newer: str, older: str) -> None:  # type: ignore[no-untyped-def]
    """The newer memory comes first and the older one is flagged outdated."""
    assert res.hits[0].text == newer, [h.text for h in res.hits]
    assert next(h for h in res.hits if h.text == older).outdated


def stands(res, text: str) -> None:  # type: ignore[no-untyped-def]
    """The memory still holds: it comes first, not flagged."""
    assert res.hits[0].text == text, [h.text for h in res.hits]
    assert not res.hits[0].outdated
