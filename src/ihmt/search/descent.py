"""Best-first branch-and-bound descent: the flat BM25 top-k, reading only a few branches.

For every child a branch stores, per term, the largest term count of one leaf below it,
the shortest length of a leaf holding the term, and how many leaves hold it. BM25's term
contribution grows with the count and shrinks with the length, so those two numbers give
an upper bound of the score of every leaf below the child. The descent keeps a priority
queue of (bound, node), always expands the most promising node, scores leaves exactly from
their parent's statistics, and stops when no bound left can beat the k-th exact score. The
result is the same top-k a flat scan over every leaf returns (same scores and order), yet
only branches whose bound could still win are opened. Nothing is pruned on a summary, so
a rare word buried anywhere in 50,000 memories is found.

The scorer is BM25 as in Lucene (and ``bm25s``' ``lucene`` method):
``idf = ln(1 + (N - df + 0.5) / (df + 0.5))``, ``tf / (tf + k1 * (1 - b + b * dl / avgdl))``.
"""

from __future__ import annotations

import bisect
import heapq
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..store.store import Store, best_common

K1 = 1.5
B = 0.75


@dataclass
class Candidate:
    """A leaf found by the descent, with everything its parent knew about it."""

    entry: dict[str, Any]  # the child/top entry: id, title, excerpt, date, tags, source ...
    score: float
    matched: list[str]
    path: list[str]


@dataclass
class Descent:
    candidates: list[Candidate] = field(default_factory=list)
    node_reads: int = 0  # distinct branches visited (opened or served from the process cache)
    disk_reads: int = 0  # of those, how many had to be read from disk
    visited: list[str] = field(default_factory=list)
    capped: bool = False
    idf: dict[str, float] = field(default_factory=dict)
    n_leaves: int = 0
    # With a ScopeFilter that crosses: refused leaves (another project's) scoring at least
    # ``cross`` times the best accepted one, best first, at most k.
    outside: list[Candidate] = field(default_factory=list)


@dataclass
class ScopeFilter:
    """Which leaves a search ranks and which branches can hold one.

    ``leaf`` tests a leaf's entry, ``node`` a branch's entry (False: nothing below it is
    accepted, so it is not opened for the answer). With ``cross``, refused leaves scoring
    at least ``cross`` times the best accepted one are collected in
    :attr:`Descent.outside`: a refused branch is opened only while its bound could still
    reach that bar, so the cost stays that of the answer, not of the store.
    """

    leaf: Callable[[dict[str, Any]], bool]
    node: Callable[[dict[str, Any]], bool]
    cross: float | None = None


def frequencies(store: Store, terms: list[str]) -> dict[str, int]:
    """How many memories hold each of ``terms``: read from the trunk's nodes (the files a
    descent opens first, so a search has them already), no leaf and no deeper branch."""
    return _frequencies(store, store.root()["top"], list(dict.fromkeys(terms)), Descent(), {})


def _frequencies(store: Store, tops: list[dict[str, Any]], q: list[str], out: Descent,
                 opened: dict[str, Any]) -> dict[str, int]:
    df = dict.fromkeys(q, 0)
    for entry in tops:
        if int(entry["layer"]) == 0:
            tf = entry.get("tf") or {}
            for t in q:
                if t in tf:
                    df[t] += 1
        else:
            br = _open(store, entry, out)
            opened[entry["id"]] = br
            for t in q:
                s = br.self_stats(t)
                if s:
                    df[t] += s[2]
    return df


def _tf_part(tf: int, length: int, avgdl: float) -> float:
    return tf / (tf + K1 * (1.0 - B + B * length / avgdl))


