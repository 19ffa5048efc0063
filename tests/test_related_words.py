"""Words people use for one thing (``ihmt.search.related``): a question word that no
memory holds also looks for the other words of its group, weighed less, and a memory found
so ranks but does not count as matching the question's word."""

from __future__ import annotations

from pathlib import Path

from ihmt import Memory
from ihmt.search.related import GROUPS, related
from ihmt.text import tokenize

from .conftest import store_with

NOTES = [
    "Standup is at 9:30 on weekdays.", "We squash-merge every pull request.",
    "The design review happens on Thursdays.", "Lunch orders close at 11:00.",
    "Releases are tagged with semantic versions.", "La reunión de equipo es los martes.",
]


def test_groups_are_single_words_and_never_join_two_values() -> None:
    for line in GROUPS:
        words = line.split()
        assert len(words) >= 2 and all(w == w.lower() for w in words), line
    grouped = {w for line in GROUPS for w in line.split()}
    # things one writer replaces with the other are never one word here
    for a, b in [("vim", "neovim"), ("main", "trunk"), ("utc", "gmt")]:
        assert not any({a, b} <= set(line.split()) for line in GROUPS), (a, b)
    assert "boss" in grouped and "celular" in grouped


def test_a_word_looks_for_the_other_words_of_its_group() -> None:
    boss = tokenize("boss", "english")[0]
    manager = tokenize("manager", "english")[0]
    assert related([boss], "english")[manager] == boss
    assert related([], "english") == {}


def test_a_question_word_no_memory_holds_finds_its_related_words(tmp_path: Path) -> None:
    font = "Editor font: JetBrains Mono 13, ligatures on."
    plugins = "Editor plugins are synced through the dotfiles repo, weekly."
    m = store_with(tmp_path, NOTES, (plugins, "2025-03-01"), (font, "2025-04-01"))
    res = m.search("which typeface does the editor show?")
    assert res.hits and res.hits[0].text == font, [h.text for h in res.hits]
    # it ranks, but the related word is not the question's: it is not counted as matched
    assert res.hits[0].matched == ["editor"]


def test_a_word_that_finds_its_own_memories_keeps_them(tmp_path: Path) -> None:
    said = "My boss prefers written status updates on Fridays."
    other = "The manager of the coffee shop downstairs is very friendly."
    m = store_with(tmp_path, NOTES, (said, "2025-04-01"), (other, "2025-05-01"))
    res = m.search("what does my boss prefer?")
    assert [h.text for h in res.hits] == [said]


def test_spanish_and_english_words_meet(tmp_path: Path) -> None:
    note = "La app móvil está hecha en Flutter."
    desk = "La app de escritorio está hecha en Tauri."
    m: Memory = store_with(tmp_path, NOTES, (desk, "2025-03-01"), (note, "2025-04-01"))
    res = m.search("¿con qué está hecha la app del celular?")
    assert res.hits and res.hits[0].text == note
