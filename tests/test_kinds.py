"""A question names the kind of thing, the note names the thing (:mod:`ihmt.search.kinds`),
and what the nineteenth walk (written blind, measured once before it was read) showed
beside it:

- a query word that names a kind ("errors", "invoices") also finds the kind's products
  ("Honeybadger", "Xero"), loosely: the memory ranks above one that holds only the
  question's verb of use, but it is no sure answer on that ground alone;
- a later memory that moves to another product of the kind the question asks for, where
  the earlier named one, is the earlier's newer version though the two share no word;
  a product only proposed is no move;
- in a note of comma-set parts, a "still" keeps only its own part ("subimos webpack a la
  5.9, babel sigue en 7" keeps Babel, not webpack);
- "cancelé lo de X" lets X go.

Each fails on ``c15495e`` but the guards, which held before and keep the rules in bounds.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ihmt.search.change_notes import read_note
from ihmt.search.change_words import OLD_SLOT
from ihmt.search.kinds import KINDS, kind_words, products
from ihmt.text import fold, tokenize

from .conftest import newer_leads, office_store, stands


def test_a_kind_word_finds_the_kinds_products() -> None:
    terms = tokenize("which error tracker do we use?", "english")
    found = products(terms, "english")
    for name in ("Sentry", "Rollbar", "Bugsnag"):
        assert found[tokenize(name, "english")[0]] == "error"
    assert "error" not in found


def test_words_that_name_no_kind_find_nothing_and_a_named_product_is_not_added() -> None:
    assert products(tokenize("where do we keep the lunch menu?", "english"), "english") == {}
    terms = tokenize("is sentry still our error tracker?", "english")
    assert not set(products(terms, "english")) & set(terms)


def test_the_lexicon_is_well_formed() -> None:
    for line in KINDS:
        words, bar, names = line.partition("|")
        assert bar and words.split() and names.split(), line
    assert "error" in kind_words("english")


def test_a_product_answers_the_kind_it_is_above_a_mere_verb_of_use(tmp_path: Path) -> None:
    tracker = "Honeybadger is wired into the API since March."
    m = office_store(tmp_path, (tracker, "2025-03-01"),
                     ("We use Linear for the roadmap.", "2025-03-02"))
    res = m.search("which error tracker do we use?")
    assert res.hits[0].text == tracker, [h.text for h in res.hits]
    # (found by what it is, not by a word of the question: no sure answer)
    assert res.status != "FOUND"


def test_a_move_to_another_product_of_the_kind_replaces_the_earlier(tmp_path: Path) -> None:
    old, new = "Accounting: FreshBooks, since 2023.", "Switched invoices over to Xero."
    m = office_store(tmp_path, (old, "2025-01-05"), (new, "2025-06-10"))
    res = m.search("what tool do I use for invoices and accounting?")
    newer_leads(res, new, old)
    assert res.status == "FOUND"


def test_a_product_only_proposed_moves_nothing(tmp_path: Path) -> None:
    """(guard)"""
    old = "Accounting: FreshBooks, since 2023."
    new = "Proposal: move invoices to Xero next quarter, Ana will compare prices."
    m = office_store(tmp_path, (old, "2025-01-05"), (new, "2025-06-10"))
    res = m.search("what tool do I use for invoices and accounting?")
    stands(res, old)


def test_still_keeps_only_its_own_comma_set_part() -> None:
    note = read_note("frontend: subimos webpack a la 5.9, babel sigue en 7", "english")
    assert "babel" in note.kept and "webpack" not in note.kept
    # (guard) one part only: the whole clause is kept, as before
    alone = read_note("babel sigue en 7", "english")
    assert "babel" in alone.kept


def test_a_version_bumped_beside_one_that_stayed(tmp_path: Path) -> None:
    old = "panel: Vue 3 con Rollup 3.2, build en public/"
    new = "panel: subido rollup a la 4.1, vue sigue en 3, hubo que tocar la config"
    m = office_store(tmp_path, (old, "2025-01-05"), (new, "2025-06-10"))
    newer_leads(m.search("Quiero meter un plugin de build en el panel, ¿qué versión de rollup "
                         "hay?"), new, old)


def test_cancelling_lo_de_x_lets_x_go() -> None:
    assert OLD_SLOT.search(fold("Cancelé lo de Netflix, no lo veíamos")).group(1) == "netflix"


@pytest.mark.parametrize("question, product", [
    ("which browser do I use?", "Firefox"),
    ("¿qué navegador uso?", "Brave"),
    ("what language is the ingest service written in?", "Kotlin"),
    ("where do I keep my notes?", "Obsidian"),
    ("¿con qué operadora tengo la línea?", "Pepephone"),
    ("where do our backups go?", "Backblaze"),
])
def test_kinds_of_the_users_own_tools(question: str, product: str) -> None:
    stem = tokenize(product, "english")[0]
    assert stem in products(tokenize(question, "english"), "english")
