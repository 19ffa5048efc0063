"""From the exact BM25 ranking to an answer: time, corrections, facts, clues, confidence.

The descent (:mod:`ihmt.search.descent`) finds the lexical top-k. This module turns it
into what a user means: current facts before outdated ones, memories of the period a
query names before others, candidates that match both a query and its clue before those
matching one, and the decision FOUND / AMBIGUOUS / NOT FOUND.
"""

from __future__ import annotations

from collections.abc import Callable

from ..config import Config
from ..model import Hit, SearchResult
from ..text import tokenize
from ..timeline.facts import FactTimeline
from .change_notes import use_verbs
from .rank import assess

BOTH = 1.6  # a candidate matching the query and the clue
ONE_ONLY = 0.7  # matching only one of them
IN_PERIOD = 1.3  # dated inside the period the query names
OUT_OF_PERIOD = 0.85
RIVAL = 0.6  # share of the best score above which a match may be a version of the same fact
USE_ONLY = 0.5  # at most this share of the best score of a memory matching what the
#   question asks about, for a memory matching only its verb of use
OUTDATED = 1.0  # superseded memories keep their rank: corrections_first puts the fix before them


def annotate(hits: list[Hit], timeline: FactTimeline, excerpt_of: Callable[[str], str]) -> None:
    """Attach OUTDATED flags and notices to hits from the timeline."""
    for h in hits:
        notes = list(timeline.notices_for_leaf(h.id))
        newer = timeline.outdated_by(h.id)
        if newer:
            notes.append(f"corrected by a later memory ({newer}): {excerpt_of(newer)}")
        if notes or timeline.is_superseded(h.id):
            h.outdated = True
            h.notices = notes


def rerank(hits: list[Hit], *, query: str, clue: str | None, period: tuple[str, str] | None,
           stemmer: str, current: bool = False, idf: dict[str, float] | None = None,
           loosely: frozenset[str] = frozenset()) -> None:
    """Adjust scores in place for clue, period and outdatedness, then sort.

    With ``current`` (the query asks what holds now), memories that match the query's
    distinctive words as well as the best one are treated as versions of one fact: the
    newest comes first, since a later statement supersedes an earlier one. ``loosely``:
    the ids of memories that hold a query word only in other words (a related word, a
    product of the kind it names: "Honeybadger" for "error tracker"), which hold what the
    question asks about as much as one holding the word does.
    """
    q_terms = set(tokenize(query, stemmer))
    c_terms = set(tokenize(clue, stemmer)) if clue else set()
    uses = use_verbs(stemmer)
    # (a memory that holds only the question's verb of use, "uses", is no match for "what
    # ORM does our backend use?" beside memories that hold what it asks about)
    content = [h for h in hits if set(h.matched) - uses or h.id in loosely]
    for h in hits:
        m = set(h.matched)
        factor = 1.0
        if c_terms:
            in_q, in_c = bool(m & q_terms), bool(m & c_terms)
            factor *= BOTH if in_q and in_c else ONE_ONLY
        if period:
            if h.date and period[0] <= h.date[:10] <= period[1]:
                factor *= IN_PERIOD
            elif h.date:
                factor *= OUT_OF_PERIOD
        elif h.outdated:
            factor *= OUTDATED
        h.score *= factor
    if content:
        top = max(h.score for h in content)
        for h in hits:
            if h.matched and set(h.matched) <= uses and h.id not in loosely:
                h.score = min(h.score, top * USE_ONLY)
    # Equal scores are ordered by id, so the order never depends on where the tree
    # happens to hold each memory (a rebuild or another branch factor would change it).
    hits.sort(key=lambda h: (-h.score, h.id))
    if current and len(hits) > 1 and idf:
        _newest_first(hits, idf)


def _newest_first(hits: list[Hit], idf: dict[str, float]) -> None:
    best = hits[0]
    weights = sorted((idf.get(t, 0.0) for t in set(best.matched)), reverse=True)
    if not weights:
        return
    cut = weights[0] * 0.5
    key = {t for t in best.matched if idf.get(t, 0.0) >= cut}
    same = [h for h in hits if h.score >= best.score * RIVAL and key <= set(h.matched)]
    if len(same) < 2:
        return
    newest = max(same, key=lambda h: h.date or "")
    if newest is best or not newest.date:
        return
    newest.score = best.score * 1.01
    hits.sort(key=lambda h: (-h.score, h.id))


def corrections_first(hits: list[Hit], timeline: FactTimeline,
                      make_hit: Callable[[str], Hit | None]) -> list[Hit]:
    """Put the memory that corrects an outdated one right before it (loading it when the
    query did not match it), so an answer always leads with the current version."""
    out = list(hits)
    if not any(h.outdated for h in out):
        return out
    for h in list(out):
        if not h.outdated or timeline.implicit(h.id):
            continue  # an inferred link only reorders rival versions: versions_together
        newer = timeline.outdated_by(h.id) or timeline.changed_by(h.id)
        if not newer or newer == h.id:
            continue
        pos = out.index(h)
        fix = next((x for x in out if x.id == newer), None)
        if fix is None:
            fix = make_hit(newer)
            if fix is None:
                continue
            fix.matched = list(h.matched)
        elif out.index(fix) < pos:
            continue
        else:
            out.remove(fix)
            # the correction answers what the corrected memory matched, whatever it shares
            # with the query itself ("db" of "db-eu-9" for "database")
            fix.matched = list(dict.fromkeys([*fix.matched, *h.matched]))
        fix.score = max(fix.score, h.score * 1.01)
        out.insert(out.index(h), fix)
    return out


def finish(result: SearchResult, *, terms: list[str], idf: dict[str, float], n_leaves: int,
           cfg: Config, top_k: int, answer_value: str | None = None,
           types: frozenset[str] = frozenset(), stemmer: str = "english",
           no_rival: Callable[[Hit, Hit], bool] | None = None,
           slack: frozenset[str] = frozenset(), now: bool = False,
           inherited: frozenset[str] = frozenset(),
           loose: frozenset[str] = frozenset(),
           versions: dict[str, int] | None = None) -> SearchResult:
    """Decide the status and cut to ``top_k``. ``answer_value``: the hits already lead with
    the answer of a version group (:mod:`ihmt.search.topic`); it is the message."""
    if answer_value is not None and result.hits:
        best = result.hits[0]
        rest = result.hits[1:]
        best.score = max([h.score for h in rest] + [best.score]) * 2 + 1.0
        best.matched = list(dict.fromkeys(terms))
        result.hits = [best] + rest
        result.hits = result.hits[:top_k]
        result.status = "FOUND"
        result.confidence = 0.95
        result.message = answer_value
        return result
    result.hits = result.hits[:top_k]
    assess(result, terms, idf, n_leaves, cfg, types, stemmer, no_rival=no_rival, slack=slack,
           now=now, inherited=inherited, loose=loose, versions=versions)
    return result
