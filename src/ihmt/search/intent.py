"""Questions about a tracked fact ("where do I live?") and the time a query names.

Lexical search cannot connect "where do I live" with "Me mudé a Valencia". A query
recognised here names the attribute it asks about, and is answered from that attribute's
version group (:mod:`ihmt.search.topic`): the timeline's memories and those using the
attribute's words, the newest first, or for "where did I live in 2024" the one in force
then.
"""

from __future__ import annotations

import re

from ..lazy_re import lazy
from ..text import fold, tokenize

_INTENTS: list[tuple[str, re.Pattern[str]]] = [
    ("location", lazy(
        r"\b(where (do|did|does) (i|we) (live|stay|reside)|where (am|was|were) (i|we) living"
        r"|where (is|was) (my|our) home|what city (do|did) (i|we) live|where (did|have) (i|we)"
        r" moved?|my (home )?address|donde (vivo|vivia|vivimos|viviamos|resido)"
        r"|en que ciudad vivo|a donde me mude|donde me mude)\b")),
    ("employer", lazy(
        r"\b(where (do|did) (i|we) work|who (do|did) (i|we) work for|what company (do|did)"
        r" (i|we) work|my (current )?(employer|company|job)|donde (trabajo|trabajaba)"
        r"|para quien (trabajo|trabajaba)|en que empresa (trabajo|trabajaba))\b")),
    ("stack", lazy(
        r"\b(my (tech )?stack|our (tech )?stack|what stack|which stack|mi stack|nuestro stack"
        r"|que stack)\b")),
    # Questions of other attributes of the user's own state. Their answers are found by
    # the attribute's vocabulary (ihmt.search.topic), not only by extracted facts.
    ("employer", lazy(
        r"\b(who (is|was) my employer|(what|which) company (am|was) i (at|with|in)"
        r"|(what|which) company (do|did) i work for|(what|which) company (am|was) i working for"
        r"|who employs me|where (am|was) i working"
        r"|(para que|en que) empresa (estoy|estaba|trabajo|trabajaba)|quien es mi empleador"
        r"|donde estoy trabajando)"
        r"\b")),
    ("location", lazy(
        r"\b((what|which) city (am|was) i (living|based)|where am i based|where (is|was) my"
        r" (house|flat|apartment)|donde esta mi casa|en que ciudad (resido|vivia|estoy))\b")),
    ("manager", lazy(
        r"\b(who (is|was) my (line |direct )?(manager|boss|lead|supervisor)|who (do|did) i"
        r" report to|quien (es|era) mi (jefe|jefa|responsable|supervisor|supervisora)"
        r"|a quien (reporto|reportaba)|de quien (dependo|dependia))\b")),
    ("editor", lazy(
        r"\b((what|which) (code )?editor|(what|which) ide|what (do|did) i (write|code) (code )?"
        r"in|my editor|que editor|cual (es|era) mi editor|con que programo|con que programaba)\b")),
    ("ci", lazy(
        r"\b((what|which) ci\b|our ci|ci system|which system runs our builds|where do our"
        r" (pipelines|builds) run|where did our (pipelines|builds) run|que ci|nuestra ci"
        r"|donde (corren|corrian) (nuestras |las )?builds|que sistema ejecuta los pipelines)")),
    ("package manager", lazy(
        r"\b((what|which) package (manager|tool)|package manager (do|did|does|should) (i|we)"
        r"|(my|our) package manager|(que|cual es el|nuestro) gestor de paquetes)\b")),
    ("runtime", lazy(
        r"\b((what|which) python( version)?|python version|que version de python"
        r"|(con )?que python)\b")),
    ("commute", lazy(
        r"\b(how (do|did) i (get|go|travel|commute) to (the office|work)|how (do|did) i commute"
        r"|my commute|como (voy|iba|llego|llegaba) (a la oficina|al trabajo)|mi trayecto)\b")),
    # The user's own things and services.
    ("phone number", lazy(
        r"\b((what|which) is my (mobile |cell |phone )*number|what'?s my (mobile |cell |phone )"
        r"*number|my (mobile |cell )?(phone )?number|(cual|que) es mi (numero|movil|telefono)"
        r"|mi numero( de (telefono|movil|celular))?|(que|cual) numero tengo)\b")),
    ("phone", lazy(
        r"\b((what|which) (phone|smartphone|mobile|cell ?phone) (do|did|am|was|have) i"
        r"|my (current )?(phone|smartphone)\b(?! number)|que (movil|telefono|celular|smartphone)"
        r" (tengo|tenia|uso|usaba|llevo))\b")),
    ("computer", lazy(
        r"\b((what|which) (laptop|computer|machine|notebook|workstation) (do|did|am|was|have)"
        r" i|my (work |personal |current |own )?(laptop|computer|machine|notebook|workstation)"
        r"|(que|cual es mi|mi) (portatil|ordenador|computadora)|con que (portatil|ordenador)"
        r" (trabajo|trabajaba))\b")),
    ("car", lazy(
        r"\b((what|which) (car|vehicle) (do|did|am|was|have) i|what (do|did) i drive"
        r"|my (current )?car\b|(que|cual es mi|mi) (coche|carro|auto|vehiculo)"
        r"|que conduzco)\b")),
    ("dentist", lazy(
        r"\b((who'?s|who is|who was) my dentist|(what|which) dentist (do|did|am|was) i|my dentist"
        r"|(que|a que|cual es mi|mi) dentista|quien es mi dentista)\b")),
    ("doctor", lazy(
        r"\b((who'?s|who is|who was) my (family |regular |usual )?(doctor|gp|physician)"
        r"|my (family |regular |usual )?(doctor|gp)\b|(que|cual es mi|quien es mi|mi) "
        r"(medico|medica|doctor|doctora)( de cabecera| de familia)?)\b")),
    ("gym", lazy(
        r"\b((what|which) gym (do|did|am|was|have) i|my gym|(que|a que|cual es mi|mi) gimnasio)\b")),
    ("bank", lazy(
        r"\b((what|which) bank (do|did|am|was|have) i|my bank\b|(que|cual es mi|mi) banco\b)")),
    ("internet", lazy(
        r"\b((what|which|who'?s|who is) (is )?(my |our )?(internet|broadband|fibre|fiber|isp)"
        r"( provider| company)?|my (internet|broadband|isp)( provider)?|(que|cual es (la|mi|el))"
        r" (compania|operador|proveedor) de (internet|fibra)|(mi|nuestro) (operador|proveedor)"
        r" de (internet|fibra)|que (internet|fibra) tenemos)\b")),
    ("diet", lazy(
        r"\b(what (do|am) i eat(ing)?|my diet|diet-?wise|(que|cual es mi|mi) dieta"
        r"|que dieta (sigo|hago|llevo))\b")),
    ("schedule", lazy(
        r"\b((when|what time) (is|was) (the )?(daily )?(standup|stand-up)|when does the"
        r" (daily )?standup|at what time do we have (the )?standup|a que hora (es|era|empieza)"
        r" (la daily|el standup|la reunion diaria)|cuando (es|era) (la daily|el standup))\b")),
]


