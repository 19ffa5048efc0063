"""What the rules of changes (:mod:`ihmt.search.changes`, :mod:`ihmt.search.change_doubts`)
do to hits and read of them: flag one outdated by another, put one before another, quote
one, tell the newest of linked versions and what its earlier versions matched. (Whether a
word is a date's: :func:`ihmt.search.change_links.dateish`.)
"""

from __future__ import annotations

from collections.abc import Callable

from ..model import Hit
from ..text import clip_shown

# How a flag's notice starts (:func:`ihmt.search.query` tells these flags from a version
# group's by them).
CHANGED = "changed by a later memory"
POSSIBLY_CHANGED = "possibly changed by a later memory"
CHANGED_BACK = "changed back by a later memory"
FLAGS = (CHANGED, POSSIBLY_CHANGED, CHANGED_BACK)
WINDOW = 8  # hits looked at: the versions of one answer rank close together


def flag(old: Hit, new: Hit, how: str, excerpt: Callable[[Hit], str]) -> None:
    """Flag ``old`` outdated by ``new`` (``how``: the notice's words), and let ``new``
    answer what ``old`` matched (as a correction does:
    :func:`ihmt.search.answer.corrections_first`)."""
    old.outdated = True
    old.notices.append(f"{how} ({new.id}, {new.date or 'undated'}): {excerpt(new)}")
    answers_for(new, old)


def answers_for(new: Hit, old: Hit) -> None:
    """``new`` counts as matching what ``old`` matched."""
    new.matched = list(dict.fromkeys([*new.matched, *old.matched]))


def put_before(out: list[Hit], new: Hit, old: Hit) -> None:
    """Put ``new`` right before ``old`` in ``out`` (``new`` may not be in it yet)."""
    if new in out:
        if out.index(new) < out.index(old):
            return
        out.remove(new)
    out.insert(out.index(old), new)
    new.score = max(new.score, old.score * 1.01)


def quote(hit: Hit) -> str:
    """How a flag quotes the memory that changed it."""
    return clip_shown(hit.text, 120)


def shown(h: Hit) -> str:
    """The memory's text if it was read, else its excerpt (no leaf read for it)."""
    return h._text if h._text is not None else (h.excerpt or h.title)


def version_head(best: Hit, hits: list[Hit], *, flagged: bool = True) -> bool:
    """Whether ``best`` is the newest of versions the rule linked and flagged: an earlier
    memory among ``hits`` is outdated because ``best`` changed it. ``flagged=False``: or
    linked only, on weaker ground (:data:`ihmt.search.change_links.FOLLOWS`), where no
    later memory among ``hits`` matched a question word ``best`` matched (it may be a
    newer version the rule could not link)."""
    if any(h.outdated and h.superseded_by == best.id for h in hits):
        return True
    if flagged or not any(h.superseded_by == best.id for h in hits):
        return False
    asked = set(best.matched)
    return not any((h.date or "") > (best.date or "") and asked & set(h.matched)
                   for h in hits if h is not best)


def earlier_versions(best: Hit, hits: list[Hit]) -> list[Hit]:
    """The memories among ``hits`` that a change linked to ``best``, and theirs in turn:
    the words they matched are the newest's too ("the shared vault is Bitwarden now"
    answers "where does the team keep shared credentials?" as "Team passwords are kept in
    LastPass shared folders" did, though it says no "team" nor "keep")."""
    out: list[Hit] = []
    heads, seen = {best.id}, {best.id}
    while heads:
        prior = [h for h in hits if h.superseded_by in heads and h.id not in seen]
        heads = {h.id for h in prior}
        seen |= heads
        out.extend(prior)
    return out
