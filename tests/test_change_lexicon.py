"""The lexicon of change words (:mod:`ihmt.search.change_lexicon`): its built pattern agrees
with its lists, it reads ordinary notes as no change, and a change said in its words
leads what it changed. The examples are in words of their own, not the tenth walk's."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

from ihmt.search import change_lexicon as lexicon
from ihmt.search import change_lexicon_rx as built
from ihmt.search.change_words import CORRECTION, CUE
from ihmt.text import fold

from .conftest import office_store

_store = office_store
_LISTS = lexicon.CHANGE_GROUPS


def test_the_built_pattern_agrees_with_the_lists() -> None:
    # (after a change of the lists: python -m ihmt.search.change_lexicon)
    assert built.CHANGE == lexicon.pattern(*_LISTS)
    assert built.CORRECTION == lexicon.pattern(*lexicon.CORRECTION_GROUPS)


def test_the_phrases_are_folded_and_each_matches_itself() -> None:
    rx = re.compile(built.CHANGE)
    for phrases in _LISTS:
        assert len(set(phrases)) == len(phrases)
        for p in phrases:
            assert p == p.lower() == unicodedata.normalize("NFKD", p)
            if p in lexicon.LEFT_OUT:
                continue
            said = " ".join("the new cache" if w == "x" else "42" if w == "n" else w
                            for w in p.split())
            assert rx.search(said), p


def test_ordinary_notes_say_no_change() -> None:
    for note in ("We use Postgres for billing and Redis for sessions.",
                 "The release notes are written by whoever is on call.",
                 "Asked to move the standup to 8:45; rejected.",
                 "The cleanup job moves old files to cold storage.",
                 "Los informes se generan cada lunes con Metabase.",
                 "Vamos a revisar el presupuesto la semana que viene.",
                 "I chose to write about it; let me know how it turns out.",
                 "We adopted another puppy last weekend."):
        assert not CUE.search(fold(note)), note


def test_a_change_said_in_the_lexicons_words_leads(tmp_path: Path) -> None:
    old = "The weekly demo is on Thursdays at 16:00."
    new = "Weekly demo brought forward to Wednesdays at 15:00 for the Sydney folks."
    m = _store(tmp_path, (old, "2024-02-05"),
               ("The monthly all-hands is on the first Monday.", "2024-02-05"),
               (new, "2025-01-13"))
    res = m.search("When is the weekly demo?")
    assert res.hits[0].text == new
    assert res.status == "FOUND"


def test_a_spanish_change_said_in_the_lexicons_words_is_not_served_stale(
        tmp_path: Path) -> None:
    old = "Los despliegues a producción se hacen con Capistrano."
    new = "Adoptamos Kamal para los despliegues; el changelog se genera solo."
    m = _store(tmp_path, (old, "2023-08-02"),
               ("Los PR se squashean al mergear.", "2024-04-15"), (new, "2024-04-15"))
    res = m.search("¿Con qué hacemos los despliegues a producción?")
    assert not (res.status == "FOUND" and res.hits[0].text == old)


def test_a_correction_in_the_lexicons_words_is_a_correction(tmp_path: Path) -> None:
    assert CORRECTION.search(fold("I got that wrong about the staging API: it is 8082."))
    assert CORRECTION.search(fold("Me he equivocado antes: el puerto es el 8082."))
    old = "The staging API listens on port 8081 locally."
    new = "I got that wrong about the staging API: compose maps it to 8082."
    m = _store(tmp_path, (old, "2024-06-03"),
               ("The staging worker listens on 7070.", "2024-06-03"), (new, "2024-06-05"))
    res = m.search("Which port does the staging API listen on locally?")
    assert not (res.status == "FOUND" and res.hits[0].text == old)
