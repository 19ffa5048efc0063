"""The versions of one fact at search time: kept together where the best of them ranked,
the current one first (:func:`versions_together`); a question naming one tracked subject and
attribute leads with that fact's current version (:func:`asked_version`); a question about
an earlier time gets the version of then (:func:`asks_for_past`).

The versions are the links :mod:`ihmt.timeline.supersede` and ``replaces`` recorded in the
fact timeline; this module only reads them.
"""

from __future__ import annotations

from collections.abc import Callable

from ..lazy_re import lazy
from ..model import Hit
from ..text import STOPWORDS, fold, tokenize
from .facts import FactTimeline
from .statement_rules import _ARTICLES, _CONNECTORS, _HEADS, _LEADING_HEADS, _SYNONYMS
from .supersede import _singular, _words

__all__ = ["RIVAL", "asked_version", "asks_for_past", "versions_together"]

RIVAL = 0.6  # share of the best version's score above which the current one is a rival

_PAST = lazy(
    r"\b(?:before|previous|previously|prior|former|formerly|originally|original|used\s+to|"
    r"earlier|old|antes|anterior|antiguo|antigua|originalmente|solia|solian)\b")
_BEFORE_EVENT = lazy(r"\b(?:before|prior\s+to|antes\s+de)\s+(?:the\s+|la\s+|el\s+)?"
                           r"([\w-]+(?:\s+[\w-]+)?)")


def asks_for_past(query: str) -> bool:
    """'What was Dylumou's login provider before the migration?': an earlier version."""
    return bool(_PAST.search(fold(query)))


# Verbs that name an attribute in a question: "who owns X", "where does Ana Smith live".
_CUES = {"own": "owner", "owns": "owner", "owned": "owner", "live": "city", "lives": "city",
         "living": "city", "vive": "city", "viven": "city", "reside": "city"}


def asked_version(query: str, timeline: FactTimeline) -> str | None:
    """The memory stating the current value of the one tracked subject::attribute a
    question names ("which port does the Atlas billing service use now?"), else None.

    Subjects and attributes are looked up as word runs of the query in the timeline's
    key index: a few dozen dictionary probes, whatever the size of the store.
    """
    toks = [w[:-2] if w.endswith(("'s", "’s")) else w for w in _words(query)][:40]
    attrs: set[str] = {_CUES[w] for w in toks if w in _CUES}
    for n in (1, 2, 3, 4):
        for i in range(len(toks) - n + 1):
            gram = toks[i:i + n]
            if gram[0] in STOPWORDS or gram[-1] in STOPWORDS:
                continue
            phrase = " ".join(_singular(w) for w in gram)
            attrs.add(_SYNONYMS.get(phrase, _SYNONYMS.get(" ".join(gram), phrase)))
    subjects: set[str] = set()
    for n in range(1, 7):
        for i in range(len(toks) - n + 1):
            gram = toks[i:i + n]
            if gram[0] in _LEADING_HEADS and n > 1:
                gram = gram[1:]
            key = " ".join(w for w in gram if w not in _CONNECTORS and w not in _ARTICLES
                           and w not in _HEADS)
            if key and gram[0] not in STOPWORDS and gram[-1] not in STOPWORDS:
                subjects.add(key)
    found = {(s, a) for s in subjects for a in attrs if timeline.statements(s, a)}
    if not found:
        return None
    # the most specific subject wins ("atlas billing" over "atlas"); a tie is no answer
    longest = max(len(s.split()) for s, _ in found)
    best = {(s, a) for s, a in found if len(s.split()) == longest}
    if len(best) != 1:
        return None
    (subject, attribute), = best
    return timeline.statements(subject, attribute)[-1].source


def _head(hit_id: str, outdated_by: Callable[[str], str | None]) -> str:
    seen = {hit_id}
    cur = hit_id
    for _ in range(64):
        nxt = outdated_by(cur)
        if not nxt or nxt in seen:
            break
        seen.add(nxt)
        cur = nxt
    return cur


