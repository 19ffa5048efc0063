"""A search seen from one project: what the descent ranks, what it may add, the labels.

The descent (:mod:`ihmt.search.descent`) filters on the scope every leaf entry carries
and skips the branches whose leaves all belong elsewhere (``"scopes"`` of a branch entry),
so a scoped search opens no leaf and no branch more than its answer needs. In the default
view another project's memory is kept only when it scores at least
:data:`ihmt.scope.CROSS` times the best memory in scope (or nothing in scope matches),
every such hit is labelled with its project, and it is listed after the memories in scope.
It is never the answer: it is no rival of an answer in scope
(:func:`ihmt.search.rank.assess`), and when nothing in scope matches, the search says NOT
FOUND and lists it among the closest entries, labelled (:func:`settle`); ``scope="all"``
answers from every project.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..model import Hit, SearchResult
from ..scope import CROSS, GLOBAL, ScopeView
from ..tree.refile import MOVES, entry_scope
from .descent import ScopeFilter


def scope_filter(view: ScopeView | None, root: dict[str, Any]) -> ScopeFilter | None:
    """The descent's filter for ``view`` (None: every memory, as before scopes)."""
    if view is None or not view.filtering:
        return None
    moves: dict[str, str] = root.get(MOVES) or {}

    def leaf(entry: dict[str, Any]) -> bool:
        return view.admits(entry_scope(entry, moves))

    if any(view.admits(s) for s in moves.values()):
        # A memory moved into this view may sit in a branch written before the move,
        # whose list of scopes does not name it: open every branch until a rebuild.
        def node(entry: dict[str, Any]) -> bool:
            return True
    else:
        def node(entry: dict[str, Any]) -> bool:
            return any(view.admits(s) for s in entry.get("scopes") or [GLOBAL])

    return ScopeFilter(leaf=leaf, node=node, cross=CROSS if view.crosses else None)


def label(hits: list[Hit], view: ScopeView | None, root: dict[str, Any]) -> list[Hit]:
    """Give each hit its scope (from its entry, a later move included) and, in the default
    view, mark another project's (kept aside by the rules below); best score first."""
    moves = root.get(MOVES) or {}
    for h in hits:
        entry = {"id": h.id, "scope": h.scope if h.scope != GLOBAL else None}
        h.scope = entry_scope(entry, moves)
        h.foreign = bool(view is not None and view.crosses and view.foreign(h.scope))
    return sorted(hits, key=lambda h: -h.score)


def mark(hits: list[Hit], view: ScopeView | None) -> None:
    """Label every other project's memory in the answer (``scope="all"`` ranks them
    alike, but the reader still learns where each comes from)."""
    for h in hits:
        h.foreign = bool(view is not None and view.foreign(h.scope))


def in_view(close: tuple[list[tuple[str, float]], dict[str, float]], view: ScopeView | None,
            known: set[str], scope_of: Callable[[str], str | None]
            ) -> tuple[list[tuple[str, float]], dict[str, float]]:
    """Drop the memories found by meaning that the view does not show (their leaf says
    where they belong; ``known`` are hits whose scope was already checked)."""
    top, sims = close
    if view is None:
        return close
    kept = []
    for leaf_id, sim in top:
        if leaf_id in known:
            kept.append((leaf_id, sim))
            continue
        scope = scope_of(leaf_id)
        if scope is not None and view.admits(scope):
            kept.append((leaf_id, sim))
    return kept, sims


def in_scope_first(hits: list[Hit]) -> list[Hit]:
    """The memories in scope in their order, then other projects' (kept by the cross rule)."""
    if not any(h.foreign for h in hits):
        return hits
    return [h for h in hits if not h.foreign] + [h for h in hits if h.foreign]


def settle(result: SearchResult, view: ScopeView | None) -> None:
    """Another project's memory leads only when nothing in scope matched: then it is
    shown as a closest entry, not an answer (another project's convention is not this
    one's)."""
    if view is None or not view.crosses or not result.hits or not result.hits[0].foreign:
        return
    if result.status != "NOT_FOUND":
        result.status = "NOT_FOUND"
        result.confidence = 0.0
        result.message = ("nothing in this project's or the global memories matches; the "
                          "closest entries belong to other projects (search with scope "
                          "'all' to answer from them)")


def one_scope(group: list[Hit], view: ScopeView | None, personal: bool) -> list[Hit]:
    """The members of a version group (:mod:`ihmt.search.topic`) that are versions of one
    fact: of one scope. The user's own state (``personal``: where they work or live) is
    global, so its global members, where there are any; a team's (its CI, its Python) is
    the current project's where it has members, else the global ones. So a repository's
    CI does not lead, nor outdate, the user's own memories, and the user's side projects
    do not outdate a repository's. Without a project, or when no member is of the scope
    preferred, the group as it is."""
    if view is None or not view.project:
        return group
    order = (GLOBAL, view.project) if personal else (view.project, GLOBAL)
    for scope in order:
        mine = [h for h in group if h.scope == scope]
        if mine:
            return mine
    return group
