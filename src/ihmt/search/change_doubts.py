"""Doubts the rule of changes (:mod:`ihmt.search.changes`) casts on its first answer, where
no link says which value holds: a later memory found by the answer's own words that says
a change of the same thing (:func:`unsettled`), a later answer that says a change done
(:func:`doubted`), a plan, a pitch or a guess leading before a settled answer
(:func:`settled_first`). Split from :mod:`ihmt.search.changes` along that seam.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from ..model import Hit
from ..text import fold, tokenize
from .change_hits import (
    POSSIBLY_CHANGED,
    WINDOW,
    answers_for,
    flag,
    put_before,
    quote,
    version_head,
)
from .change_links import dateish, elsewhere, named_apart, numbered_elsewhere, sibling
from .change_notes import Note, read_note, use_verbs
from .change_words import ASSUMED, CORRECTION, PLANNED, PLANNED_CHANGE, TENTATIVE
from .kinds import kind_words


def unsettled(out: list[Hit], beyond: list[Hit], notes: dict[str, Note],
               when: dict[str, tuple[str, str]], terms: set[str], stemmer: str,
               excerpt: Callable[[Hit], str],
               held: Callable[[list[str]], dict[str, int]] | None = None) -> None:
    """The first of ``beyond`` (memories found by the first answer's own words, each
    holding a word of change, none linked to it) that says a change done (no plan, no
    attempt, nothing said to stay), later than the first answer, of its scope, and that
    shares with it a word the question did not ask (no verb of use, no word of change),
    goes first: the first answer is flagged "possibly changed" and the answer is marked
    :attr:`Hit.unsettled`, which no confidence turns into FOUND
    (:func:`ihmt.search.rank.assess`). A later memory that says something of the same thing
    changed, in words the rule cannot read as a version, is reason enough not to serve the
    earlier one as the answer of now ("SQS could not keep the order; events go through
    Kafka" after "Switched the queue to SQS"), and too little to serve itself as one."""
    lead = out[0]
    if lead.outdated or lead.id not in notes:
        return
    first = notes[lead.id]
    uses = use_verbs(stemmer)
    for h in beyond:
        n = notes[h.id]
        if h.scope != lead.scope or not n.changed or n.hedged or n.kept or \
                when[h.id] <= when[lead.id]:
            continue
        shared = {t for t in (first.whole & n.whole) - terms - uses - n.cues - first.cues
                  if not dateish(t, stemmer)}  # (two notes of one month share no thing)
        # Of the same thing: two words in common ("docs site"), a name of the answer's
        # that the later lets go ("Papertrail account closed; logs ship to Loki"), the
        # thing the later states a value of ("CI is Drone now"), or one word only the two
        # of them hold; a word many memories hold is a note about something else that
        # says it too ("Swapped the office monitor" is no news of a dentist "closer to
        # the new office").
        if len(shared) == 1 and not shared & first.values & n.gone and held is not None \
                and not any(shared & st.subject for st in n.states) \
                and max(held(sorted(shared)).values(), default=0) > 2:
            continue
        if not shared:
            continue
        # (whether the later is another thing of the kind is not asked here: in talk, the
        # doubt a later note sharing a word casts keeps a stray answer from being served
        # as sure: on LoCoMo, asking it made the hooks inject more at a lower precision,
        # 0.874 -> 0.843)
        if (set(lead.matched) & first.values) - n.words:
            continue  # the question asks by a name the later lacks: of another thing ("the
            # Olivo gateway's rate limit" is no news of "the Cobalt service's rate limit")
        if (n.reverts - terms) & (first.values | first.slots):
            # it takes the first answer's value up again ("went back to bash" after "my
            # shell is bash"): the newer saying of the same answer, which stands
            answers_for(h, lead)
            put_before(out, h, lead)
            return
        flag(lead, h, POSSIBLY_CHANGED, excerpt)
        lead.superseded_by = h.id
        h.unsettled = True
        put_before(out, h, lead)
        return


@functools.lru_cache(maxsize=4)
def _plan_words(stemmer: str) -> frozenset[str]:
    """The words of a question that asks about plans, not about now."""
    return frozenset(tokenize("plan plans planning planned planea planeamos proposal propose "
                              "proposed propuesta idea ideas roadmap future futuro would "
                              "might", stemmer))


def settled_first(hits: list[Hit], terms: set[str], stemmer: str) -> list[Hit]:
    """``hits``, where the first answer only says a change planned or imagined ("We are
    planning to move the search index to OpenSearch", "if we sign, P1 ack would drop to 5
    minutes": :data:`ihmt.search.change_words.PLANNED` and
    :data:`~ihmt.search.change_words.PLANNED_CHANGE`) and says no change done, with the
    newest of the next answers that say something settled of the same thing (a question
    word both matched, no verb of use) before it: for a question about now, a plan changes
    nothing until it is carried out. So for a value only put forward ("Friend recommended
    Fly.io for the blog. Maybe someday": :data:`ihmt.search.change_words.TENTATIVE`). The
    answer moved up is marked :attr:`Hit.unsettled` unless it changed an earlier one:
    neither says which settled answer holds. Only the first answer is read."""
    if len(hits) < 2:
        return hits
    said = fold(hits[0].excerpt or hits[0].title)
    if terms & _plan_words(stemmer):  # (a question about the plan asks for it)
        return hits
    if ASSUMED.search(said):
        return _guess_settled(hits, stemmer)
    lead = hits[0]
    n = read_note(lead.text, stemmer)
    if not (PLANNED.search(said) and PLANNED_CHANGE.search(said)) and \
            not (TENTATIVE.search(said) and n.hedged):
        return hits  # (neither a plan nor a value only put forward)
    if n.changed:  # "moved X to Y; might move Z later"
        return hits
    # (a word of use both matched as the kind of thing asked for, "the build", is the thing)
    uses = use_verbs(stemmer) - (kind_words(stemmer) & terms)
    settled = [h for h in hits[1:WINDOW]
               if not h.outdated and h.scope == lead.scope
               and not PLANNED.search(fold(h.excerpt or h.title))
               and (set(h.matched) & set(lead.matched)) - uses]
    if not settled:
        return hits
    # the newest of them: what was settled last (an older version may be among them)
    newest = max(settled, key=lambda h: (h.date or "", -hits.index(h)))
    if not version_head(newest, hits):
        # (a plan or a pitch says nothing of which settled answer holds: unless the one
        # behind it changed an earlier one, it leads as one the user may check)
        newest.unsettled = True
    out = list(hits)
    put_before(out, newest, lead)
    return out


def _guess_settled(hits: list[Hit], stemmer: str) -> list[Hit]:
    """``hits``, where the first answer is a guess (:data:`ihmt.search.change_words.ASSUMED`:
    "Assumption: the deploy branch is main", "supuse que el dominio era acme.es"), with the
    later answer of the same thing (a question word both matched, no verb of use) that is
    no guess nor plan before it: what was settled after the guess ("User correction: no,
    it's release/stable"), a correction first, then the one sharing most of what was
    asked, then the newest. The guess follows, flagged as possibly changed."""
    lead = hits[0]
    uses = use_verbs(stemmer)
    said = {h.id: fold(h.excerpt or h.title) for h in hits[1:WINDOW]}
    asked = {h.id: (set(h.matched) & set(lead.matched)) - uses for h in hits[1:WINDOW]}
    later = [h for h in hits[1:WINDOW]
             if not h.outdated and h.scope == lead.scope and (h.date or "") > (lead.date or "")
             and not ASSUMED.search(said[h.id]) and not PLANNED.search(said[h.id])
             and asked[h.id]]
    if not later:
        return hits
    # (a correction first, then the one that shares most of what was asked, then the newest)
    best = max(later, key=lambda h: (bool(CORRECTION.search(said[h.id])), len(asked[h.id]),
                                     h.date or "", -hits.index(h)))
    out = list(hits)
    flag(lead, best, POSSIBLY_CHANGED, quote)
    put_before(out, best, lead)
    return out


def doubted(out: list[Hit], notes: dict[str, Note], when: dict[str, tuple[str, str]],
             stemmer: str, excerpt: Callable[[Hit], str]) -> None:
    """The first answer, when a later memory among the answers says a change done of what
    the question asked (a question word both matched, no verb of use) and the rule could
    not link it to the first: the first keeps its place, with a notice naming the later
    memory, and is marked :attr:`Hit.unsettled`, which no confidence turns into FOUND. Not
    when the later one names the first's value as standing, or takes it up again."""
    lead = out[0]
    if lead.outdated or lead.unsettled or lead.id not in notes:
        return
    first = notes[lead.id]
    uses = use_verbs(stemmer)
    for h in out[1:WINDOW]:
        n = notes.get(h.id)
        if n is None or h.scope != lead.scope or not n.changed or n.hedged or n.kept or \
                when[h.id] <= when[lead.id]:
            continue
        # (a name both hold is who or what they are about, not the thing asked: "Caroline"
        # of two lines of one conversation)
        both = (set(h.matched) & set(lead.matched)) - uses
        # (a correction is of an earlier memory, whatever they share and however it names it)
        correcting = bool(CORRECTION.search(fold(h.text or "")))
        if not both or (not both - (first.names & n.names) and not correcting):
            continue
        if not correcting and (set(lead.matched) & first.words) - n.words - uses and \
                sibling(n, first, both, uses, stemmer):
            continue  # another thing of the same kind: "the admin API" for "the public API"
        if elsewhere(n, first, set(lead.matched)) or named_apart(first, n):
            continue  # a change of another place only ("... but only in staging"), or of
            # another thing by its name ("orders-db-replica" for "orders-db")
        if numbered_elsewhere(first, n, n.names - first.words):
            continue  # a number of something else ("moved bastion SSH to 2222")
        if (n.reverts & (first.values | first.slots)) or (
                first.current() and first.current() <= n.words - n.gone and not correcting):
            continue  # it says the first's value again, or as standing
        lead.notices.append(f"a later memory may have changed this ({h.id}, "
                            f"{h.date or 'undated'}): {excerpt(h)}")
        lead.unsettled = True
        return
