"""Changes the eleventh walk (written blind, measured once before it was read) showed
served stale, in words of their own:

- the old value before an arrow is the value let go ("Memcached -> Redis", "master -> main"),
  as "from X" is;
- "no longer <verb> X" lets X go, whatever the verb ("we no longer enforce X").
"""

from __future__ import annotations

from pathlib import Path

from ihmt.search.change_notes import read_note

from .conftest import office_store

_store = office_store


def test_the_value_before_an_arrow_and_after_no_longer_is_gone() -> None:
    assert "jenkin" in read_note("CI: Jenkins -> Buildkite, done last sprint.", "english").gone
    assert "trunk" in read_note("rename default branch trunk \u2192 main", "english").gone
    assert "gitflow" in read_note("We no longer follow GitFlow; trunk-based now.",
                                  "english").gone


def test_a_commit_subject_with_an_arrow_changes_what_it_names(tmp_path: Path) -> None:
    old = "The default branch of the docs repo is trunk."
    new = "Commit 9f1c2e0: chore(repo): rename default branch trunk \u2192 main, update CI"
    m = _store(tmp_path, (old, "2023-02-02"),
               ("Release branches of the docs repo are named release/YYYY.MM.", "2023-02-02"),
               (new, "2023-10-16"))
    res = m.search("What is the default branch of the docs repo called?")
    assert res.hits[0].text == new
    assert next(h for h in res.hits if h.text == old).outdated


def test_no_longer_followed_lets_the_old_convention_go(tmp_path: Path) -> None:
    old = "Our branching model follows GitFlow (develop, release/*, hotfix/*)."
    new = ("We no longer follow GitFlow. Short-lived branches off main, merged within a day, "
           "e.g. 'PAY-88-refund-retry'.")
    m = _store(tmp_path, (old, "2023-05-03"), ("PR titles must include the ticket key.",
                                                "2023-05-03"), (new, "2024-08-19"))
    res = m.search("What branching model do we follow?")
    assert res.hits[0].text == new
    assert not (res.status == "FOUND" and res.hits[0].text == old)
