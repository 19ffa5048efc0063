"""Hybrid ranking: the lexical answer fused with the memories closest in meaning.

The lexical pipeline (exact BM25 descent, time, corrections, clues, confidence) runs
first and is left untouched when semantic search is off. When it is on, its candidates
and the semantic top-N (cosine similarity of sentence vectors, at least
:data:`ihmt.semantic.index.FLOOR`) are pooled and scored by a weighted sum of the two
signals, each min-max normalised over the pool::

    fused = (1 - a) x lexical' + a x similarity'
    a = A_MIN + (A_MAX - A_MIN) x (1 - coverage)

where coverage is the share of the query's weight (idf) that the best lexical match holds:
a query whose words a memory contains (an identifier, a name, rare keywords) is ranked
mostly lexically, one that shares few words with any memory mostly by meaning.

(the lexical score already carries the time, clue and correction adjustments; a memory
the lexical list missed has 0 from it). On the LoCoMo dev set this sum beat reciprocal
rank fusion, which gave the weaker semantic list as much say as BM25 and cost hit@1, and
beat normalising by the maximum alone (see BENCHMARKS.md).
The decision keeps its meaning:

- FOUND stays FOUND and its best memory stays first (a confident lexical answer is not
  second-guessed), followed by its superseded versions as the lexical rules ordered them
  (newest first); the rest of the list is fused.
- AMBIGUOUS stays AMBIGUOUS (only a clue resolves it) when its memories hold at least
  :data:`LOW_COVERAGE` of the query's weight: a real tie between memories that match the
  words. The list is fused, except that a question about what holds now keeps the newest
  version first, with its history after it.
- NOT FOUND, or AMBIGUOUS between memories that share only a stray word with the query
  (coverage under :data:`LOW_COVERAGE`), is decided by meaning: FOUND when the best similarity
  is at least :data:`STRONG` and clearly above the next one, AMBIGUOUS when it is at
  least :data:`WEAK`. The memory put first is the first of the fused order that is at
  least :data:`WEAK` in meaning, so a period or a clue the lexical rules applied still
  decides between near-identical memories (then the answer is AMBIGUOUS unless that
  memory is also the semantic winner). Similarity is never zero, so a query of stray
  words, whose closest memory is far below :data:`WEAK`, still answers NOT FOUND.

Whatever the weights, the fused list never loses either side's first answer: the lexical
first hit and the semantic first (at least :data:`WEAK`) are moved into the top
:data:`RESERVED` when the sum left them below it; when the lexical side holds under
:data:`LOW_COVERAGE` of the query, the semantic first :data:`SEMANTIC_SLOTS` instead (on
the 5,000 paraphrase set, reserving the lexical first there cost 4 of 50 template
paraphrases their place in the top 5; three semantic places kept all but one of the
model's own).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

from ..model import Hit, SearchResult
from ..text import fold
from .change_words import CUE, NOW_CUES, hedged, only_plans

A_MIN = 0.1  # weight of the similarity when the best lexical match holds every query word
A_MAX = 0.9  # ... and when it holds none
# Calibrated on the paraphrase set of bench.paraphrase (5,000 synthetic memories around 110
# hand-written pairs, English and Spanish), over the 167 queries whose lexical answer was
# not FOUND and held under half of the query's weight: a semantic winner at least STRONG
# and MARGIN ahead of the next was right 34 times of 34 (0.42 / 0.08, the values before:
# 35 of 37; 0.38 / 0.06: 42 of 49). See BENCHMARKS.md.
STRONG = 0.38  # cosine similarity for a confident answer found by meaning alone
WEAK = 0.3  # below this, the closest memory by meaning is not an answer
MARGIN = 0.10  # how far the best similarity must stand above the next for FOUND
LOW_COVERAGE = 0.5  # below this share of the query's weight, lexical AMBIGUOUS is no evidence
RESERVED = 5  # the lexical first and the semantic first are always inside this top
SEMANTIC_SLOTS = 3  # ... the semantic first three when the lexical side has only stray words


def blend(result: SearchResult, lexical: list[Hit], semantic: list[tuple[str, float]],
          sims: dict[str, float], make_hit: Callable[[str], Hit | None],
          annotate: Callable[[list[Hit]], None], top_k: int, keep_top: bool = False,
          coverage: float = 0.5,
          follow: Callable[[str], list[Hit]] | None = None) -> None:
    """Fuse ``lexical`` (the full reranked list) and ``semantic`` into ``result``.

    ``sims`` holds the similarity of every lexical candidate that has a vector;
    ``keep_top`` keeps the lexical first hit first (a question about what holds now, whose
    newest version the lexical rules already put first); ``follow(id)``: the change rule
    run from a memory the model chose (:func:`ihmt.search.changes.changes_first` with
    ``meaning``), its order and flags, or None not to look.
    """
    if not semantic and not sims:
        return
    lex = _unique(lexical)
    best_lex = max((h.score for h in lex), default=0.0)
    pool = list(dict.fromkeys([h.id for h in lex] + [i for i, _ in semantic]))
    norm = _minmax({h.id: h.score for h in lex})
    sim_norm = _minmax({i: sims.get(i, 0.0) for i in pool})
    a = A_MIN + (A_MAX - A_MIN) * (1.0 - min(1.0, max(0.0, coverage)))
    fused = {i: (1.0 - a) * norm.get(i, 0.0) + a * sim_norm[i] for i in pool}
    lex_pos = {h.id: n for n, h in enumerate(lex)}
    by_words = {h.id: h for h in lex}
    order = sorted(pool, key=lambda i: (-fused[i], lex_pos.get(i, len(lex_pos))))

    pinned: str | None = None
    lead: list[str] = []  # pinned first, then the older versions listed right after it
    followed: dict[str, Hit] = {}  # the model's answer and its later version, as flagged
    # (the memories the rules below only read, each read from its leaf once)
    peek = functools.lru_cache(maxsize=None)(make_hit)
    chosen = ""  # the memory the model's similarity chose
    upgrade: str | None = None
    if (result.status == "FOUND" or keep_top) and result.hits:
        pinned = result.hits[0].id
        if lex and lex[0].id == pinned:
            k = 1
            while k < len(lex) and lex[k].outdated:
                k += 1  # the versions the lexical rules keep with it, newest first
            lead = [h.id for h in lex[:k]]
        if semantic and lead and not lex[0].unsettled and _unsure(result.status, coverage):
            # Too few words for the lexical side, but the model's clear first is the lead
            # or a version it replaced ("Nightly database backups ..., 7 days retention"
            # for "how long do we hold on to database snapshots?", now "Backups ... kept
            # 30 days"): words and meaning agree on the thing, the change rule on its
            # value.
            best_id, s1 = semantic[0]
            s2 = next((s for i, s in semantic if i not in lead), 0.0)
            if best_id in lead and s1 >= STRONG and s1 - s2 >= MARGIN:
                upgrade, chosen = "FOUND", best_id
    elif semantic and _unsure(result.status, coverage):
        # Lexically nothing, or a tie between memories that share a stray word with the
        # query: the decision is the model's (a real tie, with words, stays AMBIGUOUS).
        best_id, s1 = semantic[0]
        s2 = semantic[1][1] if len(semantic) > 1 else 0.0
        if s1 >= STRONG and s1 - s2 >= MARGIN:
            upgrade = "FOUND"
        elif s1 >= WEAK:
            upgrade = "AMBIGUOUS"
        if upgrade:
            # The fused order carries the lexical rules (a period asked for, a clue, a
            # correction): the first memory in it that is close enough in meaning leads.
            pinned = next((i for i in order if sims.get(i, 0.0) >= WEAK), best_id)
            if pinned != best_id:
                upgrade = "AMBIGUOUS"  # not the clear semantic winner: let the user choose
            chosen = pinned
            if _only_plans(pinned, peek):
                # An idea or a plan of a change ("someone floated moving to Liquibase;
                # nobody took it up") is no answer about now: the closest settled memory
                # leads, and the user may check.
                settled = next((i for i, s in semantic if s >= WEAK and i != pinned
                                and not _only_plans(i, peek)), None)
                if settled is not None:
                    pinned, upgrade = settled, "AMBIGUOUS"
            # Meaning knows no time. It finds the thing; what became of it is said in the
            # thing's own words ("App logs -> Papertrail", later "Papertrail account
            # closed; logs ship to Loki"): the change rule looks for it from the model's
            # answer. Failing that, a later memory close in meaning that says a change
            # ("Ported my number to Mint" after "Mobile plan is with Verizon") may have
            # changed the answer: it leads, and nothing is served as sure.
            chain = follow(pinned) if follow is not None else []
            if chain and chain[0].id != pinned:
                followed = {h.id: h for h in chain[:1] + [h for h in chain if h.id == pinned]}
                for i in followed:
                    fused.setdefault(i, fused.get(pinned, 0.0))
                lead = list(followed)
                if not followed[pinned].outdated:
                    upgrade = "AMBIGUOUS"  # a change said without the old value
                pinned = lead[0]
            else:
                later = _later_change(pinned, [i for i, s in semantic if s >= WEAK], peek)
                if later is not None:
                    pinned, upgrade = later, "AMBIGUOUS"
    elif order and sims.get(order[0], 0.0) < WEAK and not _worded(by_words, order[0]):
        # a memory that shares no word with the query and is not close in meaning is no
        # answer, however the scaled scores fall: the first that is one leads
        pinned = next((i for i in order if sims.get(i, 0.0) >= WEAK or _worded(by_words, i)),
                      None)
    if pinned is not None:
        lead = lead or [pinned]
        first = set(lead)
        order = lead + [i for i in order if i not in first]
    # Never below either side: the lexical first and the semantic first (when it is close
    # enough in meaning to be an answer) are inside the top RESERVED, whatever the fusion;
    # when the lexical side holds under LOW_COVERAGE of the query, its first is a stray
    # word's match and the model's first SEMANTIC_SLOTS take the reserved places instead.
    close = [i for i, s in semantic if s >= WEAK]
    if coverage < LOW_COVERAGE:
        must = lead + close[:SEMANTIC_SLOTS]
    else:
        must = lead + ([lex[0].id] if lex else []) + close[:1]
    order = _reserve(order, must, RESERVED)

    scale = best_lex if best_lex > 0 else 1.0
    by_id = {h.id: h for h in lex} | followed
    hits: list[Hit] = []
    new: list[Hit] = []
    for leaf_id in order:
        if len(hits) >= top_k:
            break
        h = by_id.get(leaf_id)
        if h is None:
            h = make_hit(leaf_id)
            if h is None:
                continue  # a vector of a leaf that is gone: skip it
            h.matched = []
            new.append(h)
        h.score = round(fused[leaf_id] * scale, 4)
        hits.append(h)
    if new:
        annotate(new)
    if pinned is not None and len(hits) > 1 and hits[0].id == pinned:
        hits[0].score = max(hits[0].score, hits[1].score)
    first = hits[0] if hits else None
    hits = versions_in_order(hits)
    if hits and hits[0] is not first:  # the model's pick has a later version: it leads
        hits[0].score = max(hits[0].score, first.score)
        if upgrade == "FOUND" and not first.outdated:
            upgrade = "AMBIGUOUS"  # said without the old value: the user may check
    result.hits = hits

    if upgrade and hits:  # (the similarity that decided: the model's pick's, or its
        s1 = max(sims.get(hits[0].id, 0.0), sims.get(chosen, 0.0))  # later version's)
        result.status = upgrade
        result.confidence = round(s1, 3)
        if upgrade == "FOUND":
            result.message = f"found by meaning (similarity {s1:.2f}); few or no words shared"
        else:
            result.message = (f"the closest memories by meaning (similarity {s1:.2f}) share "
                              "few words with the query; give a clue to choose")


def _unsure(status: str, coverage: float) -> bool:
    """Whether the lexical answer leaves the decision to the model: nothing, or a tie
    between memories that share a stray word with the query."""
    return status == "NOT_FOUND" or (status == "AMBIGUOUS" and coverage < LOW_COVERAGE)


def versions_in_order(hits: list[Hit]) -> list[Hit]:
    """``hits`` with every memory that a later one changed (``superseded_by``, set by
    :mod:`ihmt.search.changes`) right after that later one when it came before it: a fused
    ranking may prefer the old memory's words or meaning, never its stale value."""
    out = list(hits)
    for h in hits:
        newer = next((x for x in out if x.id == h.superseded_by), None) \
            if h.superseded_by else None
        if newer is not None and out.index(newer) > out.index(h):
            out.remove(newer)
            out.insert(out.index(h), newer)
    return out


