"""A change said in words leads what it changed: "we switched billing to CockroachDB,
Postgres could not scale" comes before "we chose Postgres for billing", which is flagged.

The fact timeline (:mod:`ihmt.timeline.supersede`) links versions whose subject is a named
entity and whose attribute it recognises; a version group (:mod:`ihmt.search.topic`)
covers the user's own state. What a team says about its own project is mostly neither:
"billing", "the frontend", "deploys", "the session cache" are no names, and the
attribute (which database, which bundler) is rarely said. This rule works on the answer
itself, at search time, and needs no attribute:

among the memories the query found, a later one whose words say that something changed
(:data:`ihmt.search.change_words.CUE`, in a clause that is no plan, attempt or wish) and
that names, in that clause, a *value* of an earlier one is the newer version of it. A
value is a word both memories hold that the query did not ask for and that reads as a
name: capitalised inside a sentence, with a digit or an inner capital, or said in the
old value's place ("from yarn", "dropped black"). "Postgres" above is one; "billing",
asked for, is the shared subject. The later memory then leads the earlier, which is
flagged with it, and so no longer counts as a rival answer.

A change that does not name the old value ("transactional emails were switched over to
Postmark", "pasamos los informes mensuales a Metabase") still makes the later memory lead
when it is about the same thing (a query word both matched, inside the change, that is no
verb of use), names a value of its own where a change puts it ("to X", "on X", "con X"),
the earlier names one the later does not, the later holds no plan, attempt or wish
anywhere, and every query word the earlier matched itself the later matches too, but for
verbs of use, the word that says how the earlier's value serves ("generan" of "se generan
con JasperReports") and words found only inside its names ("ci" of "CircleCI"). The
earlier is flagged "possibly changed" (nothing says which value went away) only on firmer
ground: two such subject words in common, or a question that asks by the earlier's own
verb for its value ("¿dónde corren los workers?" of "los workers corren en Fly"), which
the change lacks; otherwise it only follows. Either way the earlier hit's
``superseded_by`` names the later, so a blend with semantic matches
(:func:`ihmt.search.hybrid.versions_in_order`) keeps the later first.

It stays conservative where a wrong link would hide a true memory: both memories must
be of one scope (a project's change says nothing of another project's memory) and match
a query word in common (every word the earlier one matched, when the fact timeline tracks
the earlier one; memories the timeline links are left to it), the change must be dated after the other (or saved after it
on the same day), a value said to continue ("billing stays on Postgres", "the Redis
upgrade went fine") links nothing, and an earlier memory that already said the value went
away is not its version. Whether one memory is a version of another is decided in
:mod:`ihmt.search.change_links`.

Cost: nothing when no excerpt of the first :data:`WINDOW` hits holds a word of change
(the excerpts come with the hits; of the first :data:`LEADS`, a long memory cut short in
its excerpt is read whole); otherwise those memories are read, and for a same-day pair
their save times.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ..model import Hit
from ..text import fold
from .aliases import canon
from .change_doubts import doubted, settled_first, unsettled
from .change_figures import NAMED_FIGURE
from .change_hits import (
    CHANGED,
    CHANGED_BACK,
    POSSIBLY_CHANGED,
    WINDOW,
    answers_for,
    flag,
    put_before,
    shown,
)
from .change_links import NAMED, POSSIBLY, dateish, link
from .change_notes import Note, read_note, states_of, use_verbs, whole_terms
from .change_words import CUE, TROUBLE

LEADS = 3  # of those, the first ones whose later changes are looked for beyond the hits
FOLLOW = 8  # memories that descent returns
FOLLOW_TERMS = 4  # of the answers' words, the rarest this many find them
FOLLOW_MAX_WORDS = 12  # a query of more words (a pasted text, a digest's word list) is
#   answered by what it says: no change of its answers is looked for beyond them
CLOSE = 0.6  # share of the first answer's score from which another one is followed too


def later_changes(look: list[Hit], terms: set[str], stemmer: str,
                  find: Callable[[list[list[str]], int, str], list[Hit]]) -> list[Hit]:
    """Memories beyond ``look`` that may say one of its first answers changed: found by
    the answers' own words (their subject and their values, not the question's), dated no
    earlier than the oldest of them, holding a word of change. The question finds the
    thing; what became of it is said in the words of the thing ("who hosts the
    documentation?" finds "The docs site is hosted on Render"; "The docs site migrated to
    GitHub Pages" shares no word with the question)."""
    leads = [h for h in look[:LEADS] if h.date]
    if not leads:
        return []
    # The answers, not the rest of the list: what ranks well below the first is asked
    # about less, and its words would crowd the first one's out of the descent.
    leads = [h for h in leads if h.score >= CLOSE * leads[0].score]
    uses = use_verbs(stemmer)
    # (the question's own words found what they could already: the rarest of the rest are
    # the answers' names and subject; a date's words name no thing)
    words = [list(dict.fromkeys(t for t in whole_terms(shown(h), stemmer)
                                if t not in uses and t not in terms
                                and not dateish(t, stemmer))) for h in leads]
    if not any(words):
        return []
    since = min((h.date or "")[:10] for h in leads)
    seen = {h.id for h in look}
    out = []
    for h in find(words, FOLLOW, since):
        if h.id in seen or (h.date or "")[:10] < since:
            continue
        if CUE.search(fold(h.excerpt or h.title)):
            seen.add(h.id)
            out.append(h)
    return out


def rarest(groups: list[list[str]], df: dict[str, int], n: int) -> list[str]:
    """Up to ``n`` of the words of ``groups`` (one group per answer, the first answer
    first) that the fewest memories hold, taken in turn from each group: an answer that
    ranks close to the first gets its share, and no more ("where can I read the app logs"
    finds "Application logs go to Papertrail" and, close behind, a book club's reading:
    "papertrail" must be among the words that look further). A word only one memory
    holds is the answer's own and finds nothing further: it is left out ("Monorepo CI runs
    on Travis CI, config in .travis.yml" looks further by "travis" and "config", not by
    ".travis.yml")."""
    ranked = [sorted((t for t in g if df.get(t, 0) >= 2), key=lambda t: df[t])
              for g in groups]
    out: list[str] = []
    for i in range(max((len(r) for r in ranked), default=0)):
        for r in ranked:
            if i < len(r) and r[i] not in out and len(out) < n:
                out.append(r[i])
    return out


def changes_first(hits: list[Hit], *, terms: set[str], stemmer: str,
                  **rest: Any) -> list[Hit]:
    """See :func:`_changes_first` (``rest``: its other keywords). The words of one group of
    :mod:`ihmt.search.aliases` are read as one word ("prod" and "production"), and each
    hit's ``matched`` is given back in the query's own words."""
    back = {canon(t, stemmer): t for t in terms}
    for h in hits[:WINDOW]:
        h.matched = list(dict.fromkeys(canon(t, stemmer) for t in h.matched))
    out = _changes_first(hits, terms=set(back), stemmer=stemmer, **rest)
    for h in [*out, *hits[:WINDOW]]:  # (one left out of the answer keeps its words too)
        h.matched = list(dict.fromkeys(back.get(t, t) for t in h.matched))
    return out


def _changes_first(hits: list[Hit], *, terms: set[str], stemmer: str,
                   saved_at: Callable[[str], str], excerpt: Callable[[Hit], str],
                   facts_of: Callable[[str], frozenset[str]],
                   find: Callable[[list[list[str]], int, str], list[Hit]] | None = None,
                   successor: Callable[[str], str | None] | None = None,
                   now: bool = True, meaning: bool = False,
                   held: Callable[[list[str]], dict[str, int]] | None = None) -> list[Hit]:
    """``hits`` with each later memory that says it changed an earlier one right before
    that one, which is flagged outdated (see the module docstring). ``terms``: the query's
    index terms; ``saved_at(id)``: when a memory was saved (orders a same-day pair);
    ``excerpt(hit)``: the later memory as the flag quotes it; ``facts_of(id)``: the
    timeline's ``subject::attribute`` keys a memory states; ``find(groups, k, since)``:
    the memories of the answer's scope dated ``since`` or later that best match the rarest
    of the words of each answer in ``groups`` (:func:`later_changes`, :func:`rarest`), or
    None to look at the hits only; ``successor(id)``: the memory the fact timeline says
    corrected an outdated one; ``now``: the question asks about now (not "before the
    migration"), so a later memory the timeline linked may lead its earlier version;
    ``meaning``: the first hit is the model's answer, found by meaning with no word of the
    question, and what became of it is looked for all the same; ``held(terms)``: how many
    memories hold each term (a word only two memories hold ties them, one many hold does
    not)."""
    look = hits[:1] if meaning else [h for h in hits[:WINDOW] if h.matched]
    extra = later_changes(look, terms, stemmer, find) if find is not None and look else []
    # (a memory among the hits that matched no question word may be found again: it is the
    # same hit, not a second one)
    if extra:
        listed = {h.id: h for h in hits}
        extra = [listed.get(h.id, h) for h in extra]
    pool = look + extra
    # Most answers hold no word of change, and no two of them state a value of a thing:
    # their excerpts (no leaf read) say so. Of the first answers, a long memory cut short
    # in its excerpt is read whole: a change said past its first lines ("Meeting notes:
    # ... Ah, and supplier invoices now go to ...") is a change too.
    said = [fold(h.text if i < LEADS and (h.excerpt or "").endswith("…")
                 else h.excerpt or h.title) for i, h in enumerate(pool)]
    if len(pool) < 2 or not (any(CUE.search(t) or TROUBLE.search(t) for t in said)
                             or sum(bool(NAMED_FIGURE.search(t)) for t in said) >= 2
                             or sum(bool(states_of(h.excerpt or h.title, stemmer))
                                    for h in pool) >= 2):
        return settled_first(hits, terms, stemmer) if now else hits
    notes = {h.id: read_note(h.text, stemmer) for h in pool}
    if not any(n.changed for n in notes.values()) and \
            sum(bool(n.states) for n in notes.values()) < 2 and \
            sum(bool(n.named) for n in notes.values()) < 2:
        return settled_first(hits, terms, stemmer) if now else hits
    for h in extra:  # the question's words it holds, as the descent would have matched
        h.matched = [t for t in sorted(terms) if t in notes[h.id].words]
    days = [h.date or "" for h in pool]
    tied = {d for d in days if days.count(d) > 1}  # only a same-day pair needs the hour
    when = {h.id: (h.date or "", saved_at(h.id) if (h.date or "") in tied else "")
            for h in pool}
    # (of a same-second pair, the one saying a change is taken as the later)
    order = sorted(pool, key=lambda h: (when[h.id], bool(notes[h.id].changed)))
    found = {h.id for h in extra}
    moved: set[str] = set()
    out = list(hits)
    for i, new in enumerate(order):
        n = notes[new.id]
        if not (n.changed or n.states or n.named):  # (an outdated change still changed what
            continue  # came before it)
        for old in order[:i]:
            if old not in out:  # a memory found beyond the hits that changed nothing shown
                continue
            o = notes[old.id]
            # Saved in the same second (a paste of notes): the one saying a change is the
            # later, unless both say one.
            later = when[old.id] < when[new.id] or (when[old.id] == when[new.id]
                                                   and not o.changed)
            if now and old.outdated and later and successor is not None and n.changed and \
                    not n.hedged and successor(old.id) == new.id and new in out and \
                    out.index(new) > out.index(old):
                # the fact timeline linked the two, and the later says the change in words
                # ("Correction: the API port is 8443"): it answers for the earlier
                answers_for(new, old)
                put_before(out, new, old)
                moved.add(new.id)
                continue
            if old.outdated or not later or old.scope != new.scope:
                continue
            kind = link(old, o, new, n, terms, stemmer, facts_of,
                         beyond=new.id in found)
            if kind is None:
                continue
            # An identifier the question asks by that only the earlier holds ("SEC-2693",
            # "INV-6984") asks for that memory, whatever changed since; where the later
            # holds an identifier of its own ("BILL-3727"), the two are two items, and the
            # earlier is not flagged either.
            asked_only = (set(old.matched) & o.values) - n.words  # names only it holds
            asked_id = {t for t in asked_only if _identifier(t)}
            if asked_id and any(_identifier(t) for t in n.values - o.words):
                continue
            if kind in (NAMED, POSSIBLY):
                flag(old, new, CHANGED if kind == NAMED else POSSIBLY_CHANGED, excerpt)
            # A question that asks by a name only the earlier memory holds ("uniqtok3x0000")
            # asks for that memory: a change that does not name its value, or one the
            # question did not find, leaves it first (flagged).
            # A change that says the earlier's own value went away ("Jenkins is gone") is
            # news of the thing asked by name ("where does CI run?"), found or not.
            if (kind != NAMED or new.id in found or asked_id) and asked_only \
                    and not ((o.values | o.slots) - terms) & n.gone:
                continue
            old.superseded_by = new.id  # (a blend with semantic matches keeps the order)
            put_before(out, new, old)
            moved.add(new.id)
    _taken_up_again(out, order, notes, when, terms, excerpt)
    if extra and out:
        # (one of them listed among the hits for no word of the question counts as well)
        unsettled(out, [h for h in extra if h not in out or not h.matched], notes, when,
                   terms, stemmer, excerpt, held)
    if out and now:
        out = settled_first(out, terms, stemmer)
        doubted(out, notes, when, stemmer, excerpt)
    # A version moved up above what it changed may itself have been corrected since (by
    # a later memory here, or in the fact timeline): its correction comes first again.
    for h in [x for x in out if x.id in moved and x.outdated]:
        later = h.superseded_by or (successor(h.id) if successor else None)
        fix = next((x for x in out if x.id == later), None) if later else None
        if fix is not None and out.index(fix) > out.index(h):
            put_before(out, fix, h)
    return out


_VERSION_TAG = re.compile(r"v\d+(?:[._]\d+)*")  # "v5", "v2.8": a release, not a value


def _identifier(term: str) -> bool:
    """Whether ``term`` is an identifier: letters and digits in one word ("sec-2693"), or a
    release's tag ("v5")."""
    return (any(c.isdigit() for c in term) and sum(c.isalpha() for c in term) >= 2) or \
        _VERSION_TAG.fullmatch(term) is not None


def _taken_up_again(out: list[Hit], order: list[Hit], notes: dict[str, Note],
                    when: dict[str, tuple[str, str]], terms: set[str],
                    excerpt: Callable[[Hit], str]) -> None:
    """A later memory that takes a value up again ("went back to bash") is the newer
    version of what came between: each memory of ``out`` dated after the last one holding
    that value and before the later one, that holds none of it and matched a query word
    that one matched too ("Changed my login shell to zsh" between "My shell is bash" and
    "Went back to bash"), is flagged and follows it. The memory of the value itself is no
    older version of it (it said the same), and is left as it is."""
    for i, new in enumerate(order):
        n = notes[new.id]
        if not n.reverts:
            continue
        before = order[:i]
        holders = [h for h in before if n.reverts & notes[h.id].words]
        if not holders or n.reverts & terms:
            continue
        last = max(when[h.id] for h in holders)
        asked = {t for h in holders for t in h.matched}
        between: list[Hit] = []
        for old in before:
            if old in holders or old not in out or old.outdated or when[old.id] <= last or \
                    old.scope != new.scope or not asked & set(old.matched):
                continue
            flag(old, new, CHANGED_BACK, excerpt)
            old.superseded_by = new.id
            put_before(out, new, old)
            between.append(old)
        for old in holders if between else []:  # the same value said before: it follows
            if old not in out or old.scope != new.scope:
                continue
            # flagged by what came between, which is itself changed back: its value holds
            # again ("possibly changed by ... Tortoise", then "went back to SQLAlchemy")
            kept = [x for x in old.notices if not any(b.id in x for b in between)]
            if old.outdated and len(kept) < len(old.notices) and not kept:
                old.notices, old.outdated, old.superseded_by = kept, False, None
            if not old.outdated:
                put_before(out, new, old)


def no_rival(terms: set[str], stemmer: str) -> Callable[[Hit, Hit], bool]:
    """For a question about now: whether a runner-up gives no other answer than ``best``.

    Two memories that name the same value are no rival answers ("moved the session cache
    to DragonflyDB" and "decided to keep the session cache on DragonflyDB"): the one
    names no value the best does not hold as current. Nor is a plan, an attempt or a wish
    ("plan for next quarter: move order events to RabbitMQ"): it says what may be, not
    what is. Either still stands in the answer; it only does not make it AMBIGUOUS."""
    def agrees(best: Hit, other: Hit) -> bool:
        if other.superseded_by == best.id:  # linked as its earlier version
            return True
        o = read_note(shown(other), stemmer)
        b = read_note(shown(best), stemmer)
        if o.hedged and not b.hedged:
            return True
        mine = o.values - terms
        if not mine:
            return False
        return mine <= (b.values - b.gone - terms) and not o.gone & (b.values - b.gone)
    return agrees
