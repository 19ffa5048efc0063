"""Confidence, ambiguity and NOT FOUND: deciding whether a ranking is an answer.

confidence = 0.6 x coverage + 0.4 x margin, where coverage is the share of the query's
weight (idf) that the best leaf contains and margin how far it stands above its closest
rival. A first name shared by three memories scores full coverage and no margin: that is
exactly when the system must ask for a clue instead of guessing.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from ..config import Config
from ..model import Hit, SearchResult
from .asked import TYPE_WEIGHT, names_beyond

# Below this many memories idf tells little: a word in the only memory there is would weigh
# almost nothing next to a word in none, and the first round trip would answer NOT FOUND;
# in a young store, a thing's subject is in each of its versions ("kestrel" in three notes
# of five) and would weigh less than a word no memory holds ("open", "PR"). Query words
# are weighed as if the store held at least this many memories, the extra ones containing
# none of the query's words (10 before: the walks of 2026-12-06 answered a third of their
# right leads NOT FOUND).
MIN_WEIGHING_STORE = 50
# Whether a word the best memory holds is a strong one is read on the store's own counts
# (as if it held at least this many): a word every memory of a small store holds is no
# strong match, however rare it would be among 50 ("worker" in each of four deploy notes).
MIN_STRENGTH_STORE = 10
RELATED_SHARE = 0.5  # of a query word's weight, where the best memory holds another word
#   of its group (ihmt.search.related) instead


def _document_frequency(weight: float, n: int) -> float:
    """Invert ``idf = ln(1 + (n - df + 0.5) / (df + 0.5))``: how many memories hold the word."""
    r = math.expm1(weight)
    return max(0.0, (n + 0.5 - 0.5 * r) / (r + 1.0))


def _weights(q: list[str], idf: dict[str, float], n_leaves: int,
             least: int = MIN_WEIGHING_STORE,
             fewer: dict[str, int] | None = None) -> dict[str, float]:
    """Weight of each query word: its idf, over a store of at least ``least`` memories.
    ``fewer``: memories to leave out of a word's count (versions of one thing, counted
    once)."""
    m = max(n_leaves, least)
    out = {}
    for t in q:
        df = _document_frequency(idf[t], n_leaves) if t in idf else 0.0
        if fewer and t in fewer:
            df = max(1.0, df - fewer[t])
        out[t] = math.log(1.0 + (m - df + 0.5) / (df + 0.5))
    return out


def _strong(matched: set[str], q: list[str], idf: dict[str, float], n_leaves: int,
            versions: dict[str, int] | None) -> bool:
    """Whether a word of ``matched`` weighs at least half the heaviest query word, on the
    store's own counts (:data:`MIN_STRENGTH_STORE`), versions of one thing counted once."""
    own = _weights(q, idf, n_leaves, MIN_STRENGTH_STORE, versions)
    return any(own.get(t, 0) >= 0.5 * max(own.values()) for t in matched)


