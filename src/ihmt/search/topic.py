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
someone else's state ("helped a friend move to Berlin"), and memories whose topic word is
qualified as former ("my old colleagues").

Within the group the newest memory leads a question that names no period; a question
naming a time gets the memory in force at its end. The others follow, newest first, marked
as possibly outdated with the date and words of the memory that leads. The confidence is
high when the timeline's current value comes from the leading memory (or the timeline
knows nothing), lower when the two disagree, so the agent is told to check.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..model import Hit
from ..text import clip, fold, tokenize

# Words (not phrases) that mark a memory as speaking about an attribute. Stemmed with the
# store's stemmer before use, so "worked", "working" and "works" count as "work".
VOCABULARY: dict[str, str] = {
    "employer": "work works worked working job jobs employer employers company hired hire "
                "joined join offer contract position role startup "
                "trabajo trabaja trabajar trabajando empresa empleo contrataron contrato "
                "incorpore incorporé puesto oferta empece empecé empezé fiché fiche",
    "location": "live lives lived living home flat apartment house moved move relocated "
                "relocate lease rent based neighbourhood neighborhood settled "
                "vivo vivir vivía viviendo casa piso apartamento mudé mude mudamos "
                "mudanza trasladé traslade trasladamos alquiler resido instalé instale barrio",
    "stack": "stack",
    "manager": "manager boss report reports reporting lead leads supervisor "
               "reorg reorganisation reorganization one-on-ones "
               "jefe jefa responsable reporto dependo supervisora supervisor "
               "reorganización reorganizacion",
    # (only product names that are not also ordinary words or first names: "Kate",
    # "Eclipse", "Atom", "Cursor", "Helix" would pull in lunches and eclipses)
    "editor": "editor ide code coding keybindings vim neovim emacs vscode sublime intellij "
              "pycharm webstorm goland clion gedit xcode netbeans notepad "
              "programo programar editor ide",
    "ci": "ci pipeline pipelines build builds jenkins actions integration jobs "
          "pipelines integración integracion",
    "package manager": "npm pnpm yarn bun pip pipenv poetry uv conda cargo composer bundler "
                       "maven gradle nuget lockfile "
                       "gestor paquetes",
    "runtime": "python version upgraded upgrade bumped runtime services "
               "versión version actualizamos subimos servicios",
    "commute": "commute commuting office drive bike cycle train bus walk car scooter foot "
               "tram metro subway ferry motorbike "
               "oficina coche bici bicicleta tren autobús autobus andando trayecto pie "
               "patinete tranvía tranvia moto",
    "schedule": "standup stand-up daily meeting "
                "daily reunión reunion standup",
}

# A memory that rejects, plans or only imagines a value does not state it.
_REJECT = re.compile(
    r"\b(?:turned\s+\w+\s+down|turned\s+down|declined|decided\s+against|said\s+no|not\s+for\s+me"
    r"|voted\s+(?:it\s+)?down|but\s+(?:we\s+)?stayed|stayed\s+with|held\s+off|evaluated|"
    r"thought\s+about|considering|might|maybe|would|proposed|suggested|interviewed|"
    r"too\s+far|no\s+(?:nos|me)\s+\w+|rechac\w*|dije\s+que\s+no|se\s+voto\s+que\s+no|"
    r"pense\s+en|propus\w*|propuso|evaluamos|no\s+cambiamos|no\s+es\s+para\s+mi|"
    r"al\s+final\s+no|esperamos|quizas|tal\s+vez|podriamos)\b")
# Something seen or read about, not the user's own state: "saw an ad for cycling to work",
# "read an article about remote jobs", "vi un anuncio sobre ir en patinete".
_MEDIA = re.compile(
    r"\b(?:(?:saw|seen|read|heard|watched|came\s+across|spotted)\s+(?:an?\s+|the\s+|some\s+)?"
    r"(?:\w+\s+)?(?:ad|ads|advert|advertisement|article|post|video|story|podcast|thread|"
    r"billboard|commercial)"
    r"|(?:vi|he\s+visto|lei|he\s+leido|oi|escuche|encontre)\s+(?:un|una|el|la|unos|unas)\s+"
    r"(?:\w+\s+)?(?:anuncio|anuncios|articulo|post|video|noticia|reportaje|podcast|cartel))\b")
# Someone else's state, not the user's: "helped a friend move to Berlin", "ayudé a una
# compañera con su configuración de Vim".
_OTHERS = re.compile(
    r"\b(?:helped|helping|gave\s+\w+\s+a\s+hand|ayude|ayudando|eche\s+una\s+mano)\s+"
    r"(?:a\s+|an\s+|my\s+|our\s+|a\s+un\s+|a\s+una\s+|a\s+mi\s+|un\s+|una\s+|mi\s+)?"
    r"(?:\w+\s+)?(?:colleague|coworker|co-worker|friend|teammate|neighbou?r|sister|brother|"
    r"cousin|compa\w+|amig[oa]s?|vecin[oa]s?|herman[oa]s?|prim[oa]s?)\b")
# The topic word is about the past: "my old colleagues", "antiguos compañeros".
_FORMER = re.compile(r"\b(?:old|former|ex|previous|antiguo|antigua|antiguos|antiguas|viejo|"
                     r"vieja|anterior)\b")

LEAD_AGREES = 0.9  # confidence when the timeline's current value is the leading memory's
LEAD_DISAGREES = 0.6  # ... when a newer memory than the timeline's source leads
NOTHING_THEN = 0.5  # a question about a time before every member: the earliest, said so
MAX_GROUP = 30


def vocabulary_terms(attribute: str, stemmer: str) -> list[str]:
    return list(dict.fromkeys(tokenize(VOCABULARY.get(attribute, ""), stemmer)))


