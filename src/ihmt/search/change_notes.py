"""What the rule "a change said in words leads what it changed" (:mod:`ihmt.search.changes`)
reads of one memory: its names and values, the clauses that say a change, where the old
and the new value stand, and whether anything in it is a plan, an attempt or a wish.

Kept apart from the rule so that the reading (one pass over the words, the lexicon of
:mod:`ihmt.search.change_words`) and the decisions made with it can be read on their own.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from ..lazy_re import lazy
from ..text import fold, tokenize
from .aliases import canon
from .change_figures import BARE, figures_of, number
from .change_states import (
    NAMING,
    RENAMED,
    STATE_GENERIC,
    STATE_QUALIFIERS,
    STATE_VALUE_END,
    STATE_VALUE_WORDS,
    STATES,
)
from .change_words import (
    ABBREVIATIONS,
    BACK_VERB,
    CALENDAR,
    CLAUSE,
    CONSEQUENCE,
    CUE,
    DEFINES,
    FUTURE,
    GONE_WORDS,
    NEW_AHEAD,
    NEW_PLACE,
    NEW_SLOT,
    NOT_DONE,
    NOW_CUES,
    OLD_SLOT,
    REASON,
    REVERT,
    STILL,
    TROUBLE,
    USE_VERBS,
    WAY,
    hedged,
)
from .kinds import PRODUCT_WORDS

# Weekdays and months are values though Spanish writes them in lower case ("lunes").
_DAYS_AND_MONTHS = CALENDAR - {"may"}  # (English "may" is a verb)
_WORD_VALUES = _DAYS_AND_MONTHS
# Months as notes shorten them ("Nov 15", "3 ene"): a month, each ("may" is one already).
_SHORT_MONTHS = ("jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov",
                 "dec", "ene", "abr", "ago", "dic")
_DAY_AFTER = re.compile(r"\s*(\d{1,2})\b")
# (a month right after a day: "25 September", "3rd of May", "9 de septiembre")
_MONTH_AFTER = re.compile(r"(?:st|nd|rd|th)?\s+(?:de\s+)?(?:" + "|".join(_SHORT_MONTHS)
                          + r"|may)[a-z]*\b")


@functools.lru_cache(maxsize=4)
def calendar_terms(stemmer: str) -> frozenset[str]:
    """The index terms of the weekdays and months (:data:`CALENDAR`)."""
    return frozenset(t for w in CALENDAR for t in tokenize(w, stemmer)[:1])


@functools.lru_cache(maxsize=4)
def _date_words(stemmer: str) -> frozenset[str]:
    """:func:`calendar_terms` and the short forms of the months."""
    return calendar_terms(stemmer) | {t for w in _SHORT_MONTHS for t in tokenize(w, stemmer)[:1]}

_COLON = re.compile(r"\s*:")
_PRONOUNS = frozenset("i me my mine we us our you your he him his she her it its they them "
                      "their this that yo mi mis tu nosotros nuestro nuestra el ella ellos "
                      "ellas esto eso".split())
_NEGATED = re.compile(r"\s*(?i:not|no|never|nunca|ni)\b")
_WORD = re.compile(r"[#@]?[\w][\w.+#-]*")  # ("#general", "@ops": a channel, a handle)
# Where a sentence starts again, so that its first word is capitalised anyway. Not after
# a semicolon: there a capital is a name ("Lena moved to the platform team; Tomasz leads
# payments now").
_SENTENCE_END = re.compile(r"[.!?:\n]\s*$")


@dataclass(frozen=True)
class State:
    """A value a sentence states of a thing: "Our CDN is CloudFront" is the thing {cdn},
    the value {cloudfront}, and no other words of the value."""

    subject: frozenset[str]  # the thing's terms, without "new", "default", "again" ...
    value: frozenset[str]  # the value's terms that read as values: names, figures, periods
    rest: frozenset[str]  # the value's other terms before it ("written" of "written in Go")


@dataclass
class Note:
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
    initial: set[str] = field(default_factory=set)  # terms of the first words of its
    #   sentences: a name where another memory writes it capitalised inside a sentence
    #   ("Nginx is our reverse proxy"), a value where a later memory says it went away
    seq: list[str] = field(default_factory=list)  # its words' first terms, in order (a
    #   stop word leaves no term; "" where a phrase ends)
    defines: bool = False  # its first clause says what a thing is ("Our CDN is Akamai")
    slots: set[str] = field(default_factory=set)  # terms said where a value stands ("is
    #   yarn", "with black", "on Fly"): what may be a value though written in lower case
    reverts: set[str] = field(default_factory=set)  # the terms of a value it says was
    #   taken up again ("went back to bash": {"bash"})
    of: set[tuple[str, str]] = field(default_factory=set)  # a word and the word that
    #   qualifies it after "de" or "of" ("servicio de notificaciones": ("servicio",
    #   "notificacion")), as Spanish writes what English puts before a noun
    idents: set[str] = field(default_factory=set)  # its words of several parts, folded
    #   ("orders-db", "pedidos-entrantes-dlq", "api.internal")
    only: set[str] = field(default_factory=set)  # the thing it says a change holds for
    #   alone ("only in staging", "solo en preproducción": {"stage"})
    renamed: set[str] = field(default_factory=set)  # the terms of a name it says was
    #   changed ("renamed notifier -> herald": {"notifier"}); the new name is a value
    states: list[State] = field(default_factory=list)  # the values it states of things
    changed_figures: set[tuple[str, str]] = field(default_factory=set)  # the figures
    #   of its clauses saying a change
    figures: set[tuple[str, str]] = field(default_factory=set)  # (number, unit term):
    #   "kept for 30 days" is ("30", "day")
    named: set[tuple[str, str]] = field(default_factory=set)  # the figures numbered by
    #   the word before them: "port 5433", "the port is 6432" ("5433", "port")

    @property
    def says_change(self) -> bool:
        """A clause of it says a change that is no plan, attempt or wish."""
        return bool(self.changed)

    def current(self) -> set[str]:
        """The values it holds as in force: its names but those said to be gone."""
        return self.values - self.gone


# Where a value stands after a verb of being or a preposition of means ("is yarn", "with
# black", "on Fly", "es Redis", "con Jest").
_SLOT = re.compile(
    r"\b(?:(?:is|are|was|were|se)\s+(?:called|named|llama)|is|are|was|were|on|in|with|by|via"
    r"|through|using|to|at|for|es|son|era|en|con|por|called|named|llamad[oa])"
    r"\s+(?:the\s+|a\s+|an\s+|our\s+|el\s+|la\s+|los\s+|las\s+)?([\w][\w.+#-]*)")


# a compound that ends as a participle describes: "hand-painted", "self-hosted"
_PARTICIPLE = re.compile(r"-\w*(?:ed|ing|en|wn)$")


# A word qualified by the one after "de"/"of": "el servicio de notificaciones", "the team
# of payments" (folded text).
# (the qualifier is looked ahead at: it may head the next pair, "retención de logs de prod")
_OF = re.compile(r"\b(\w[\w-]*)\s+(?:de|del|of)\s+(?:la\s+|el\s+|los\s+|las\s+|the\s+)?"
                 r"(?=(\w[\w-]*))")


# What a change is said to hold for alone: "only in staging", "just for the EU cluster",
# "solo en preproducción", "únicamente para los clientes nuevos", "- staging only" (folded
# text).
_ONLY = re.compile(
    r"\b(?:only|just|solo|solamente|unicamente|exclusivamente)\s+(?:in|on|at|for|en|para)"
    r"\s+(?:the\s+|our\s+|el\s+|la\s+|los\s+|las\s+|nuestro\s+|nuestra\s+)?"
    r"([\w][\w.+#-]*)"
    # or said after it: "- staging only", "(for staging only)", "en staging solamente"
    r"|(?:[-\u2013\u2014,;(]\s*|\b(?:in|on|for|en|para)\s+)(?:the\s+|el\s+|la\s+)?"
    r"([\w][\w.+#-]*)\s+(?:only|solo|solamente|unicamente)\b"
    r"(?!\s+(?:in|on|at|for|en|para)\b)")


_ANAPHOR = re.compile(r"\b(?:it|they)\b")  # (folded: a clause that names its thing so)
_FROM_DE = re.compile(r"(?:from|de)\s")
# after "from X": the place a change put it ("went from X to Y", "de X a Y")
_FROM_TO = lazy(r"(?:\s+[\w.+#-]+){0,2}\s+(?:to|into|onto)\b")


# A determiner, a preposition or a mark of punctuation ends the phrase a word that
# qualifies a subject stands in (:attr:`Note.seq`): a qualifier stands right before its
# noun ("the admin API"); "ownership of search" or "la instancia de producción" name the
# thing itself, not another one of its kind.
_DETERMINERS = frozenset("the a an our my your their its this that these those el la los las "
                         "un una unos unas nuestro nuestra nuestros nuestras mi mis su sus "
                         "este esta estos estas".split())
_PREPOSITIONS = frozenset("of for from about de del para desde sobre".split())
_PHRASE_ENDS = _DETERMINERS | _PREPOSITIONS
_BREAK = re.compile(r"[,;:.!?()\[\]\n]|\s[-\u2013\u2014]+\s")  # (a dash between two words, too)
# A host or a file name written in lower case: "panel.ejemplo.net", "settings.toml" (not
# "e.g." or "i.e.": every part has two characters or more).
_DOTTED = re.compile(r"[\w-]{2,}(?:\.[\w-]{2,})+")
# A file system path: "/mnt/exports", "~/.config/nvim", "src/app/main.py" (not "and/or",
# "km/h": a part of three characters or more, or a leading slash).
_PATH = re.compile(r"(?<![\w/])(?:~|\.{1,2})?/[\w.-]+(?:/[\w.-]+)*"
                   r"|(?<![\w/])[\w.-]{3,}(?:/[\w.-]+)+")
# (one plain word: a quoted identifier of several parts, "`api-docs`", names a thing of its
# own beside "`api`", which the rule of siblings must still see)
_QUOTED = re.compile(r"(?<![\w'])['\"`‘“](\w+)['\"`’”](?![\w'])")


_LABEL_VALUE_END = re.compile(r"\s*(?:[.;,)]|$)|\s+\d")


def read_note(text: str, stemmer: str) -> Note:
    """Read ``text`` once: see :class:`Note`."""
    note = Note(words=set(tokenize(text, stemmer)))
    before = 0  # where the previous word starts: it and the gap after it end the prefix
    end = 0  # where the previous word ends
    for m in _WORD.finditer(text):
        w = m.group()
        fw = fold(w)
        terms = tokenize(w, stemmer)
        whole = terms[:1]  # "OpenSearch" is one name, not "search"
        note.whole.update(whole)
        if "-" in w.strip("-") and not _PARTICIPLE.search(w):
            # but the words of a name such as "ingest-worker" are words of their own (not
            # those of a word that describes: "hand-painted", "long-running")
            note.whole.update(terms[1:])
        if any(c in w.strip("-_.") for c in "-_."):
            note.idents.add(fw.strip("-_."))
        if note.seq and note.seq[-1] and (_BREAK.search(text, end, m.start())
                                          or fw in _PHRASE_ENDS):
            # a phrase ends: "After the re-org, billing ...", "after the load tests the
            # reporting service ..." (a word that qualifies a subject stands right before it)
            note.seq.append("")
        note.seq.extend(whole)
        end = m.end()
        start = m.start() == 0 or (bool(_SENTENCE_END.search(text, before, m.start()))
                                   and not _abbreviation(text, before, m.start()))
        before = m.start()
        if start and not w[:1].isdigit():  # (capitalised anyway, or a name written in
            note.initial.update(whole)      # lower case: "pnpm es el gestor ...")
        # a label's value: a capital right after a colon, alone in its clause or before a
        # version ("Tech lead for payments: Rui.", "Task tracker: Jira, board PLAT", "unit
        # tests: Jest 29")
        labelled = start and w[0].isupper() and text[:m.start()].rstrip().endswith(":") \
            and bool(_LABEL_VALUE_END.match(text, m.end()))
        if any(c.isdigit() for c in w) or any(c.isupper() for c in w[1:]) or \
                (w[0].isupper() and (not start or labelled)) or fw.rstrip(".") in _WORD_VALUES \
                or w[0] in "#@" or _DOTTED.fullmatch(w.rstrip(".")):
            note.names.update(whole)
            note.parts.update(terms[1:])
            if not (w.isupper() and len(w) <= 4):  # "CI", "API", "DB" may be a subject
                note.values.update(whole)
        elif fw in PRODUCT_WORDS:  # a product of the lexicon of kinds, in lower case ("drop
            # prettier, use biome"): a name the later memory may let go, though it may be
            # the subject too ("raised the openai hard limit"), so no value of its own
            note.names.update(whole)
    for m in _PATH.finditer(text):  # a path names a place: "/mnt/exports", "src/app" (its
        # words may still be the subject two paths share: "exports")
        note.names.update(tokenize(m.group(), stemmer))
    for m in _QUOTED.finditer(text):  # a word in quotes is a name: "called 'herald'"
        whole = tokenize(m.group(1), stemmer)[:1]
        note.names.update(whole)
        note.values.update(whole)
    folded = fold(text)
    if not FUTURE.search(folded) and not NOT_DONE.search(folded):
        for m in RENAMED.finditer(folded):  # a new name whatever its case
            note.renamed.update(tokenize(m.group(1) or m.group(3), stemmer)[:1])
            new = tokenize(m.group(2) or m.group(4), stemmer)[:1]
            note.names.update(new)
            note.values.update(new)
            note.moved_to.update(new)
    for m in _OF.finditer(folded):
        head, qual = tokenize(m.group(1), stemmer)[:1], tokenize(m.group(2), stemmer)[:1]
        if head and qual:
            note.of.add((head[0], qual[0]))
    for m in _ONLY.finditer(folded):
        note.only.update(tokenize(m.group(1) or m.group(2), stemmer)[:1])
    note.defines = bool(DEFINES.search(re.split(r"[.;!?\n]", text, maxsplit=1)[0]))
    for m in _SLOT.finditer(folded):
        note.slots.update(tokenize(m.group(1), stemmer)[:1])
    note.hedged = hedged(folded)
    said = False  # the clause before said a change
    reason: list[str] = []  # the terms of a clause of no change that a consequence follows
    last: list[str] = []  # the terms of the clause before
    for clause, after in _clauses(folded):
        before, last = last, tokenize(clause, stemmer)
        figures, named = figures_of(clause, stemmer)
        note.figures |= figures
        note.named |= named
        st = STILL.search(clause)
        # ("fine" after a change said it is the new rule: "relaxed the Friday rule: deploys
        # are fine on Fridays until 2pm")
        still = st is not None and not (st.group() == "fine" and CUE.search(clause, 0,
                                                                             st.start()))
        if still:
            note.kept.update(_kept_part(clause, st.start(), stemmer) or last)
        for slot in OLD_SLOT.finditer(clause):
            if slot.group().startswith("from") and not CUE.search(clause) and \
                    not _FROM_TO.match(clause, slot.end()):
                continue  # "we serve the docs from Netlify": a source, not a value let go
            gone = tokenize(next((g for g in slot.groups() if g), ""), stemmer)
            dated = _MONTH_AFTER.match(clause, slot.end()) is not None and \
                all(g.isdigit() and len(g) <= 2 for g in gone)  # ("from 25 September")
            if gone and (dated or set(gone) <= _date_words(stemmer)):
                # a date: "from Nov 15 to Nov 22" lets the 15th go, not November; "from
                # October 25 for 15 days" is when a period starts, nothing let go
                if not _FROM_TO.match(clause, slot.end()):
                    continue
                day = _DAY_AFTER.match(clause, slot.end())
                gone = [day.group(1)] if day is not None else gone
            note.gone.update(gone)
        if not GONE_WORDS.search(clause):  # "switched to UTC": UTC is no old value
            for slot in NEW_SLOT.finditer(clause):
                note.new.update(tokenize(slot.group(1), stemmer))
        cues = list(CUE.finditer(clause))
        for m in cues:  # the words that say it, not what stands between them ("handed
            # the team over to", "migración del correo ... completada"); nor what follows
            # "from" or "de" ("de staging bajada a": the old value, or a qualifier)
            if not _FROM_DE.match(m.group()):
                note.cues.update(tokenize(m.group(), stemmer)[:1])
        cue = cues[0] if cues else None
        if cue is None:
            if said and not still and REASON.search(clause):  # "; Clerk could not keep up"
                note.changed.update(last)
            said = False
            reason = last if after and CONSEQUENCE.fullmatch(after) \
                and not still else []
            continue
        said = not (FUTURE.search(clause) or NOT_DONE.search(clause, 0, cue.end()))
        if said and reason:
            # The reason said before the change ("SQS could not keep the order, so events
            # go through Kafka now"): it belongs to the change, and a name it holds that the
            # change does not is the value let go.
            note.changed.update(reason)
            note.gone.update(set(reason) & note.names - set(last))
        reason = last if after and CONSEQUENCE.fullmatch(after) and \
            not said and not still else []
        if said:
            note.changed.update(last)
            if _ANAPHOR.search(clause):
                # the thing changed is named in the clause before ("Monday planning never
                # worked. From now on it happens Thursday afternoons")
                note.changed.update(before)
            note.changed_figures |= figures
            # a number said alone in the change, of a thing the clause names ("subimos el
            # pool de conexiones a cincuenta"): a figure of each word of the clause
            if not figures:
                bare = {number(b.group()) for b in BARE.finditer(clause)}
                note.changed_figures |= {(x, t) for x in bare if x.isdigit()
                                         for t in last}
            # (after a word of "now" the value may stand before it: "we're on Mattermost
            # these days")
            if NOW_CUES.search(clause):  # every name of the clause may be the new value
                note.moved_to.update(last)
            for slot in [*NEW_SLOT.finditer(clause, cue.start()),
                         *NEW_PLACE.finditer(clause, cue.start())]:
                # a value may be of several words: "to Node 22", "a Grafana Loki"
                value = " ".join(clause[slot.start(1):slot.start(1) + 60].split()[:3])
                note.moved_to.update(tokenize(value, stemmer))
            for slot in NEW_AHEAD.finditer(clause):  # a name, wherever it stands
                # ("Renovate took over dependency updates")
                ahead = tokenize(slot.group(1), stemmer)[-1:]
                note.moved_to.update(ahead)
                note.names.update(ahead)
                note.values.update(ahead)
    if not note.hedged:
        _trouble(folded, note, stemmer)
    note.moved_to &= note.names
    note.reverts = _reverts(folded, note, stemmer)
    note.states = states_of(text, stemmer)
    note.parts -= note.whole
    for m in WAY.finditer(text):
        if set(tokenize(m.group(2), stemmer)[:1]) & note.names:
            note.ways.update(tokenize(m.group(1), stemmer))
    note.ways -= note.names  # ("Fly" of "Fly Machines" is the value, not how it serves)
    return _canonical(note, stemmer)


_TERM_SETS = ("words", "names", "values", "changed", "kept", "gone", "new", "cues", "whole",
              "moved_to", "parts", "ways", "initial", "slots", "reverts", "renamed", "only")


def _canonical(note: Note, stemmer: str) -> Note:
    """``note`` with the words of one group of :mod:`ihmt.search.aliases` as one word: "prod"
    and "production" are the same subject, "pg" and "postgres" the same value."""
    for name in _TERM_SETS:
        setattr(note, name, {canon(t, stemmer) for t in getattr(note, name)})
    note.seq = [canon(t, stemmer) for t in note.seq]
    note.of = {(canon(a, stemmer), canon(b, stemmer)) for a, b in note.of}
    note.states = [State(frozenset(canon(t, stemmer) for t in st.subject),
                         frozenset(canon(t, stemmer) for t in st.value),
                         frozenset(canon(t, stemmer) for t in st.rest)) for st in note.states]
    note.figures = {(x, canon(u, stemmer)) for x, u in note.figures}
    note.changed_figures = {(x, canon(u, stemmer)) for x, u in note.changed_figures}
    note.named = {(x, canon(u, stemmer)) for x, u in note.named}
    return note


def _trouble(folded: str, note: Note, stemmer: str) -> None:
    """A state said with the trouble the old value gave (see
    :data:`ihmt.search.change_words.TROUBLE`): the names of the trouble are gone, the
    state before it is the change, and its own names the new value."""
    for m in TROUBLE.finditer(folded):
        gone = set(tokenize(m.group("what") or m.group("what2") or "", stemmer)) & note.names
        if not gone:
            continue
        start = max(folded.rfind(c, 0, m.start()) for c in ".;!?\n") + 1
        state = set(tokenize(folded[start:m.start()], stemmer))
        if not state & note.names - gone:  # "the Heroku outages were bad": no new value
            continue
        said = tokenize(m.group(), stemmer)
        note.gone |= gone
        note.changed |= state | set(said)
        note.cues.update(said[:1])
        note.moved_to |= (state & note.names) - gone


_REVERT_STOP = frozenset("""after because since when as once until for due
    tras porque desde cuando como hasta por despues después""".split())


# a denial right before "back to": "not going back to", "never coming back to", "no vuelvo a"
_NOT_BACK = re.compile(r"\b(?:not|never|no|nunca)\s+(?:\w+\s+)?(?:" + BACK_VERB + r"\s+)?$")


def _reverts(folded: str, note: Note, stemmer: str) -> set[str]:
    """The terms of the values ``folded`` says were taken up again (see
    :data:`ihmt.search.change_words.REVERT`): the words right after "back to", "volví a"
    (up to three, to the end of the phrase or a word that gives a reason or a time), or
    the names and value slots of the phrase that says "again". Not in a phrase of plans, wishes or attempts, nor in a question
    ("should we go back to Jenkins?")."""
    out: set[str] = set()
    for m in REVERT.finditer(folded):
        start = max(folded.rfind(c, 0, m.start()) for c in ",;.:!?\n") + 1
        ends = [i for i in (folded.find(c, m.end()) for c in ",;:(!?\n") if i >= 0]
        dot = re.search(r"\.(?:\s|$)", folded[m.end():])
        end = min(ends + ([m.end() + dot.start()] if dot else []) + [len(folded)])
        phrase = folded[start:end]
        if "?" in folded[m.end():end + 1] or NOT_DONE.search(phrase) or FUTURE.search(phrase):
            continue
        if _NOT_BACK.search(folded, max(start, m.start() - 30), m.start()):
            continue  # "not going back to zsh": the value left for good
        if m.group(1):  # (up to a reason or a time: "back to X after Y kept failing")
            words = folded[m.end():end].split()[:3]
            cut = next((i for i, w in enumerate(words) if w in _REVERT_STOP), len(words))
            out.update(whole_terms(" ".join(words[:cut]), stemmer))
        else:
            out.update(set(tokenize(phrase, stemmer)) & note.names)
    return out - use_verbs(stemmer)


def whole_terms(text: str, stemmer: str) -> list[str]:
    """The first term of each word of ``text``, in order: "RabbitMQ" is "rabbitmq", not
    also "rabbit" and "mq" (a name's parts are no words of their own)."""
    return [t for w in _WORD.findall(text) for t in tokenize(w, stemmer)[:1]]


def _clauses(folded: str) -> list[tuple[str, str]]:
    """The clauses of a folded text, each with the mark that ends it ("" for the last)."""
    out, pos = [], 0
    for m in CLAUSE.finditer(folded):
        out.append((folded[pos:m.start()], m.group()))
        pos = m.end()
    out.append((folded[pos:], ""))
    return out


def states_of(text: str, stemmer: str) -> list[State]:
    """The value ``text`` states of a thing in its first sentence, if any (see
    :data:`ihmt.search.change_states.STATES`): what a memory is about (a later sentence of a
    chat line, "… The book is Dune.", is talk about something else). A value must hold a
    name, a figure or a period: "The API is fast" states nothing this rule can compare."""
    sentence = _first_sentence(text)
    if sentence.rstrip().endswith("?"):  # a question states nothing
        return []
    named = NAMING.search(sentence)
    if named:  # "is named atlas", "renamed ... to hermes": the name whatever its case
        subject = frozenset(t for t in tokenize(named.group("subj") or named.group("subj2")
                                                 or named.group("subj3"), stemmer)
                            if t not in _QUALIFIER_TERMS(stemmer))
        value = frozenset(tokenize(named.group("val") or named.group("val2")
                                   or named.group("val3"), stemmer)[:1])
        if subject and value and not subject & _GENERIC_TERMS(stemmer) and \
                not _NEGATED.match(sentence, named.start("val") if named.group("val") else 0):
            return [State(subject, value, frozenset())]
    m = STATES.search(sentence)
    if m is None:
        return []
    subj = m.group("subj") or m.group("subj2") or m.group("subj3") or m.group("subj4") or ""
    raw = STATE_VALUE_END.split(m.group("val") or m.group("val2") or m.group("val3")
                                or m.group("val4") or "", maxsplit=1)[0]
    if _NEGATED.match(raw):  # "is not Auth0" says what it is not
        return []
    subject = frozenset(t for t in tokenize(subj, stemmer) if t not in _QUALIFIER_TERMS(stemmer))
    if not subject or subject & _GENERIC_TERMS(stemmer) or len(raw.split()) > 8:
        return []
    # "Password manager: LastPass" states a value; "Caroline: I went to the park", a line
    # of a chat, does not: after a colon the value is a few words, no pronoun, its first
    # word is capitalised anyway, and one capitalised word before the colon is who speaks
    # ("Mel: Hey Caro!"), not a thing ("CI: …").
    labelled = bool(m.group("val")) and _COLON.match(sentence, m.end("subj"))
    name = subj.split()
    if labelled and (len(raw.split()) > 3 or any(fold(w) in _PRONOUNS for w in raw.split())
                     or (len(name) == 1 and name[0][:1].isupper() and not name[0].isupper())):
        return []
    value, rest = set(), set()
    raw_words = _WORD.findall(raw)
    for i, w in enumerate(raw_words):
        terms = tokenize(w, stemmer)[:1]
        word = fold(w).rstrip(".")
        marked = any(c.isdigit() for c in w) or any(c.isupper() for c in w[1:]) or \
            bool(_DOTTED.fullmatch(w.rstrip(".")))
        if labelled and i == 0 and not marked and len(raw.split()) > 1 and \
                not (w[:1].isupper() and len(raw_words) > 1
                     and any(c.isdigit() for c in raw_words[1])):
            # (after a colon a first word is capitalised anyway: "Docs: Hosted on Render";
            # a value of one word is the value, "Default browser: Chrome"; a capital before
            # a version is a name, "Unit tests: Jest 29")
            rest.update(terms)
        elif word in ABBREVIATIONS:  # "Dr." is no value: "Dr. Osei" is "Osei"
            continue
        elif marked or w[:1].isupper() or word in STATE_VALUE_WORDS or word in _WORD_VALUES:
            value.update(terms)
        elif labelled and len(raw.split()) == 1:  # "Default shell: fish", "Linter: ruff"
            value.update(terms)
        elif m.group("val") and not value:  # how the value serves, said before it
            # ("written in Go"; not "at the clinic" after "Dr. Osei", nor "I use" of "I use
            # Chrome as my browser")
            rest.update(t for t in terms if t not in _QUALIFIER_TERMS(stemmer))
    return [State(subject, frozenset(value), frozenset(rest))] if value else []


def _kept_part(clause: str, at: int, stemmer: str) -> list[str]:
    """The terms of the comma-set part of ``clause`` that holds the "still" at ``at``, where
    another part says a change: "subido vite a la 6.0, react sigue en 18" keeps React, not
    Vite. ([] where the clause is one part, or says no change but there.)"""
    parts = [(m.start(), m.end()) for m in re.finditer(r"[^,]+", clause)]
    if len(parts) < 2:
        return []
    here = next((a, b) for a, b in parts if a <= at < b)
    if not any(CUE.search(clause, a, b) for a, b in parts if (a, b) != here):
        return []
    return tokenize(clause[here[0]:here[1]], stemmer)


def _first_sentence(text: str) -> str:
    """``text`` up to where its first sentence ends (not after "Dr." or an initial), the
    mark kept ("?" says a question)."""
    for m in re.finditer(r"[.;!?]+\s+|\n+", text):
        if text[m.start()] == "." and _abbreviation(text, _word_start(text, m.start()),
                                                    m.start() + 1):
            continue
        if text[:m.end()].strip():
            return text[:m.end()]
    return text


def _word_start(text: str, end: int) -> int:
    """Where the word ending at ``end`` starts."""
    i = end
    while i > 0 and not text[i - 1].isspace():
        i -= 1
    return i


@functools.lru_cache(maxsize=8)
def _QUALIFIER_TERMS(stemmer: str) -> frozenset[str]:  # noqa: N802 (a constant, cached)
    return frozenset(t for w in STATE_QUALIFIERS for t in tokenize(w, stemmer)) | \
        frozenset(STATE_QUALIFIERS)


@functools.lru_cache(maxsize=8)
def _GENERIC_TERMS(stemmer: str) -> frozenset[str]:  # noqa: N802 (a constant, cached)
    return frozenset(t for w in STATE_GENERIC for t in tokenize(w, stemmer))


def _abbreviation(text: str, start: int, end: int) -> bool:
    """Whether the dot between ``start`` and ``end`` closes a title or an initial."""
    word = text[start:end].split(".", 1)[0].strip()
    return fold(word) in ABBREVIATIONS or (len(word) == 1 and word.isalpha())


@functools.lru_cache(maxsize=8)
def use_verbs(stemmer: str) -> frozenset[str]:
    """:data:`ihmt.search.change_words.USE_VERBS` as index terms."""
    return frozenset(tokenize(USE_VERBS, stemmer))