def keep_semantic_first(result: SearchResult, semantic: list[tuple[str, float]],
                        make_hit: Callable[[str], Hit | None],
                        annotate: Callable[[list[Hit]], None], top_k: int) -> None:
    """For an answer whose order is decided elsewhere (a version group about the user's
    own state): the closest memory by meaning, when close enough to be an answer, is put at
    the last of the top :data:`RESERVED` places if it is not already above it. The answer
    and its status stay."""
    if not semantic or semantic[0][1] < WEAK or not result.hits:
        return
    best = semantic[0][0]
    ids = [h.id for h in result.hits]
    if best in ids[:RESERVED]:
        return
    at = min(RESERVED - 1, len(ids))
    if best in ids:
        h = result.hits.pop(ids.index(best))
    else:
        h = make_hit(best)
        if h is None:
            return
        h.matched = []
        annotate([h])
    result.hits.insert(at, h)
    del result.hits[max(top_k, at + 1):]


def lexical_coverage(hits: list[Hit], terms: list[str], idf: dict[str, float],
                     n_leaves: int) -> float:
    """Share of the query's idf weight that the best lexical hit contains (a word no memory
    holds weighs as much as the rarest possible one)."""
    q = set(terms)
    if not q or not hits:
        return 0.0
    unseen = math.log(1.0 + (n_leaves + 0.5) / 0.5)
    weights = {t: idf.get(t, unseen) for t in q}
    total = sum(weights.values()) or 1.0
    return sum(weights[t] for t in set(hits[0].matched) if t in weights) / total