def versions_together(hits: list[Hit], timeline: FactTimeline,
                      make_hit: Callable[[str], Hit | None], *, query: str = "",
                      period: tuple[str, str] | None = None, stemmer: str = "english",
                      current: bool = False) -> list[Hit]:
    """Keep the versions of one fact together where the best of them ranked: the current
    one first, then the superseded ones newest first. A query naming an earlier time puts
    first the version of then: the one in force at the end of ``period``, or for "before
    the migration" the one before the version that mentions the migration (else the one
    before the current).

    An inferred link regroups versions when the query asks about now or about an earlier
    time, or when the current version is a rival (it scores at least ``RIVAL`` of the best
    version and matches every query word that version matched), so a query aimed at
    something else an old memory says still finds that memory first, with its OUTDATED flag.
    ``make_hit(id)`` loads a current version the search did not reach. A question about
    now that names one tracked subject and attribute (:func:`asked_version`) leads with that
    fact's current version even when its words ranked it lower.
    """
    pinned = asked_version(query, timeline) if current and query and not period else None
    if pinned and not any(h.id == pinned for h in hits):
        extra = make_hit(pinned)
        if extra is not None:
            extra.matched = sorted(set(tokenize(query, stemmer)) & set(tokenize(extra.text,
                                                                                stemmer)))
            hits = [extra] + hits
    if not hits:
        return hits
    heads = {h.id: _head(h.id, timeline.outdated_by) for h in hits}
    groups: dict[str, list[Hit]] = {}
    for h in hits:
        groups.setdefault(heads[h.id], []).append(h)
    if pinned:  # the question names this fact: its current version leads the answer
        top_all = max(h.score for h in hits)
        first = groups[heads.get(pinned, pinned)]
        hits = first + [h for h in hits if h not in first]
        for h in first:
            h.score = max(h.score, top_all * 1.01) if h.id == heads.get(pinned) else h.score
    if all(len(g) == 1 and g[0].id == head for head, g in groups.items()):
        return hits
    past = asks_for_past(query) if query else False
    event_terms: set[str] = set()
    if past:
        m = _BEFORE_EVENT.search(fold(query))
        if m:
            event_terms = set(tokenize(m.group(1), stemmer))
    by_id = {h.id: h for h in hits}
    blocks: dict[str, list[Hit] | None] = {}
    for head, members in groups.items():
        if len(members) == 1 and members[0].id == head:
            blocks[head] = None
            continue
        told = any(not timeline.implicit(m.id) for m in members if m.id != head)
        top = max(m.score for m in members)
        head_hit = by_id.get(head)
        if head_hit is None and (current or told):
            head_hit = make_hit(head)
            if head_hit is not None:
                head_hit.matched = list(members[0].matched)
                head_hit.score = top
        # Without "now" in the query, the current version leads only when it answers the
        # same words: a query that names something only an older version says (its value,
        # a person in it) is about that version, which stays first with its OUTDATED flag.
        best = max(members, key=lambda m: m.score)
        rival = (head_hit is not None and head_hit.score >= RIVAL * top
                 and set(best.matched) <= set(head_hit.matched))
        if head_hit is None or not (rival or current or told or past or period):
            blocks[head] = None
            continue
        versions = sorted((m for m in members if m.id != head), key=lambda x: x.date or "",
                          reverse=True)
        block = [head_hit] + versions
        lead = _choose(block, past=past, period=period, event_terms=event_terms,
                       stemmer=stemmer) or block[0]
        if lead is not block[0]:
            block.remove(lead)
            block.insert(0, lead)
            # The versions are one fact: the query's words found in any of them count for
            # the one chosen ("before the migration" names the newer one's event).
            lead.matched = list(dict.fromkeys(t for b in block for t in b.matched))
            for other in block[1:]:
                other.score = min(other.score, top * 0.75)
        lead.score = max(lead.score, top)
        blocks[head] = block
    out: list[Hit] = []
    seen: set[str] = set()
    for h in hits:
        block = blocks.get(heads[h.id])
        for x in block if block is not None else [h]:
            if x.id not in seen:
                seen.add(x.id)
                out.append(x)
    return out


def _choose(block: list[Hit], *, past: bool, period: tuple[str, str] | None,
            event_terms: set[str], stemmer: str) -> Hit | None:
    """Which version of ``block`` (current first, then older by date) leads the answer."""
    dated = [b for b in block if b.date]
    if period:
        then = [b for b in dated if b.date[:10] <= period[1]]
        return max(then, key=lambda b: b.date or "") if then else None
    if not past or len(block) < 2:
        return None
    chrono = sorted(dated, key=lambda b: b.date or "")
    if event_terms:
        for i, b in enumerate(chrono):
            if i and event_terms & set(tokenize(b.text, stemmer)):
                return chrono[i - 1]
    return block[1]