def descend(store: Store, terms: list[str], k: int, *, max_files: int = 400,
            scope: ScopeFilter | None = None,
            weights: dict[str, float] | None = None) -> Descent:
    """The exact BM25 top-``k`` leaves for the (deduplicated) query ``terms``.

    With ``scope``, the exact top-``k`` of the leaves it accepts: a refused leaf neither
    counts nor raises the bar. Statistics (idf, average length) stay the whole store's,
    so scores compare across scopes. ``weights``: a factor for some terms' part of the
    score (another word for a query word counts less than the word itself); the top-``k``
    stays exact for the weighted sum, and :attr:`Descent.idf` holds the plain idf."""
    out = Descent()
    root = store.root()
    n = int(root["n_leaves"])
    out.n_leaves = n
    q = list(dict.fromkeys(terms))
    if n == 0 or not q or k <= 0:
        return out
    avgdl = int(root["total_len"]) / n or 1.0

    # Document frequencies: the sum over the trunk's nodes (each branch knows its subtree).
    tops = root["top"]
    opened: dict[str, Any] = {}
    df = _frequencies(store, tops, q, out, opened)
    idf = {t: math.log(1.0 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items() if d > 0}
    out.idf = idf
    if weights:
        idf = {t: v * weights.get(t, 1.0) for t, v in idf.items()}
    q = [t for t in q if t in idf]
    if not q:
        return out

    heap: list[tuple[float, int, str, Any, list[str]]] = []
    seq = 0

    def push(bound: float, kind: str, payload: Any, path: list[str]) -> None:
        nonlocal seq
        if bound > 0:
            heapq.heappush(heap, (-bound, seq, kind, payload, path))
            seq += 1

    for entry in tops:
        if int(entry["layer"]) == 0:
            tf = entry.get("tf") or {}
            length = int(entry.get("len", 1))
            matched = [t for t in q if t in tf]
            score = sum(idf[t] * _tf_part(int(tf[t]), length, avgdl) for t in matched)
            push(score, "leaf", (entry, matched), ["root"])
        else:
            # A trunk node is open already (for the document frequencies): a loose bound
            # (every term's best, added) only decides when it is expanded, and costs no file.
            br = opened[entry["id"]]
            bound = 0.0
            for t in q:
                s = br.self_stats(t)
                if s:
                    bound += idf[t] * _tf_part(s[0], s[1], avgdl)
            kind = "node" if scope is None or scope.node(entry) else "far"
            if kind == "node" or scope.cross is not None:
                push(bound, kind, (br, entry), ["root"])

    # Seeds: the few leaves holding the query's rarest words, found by following only
    # the branches that contain them. Their exact scores raise the bar the best-first
    # search must beat from the start, and they are in the answer even if the file cap
    # stops the search early: a rare word buried anywhere is always found.
    seeds: dict[str, Candidate] = {}
    rare = sorted((t for t in q if df[t] <= SEED_MAX_DF), key=lambda t: df[t])[:SEED_TERMS]
    for t in rare:
        _seed(store, t, q, idf, avgdl, tops, opened, out, seeds)
    refused: dict[str, Candidate] = {}
    if scope is not None:
        for sid in [i for i, c in seeds.items() if not scope.leaf(c.entry)]:
            refused[sid] = seeds.pop(sid)
    best = sorted((c.score for c in seeds.values()), reverse=True)
    outside = out.outside

    def kth() -> float:
        return best[k - 1] if len(best) >= k else 0.0

    def far_bar() -> float:
        """What a refused leaf must beat to be kept (infinite: none is wanted)."""
        if scope is None or scope.cross is None:
            return math.inf
        bar = scope.cross * best[0] if best else 0.0
        return max(bar, outside[k - 1].score) if len(outside) >= k else bar

    found: list[Candidate] = []
    while heap:
        neg, _, kind, payload, path = heapq.heappop(heap)
        if -neg <= kth():
            break  # nothing left can enter the top k
        if kind == "leaf":
            entry, matched = payload
            if scope is not None and not scope.leaf(entry):
                if -neg >= far_bar() and entry["id"] not in refused:
                    outside.append(Candidate(entry, -neg, matched, path + [entry["id"]]))
                continue
            if entry["id"] not in seeds:
                found.append(Candidate(entry, -neg, matched, path + [entry["id"]]))
                bisect.insort(best, -neg, key=lambda x: -x)
            if len(found) >= k:
                break
            continue
        br, entry = payload
        far = kind == "far"  # nothing below is accepted: only a much better match counts
        if far and -neg < far_bar():
            continue
        if br is None:
            if out.node_reads >= max_files:
                out.capped = True
                continue
            br = _open(store, entry, out)
        here = path + [br.id]
        bar = far_bar() if far else kth()
        bounds, hits = _child_bounds(br, q, idf, avgdl, bar)
        for ci, bound in bounds.items():
            if bound <= bar:
                continue  # could never enter the top k: the bar only rises
            child = br.children[ci]
            if int(child["layer"]) == 0:
                push(bound, "leaf", (child, hits[ci]), here)
            elif far or scope is None or scope.node(child):
                push(bound, kind, (None, child), here)
            elif scope.cross is not None and bound >= far_bar():
                push(bound, "far", (None, child), here)
    merged = found + list(seeds.values())
    merged.sort(key=lambda c: -c.score)
    out.candidates = merged[:k]
    if scope is not None and scope.cross is not None:
        outside.extend(c for i, c in refused.items()
                       if i not in {o.entry["id"] for o in outside})
        floor = scope.cross * out.candidates[0].score if out.candidates else 0.0
        out.outside = sorted((c for c in outside if c.score >= floor and c.score > 0),
                             key=lambda c: -c.score)[:k]
    return out


SEED_MAX_DF = 4  # a word in at most this many memories is "rare": its leaves are seeds
SEED_TERMS = 1


def _child_bounds(br, q: list[str], idf: dict[str, float], avgdl: float, floor: float = 0.0
                  ) -> tuple[dict[int, float], dict[int, list[str]]]:
    """Per child: the score bound (exact for a leaf child) and the query terms it holds.

    First every length band of every child gets the plain sum of its terms' bounds (exact
    for a leaf child, which lies in one band). A band of a branch child whose plain sum
    still beats ``floor`` is then tightened to the best sum of term bounds that can meet in
    one slot of its subtree (:func:`best_common` over the stored slot masks). Bands that
    cannot beat ``floor`` keep their plain sum: the caller drops them either way, so their
    masks are never read.
    """
    hits: dict[int, list[str]] = {}
    sums: dict[int, float] = {}
    shift = br.band_bits
    k0 = K1 * (1.0 - B)  # _tf_part inlined: this loop is the descent's hot spot
    k1 = K1 * B / avgdl
    seen: list[tuple[str, Any, list[float]]] = []
    for t in q:
        g = br.groups(t)
        if not g:
            continue
        w = idf[t]
        cs: list[float] = []
        for i in range(0, len(g), 4):
            code = g[i]
            tf = g[i + 1]
            c = w * tf / (tf + k0 + k1 * g[i + 2])
            cs.append(c)
            sums[code] = sums.get(code, 0.0) + c
            h = hits.get(code >> shift)
            if h is None:
                hits[code >> shift] = [t]
            elif h[-1] is not t:
                h.append(t)
        seen.append((t, g, cs))
    bounds: dict[int, float] = {}
    children = br.children
    todo: dict[int, list[tuple[float, int]]] = {}
    masked = br.has_masks
    for code, total in sums.items():
        ci = code >> shift
        if masked and total > floor and int(children[ci]["layer"]) > 0:
            todo[code] = []
        elif total > bounds.get(ci, 0.0):
            bounds[ci] = total
    if todo:
        width = br.mask_bytes
        for t, g, cs in seen:
            raw = None
            for j, c in enumerate(cs):
                items = todo.get(g[4 * j])
                if items is not None:
                    if raw is None:
                        raw = br.term_masks(t)
                    at = j * width
                    items.append((c, int.from_bytes(raw[at:at + width], "little")))
        for code, items in todo.items():
            ci = code >> shift
            b = best_common(items, max(floor, bounds.get(ci, 0.0)))
            if b > bounds.get(ci, 0.0):
                bounds[ci] = b
    return bounds, hits


def _seed(store: Store, term: str, q: list[str], idf: dict[str, float], avgdl: float,
          tops: list[dict[str, Any]], opened: dict[str, Any], out: Descent,
          seeds: dict[str, Candidate]) -> None:
    stack: list[tuple[Any, list[str]]] = []
    for entry in tops:
        if int(entry["layer"]) == 0:
            tf = entry.get("tf") or {}
            if term in tf and entry["id"] not in seeds:
                length = int(entry.get("len", 1))
                matched = [t for t in q if t in tf]
                score = sum(idf[t] * _tf_part(int(tf[t]), length, avgdl) for t in matched)
                seeds[entry["id"]] = Candidate(entry, score, matched, ["root", entry["id"]])
        elif opened[entry["id"]].groups(term):
            stack.append((opened[entry["id"]], ["root"]))
    while stack:
        br, path = stack.pop()
        here = path + [br.id]
        g = br.groups(term)
        if not g:
            continue
        holders = {code >> br.band_bits for code in g[0::4]}
        bounds, hits = _child_bounds(br, q, idf, avgdl)
        for ci in holders:
            child = br.children[ci]
            if int(child["layer"]) == 0:
                if child["id"] not in seeds:
                    seeds[child["id"]] = Candidate(child, bounds[ci], hits[ci],
                                                   here + [child["id"]])
            else:
                stack.append((_open(store, child, out), here))


def _open(store: Store, entry: dict[str, Any], out: Descent):
    br, from_disk = store.branch(entry["id"], int(entry["layer"]))
    out.disk_reads += int(from_disk)
    if br.id not in out.visited:  # the seeding and the descent may both open one branch
        out.node_reads += 1
        out.visited.append(br.id)
    return br
