"""Questions about a tracked fact ("where do I live?") and the time a query names.

Lexical search cannot connect "where do I live" with "Me mudé a Valencia"; the fact
timeline can. A query recognised here is answered from the timeline's source memories:
the current value first, earlier values flagged OUTDATED, or for "where did I live in
2024" the value true at the end of that period.
"""

from __future__ import annotations

import re

from ..text import fold

_INTENTS: list[tuple[str, re.Pattern[str]]] = [
    ("location", re.compile(
        r"\b(where (do|did|does) (i|we) (live|stay|reside)|where (am|was|were) (i|we) living"
        r"|where (is|was) (my|our) home|what city (do|did) (i|we) live|where (did|have) (i|we)"
        r" moved?|my (home )?address|donde (vivo|vivia|vivimos|viviamos|resido)"
        r"|en que ciudad vivo|a donde me mude|donde me mude)\b")),
    ("employer", re.compile(
        r"\b(where (do|did) (i|we) work|who (do|did) (i|we) work for|what company (do|did)"
        r" (i|we) work|my (current )?(employer|company|job)|donde (trabajo|trabajaba)"
        r"|para quien (trabajo|trabajaba)|en que empresa (trabajo|trabajaba))\b")),
    ("stack", re.compile(
        r"\b(my (tech )?stack|our (tech )?stack|what stack|which stack|mi stack|nuestro stack"
        r"|que stack)\b")),
]


def fact_intent(query: str) -> str | None:
    """The tracked attribute a question asks about, if any ('location', 'employer', ...)."""
    q = " ".join(fold(query).replace("?", " ").replace("¿", " ").split())
    for attribute, pattern in _INTENTS:
        if pattern.search(q):
            return attribute
    return None


_CURRENT = re.compile(
    r"\b(now|today|currently|current|latest|nowadays|these days|at the moment"
    r"|ahora|hoy|actualmente|actual|hoy en dia|a dia de hoy)\b")


def asks_for_current(query: str) -> bool:
    """'Which port does X use now?': the newest of several matching memories is the answer."""
    return bool(_CURRENT.search(fold(query)))