def states_something(text: str) -> bool:
    """False for a memory that rejects, plans or only imagines what it mentions, tells of
    something seen or read about (an ad, an article), or of helping someone else."""
    folded = fold(text)
    return not (_REJECT.search(folded) or _MEDIA.search(folded) or _OTHERS.search(folded))


def version_group(candidates: list[Hit], fact_sources: list[str],
                  make_hit: Callable[[str], Hit | None],
                  saved_at: Callable[[str], str] = lambda _id: "") -> list[Hit]:
    """The dated memories about one attribute among ``candidates`` (hits of the vocabulary
    descent and of the query) and the timeline's ``fact_sources``, oldest first; memories
    of the same day in the order they were saved (``saved_at``)."""
    by_id: dict[str, Hit] = {}
    for h in candidates:
        if h.id not in by_id:
            by_id[h.id] = h
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
        if not states_something(text):
            continue
        if h.id not in fact_sources and _FORMER.search(fold(text)):
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


def _first_word(text: str) -> str | None:
    m = re.match(r"\W*([A-ZÁÉÍÓÚÑ][\w'-]+)", text)
    return m.group(1).lower() if m else None


_CALENDAR = frozenset(
    """monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays
    thursdays fridays saturdays sundays january february march april may june july august
    september october november december lunes martes miercoles jueves viernes sabado domingo
    enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre
    diciembre""".split())


# Attributes whose values are ordinary lower-case words, not names or numbers.
_VALUE_WORDS = {
    "commute": frozenset("""bike bicycle cycle cycling train tram metro subway underground bus
        car drive driving walk walking foot scooter motorbike ferry carpool bici bicicleta
        tren tranvia autobus coche andando pie patinete moto""".split()),
    # Package managers are written in lower case: not names the value finder sees.
    "package manager": frozenset("""npm pnpm yarn bun pip pipenv poetry uv conda cargo
        composer bundler maven gradle nuget""".split()),
}


def may_lead(h: Hit, values: set[str], vocab_hits: int, sources: set[str],
             attribute: str = "") -> bool:
    """Whether a member can be the answer: a memory the timeline knows (a rule or the agent
    stated its fact), or one that names a value (``values``: a name or a number that is
    not a weekday or a month; for a commute, a means of transport) or uses two of the
    attribute's words. A memory that shares one word with the attribute and names nothing
    ("the job queue is backed up", "we moved the standup to Thursdays") is listed, never
    put first."""
    if h.id in sources:
        return True
    if {v for v in values if fold(v) not in _CALENDAR}:
        return True
    words = _VALUE_WORDS.get(attribute)
    if words and words & set(re.findall(r"[a-z]+", fold(h.excerpt or h.text))):
        return True
    return vocab_hits >= 2


def _looks_back(values: list[set[str]], i: int) -> bool:
    """Whether member ``i`` names again a value that a later member replaced ("a script
    from the Python 3.12 days" after the services moved from 3.12 to 3.13): a mention of
    the past, not a change."""
    mine = values[i]
    return bool(mine) and any(
        mine <= values[j] and any(values[k] - values[j] for k in range(j + 1, i))
        for j in range(i))


def lead_of(group: list[Hit], period: tuple[str, str] | None,
            sources: set[str] = frozenset(), vocab: frozenset[str] = frozenset(),
            attribute: str = "") -> Hit | None:
    """The newest member that may lead (:func:`may_lead`), or with a period the one in
    force at its end (the earliest that may lead when none is dated then); a member that
    only names a replaced value again does not lead (:func:`_looks_back`), unless the
    timeline knows it. None when no member may lead."""
    values = [_values(h.excerpt or h.text) for h in group]
    # A sentence's first word is capitalised anyway, so it is no value by itself; it is one
    # when another member names it ("Buildkite runs every pipeline" before "we moved from
    # Buildkite to Drone").
    named = set().union(*values) if values else set()
    for i, h in enumerate(group):
        first = _first_word(h.excerpt or h.text)
        if first and first in named - values[i]:
            values[i] = values[i] | {first}

    def ok(i: int) -> bool:
        h = group[i]
        return may_lead(h, values[i], len(vocab & set(h.matched)), sources, attribute) \
            and (h.id in sources or not _looks_back(values, i))

    end = sum(1 for h in group if (h.date or "")[:10] <= period[1]) if period else len(group)
    order = range(end - 1, -1, -1) if end else range(len(group))
    return next((group[i] for i in order if ok(i)), None)


def order_group(group: list[Hit], lead: Hit, period: tuple[str, str] | None,
                attribute: str = "") -> list[Hit]:
    """``lead`` first, then the other members newest first; members older than the newest
    are flagged as possibly outdated (the notice names the newer memory and its date).
    Notices about ``attribute`` come before a member's other notices (a memory of the
    old home that also named the old job answers "where do I live" with the home's)."""
    newest = group[-1]
    rest = [h for h in reversed(group) if h is not lead]
    top = max((h.score for h in group), default=1.0) or 1.0
    lead.score = top * 2 + 1.0
    for i, h in enumerate(rest):
        h.score = top * 1.5 - i * 1e-3
    for h in group:
        if h is newest or (h.date or "") >= (newest.date or ""):
            continue
        note = (f"possibly outdated: a later memory ({newest.when}) says: "
                f"{clip(newest.text, 100)}")
        if not h.outdated or not h.notices:
            h.outdated = True
            h.notices = [note] + list(h.notices)
    if period and lead is not newest:
        lead.outdated = True
    about = f"user {attribute} ="
    for h in group:
        h.notices.sort(key=lambda n: 0 if about in n or n.startswith("possibly") else 1)
    return [lead] + rest

