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
away is not its version.

Cost: nothing when no excerpt of the first :data:`WINDOW` hits holds a word of change
(the excerpts come with the hits; a change said only past a long memory's excerpt is not
seen); otherwise those memories are read, and for a same-day pair their save times.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from ..model import Hit
from ..text import clip_shown, fold, tokenize
from .change_words import (
    CALENDAR,
    CLAUSE,
    CUE,
    FUTURE,
    GONE_WORDS,
    NEW_PLACE,
    NEW_SLOT,
    NOT_DONE,
    OLD_SLOT,
    REASON,
    STILL,
    USE_VERBS,
    WAY,
)

# Weekdays and months are values though Spanish writes them in lower case ("lunes").
_DAYS_AND_MONTHS = CALENDAR - {"may"}  # (English "may" is a verb)

WINDOW = 8  # hits looked at: the versions of one answer rank close together
_WORD = re.compile(r"[\w][\w.+#-]*")
_SENTENCE_END = re.compile(r"[.!?:;\n]\s*$")


@dataclass
class _Note:
    """What the rule reads of one memory."""

    words: set[str] = field(default_factory=set)  # its index terms
    names: set[str] = field(default_factory=set)  # terms of the words that read as names
    values: set[str] = field(default_factory=set)  # the names that are no short acronym
    changed: set[str] = field(default_factory=set)  # terms of its clauses saying a change
    kept: set[str] = field(default_factory=set)  # terms of its clauses saying "still"
    gone: set[str] = field(default_factory=set)  # terms said in the old value's place
    new: set[str] = field(default_factory=set)  # terms said in the new value's place
    cues: set[str] = field(default_factory=set)  # terms of its words of change ("instead")
    whole: set[str] = field(default_factory=set)  # terms of whole words (not "cloud" of
    #   "CloudFormation")
    moved_to: set[str] = field(default_factory=set)  # names where a change puts its value
    hedged: bool = False  # a plan, a wish, an attempt or a time to come anywhere in it
    parts: set[str] = field(default_factory=set)  # terms found only inside a longer name
    #   ("ci" of "CircleCI")
    ways: set[str] = field(default_factory=set)  # terms of the words that say how a name
    #   serves ("generated" of "generated with JasperReports")


def _read(text: str, stemmer: str) -> _Note:
    note = _Note(words=set(tokenize(text, stemmer)))
    before = 0  # where the previous word starts: it and the gap after it end the prefix
    for m in _WORD.finditer(text):
        w = m.group()
        whole = tokenize(w, stemmer)[:1]  # "OpenSearch" is one name, not "search"
        note.whole.update(whole)
        start = m.start() == 0 or bool(_SENTENCE_END.search(text, before, m.start()))
        before = m.start()
        if any(c.isdigit() for c in w) or any(c.isupper() for c in w[1:]) or \
                (w[0].isupper() and not start) or fold(w).rstrip(".") in _DAYS_AND_MONTHS:
            note.names.update(whole)
            note.parts.update(tokenize(w, stemmer)[1:])
            if not (w.isupper() and len(w) <= 4):  # "CI", "API", "DB" may be a subject
                note.values.update(whole)
    folded = fold(text)
    note.hedged = bool(NOT_DONE.search(folded) or FUTURE.search(folded))
    said = False  # the clause before said a change
    for clause in CLAUSE.split(folded):
        still = bool(STILL.search(clause))
        if still:
            note.kept.update(tokenize(clause, stemmer))
        for slot in OLD_SLOT.finditer(clause):
            note.gone.update(tokenize(next((g for g in slot.groups() if g), ""), stemmer))
        if not GONE_WORDS.search(clause):  # "switched to UTC": UTC is no old value
            for slot in NEW_SLOT.finditer(clause):
                note.new.update(tokenize(slot.group(1), stemmer))
        cues = list(CUE.finditer(clause))
        for m in cues:
            note.cues.update(tokenize(m.group(), stemmer))
        cue = cues[0] if cues else None
        if cue is None:
            if said and not still and REASON.search(clause):  # "; Clerk could not keep up"
                note.changed.update(tokenize(clause, stemmer))
            said = False
            continue
        said = not (FUTURE.search(clause) or NOT_DONE.search(clause, 0, cue.end()))
        if said:
            note.changed.update(tokenize(clause, stemmer))
            for slot in [*NEW_SLOT.finditer(clause, cue.start()),
                         *NEW_PLACE.finditer(clause, cue.start())]:
                # a value may be of several words: "to Node 22", "a Grafana Loki"
                value = " ".join(clause[slot.start(1):slot.start(1) + 60].split()[:3])
                note.moved_to.update(tokenize(value, stemmer))
    note.moved_to &= note.names
    note.parts -= note.whole
    for m in WAY.finditer(text):
        if set(tokenize(m.group(2), stemmer)[:1]) & note.names:
            note.ways.update(tokenize(m.group(1), stemmer))
    note.ways -= note.names  # ("Fly" of "Fly Machines" is the value, not how it serves)
    return note


@functools.lru_cache(maxsize=8)
def _use_verbs(stemmer: str) -> frozenset[str]:
    return frozenset(tokenize(USE_VERBS, stemmer))


