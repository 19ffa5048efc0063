"""Questions about the asker's own practice ("what do we track our tickets in?") and
memories of somebody else's ("The data team switched their ticket tracking to
Shortcut"): ours comes first, and theirs is shown but is no FOUND answer."""

from __future__ import annotations

import re

from ..model import Hit, SearchResult
from ..text import fold

# A question asked of "we", "our", "I", "my", and words that may tell of somebody else's
# practice (the cheap test before the lexicon's: :func:`ihmt.search.topic_words.theirs`).
_ASKER = re.compile(r"\b(?:i|me|my|we|our|us|mi|mis|nuestr[oa]s?|nosotros|usamos|tenemos)\b")
_OTHERS_HINT = re.compile(r"\b(?:they|their|theirs|team|equipo|client|cliente|project"
                          r"|proyecto|usan|utilizan|emplean|tienen|prefieren)\b")


def _theirs(hit: Hit) -> bool:
    """Whether ``hit`` tells of somebody else's practice (the lexicon is loaded only for a
    memory that holds a word of :data:`_OTHERS_HINT`)."""
    text = fold(hit.text or "")
    if not _OTHERS_HINT.search(text):
        return False
    from .topic_words import theirs

    return theirs(text)


def ours_first(result: SearchResult, query: str) -> None:
    """For a question of "we", "our", "I", a first answer that tells of another team's
    practice ("The mobile team's iOS builds run on Bitrise; they pay for it") gives way to
    the first of the next answers that is not somebody else's and matches a question word
    it matched."""
    hits = result.hits
    if len(hits) < 2 or not _ASKER.search(fold(query)) or not _theirs(hits[0]):
        return
    for h in hits[1:5]:
        if set(h.matched) & set(hits[0].matched) and not h.outdated and not _theirs(h):
            h.score = max(h.score, hits[0].score * 1.01)  # (as any answer moved first)
            hits.remove(h)
            hits.insert(0, h)
            return


def not_theirs(result: SearchResult, query: str) -> None:
    """A question about the asker's own practice ("what do we track our tickets in?") is
    not answered FOUND by a memory of another team's ("The data team switched their ticket
    tracking to Shortcut"): that is somebody else's value, shown, but no answer of ours."""
    if result.status != "FOUND" or not result.hits or not _ASKER.search(fold(query)):
        return
    if _theirs(result.hits[0]):
        result.status = "AMBIGUOUS"
        result.confidence = min(result.confidence, 0.5)
        result.message = ("the closest memory tells of another team's or person's practice, "
                          "not yours; give a clue to choose")

