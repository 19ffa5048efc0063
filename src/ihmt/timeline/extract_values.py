"""Cleaning the values the rules of :mod:`ihmt.timeline.extract` capture: a name cut to
the run of capitalised words ("Nimbus Labs", not "Nimbus Labs now"), a list of tools, a
tool and its purpose, a clinical entry.
"""

from __future__ import annotations

import re

from ..text import fold
from .extract_rules import (
    _ARTICLES,
    _BOUNDARY,
    _CONNECTORS,
    _EDGE_PUNCT,
    _HARD_STOPS,
    _LIST_BOUNDARY,
    _LIST_STOPS,
    _NEGATIONS,
    _NOT_A_NAME,
    _NUMBERISH,
    _PRONOUNS,
    _PURPOSE_LEAD,
    _TIME,
    _TRAILING,
    _UNITS,
)


def _fold_word(word: str) -> str:
    return fold(word.strip(_EDGE_PUNCT))


def _is_i(word: str) -> bool:
    core = word.strip(_EDGE_PUNCT).replace("’", "'")
    return core == "I" or core.startswith("I'")


def _capitalised(word: str) -> bool:
    return any(c.isupper() for c in word)


def _number_then_unit(words: list[str], i: int) -> bool:
    return (
        _NUMBERISH.match(words[i].strip(_EDGE_PUNCT)) is not None
        and i + 1 < len(words)
        and _fold_word(words[i + 1]) in _UNITS
    )


def _strip_edges(value: str) -> str:
    return value.strip().strip(_EDGE_PUNCT).strip()


def _strip_trailing_phrases(words: list[str]) -> list[str]:
    changed = True
    while changed and words:
        changed = False
        for n in (4, 3, 2, 1):
            if len(words) > n and tuple(_fold_word(w) for w in words[-n:]) in _TRAILING:
                words = words[:-n]
                changed = True
                break
        if words and not words[-1].strip(_EDGE_PUNCT):
            words = words[:-1]
            changed = True
    return words


# ---------------------------------------------------------------------------------------------
# Value cleaning
# ---------------------------------------------------------------------------------------------


def _clean_name(raw: str, writer_caps: bool) -> str | None:
    """A place or company name out of the text that follows a trigger, or None."""
    raw = raw.lstrip(" \t'\"“”‘’«*_`")
    cut = _HARD_STOPS.search(raw)
    if cut:
        raw = raw[: cut.start()]
    words = raw.split()
    had_article = False
    while len(words) > 1 and words[0] in _ARTICLES:  # lower-case only: "La Coruña" stays
        words = words[1:]
        had_article = True
    if not words:
        return None
    first = words[0].strip(_EDGE_PUNCT)
    ffold = fold(first)
    if (
        not first
        or _NUMBERISH.match(first)
        or (
            not _capitalised(first)
            and (ffold in _NOT_A_NAME or ffold in _TIME or ffold in _BOUNDARY or ffold in _ARTICLES)
        )
    ):
        return None
    if _capitalised(first):
        kept = [words[0]]
        stopped_at: str | None = None
        for i in range(1, len(words)):
            w = words[i]
            core = w.strip(_EDGE_PUNCT)
            if not core or _is_i(w) or _number_then_unit(words, i):
                stopped_at = core
                break
            if core in _CONNECTORS:
                kept.append(w)
            elif _capitalised(core) and fold(core) not in _TIME:
                kept.append(w)
            elif core[0].isdigit():
                kept.append(w)
            else:
                stopped_at = core
                break
        while len(kept) > 1 and kept[-1].strip(_EDGE_PUNCT) in _CONNECTORS:
            kept.pop()
        # "Acme's data team": a possessive before a noun; "McDonald's in Madrid" keeps it.
        last = kept[-1].replace("’", "'")
        if stopped_at and last.endswith("'s") and fold(stopped_at) not in _BOUNDARY | _TIME:
            kept[-1] = kept[-1][:-2]
    else:
        if writer_caps or had_article:
            return None  # this writer capitalises names: a lower-case value is not one
        kept = [words[0]]
        for i in range(1, len(words)):
            f = _fold_word(words[i])
            if not f or f in _TIME or f in _BOUNDARY or _number_then_unit(words, i):
                break
            kept.append(words[i])
    if len(kept) > 8:
        return None
    value = _strip_edges(" ".join(kept))
    return value or None


def _clean_list(raw: str) -> str | None:
    """A stack or tool list: keeps commas and 'and', drops a trailing clause or time phrase."""
    raw = raw.lstrip(" \t'\"“”‘’«*_`:")
    cut = _LIST_STOPS.search(raw)
    if cut:
        raw = raw[: cut.start()]
    words = raw.split()
    while words and _fold_word(words[0]) in _TIME:
        words = words[1:]
    kept: list[str] = []
    for i, w in enumerate(words):
        f = _fold_word(w)
        if i and f in _LIST_BOUNDARY:
            break
        if i and f in {"and", "y", "e"} and i + 1 < len(words):
            if _fold_word(words[i + 1]) in _PRONOUNS:
                break
        if i and f in _PRONOUNS and words[i - 1].endswith(","):
            break
        kept.append(w)
    kept = _strip_trailing_phrases(kept)
    if not kept:
        return None
    first = fold(kept[0].strip(_EDGE_PUNCT))
    if not first or first in _NOT_A_NAME or first in _NEGATIONS:
        return None
    if len(kept) > 20:
        return None
    value = _strip_edges(" ".join(kept))
    return value or None


def _clean_tool(raw: str) -> str | None:
    words = raw.split()
    while len(words) > 1 and words[0] in _ARTICLES:
        words = words[1:]
    value = _clean_list(" ".join(words))
    if value is None or len(value.split()) > 6:
        return None
    return value


def _purpose(raw: str) -> str | None:
    """'the CI/CD pipeline' -> 'ci/cd pipeline': the normalised name of what a tool is for."""
    cut = _HARD_STOPS.search(raw)
    if cut:
        raw = raw[: cut.start()]
    words = raw.split()
    while words and _fold_word(words[0]) in _PURPOSE_LEAD:
        words = words[1:]
    kept: list[str] = []
    for i, w in enumerate(words):
        f = _fold_word(w)
        if not f or (i and (f in _BOUNDARY or f in _TIME)):
            break
        kept.append(w)
    if not kept or len(kept) > 4:
        return None
    first = _fold_word(kept[0])
    if first in _TIME or first in _UNITS or first in _NOT_A_NAME or first in _BOUNDARY:
        return None
    if _NUMBERISH.match(first):
        return None
    norm = re.sub(r"[^a-z0-9/+#.\- ]+", " ", fold(" ".join(kept)))
    norm = " ".join(norm.split()).strip(".-")
    return norm or None


def _clean_clinical(raw: str) -> str | None:
    value = raw.replace("**", "").replace("__", "").strip()
    value = value.rstrip(" .;,")
    if len(value) > 500:
        value = value[:500].rsplit(" ", 1)[0] + "…"
    return value or None