# An agent writes of the user in the third person ("User relocated to Berlin") and may
# ask so ("in which city is the user based?"): read as the user asking of themselves.
_THE_USER = [(re.compile(p), r) for p, r in (
    (r"\bthe user's\b|\buser's\b", "my"), (r"\b(?:do|does) (?:the )?user\b", "do i"), (r"\b(?:is|am) (?:the )?user\b", "am i"),
    (r"\b(?:was) (?:the )?user\b", "was i"), (r"\b(?:did) (?:the )?user\b", "did i"),
    (r"\b(?:has|have) (?:the )?user\b", "have i"), (r"\bthe user\b", "i"))]


def _as_asked_by_user(q: str) -> str:
    for pattern, said in _THE_USER:
        q = pattern.sub(said, q)
    return q


def fact_intent(query: str) -> str | None:
    """The tracked attribute a question asks about, if any ('location', 'employer', ...).
    A question about "the user" is read as the user's own ("where does the user live?")."""
    q = _as_asked_by_user(" ".join(fold(query).replace("?", " ").replace("¿", " ").split()))
    for attribute, pattern in _INTENTS:
        if pattern.search(q):
            return attribute
    return None


# The words by which a question asks about the present ("today", "these days", "a día de
# hoy"): one list for whether a question asks for the newest version and for the words an
# answer is not judged by.
_NOW_WORDS = (r"now|today|currently|current|nowadays|these\s+days|at\s+the\s+moment"
              r"|ahora|hoy|actualmente|actual|hoy\s+en\s+dia|a\s+dia\s+de\s+hoy")
_CURRENT = lazy(r"\b(latest|" + _NOW_WORDS + r")\b")
_NOW = lazy(r"\b(?:" + _NOW_WORDS + r"|right\s+now|at\s+present|presently|as\s+of\s+today"
            r"|en\s+este\s+momento|ahora\s+mismo|estos\s+dias)\b")


def asks_for_current(query: str) -> bool:
    """'Which port does X use now?': the newest of several matching memories is the answer."""
    return bool(_CURRENT.search(fold(query)))


def now_terms(query: str, stemmer: str) -> frozenset[str]:
    """Index terms of the words by which ``query`` asks about the present: they say when
    the answer holds, not what it says, and a memory is no better an answer for holding
    them ("Trabajo en Nimbus desde hoy")."""
    return frozenset(t for m in _NOW.finditer(fold(query))
                     for t in tokenize(m.group(), stemmer))


_PAST = lazy(
    r"\b(before|previous|previously|used to|earlier|former|formerly|originally|at first"
    r"|in the past|back then|old|antes|anterior|anteriormente|solia|soliamos|al principio"
    r"|en el pasado|entonces)\b")


def asks_about_past(query: str) -> bool:
    """'What was the login provider before the switch?': an earlier version is the answer,
    though the question names no date."""
    return bool(_PAST.search(fold(query)))


_EVENT = lazy(r"\b(did|was|were|had|happened)\b|\b(hizo|hiciste|hicimos|fue|fuiste|fuimos"
              r"|dijo|dijiste|paso)\b")


def asks_about_event(query: str) -> bool:
    """'When did Caroline go to the support group?', 'what did James say about it?': a
    question in the past asks what happened, not which value holds now, so nothing said
    later is looked for beyond its own words."""
    return bool(_EVENT.search(fold(query)))
