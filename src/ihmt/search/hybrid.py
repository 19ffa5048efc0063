"""Hybrid ranking: the lexical answer fused with the memories closest in meaning.

The lexical pipeline (exact BM25 descent, time, corrections, clues, confidence) runs
first and is left untouched when semantic search is off. When it is on, its candidates
and the semantic top-N (cosine similarity of sentence vectors, at least
:data:`ihmt.semantic.index.FLOOR`) are pooled and scored by a weighted sum of the two
signals, each min-max normalised over the pool::

    fused = (1 - A) x lexical' + A x similarity'

(the lexical score already carries the time, clue and correction adjustments; a memory
the lexical list missed has 0 from it). On the LoCoMo dev set this sum beat reciprocal
rank fusion, which gave the weaker semantic list as much say as BM25 and cost hit@1, and
beat normalising by the maximum alone (see BENCHMARKS.md).
The decision keeps its meaning:

- FOUND stays FOUND and its best memory stays first (a confident lexical answer is not
  second-guessed); the rest of the list is fused.
- AMBIGUOUS stays AMBIGUOUS (only a clue resolves it); the list is fused.
- NOT FOUND becomes an answer only on semantic evidence: FOUND when the best similarity
  is at least :data:`STRONG` and clearly above the next one, AMBIGUOUS when it is at
  least :data:`WEAK`. Similarity is never zero, so a query of stray words, whose closest
  memory is far below :data:`WEAK`, still answers NOT FOUND.
"""

from __future__ import annotations

from collections.abc import Callable

from ..model import Hit, SearchResult

A = 0.5  # weight of the semantic similarity in the fused score
STRONG = 0.42  # cosine similarity for a confident answer found by meaning alone
WEAK = 0.3  # below this, the closest memory by meaning is not an answer
MARGIN = 0.08  # how far the best similarity must stand above the next for FOUND


def blend(result: SearchResult, lexical: list[Hit], semantic: list[tuple[str, float]],
          sims: dict[str, float], make_hit: Callable[[str], Hit | None],
          annotate: Callable[[list[Hit]], None], top_k: int) -> None:
    """Fuse ``lexical`` (the full reranked list) and ``semantic`` into ``result``.

    ``sims`` holds the similarity of every lexical candidate that has a vector.
    """
    if not semantic and not sims:
        return
    lex = _unique(lexical)
    best_lex = max((h.score for h in lex), default=0.0)
    pool = list(dict.fromkeys([h.id for h in lex] + [i for i, _ in semantic]))
    norm = _minmax({h.id: h.score for h in lex})
    sim_norm = _minmax({i: sims.get(i, 0.0) for i in pool})
    fused = {i: (1.0 - A) * norm.get(i, 0.0) + A * sim_norm[i] for i in pool}
    lex_pos = {h.id: n for n, h in enumerate(lex)}
    order = sorted(pool, key=lambda i: (-fused[i], lex_pos.get(i, len(lex_pos))))

    pinned: str | None = None
    upgrade: str | None = None
    if result.status == "FOUND" and result.hits:
        pinned = result.hits[0].id
    elif result.status == "NOT_FOUND" and semantic:
        best_id, s1 = semantic[0]
        s2 = semantic[1][1] if len(semantic) > 1 else 0.0
        if s1 >= STRONG and s1 - s2 >= MARGIN:
            upgrade = "FOUND"
        elif s1 >= WEAK:
            upgrade = "AMBIGUOUS"
        if upgrade:
            pinned = best_id
    if pinned is not None:
        order = [pinned] + [i for i in order if i != pinned]

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
