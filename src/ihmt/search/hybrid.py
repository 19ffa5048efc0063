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
- AMBIGUOUS stays AMBIGUOUS (only a clue resolves it); the list is fused, except that a
  question about what holds now keeps the newest version first, with its history after
  it.
- NOT FOUND becomes an answer only on semantic evidence: FOUND when the best similarity
  is at least :data:`STRONG` and clearly above the next one, AMBIGUOUS when it is at
  least :data:`WEAK`. The memory put first is the first of the fused order that is at
  least :data:`WEAK` in meaning, so a period or a clue the lexical rules applied still
  decides between near-identical memories (then the answer is AMBIGUOUS unless that
  memory is also the semantic winner). Similarity is never zero, so a query of stray
  words, whose closest memory is far below :data:`WEAK`, still answers NOT FOUND.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from ..model import Hit, SearchResult

A_MIN = 0.1  # weight of the similarity when the best lexical match holds every query word
A_MAX = 0.9  # ... and when it holds none
STRONG = 0.42  # cosine similarity for a confident answer found by meaning alone
WEAK = 0.3  # below this, the closest memory by meaning is not an answer
MARGIN = 0.08  # how far the best similarity must stand above the next for FOUND


def blend(result: SearchResult, lexical: list[Hit], semantic: list[tuple[str, float]],
          sims: dict[str, float], make_hit: Callable[[str], Hit | None],
          annotate: Callable[[list[Hit]], None], top_k: int, keep_top: bool = False,
          coverage: float = 0.5) -> None:
    """Fuse ``lexical`` (the full reranked list) and ``semantic`` into ``result``.

    ``sims`` holds the similarity of every lexical candidate that has a vector;
    ``keep_top`` keeps the lexical first hit first (a question about what holds now, whose
    newest version the lexical rules already put first).
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
    order = sorted(pool, key=lambda i: (-fused[i], lex_pos.get(i, len(lex_pos))))

    pinned: str | None = None
    lead: list[str] = []  # pinned first, then the older versions listed right after it
    upgrade: str | None = None
    if (result.status == "FOUND" or keep_top) and result.hits:
        pinned = result.hits[0].id
        if lex and lex[0].id == pinned:
            k = 1
            while k < len(lex) and lex[k].outdated:
                k += 1  # the versions the lexical rules keep with it, newest first
            lead = [h.id for h in lex[:k]]
    elif result.status == "NOT_FOUND" and semantic:
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
    if pinned is not None:
        lead = lead or [pinned]
        first = set(lead)
        order = lead + [i for i in order if i not in first]

    scale = best_lex if best_lex > 0 else 1.0
    by_id = {h.id: h for h in lex}
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
    result.hits = hits

    if upgrade and hits:
        s1 = sims.get(hits[0].id, 0.0)
        result.status = upgrade
        result.confidence = round(s1, 3)
        if upgrade == "FOUND":
            result.message = f"found by meaning (similarity {s1:.2f}); few or no words shared"
        else:
            result.message = (f"the closest memories by meaning (similarity {s1:.2f}) share "
                              "few words with the query; give a clue to choose")


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
