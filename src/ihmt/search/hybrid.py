"""Hybrid ranking: the lexical answer fused with the memories closest in meaning.

The lexical pipeline (exact BM25 descent, time, corrections, clues, confidence) runs
first and is left untouched when semantic search is off. When it is on, its ranked list
and the semantic top-N (cosine similarity of sentence vectors, at least
:data:`ihmt.semantic.index.FLOOR`) are merged by reciprocal rank fusion:
``score = sum over the lists of 1 / (K + rank)``. The decision keeps its meaning:

- FOUND stays FOUND and its best memory stays first (a confident lexical answer is not
  second-guessed); the rest of the list is fused.
- AMBIGUOUS stays AMBIGUOUS (only a clue resolves it); the list is fused.
- NOT FOUND becomes an answer only on strong semantic evidence: FOUND when the best
  similarity is at least :data:`STRONG` and clearly above the next one, AMBIGUOUS when it
  is at least :data:`WEAK`. Similarity is never zero, so a query of stray words, whose
  closest memory is far below :data:`WEAK`, still answers NOT FOUND.
"""

from __future__ import annotations

from collections.abc import Callable

from ..model import Hit, SearchResult

K = 60  # the usual RRF constant: ranks matter, raw scores of the two lists never mix
STRONG = 0.42  # cosine similarity for a confident answer found by meaning alone
WEAK = 0.3  # below this, the closest memory by meaning is not an answer
MARGIN = 0.08  # how far the best similarity must stand above the next for FOUND
SCALE = 100.0  # fused scores are shown x100 (1.0 to ~3.3)


def blend(result: SearchResult, lexical: list[Hit], semantic: list[tuple[str, float]],
          make_hit: Callable[[str], Hit | None], annotate: Callable[[list[Hit]], None],
          top_k: int) -> None:
    """Fuse ``lexical`` (the full reranked list) and ``semantic`` into ``result``."""
    if not semantic:
        return
    sims = dict(semantic)
    fused: dict[str, float] = {}
    for rank, h in enumerate(_unique(lexical), 1):
        fused[h.id] = fused.get(h.id, 0.0) + 1.0 / (K + rank)
    for rank, (leaf_id, _) in enumerate(semantic, 1):
        fused[leaf_id] = fused.get(leaf_id, 0.0) + 1.0 / (K + rank)
    lex_pos = {h.id: i for i, h in enumerate(lexical)}
    order = sorted(fused, key=lambda i: (-fused[i], lex_pos.get(i, len(lex_pos))))

    pinned: str | None = None
    upgrade: str | None = None
    if result.status == "FOUND" and result.hits:
        pinned = result.hits[0].id
    elif result.status == "NOT_FOUND":
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

    by_id = {h.id: h for h in lexical}
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
        h.score = round(fused[leaf_id] * SCALE, 4)
        hits.append(h)
    if new:
        annotate(new)
    if pinned is not None and hits and hits[0].id == pinned and len(hits) > 1:
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


def _unique(hits: list[Hit]) -> list[Hit]:
    seen: set[str] = set()
    out = []
    for h in hits:
        if h.id not in seen:
            seen.add(h.id)
            out.append(h)
    return out