def _later_change(pinned: str, close: list[str],
                  make_hit: Callable[[str], Hit | None]) -> str | None:
    """The newest of ``close`` dated after ``pinned`` that says a change done (a word of
    change or of "now", no plan or attempt of it), or None."""
    first = make_hit(pinned)
    if first is None or not first.date:
        return None
    best: Hit | None = None
    for leaf_id in close:
        if leaf_id == pinned:
            continue
        h = make_hit(leaf_id)
        if h is None or not h.date or h.date <= first.date or h.scope != first.scope:
            continue
        said = fold(h.excerpt or h.title or "")
        if (CUE.search(said) or NOW_CUES.search(said)) and not hedged(said) and \
                (best is None or h.date > (best.date or "")):
            best = h
    return best.id if best is not None else None


def _only_plans(leaf_id: str, make_hit: Callable[[str], Hit | None]) -> bool:
    """Whether the memory speaks of a change only as a plan, a wish or an idea."""
    h = make_hit(leaf_id)
    return h is not None and only_plans(fold(h.excerpt or h.title or ""))


def _worded(lexical: dict[str, Hit], leaf_id: str) -> bool:
    """Whether the lexical side found ``leaf_id`` by a word of the query."""
    h = lexical.get(leaf_id)
    return h is not None and bool(h.matched)


def _reserve(order: list[str], must: list[str], k: int) -> list[str]:
    """``order`` with every id of ``must`` moved up into its first ``k`` places (taking the
    places of the last ones there that are not in ``must``); relative order kept."""
    top = order[:k]
    missing = [i for i in dict.fromkeys(must) if i in order and i not in top]
    if not missing:
        return order
    keep = set(must)
    for i in missing:
        drop = next((j for j in reversed(top) if j not in keep), None)
        if drop is None:
            break
        top.remove(drop)
        top.append(i)
    top.sort(key=order.index)
    chosen = set(top)
    return top + [i for i in order if i not in chosen]


def _minmax(values: dict[str, float]) -> dict[str, float]:
    """Scale to [0, 1] over the pool; all equal (or one value) counts as 1."""
    if not values:
        return {}
    lo, hi = min(values.values()), max(values.values())
    if hi - lo < 1e-9:
        return dict.fromkeys(values, 1.0)
    return {k: (v - lo) / (hi - lo) for k, v in values.items()}


def _unique(hits: list[Hit]) -> list[Hit]:
    seen: set[str] = set()
    out = []
    for h in hits:
        if h.id not in seen:
            seen.add(h.id)
            out.append(h)
    return out
