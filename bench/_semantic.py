"""BM25-only versus hybrid (semantic) in one run: the switch shared by the harnesses.

Without ``--semantic`` the harnesses force ``IHMT_SEMANTIC=off``, so their tree figures
stay BM25-only even where the ``ihmt[semantic]`` extra is installed. With it the store is
loaded with vectors, and every query is asked twice of the same store: once with semantic
search switched off for the process (the BM25-only rows) and once with it on (``hybrid``).
"""

from __future__ import annotations

import os
from typing import Any

from bench._common import Outcome, summarize, summarize_groups


def select(semantic: bool) -> None:
    """Set the switch before a store is opened (it is read when Memory opens)."""
    os.environ["IHMT_SEMANTIC"] = "auto" if semantic else "off"


def check(mem: Any) -> None:
    """Stop with the reason when --semantic was asked but the extra is not usable."""
    idx = getattr(mem, "semantic", None)
    if idx is None or not idx.active:
        raise SystemExit(getattr(idx, "reason", "this IHMT has no semantic search"))


def set_active(mem: Any, on: bool) -> None:
    """Switch semantic search on or off for this process only (the vectors stay)."""
    idx = getattr(mem, "semantic", None)
    if idx is not None:
        idx.active = on


def hybrid_summary(outcomes: list[Outcome], group: str = "by_kind") -> dict[str, Any]:
    out = summarize(outcomes)
    out[group] = summarize_groups(outcomes)
    statuses: dict[str, int] = {}
    for o in outcomes:
        statuses[str(o.status)] = statuses.get(str(o.status), 0) + 1
    out["status_counts"] = statuses
    return out
