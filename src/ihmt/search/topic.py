"""Versions of one topic for a question about the user's own state, found by vocabulary.

"Where do I work?" shares no word with "Today was my first day at Initrode", and an
extraction rule for every way of announcing a new job will never be complete. So a
question about a tracked attribute (:func:`ihmt.search.intent.fact_intent`) is answered
from a *version group*: every dated memory that speaks about that attribute, found

- from the fact timeline (the memories that stated a value of ``user::<attribute>``), and
- by a second exact descent over the attribute's vocabulary (:data:`VOCABULARY`: the words
  people use when they talk about a job, a home, a manager ... in English and Spanish,
  not phrases), keeping memories that hold at least one of those words.

The timeline is one source among two, never a short cut: a newer memory that talks about
the same thing joins the group even when no rule extracted a fact from it.

Memories that only mention a value in passing or reject it are left out of the group:
rejections, plans and hypotheticals ("turned the offer down", "decided against", "we might
move"), things seen or read about ("saw an ad for ...", "read an article about ..."),
someone else's state ("helped a friend move to Berlin", "Jonas sold his bike"), memories
about another thing of the kind (:data:`ihmt.search.topic_words.ELSEWHERE`: the dentist for
the family doctor), and memories whose topic word is qualified as former ("my old
colleagues"; not "replaced my old machine with ...", a change).

The user's things and services (:data:`ihmt.search.topic_words.THINGS`: laptop, phone,
car, gym, bank ...) are named in passing by any note, so their group answers only where
its newest member that may lead is its only one or says a change done
(:func:`sure_of_thing`).

Within the group the newest memory leads a question that names no period; a question
naming a time gets the memory in force at its end. The others follow, newest first, marked
as possibly outdated with the date and words of the memory that leads. The confidence is
high when the timeline's current value comes from the leading memory (or the timeline
knows nothing), lower when the two disagree, so the agent is told to check.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from ..model import Hit
from ..text import clip_shown, fold, tokenize
from .change_notes import read_note, use_verbs
from .change_words import CALENDAR, only_plans
from .topic_words import (
    AMBIGUOUS,
    CHANGE,
    ELSEWHERE,
    FORMER,
    MEDIA,
    OTHERS,
    PERSONAL,
    REJECT,
    THINGS,
    TOOL_ATTRIBUTES,
    VALUE_SHAPE,
    VALUE_WORDS,
    VOCABULARY,
    WEAK,
    about_me,
    in_context,
    mere_mention,
    others_role,
    someone_elses,
    speaks_of_going,
    theirs,
)

LEAD_AGREES = 0.9  # confidence when the timeline's current value is the leading memory's
LEAD_DISAGREES = 0.6  # ... when a newer memory than the timeline's source leads
NOTHING_THEN = 0.5  # a question about a time before every member: the earliest, said so
MAX_GROUP = 30


def vocabulary_terms(attribute: str, stemmer: str) -> list[str]:
    """The attribute's words as the index holds them (stemmed), its ambiguous product
    names included (:data:`AMBIGUOUS`: a memory joins by one only where it is a tool)."""
    words = VOCABULARY.get(attribute, "") + " " + " ".join(sorted(AMBIGUOUS.get(attribute, ())))
    return list(dict.fromkeys(tokenize(words, stemmer)))


def weak_terms(attribute: str, stemmer: str) -> frozenset[str]:
    """:data:`ihmt.search.topic_words.WEAK` of ``attribute`` as index terms."""
    return frozenset(tokenize(WEAK.get(attribute, ""), stemmer))


def ambiguous_terms(attribute: str, stemmer: str) -> frozenset[str]:
    names = AMBIGUOUS.get(attribute, frozenset())
    plain = set(tokenize(VOCABULARY.get(attribute, ""), stemmer))
    return frozenset(t for t in tokenize(" ".join(sorted(names)), stemmer) if t not in plain)


def _tool_names(h: Hit, attribute: str) -> set[str]:
    """The ambiguous product names ``h`` uses as a tool ("Probé Helix un mes")."""
    if attribute not in TOOL_ATTRIBUTES:
        return set()
    text = h.excerpt or h.text
    return {n for n in AMBIGUOUS.get(attribute, ()) if in_context(text, n, attribute)}


def _in_context(h: Hit, attribute: str) -> bool:
    text = h.excerpt or h.text
    return any(in_context(text, n, attribute) for n in AMBIGUOUS.get(attribute, ()))


def states_something(text: str, stated: bool = False) -> bool:
    """False for a memory that rejects, plans or only imagines what it mentions, tells of
    something seen or read about (an ad, an article), of helping someone else, of another
    team's or project's practice ("en el proyecto del cliente usan yarn"), of somebody
    close's state, of news about a product, or denies without a change
    (:func:`ihmt.search.topic_words.mere_mention`). A memory a rule extracted a fact from
    (``stated``) is judged by the rule clause by clause ("I moved to Lyon; if the job works
    out we stay" states Lyon), so the conditions and denials elsewhere in it do not count."""
    folded = fold(text)
    return not (REJECT.search(folded) or MEDIA.search(folded) or OTHERS.search(folded)
                or theirs(folded) or (not stated and mere_mention(folded)))


@functools.lru_cache(maxsize=64)
def _replaces(text: str, stemmer: str) -> bool:
    """Whether a memory says a change done: its "old" is what the change replaced ("IT
    replaced my old machine with a Framework"), not a mention of the past. (Asked of one
    member by two tests: read once.)"""
    note = read_note(text, stemmer)
    return bool(note.cues) and not note.hedged


def version_group(candidates: list[Hit], fact_sources: list[str],
                  make_hit: Callable[[str], Hit | None],
                  saved_at: Callable[[str], str] = lambda _id: "", *, attribute: str = "",
                  vocab: frozenset[str] = frozenset(),
                  ambiguous: frozenset[str] = frozenset(),
                  weak: frozenset[str] = frozenset(), stemmer: str = "english") -> list[Hit]:
    """The dated memories about one attribute among ``candidates`` (hits of the vocabulary
    descent and of the query) and the timeline's ``fact_sources``, oldest first; memories
    of the same day in the order they were saved (``saved_at``). A candidate whose only
    words of the ``vocab`` are ``ambiguous`` product names joins where it uses one as a
    tool ("Lunch with Kate" is not about an editor); one whose only words of it are
    ``weak`` (words other topics use as much: "build", "job") joins where it names one of
    the attribute's values ("The nightly report job runs at 02:00" is no CI)."""
    by_id: dict[str, Hit] = {}
    for h in candidates:
        if h.id not in by_id:
            by_id[h.id] = h
        else:  # the same memory from the query and the vocabulary descent: both words
            seen = by_id[h.id]
            seen.matched = list(dict.fromkeys(seen.matched + h.matched))
    for src in fact_sources:
        if src not in by_id:
            h = make_hit(src)
            if h is not None:
                by_id[src] = h
    group = []
    for h in list(by_id.values())[:MAX_GROUP * 2]:
        if not h.date:
            continue
        text = h.excerpt or h.text
        if not states_something(text, stated=h.id in fact_sources):
            continue
        folded = fold(text)
        if h.id not in fact_sources and (
                (FORMER.search(folded) and not _replaces(text, stemmer))
                or (attribute in ELSEWHERE and ELSEWHERE[attribute].search(folded))
                or (attribute in PERSONAL and someone_elses(folded))):
            continue
        words = vocab & set(h.matched)
        if h.id not in fact_sources and words and words <= ambiguous \
                and not _in_context(h, attribute):
            continue
        if h.id not in fact_sources and words and words <= weak and \
                not VALUE_WORDS.get(attribute, frozenset()) & set(re.findall(r"[a-z]+", folded)) \
                and not (attribute in THINGS and about_me(text) and _replaces(text, stemmer)):
            # found by a word other topics use as much, naming none of its values (but "IT
            # replaced my old machine with a Framework" is about the user's laptop)
            continue
        group.append(h)
    days: dict[str, int] = {}
    for h in group:
        days[(h.date or "")[:10]] = days.get((h.date or "")[:10], 0) + 1
    group.sort(key=lambda h: (h.date or "", saved_at(h.id) if days[(h.date or "")[:10]] > 1
                              else "", h.id))
    return group[-MAX_GROUP:]


_VALUE_TOKEN = re.compile(r"(?<![\w.])(?:[A-ZÁÉÍÓÚÑ][\w'-]+|\d[\w.:]*)")


def _values(text: str) -> set[str]:
    """The words that can carry a value: capitalised ones after the first, and numbers."""
    found = [m.group().rstrip(".:") for m in _VALUE_TOKEN.finditer(text)]
    first = re.match(r"\W*([\w'-]+)", text)
    return {f.lower() for f in found if not (first and f == first.group(1))}


_NAME = re.compile(r"(?<![\w.])[A-ZÁÉÍÓÚÑ][\w'-]+(?:\s+[A-ZÁÉÍÓÚÑ][\w'-]+)*")


_SENTENCE_START = re.compile(r"(?:^|[.!?;:\n]|\d{4}-\d\d-\d\d)[\W\d]*?(?=\w)")


def names(group: list[Hit]) -> list[str]:
    """The names the members give as values ("Stark Analytics", "Tyrell Data"), without a
    sentence's capitalised first word standing alone (in a note of several sentences, or
    after a date line, too), weekdays or months."""
    out: dict[str, None] = {}
    for h in group:
        text = h.excerpt or h.text
        starts = {m.end() for m in _SENTENCE_START.finditer(text)}
        for m in _NAME.finditer(text):
            name = m.group()
            if m.start() in starts:  # "Left Vandelay Imports": the first word may be a verb
                if " " not in name:
                    continue
                rest = name.split(None, 1)[1]
                if fold(rest) not in CALENDAR:
                    out[rest] = None
            if fold(name) not in CALENDAR:
                out[name] = None
    return list(out)


def earlier_by_name(group: list[Hit], found: list[Hit], named: list[str]) -> list[Hit]:
    """Memories older than every member that name one of ``named`` ("En Stark Analytics hago
    sobre todo paneles internos", before "Me fui de Stark Analytics y me incorporé a Tyrell
    Data"): versions from before the group's first, which a question about that time asks
    for. Rejections, things seen and mentions of the past are left out, as in
    :func:`version_group`."""
    if not group:
        return []
    first = group[0].date or ""
    ids = {h.id for h in group}
    phrases = [re.compile(r"(?<!\w)" + re.escape(fold(n)) + r"(?!\w)") for n in named]
    out = []
    for h in found:
        text = h.excerpt or h.text
        if h.id in ids or not h.date or (h.date or "") >= first:
            continue
        folded = fold(text)
        if not any(p.search(folded) for p in phrases):
            continue
        if not states_something(text) or FORMER.search(folded):
            continue
        ids.add(h.id)
        out.append(h)
    return sorted(out, key=lambda h: (h.date or "", h.id))


def _name_set(text: str) -> set[str]:
    return {fold(re.sub(r"'s$", "", n)) for n in names([Hit(id="", score=0.0, excerpt=text)])}


def later_by_name(group: list[Hit], can: list[bool], found: list[Hit]) -> list[Hit]:
    """Memories newer than every member that may lead, which name a value a member gave,
    another name no member gave, and a word of change ("Said goodbye to Pied Piper; now
    I'm at Aviato" after "I'm a data engineer at Pied Piper"): the change said without
    the attribute's words, by the user of themselves. A later memory naming only the old
    value ("Pied Piper's new logo"), no change ("lunch with the Pied Piper folks and
    Maria") or somebody else's ("Greta Holm retired and moved to Spain") is no version."""
    leading = [h for h, ok in zip(group, can) if ok]
    if not leading:
        return []
    last = max(h.date or "" for h in leading)
    known = set().union(*(_name_set(h.excerpt or h.text) for h in leading))
    ids = {h.id for h in group}
    out = []
    for h in found:
        text = h.excerpt or h.text
        if h.id in ids or not h.date or (h.date or "") <= last:
            continue
        mine = _name_set(text)
        old, new = mine & known, mine - known
        new = {n for n in new if not any(n in k or k in n for k in known)}
        folded = fold(text)
        if not old or not new or not CHANGE.search(folded) or not about_me(text):
            continue
        if not states_something(text) or FORMER.search(folded):
            continue
        ids.add(h.id)
        out.append(h)
    return out


def _first_word(text: str) -> str | None:
    m = re.match(r"\W*([A-ZÁÉÍÓÚÑ][\w'-]+)", text)
    return m.group(1).lower() if m else None


def may_lead(h: Hit, values: set[str], vocab_hits: int, sources: set[str],
             attribute: str = "") -> bool:
    """Whether a member can be the answer: a memory the timeline knows (a rule or the agent
    stated its fact), or one that names a value (``values``: a name or a number that is
    not a weekday or a month; for a commute, a means of transport where the memory speaks
    of going somewhere) or uses two of the attribute's words. A memory that shares one word
    with the attribute and names nothing ("the job queue is backed up", "we moved the
    standup to Thursdays"), or that names somebody else's role ("the newsletter editor is
    Ana Diaz"), is listed, never put first; so is one that speaks of a change only as a
    plan or a wish ("We might move CI to Buildkite. For now it stays on Jenkins.")."""
    if h.id in sources:
        return True
    text = h.excerpt or h.text
    if others_role(text, attribute):
        return False
    if only_plans(fold(text)):
        return False
    if attribute in VALUE_SHAPE and not VALUE_SHAPE[attribute].search(text):
        return False  # ("my new phone is a Pixel 8" gives no phone number)
    if {v for v in values if fold(v) not in CALENDAR}:
        return attribute != "commute" or speaks_of_going(text)
    words = VALUE_WORDS.get(attribute)
    if words and words & set(re.findall(r"[a-z]+", fold(text))):
        return attribute != "commute" or speaks_of_going(text)
    return vocab_hits >= 2


def _looks_back(values: list[set[str]], i: int) -> bool:
    """Whether member ``i`` names again a value that a later member replaced ("a script
    from the Python 3.12 days" after the services moved from 3.12 to 3.13): a mention of
    the past, not a change."""
    mine = values[i]
    return bool(mine) and any(
        mine <= values[j] and any(values[k] - values[j] for k in range(j + 1, i))
        for j in range(i))


def _names_replaced(values: list[set[str]], i: int) -> bool:
    """Whether member ``i`` names a value that a member between replaced ("Globex is
    hiring again" after "My first week at Umbrella"). For the user's own attributes
    (:data:`PERSONAL`), said of the user it may be the change itself ("Said goodbye to
    Globex; now I'm at Umbrella"), otherwise it is news about the old value, no version.
    A team's attributes change without an "I" ("the backend moved from 3.11 to 3.13")."""
    mine = values[i]
    return any(mine & (values[j] - values[k]) and values[k] - values[j]
               for j in range(i) for k in range(j + 1, i))


def leaders(group: list[Hit], sources: set[str] = frozenset(),
            vocab: frozenset[str] = frozenset(), attribute: str = "") -> list[bool]:
    """For each member (oldest first), whether it may lead (:func:`may_lead`); a member
    that only names a replaced value again does not (:func:`_looks_back`), unless the
    timeline knows it."""
    values = [_values(h.excerpt or h.text) | _tool_names(h, attribute) for h in group]
    # A sentence's first word is capitalised anyway, so it is no value by itself; it is one
    # when another member names it ("Buildkite runs every pipeline" before "we moved from
    # Buildkite to Drone").
    named = set().union(*values) if values else set()
    for i, h in enumerate(group):
        first = _first_word(h.excerpt or h.text)
        if first and first in named - values[i]:
            values[i] = values[i] | {first}
    return [may_lead(h, values[i], len(vocab & set(h.matched)), sources, attribute)
            and (h.id in sources or not (_looks_back(values, i) or (
                attribute in PERSONAL and _names_replaced(values, i)
                and not about_me(h.excerpt or h.text))))
            for i, h in enumerate(group)]


@functools.lru_cache(maxsize=4)
def _any_time(stemmer: str) -> frozenset[str]:
    """Words a question about now uses for the time it asks about."""
    return frozenset(tokenize("now nowadays today currently current lately these days day "
                              "still anymore present moment right ahora actualmente actual "
                              "hoy dia dias todavia momento mismo", stemmer))


def asked_beyond(terms: list[str], vocab: frozenset[str], attribute: str,
                 stemmer: str, kind: frozenset[str] = frozenset()) -> set[str]:
    """The question's words that are neither the attribute's (its name and ``vocab``), the
    kind of answer it asks for (``kind``: "time" of "what time is ..."), a verb of use nor
    a word of time: what it asks about besides the attribute ("the scraper" of "which
    Python version does the scraper use?")."""
    return set(terms) - vocab - kind - set(tokenize(attribute, stemmer)) - \
        use_verbs(stemmer) - _any_time(stemmer)


def answers_else(lead: Hit, beyond: set[str], others: list[Hit], stemmer: str) -> bool:
    """Whether the group's ``lead`` holds none of the words the question asks about besides
    the attribute (:func:`asked_beyond`) that another memory found (``others``) holds: "La
    API interna ya está en Python 3.13" is the newest memory about a runtime, not about the
    scraper's, when other memories speak of the scraper. Its version group then answers
    nothing. (A word no memory holds tells nothing: "voy" of "¿cómo voy a la oficina?".)"""
    told = beyond & {t for h in others if h is not lead for t in h.matched}
    return bool(told) and not told & set(tokenize(lead.text or lead.excerpt or "", stemmer))


def _newest_leader(can: list[bool]) -> int | None:
    """The index of the newest member that may lead (members are oldest first)."""
    return next((i for i in range(len(can) - 1, -1, -1) if can[i]), None)


def _outdated_by(newest: Hit) -> str:
    """The notice of a member a newer one may have outdated."""
    return (f"possibly outdated: a later memory ({newest.when}) says: "
            f"{clip_shown(newest.text, 100)}")


def sure_of_thing(group: list[Hit], can: list[bool], attribute: str, stemmer: str) -> bool:
    """For a thing or service the user has (:data:`THINGS`: any note may name a laptop, a
    bank or a gym), whether the group may answer: its newest member that may lead is its
    only one, or says a change done (:func:`ihmt.search.change_notes.read_note`: "IT swapped
    my laptop for a MacBook"; no plan, wish or attempt).
    Otherwise no older member answers in its place: the ordinary ranking does."""
    if attribute not in THINGS:
        return True
    i = _newest_leader(can)
    if i is None:
        return False
    if len(group) == 1:
        return True
    note = read_note(group[i].text or group[i].excerpt or "", stemmer)
    return bool(note.changed) and not note.hedged


def doubt_older(group: list[Hit], can: list[bool]) -> None:
    """Where the group of a thing does not answer (:func:`sure_of_thing`), its members older
    than the newest that may lead, which do not name that one's value, are marked
    :attr:`Hit.unsettled` with a notice quoting it: the ordinary ranking may still put one
    first, but not as a sure answer ("My bank is Triodos" after "Bank: ING Direct from
    March", which says no change in words the rules read)."""
    i = _newest_leader(can)
    if i is None:
        return
    newest = group[i]
    theirs = _values(newest.excerpt or newest.text)
    for h in group[:i]:
        if (h.date or "") >= (newest.date or "") or not theirs - _values(h.excerpt or h.text):
            continue
        h.unsettled = True
        h.notices = [_outdated_by(newest)] + list(h.notices)


def lead_of(group: list[Hit], period: tuple[str, str] | None,
            sources: set[str] = frozenset(), vocab: frozenset[str] = frozenset(),
            attribute: str = "", can: list[bool] | None = None) -> Hit | None:
    """The newest member that may lead (:func:`leaders`, or ``can`` when given), or with a
    period the one in force at its end (the earliest that may lead when none is dated
    then). None when no member may lead."""
    ok = can if can is not None else leaders(group, sources, vocab, attribute)
    end = sum(1 for h in group if (h.date or "")[:10] <= period[1]) if period else len(group)
    # Newest first up to the end of the period; then, if none of then may lead, the
    # earliest after it (the caller says that nothing is dated that early).
    order = list(range(end - 1, -1, -1)) + list(range(end, len(group)))
    return next((group[i] for i in order if ok[i]), None)


def order_group(group: list[Hit], lead: Hit, period: tuple[str, str] | None,
                attribute: str = "", can: list[bool] | None = None) -> list[Hit]:
    """``lead`` first, then the other members newest first; members older than the newest
    that may lead (``can``, see :func:`leaders`; the newest of all without it) are flagged
    as possibly outdated (the notice names the newer memory and its date): a later
    memory that names nothing ("the job queue is backed up") outdates nothing.
    Notices about ``attribute`` come before a member's other notices (a memory of the
    old home that also named the old job answers "where do I live" with the home's)."""
    i = _newest_leader(can) if can is not None else len(group) - 1
    newest = group[i] if i is not None else lead
    rest = [h for h in reversed(group) if h is not lead]
    top = max((h.score for h in group), default=1.0) or 1.0
    lead.score = top * 2 + 1.0
    for i, h in enumerate(rest):
        h.score = top * 1.5 - i * 1e-3
    later = group.index(newest)  # (members are in date order, a same day's as saved)
    for h in group[:later]:
        if (h.date or "") > (newest.date or ""):
            continue
        if not h.outdated or not h.notices:
            h.outdated = True
            h.notices = [_outdated_by(newest)] + list(h.notices)
    if period and lead is not newest:
        lead.outdated = True
    about = f"user {attribute} ="
    for h in group:
        h.notices.sort(key=lambda n: 0 if about in n or n.startswith("possibly") else 1)
    return [lead] + rest

