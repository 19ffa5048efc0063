"""The kind of thing a question asks for (ihmt.search.asked): "which *bundler* ..." is the
answer's type, not a word its memory holds."""

from __future__ import annotations

from pathlib import Path

import pytest

from ihmt import Memory
from ihmt.search.asked import answer_type_terms, names_beyond
from ihmt.text import tokenize


@pytest.mark.parametrize("query, words", [
    ("which bundler does the frontend use?", "bundler"),
    ("What database is billing on?", "database"),
    ("which feature flag service does the checkout use?", "feature flag service"),
    ("¿qué base de datos usa la facturación?", "base datos"),
    ("¿Qué broker lleva los eventos de pedidos?", "broker"),
])
def test_a_which_question_names_its_answers_type(query: str, words: str) -> None:
    assert answer_type_terms(query, "english") == frozenset(tokenize(words, "english"))


@pytest.mark.parametrize("query", [
    "what ships the API logs?",  # a verb after "what", no auxiliary: no type
    "what is the staging URL?",
    "where do we deploy the web app?",
    "how many approvals do code reviews need?",
    "¿qué hay delante del bucket?",
])
def test_other_questions_name_no_type(query: str) -> None:
    assert answer_type_terms(query, "english") == frozenset()


def test_a_name_is_a_capital_inside_a_sentence_a_digit_or_an_inner_capital() -> None:
    q = set(tokenize("which bundler does the frontend use", "english"))
    assert names_beyond("The frontend: Rspack -> esbuild", q, "english")
    assert names_beyond("we are on v22 now", q, "english")
    assert names_beyond("the frontend uses esBuild", q, "english")
    assert not names_beyond("Billing is handled by the payments team.", q, "english")
    assert not names_beyond("It was slow. Frontend builds are cached.", q, "english")
    # a name the question itself holds is no answer to it
    assert not names_beyond("the Frontend team owns it", q, "english")


NOTES = [
    "The staging database is reset every night.",
    "We use semantic versioning for the public SDK.",
    "Our public API uses cursor pagination.",
    "Design reviews happen on Thursdays.",
    "The on-call rotation changes every Monday.",
    "Backups are kept for thirty days.",
    "The marketing site has its own repository.",
    "Load tests run before each major release.",
    "The data team owns the warehouse schemas.",
    "Release notes are written by the product team.",
    "Frontend code reviews need one approval.",
    "The frontend repository has a changelog.",
    "We use short-lived feature branches.",
    "Most services use structured logging.",
    "We use trunk-based development.",
]


def _store(tmp_path: Path, *texts: str) -> Memory:
    m = Memory.open(tmp_path / "m", create=True)
    for i, t in enumerate(NOTES):
        m.save(t, date=f"2025-01-{10 + i}")
    for i, t in enumerate(texts):
        m.save(t, date=f"2026-0{1 + i}-01")
    return m


def _ask(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, allowance: bool
         ) -> tuple[str, float, str]:
    import ihmt.search.rank as rank

    if not allowance:
        monkeypatch.setattr(rank, "TYPE_WEIGHT", 1.0)
    with _store(tmp_path / str(allowance), text) as m:
        res = m.search("which bundler does the frontend use?")
    return res.status, res.confidence, res.best.text


@pytest.mark.parametrize("text, allowed", [
    # Two more notes say "frontend": it weighs less, and without the allowance the answer,
    # which lacks "bundler", covers under a third of the question. It is no longer NOT
    # FOUND; the confidence (what the agent hooks gate on) stays as it was. (Bundlers
    # the lexicon of kinds does not know: one it knows holds "bundler" loosely, so the
    # answer would not lack it, ihmt.search.kinds.)
    ("The frontend: Browserify -> Rsbuild", True),
    # Same words matched, but no name that could answer "which bundler": NOT FOUND stays.
    ("The frontend team meets once a week.", False),
])
def test_a_type_word_is_let_off_only_for_a_memory_that_names_something(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, allowed: bool) -> None:
    before = _ask(tmp_path, monkeypatch, text, allowance=False)
    monkeypatch.undo()
    after = _ask(tmp_path, monkeypatch, text, allowance=True)
    assert before[0] == "NOT_FOUND" and before[1:] == after[1:]
    assert after[0] == ("AMBIGUOUS" if allowed else "NOT_FOUND")