def assess(result: SearchResult, terms: list[str], idf: dict[str, float], n_leaves: int,
           cfg: Config, types: frozenset[str] = frozenset(), stemmer: str = "english",
           *, no_rival: Callable[[Hit, Hit], bool] | None = None,
           slack: frozenset[str] = frozenset(), now: bool = False,
           inherited: frozenset[str] = frozenset(),
           loose: frozenset[str] = frozenset(),
           versions: dict[str, int] | None = None) -> None:
    """Set ``status``, ``confidence`` and ``message`` of ``result`` in place. ``types``: the
    query's words for the kind of its answer (:mod:`ihmt.search.asked`): where the best
    memory lacks them but names something the query does not, they weigh less in the
    test for NOT FOUND (not in the confidence). ``slack``: query words that weigh
    :data:`TYPE_WEIGHT` in the confidence too where the best memory lacks them (the kind
    of answer and the verb of use, when the best is the newest of linked versions:
    :func:`ihmt.search.change_hits.version_head`; the words of the question's context,
    :func:`ihmt.search.asked.context_terms`). ``no_rival(best, other)``: True for a
    runner-up that gives no other answer (:func:`ihmt.search.changes.no_rival`). ``now``:
    the query asks about the present (it names no period), so an outdated best memory is
    no FOUND answer. ``inherited``: query words the best memory's earlier versions matched
    (it is the newest of versions a change linked: it says what became of the thing they
    named, in words of its own); they count as its own. ``loose``: query words the best
    memory holds only in another word of their group (:mod:`ihmt.search.related`: "memory"
    for "RAM"): in the test for NOT FOUND they count :data:`RELATED_SHARE` of their weight
    (not in the confidence: a looser match is no evidence of the right memory).
    ``versions``: how many earlier versions of the best memory (linked by a change) hold
    each question word: a thing's own word is in each of its versions, and counts once in
    whether a lone matched word is a strong one."""
    hits = result.hits
    if not hits:
        result.status = "NOT_FOUND"
        result.confidence = 0.0
        result.message = "nothing in memory matches this query"
        return
    q = list(dict.fromkeys(terms))
    weights = _weights(q, idf, n_leaves)
    best = hits[0]
    matched = set(best.matched) | (inherited & set(q))
    if slack:
        weights = {t: w * (TYPE_WEIGHT if t in slack and t not in matched else 1.0)
                   for t, w in weights.items()}

    def share(words: set[str] | list[str]) -> float:  # of the query's weight, as now weighed
        return sum(weights[t] for t in words if t in weights) / (sum(weights.values()) or 1.0)

    coverage = share(matched)
    s1 = best.score
    # Superseded memories are history, shown with their correction: not rivals; nor is
    # another project's memory listed beside an answer in scope (ihmt.search.scoped); nor
    # one older than an answer that holds a word of the question, found by no word of the
    # question itself (a product of the kind it names, a related word: "Teammate Jonas
    # swears by Alacritty" beside "User's terminal: WezTerm"). (A newer one may be the
    # thing's new value, said in other words: a rival.)
    current = [h for h in hits[1:] if not h.outdated and not (h.foreign and not best.foreign)
               and not (no_rival and no_rival(best, h))
               and not (best.matched and not h.matched
                        and (h.date or "") < (best.date or ""))]
    s2 = current[0].score if current else 0.0
    margin = (s1 - s2) / s1 if s1 > 0 else 0.0
    result.confidence = round(0.6 * coverage + 0.4 * margin, 3)
    # Whether the best memory is a match at all: a type word it lacks, where it names
    # something the query does not, is no sign of a stray match ("which bundler ..." for
    # "The frontend: Rspack -> esbuild"). The confidence above still counts it in full: a
    # missing word is no evidence of the right memory either.
    lacking = [t for t in types if t in weights and t not in matched]
    if lacking and names_beyond(best.text, set(q), stemmer):
        weights = {t: w * (TYPE_WEIGHT if t in lacking else 1.0) for t, w in weights.items()}
        coverage = share(matched)
    near = [t for t in loose if t in weights and t not in matched]
    if near:
        coverage += RELATED_SHARE * share(near)
    stray = len(q) >= 2 and (coverage < 0.3 or (len(matched) == 1 and coverage < 0.5
                                                 and not _strong(matched, q, idf, n_leaves,
                                                                 versions)))
    if stray or coverage < 0.2:
        result.status = "NOT_FOUND"
        shared = sorted(matched or loose)
        result.message = "no memory matches this query" + (
            f"; the closest entries share only '{', '.join(shared)}' with it" if shared else "")
        return
    rivals = [h for h in current if h.score >= s1 * (1.0 - cfg.ambiguity_margin)]
    if result.confidence < cfg.confidence_threshold or rivals:
        result.status = "AMBIGUOUS"
        if rivals:
            result.message = (f"{1 + len(rivals)} memories match this query about equally "
                              f"well (confidence {result.confidence:.2f}); give a clue to "
                              "choose")
        else:  # one best match, but too weak to be sure of
            result.message = (f"the closest memory matches this query only in part "
                              f"(confidence {result.confidence:.2f}); give a clue to choose")
        return
    if now and best.unsettled:
        result.status = "AMBIGUOUS"
        result.message = ("a later memory on this may have changed the answer (see the "
                          "notice); check which holds now")
        return
    if now and best.outdated:
        # Whatever ranked it first, a memory a later one changed is no confident answer
        # about now: better to ask than to serve a stale value.
        result.status = "AMBIGUOUS"
        result.message = ("the closest memory was changed by a later one (see its notice); "
                          "check which holds now")
        return
    result.status = "FOUND"
