"""Putting similar memories next to each other before they are grouped into branches.

A branch bounds the score of every leaf below it from the words its subtree holds; the
fewer distinct words a subtree mixes, the tighter the bound and the fewer branches a
search opens. Grouping in save order mixes every topic in every branch. This order splits
a batch in two on the word that divides it most evenly, and again inside each half, so
memories that share words end up in the same branches (a cheap hierarchical
co-clustering: no vectors, no model, deterministic).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

SAMPLE = 256  # members looked at to choose the word that splits a group


def similarity_order(term_sets: Sequence[Iterable[str]], group: int = 8) -> list[int]:
    """Indexes of ``term_sets`` in an order where neighbours share words."""
    counts = Counter(t for s in term_sets for t in set(s))
    # A word in only one memory cannot bring two memories together.
    sets = [frozenset(t for t in s if counts[t] > 1) for s in term_sets]
    out: list[int] = []
    stack: list[list[int]] = [list(range(len(sets)))]
    while stack:
        idx = stack.pop()
        n = len(idx)
        if n <= group:
            out.extend(idx)
            continue
        # Choosing the word from an even sample of a large group is as good and keeps the
        # whole order near O(n log n) with a small constant.
        sample = idx if n <= SAMPLE else idx[:: n // SAMPLE]
        m = len(sample)
        df: Counter[str] = Counter()
        for i in sample:
            df.update(sets[i])
        best, balance = "", 0
        for term, c in df.items():
            if c < m:
                b = min(c, m - c)
                if b > balance or (b == balance and term < best):
                    best, balance = term, b
        if balance < 2 * m / n:
            out.extend(idx)
            continue
        with_term = [i for i in idx if best in sets[i]]
        without = [i for i in idx if best not in sets[i]]
        stack.append(without)
        stack.append(with_term)  # popped first: the order is depth-first, left to right
    return out