def changes_first(hits: list[Hit], *, terms: set[str], stemmer: str,
                  saved_at: Callable[[str], str], excerpt: Callable[[Hit], str],
                  facts_of: Callable[[str], frozenset[str]]) -> list[Hit]:
    """``hits`` with each later memory that says it changed an earlier one right before
    that one, which is flagged outdated (see the module docstring). ``terms``: the query's
    index terms; ``saved_at(id)``: when a memory was saved (orders a same-day pair);
    ``excerpt(hit)``: the later memory as the flag quotes it; ``facts_of(id)``: the
    timeline's ``subject::attribute`` keys a memory states."""
    look = [h for h in hits[:WINDOW] if h.matched]
    # Most answers hold no word of change: their excerpts (no leaf read) say so.
    if len(look) < 2 or not any(CUE.search(fold(h.excerpt or h.title)) for h in look):
        return hits
    notes = {h.id: _read(h.text, stemmer) for h in look}
    if not any(n.changed for n in notes.values()):
        return hits
    days = [h.date or "" for h in look]
    tied = {d for d in days if days.count(d) > 1}  # only a same-day pair needs the hour
    when = {h.id: (h.date or "", saved_at(h.id) if (h.date or "") in tied else "")
            for h in look}
    # (of a same-second pair, the one saying a change is taken as the later)
    order = sorted(look, key=lambda h: (when[h.id], bool(notes[h.id].changed)))
    out = list(hits)
    for i, new in enumerate(order):
        n = notes[new.id]
        if not n.changed or new.outdated:
            continue
        for old in order[:i]:
            o = notes[old.id]
            # Two memories the timeline holds as statements of one attribute about two
            # subjects are about two things ("the Vega service switched its login to
            # Auth0" is no news of Delta's); of one subject, the timeline links them.
            attrs = {k.split("::", 1)[-1] for k in facts_of(old.id)}
            if attrs & {k.split("::", 1)[-1] for k in facts_of(new.id)}:
                continue
            # Saved in the same second (a paste of notes): the one saying a change is the
            # later, unless both say one.
            later = when[old.id] < when[new.id] or (when[old.id] == when[new.id]
                                                   and not o.changed)
            # (one project's change says nothing of another's memory, nor of the user's)
            both = set(old.matched) & set(new.matched)
            if old.outdated or not later or old.scope != new.scope or not both:
                continue
            # The subject: a word of the question both match that is no value of either
            # and no word of change, said as a word of its own in both ("billing"; not
            # "Cloud" of "Cloud Run" or of "CloudFormation", which two decisions about two
            # services may both name, nor their "instead").
            subject = both & o.whole & n.whole
            if not subject - (o.values | n.values | o.gone | n.gone | o.cues | n.cues):
                continue
            values = (o.words & n.changed) - terms - n.kept - o.gone - n.new
            # A value said where the old one stands ("from yarn"), or a name of both that
            # the later memory replaces with a name of its own: a memory naming only what
            # the earlier one named ("now that billing runs on Postgres ...") confirms it.
            fresh = n.names - o.words - terms
            if not (values & n.gone or (fresh and values & (o.names | n.names))):
                # Said without the old value ("deploys migrated to GitHub Actions"): about
                # the same thing (a word both matched, inside the change, that is no verb of
                # use), a name of its own where the new value stands, the earlier memory
                # naming one the later does not, and no plan, attempt or wish anywhere in
                # the later ("probamos a mover X a Y y lo revertimos"). The later comes
                # first, and the earlier is flagged "possibly changed": nothing says which
                # value went away, but no longer a rival answer.
                # And every query word the earlier matched, the later matches too, but for
                # verbs of use and the word that says how the earlier's value serves ("se
                # generan con X"): "the Harbor search service was migrated to X" is no
                # news of the Harbor *billing* service's port.
                # (The earlier's own words: a version that changed one before it carries
                # that one's matched words too; and not a word found only inside one of its
                # names, "ci" of "CircleCI", which is its value matching, not its subject.)
                uses = _use_verbs(stemmer)
                subject = set(old.matched) & set(new.matched) & n.changed
                if (not n.hedged and subject - uses
                        and not (set(old.matched) & o.words) - set(new.matched) - uses - o.ways
                        - o.parts
                        and (n.moved_to & fresh) - n.kept and o.names - n.words - terms):
                    old.superseded_by = new.id
                    # Flagged only on firmer ground: two subject words in common, or the
                    # question asks by the very word that says how the earlier's value
                    # serves ("¿dónde corren los workers?" of "los workers corren en Fly").
                    # "We write docs in Markdown" is no version of "we moved the docs to
                    # Netlify": it only follows it.
                    if len(subject - uses) >= 2 or (o.ways & set(old.matched)) - subject:
                        old.outdated = True
                        old.notices.append(f"possibly changed by a later memory ({new.id}, "
                                           f"{new.date or 'undated'}): {excerpt(new)}")
                    if out.index(new) > out.index(old):
                        out.remove(new)
                        out.insert(out.index(old), new)
                        new.score = max(new.score, old.score * 1.01)
                continue
            old.outdated = True
            old.superseded_by = new.id
            old.notices.append(f"changed by a later memory ({new.id}, "
                               f"{new.date or 'undated'}): {excerpt(new)}")
            # The later version answers what the earlier one matched (as a correction
            # does: ihmt.search.answer.corrections_first).
            new.matched = list(dict.fromkeys([*new.matched, *old.matched]))
            if out.index(new) > out.index(old):
                out.remove(new)
                out.insert(out.index(old), new)
                new.score = max(new.score, old.score * 1.01)
    return out


def quote(hit: Hit) -> str:
    """How a flag quotes the memory that changed it."""
    return clip_shown(hit.text, 120)
