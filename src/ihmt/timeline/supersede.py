"""Implicit supersession: a new memory that states a new value for the same subject and the
same attribute as an earlier one corrects it, even when nobody said ``replaces``.

"The login provider of Dylumou is Okta" (March) and "Dylumou switched its login provider to
Keycloak" (September) both state ``dylumou :: login provider``; the second retires the first.
This module finds such statements (:func:`find_statements`), turns them into timeline facts
(:func:`statement_facts`), works out which leaf supersedes which from one subject::attribute's
statements (:func:`version_links`) and, at search time, keeps the versions of one fact
together with the current one first (:func:`versions_together`).

A wrong link hides a true memory behind an OUTDATED flag, so the rules are conservative:

* the subject must be an entity: a capitalised name or codename ("Dylumou", "the Atlas
  billing service", "el servicio Atlas de billing"), an identifier ("db-eu-7",
  "reconcileLedger") or a person's full name; "the billing service" or "it" are not;
* the attribute is a short noun phrase (normalised: case, accents, articles, plurals, and a
  few synonyms such as "sign-in" = "login provider", "base de datos" = "database");
* only settled statements count: questions, negations ("is not", "no longer"), conditionals
  and plans ("if", "might", "we plan to switch", "next month") give nothing;
* two memories are linked only when subject AND attribute match and the values differ;
  the same value again is a confirmation.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..ingest.dates import FULL_MONTHS
from ..lazy_re import lazy
from ..model import Fact, Hit
from ..text import STOPWORDS, fold, tokenize
from .facts import FactTimeline

__all__ = ["Statement", "asked_version", "asks_for_past", "find_statements", "implicit_links",
           "statement_facts", "version_links", "versions_together"]

# ---------------------------------------------------------------------------------- words

_ARTICLES = frozenset("the a an our their its el la los las un una nuestro nuestra this este "
                      "esta that ese esa".split())
# Generic heads dropped from a subject key: "the Atlas billing service" = "Atlas billing".
_HEADS = frozenset("service services servicio servicios app application aplicacion".split())
# Heads that may precede the name ("el servicio Atlas", "project Dylumou").
_LEADING_HEADS = _HEADS | frozenset("project proyecto team equipo repo repository cluster "
                                    "library libreria".split())
_CONNECTORS = frozenset("of de del".split())
_PRONOUNS = frozenset("i we you they he she it this that these those there here me us them "
                      "yo nosotros ellos ellas el ella eso esto".split())
_NEGATIONS = frozenset("not no never nunca jamas tampoco ni longer nobody none nothing nadie "
                       "nada dont doesnt didnt isnt arent wasnt werent wont cant".split())
_HYPOTHETICAL = frozenset(
    """if unless whether would could might may maybe perhaps should shall will going gonna
    plan plans planning planned considering consider considered thinking think propose
    proposed proposal proposes suggest suggested suggests want wants wanted hope hopes wish
    expect expected expects intend intends about si quizas quiza podria podriamos podrian
    deberia deberiamos planeamos planea planean pensamos pensando queremos quiere quieren
    ojala vamos va iria seria seran sera propuesta proponemos""".split()
)
RIVAL = 0.6  # share of the best version's score above which the current one is a rival
_FUTURE = frozenset("next tomorrow soon later eventually proximo proxima manana pronto".split())
# A first word that is capitalised only because it starts the sentence, never a name.
# Words that open a sentence and say how it is meant, not what it is about ("Actually
# Maria's birthday is June 17": the subject is Maria).
_DISCOURSE = frozenset("""actually correction update fyi btw note ok okay so also well anyway
    indeed turns realmente correccion actualizacion ojo bueno pues vale""".split())
_COMMON_START = frozenset(
    """config local update correction note reminder heads today yesterday tomorrow also then
    so now here there after before during since until when while where who what which why
    how please maybe all every each some most many few both either neither another other
    such new old current previous first last next actualizacion correccion nota hoy ayer
    ahora""".split()
)
_BAD_ATTRS = frozenset(
    """one ones rest most part half end lot way case idea point thing things stuff side top
    bottom middle beginning start kind sort number lots bunch couple""".split()
)

# Canonical attribute names: a few synonyms in English and Spanish say the same thing.
_SYNONYMS: dict[str, str] = {}
for _canon, _names in {
    "login provider": "login provider|login|sign-in|sign in|sso|sso provider|identity provider|"
                      "idp|auth provider|authentication provider|authentication|auth|"
                      "proveedor de login|proveedor de identidad|proveedor de autenticacion|"
                      "proveedor de acceso",
    "database": "database|db|database host|database server|base de dato|bd",
    "port": "port|listening port|puerto",
    "host": "host|hostname|server|servidor",
    "owner": "owner|ownership|dueno|duena|propietario|propietaria|responsable",
    "version": "version|runtime|runs on|run on",
    "launch date": "launch|launch date|release date|go-live|go-live date|lanzamiento|"
                   "fecha de lanzamiento",
    "city": "city|location|ciudad",
    "rate limit": "rate limit|rate-limit|limite de peticione|limite de tasa|throttle limit",
    "backup schedule": "backup schedule|backup|backup window|copia de seguridad|"
                       "horario de copia|horario de backup",
}.items():
    for _n in _names.split("|"):
        _SYNONYMS[_n] = _canon

_MONTHS = "|".join(FULL_MONTHS)

# ---------------------------------------------------------------------------------- patterns

_ADV = r"(?:(?:now|currently|recently|finally|officially|just|already|also|still|ahora|ya|" \
       r"actualmente|finalmente|tambien)\s+)*"
_HAS = r"(?:(?:has|have|had)\s+(?:been\s+)?|(?:ha|han)\s+)?"
_CHANGE = (r"(?:switched|moved|migrated|changed|updated|upgraded|raised|lowered|increased|"
           r"reduced|bumped|set|cut|dropped|lifted|extended|shortened|postponed|rescheduled|"
           r"delayed|pushed(?:\s+back)?)")
_COP = (
    r"(?P<cop>(?:is|are)\s+" + _ADV + r"(?:(?:set|planned|scheduled|expected|fixed)\s+"
    r"(?:for|to|at)\s+|(?:on|at|in)\s+)?"
    r"|(?:was|were|has\s+been|have\s+been|got)\s+" + _ADV + _CHANGE + r"\s+(?:to|until)\s+"
    r"|" + _ADV + r"(?:moved|migrated|switched|changed|went(?:\s+up|\s+down)?|slipped|dropped|"
    r"rose|jumped)\s+to\s+"
    r"|(?:slipped|was\s+postponed|was\s+delayed|was\s+pushed\s+back|was\s+moved|moved|"
    r"was\s+rescheduled)\s*[:;,]?\s*(?:the\s+)?new\s+(?:date|target)\s+is\s+"
    r"|(?:es|son|esta|estan)\s+" + _ADV + r"(?:en\s+)?"
    r"|" + _ADV + r"(?:se\s+(?:ha\s+)?(?:movido|movio|migrado|migro|cambiado|cambio|pasado|paso|"
    r"trasladado|traslado|retrasado|retraso)|(?:ha|han)\s+(?:cambiado|pasado|migrado)|cambio|"
    r"paso|migro)\s+a\s+"
    r"|" + _ADV + r"(?:pasa|paso)\s+a\s+ser\s+"
    r"|=\s*)"
)
_S = r"(?P<subj>[^,;:()\[\]]{1,80}?)"
_A = r"(?P<attr>[^,;:()\[\]]{1,60}?)"
_V = r"(?P<val>.+)"
_NOUNS = (r"(?P<noun>port|host|hostname|server|node|cluster|region|bucket|database|queue|"
          r"puerto|servidor|nodo|base\s+de\s+datos)")


@dataclass(frozen=True)
class _Rule:
    name: str
    source: str  # the regular expression, compiled when a clause first needs it
    attribute: str | None = None  # fixed attribute, else the 'attr' or 'noun' group
    keys: frozenset[str] = frozenset()  # one of these words is in every clause it matches

    @property
    def pattern(self) -> re.Pattern[str]:
        return _compiled(self.source)


@functools.cache
def _compiled(source: str) -> re.Pattern[str]:
    # The rules are long: compiling all of them took tens of milliseconds of every fresh
    # process (a hook's), and a search tries only those whose keys its hits contain.
    return lazy(source, re.IGNORECASE)


_COP_WORDS = ("is are was were has have got moved migrated switched changed went slipped "
              "dropped rose jumped es son esta estan se ha han cambio paso migro pasa =")
_KEYS = {
    "attr-of": _COP_WORDS, "bare": _COP_WORDS, "possessive": "'s",
    "verb-its": "its their the his her", "we-verb": "'s", "we-verb-of": "we they i ops team",
    "uses-for": "uses using relies switched moved migrated", "usa-para": "usa utiliza emplea "
    "paso migro", "cambio-su": "su sus el la",
    "noun-value": "port host hostname server node cluster region bucket database queue",
    "sustantivo-valor": "puerto host servidor nodo cluster region base",
    "runs-on": "runs running deployed corre funciona ejecuta",
    "upgraded": "upgraded bumped actualizamos actualizado",
    "was-upgraded": "upgraded bumped actualizado actualizo", "owns": "owns",
    "owned-by": "owned propiedad", "ownership": "ownership propiedad", "is-the-of": "is es",
    "lives": "lives living moved relocated vive reside mudado mudo trasladado traslado",
}


def _r(name: str, pattern: str, attribute: str | None = None) -> _Rule:
    return _Rule(name, "^" + pattern + "$", attribute, frozenset(_KEYS[name].split()))


_RULES: tuple[_Rule, ...] = (
    # the login provider of Dylumou is Okta / la base de datos de X está en db-1
    _r("attr-of", r"(?:the\s+|el\s+|la\s+|los\s+|las\s+)?(?P<aos>[^,;:()\[\]]{1,120}?)\s+"
                  + _COP + _V),
    # Dylumou rate limit is now 200 / the Atlas service port is 8080
    _r("bare", r"(?P<aos>[^,;:()\[\]]{1,120}?)\s+" + _COP + _V),
    # Dylumou's rate limit is 100 requests per minute
    _r("possessive", _S + r"['’]s\s+" + _A + r"\s+" + _COP + _V),
    # Dylumou switched its login provider to Keycloak
    _r("verb-its", _S + r"\s+" + _ADV + _HAS + _ADV + _CHANGE + r"\s+(?:its|their|the|his|her)\s+"
       + _A + r"\s+(?:from\s+[^,;]+?\s+)?to\s+" + _V),
    # we moved Dylumou's backups to 03:00 / changed the port of X to 9090
    _r("we-verb", r"(?:we|they|i|ops|the\s+team)\s+" + _ADV + _HAS + _ADV + _CHANGE + r"\s+"
       + _S + r"['’]s\s+" + _A + r"\s+(?:from\s+[^,;]+?\s+)?to\s+" + _V),
    # we raised the rate limit of Dylumou to 500 requests per minute
    _r("we-verb-of", r"(?:we|they|i|ops|the\s+team)\s+" + _ADV + _HAS + _ADV + _CHANGE
       + r"\s+(?:the\s+)?(?P<aos>[^,;:()\[\]]{1,120}?)\s+(?:from\s+[^,;]+?\s+)?to\s+" + _V),
    # Dylumou uses Okta for login / Dylumou switched to Keycloak for sign-in
    _r("uses-for", _S + r"\s+" + _ADV + _HAS + _ADV + r"(?:uses|is\s+using|relies\s+on|"
       r"switched\s+to|moved\s+to|migrated\s+to)\s+(?P<val>[^,;]+?)\s+(?:for|as)\s+"
       r"(?:its|their|the)?\s*(?P<attr>[^,;:()\[\]]+)"),
    _r("usa-para", _S + r"\s+" + _ADV + r"(?:usa|utiliza|emplea|se\s+paso\s+a|migro\s+a)\s+"
       r"(?P<val>[^,;]+?)\s+(?:para|como)\s+(?:su|sus|el|la)?\s*(?P<attr>[^,;:()\[\]]+)"),
    _r("cambio-su", _S + r"\s+" + _ADV + r"(?:ha\s+)?(?:cambiado|cambio|movido|movio|migrado|migro|"
       r"pasado|paso)\s+(?:su|sus|el|la)\s+(?P<mid>[^,;:()\[\]]{1,80}?)\s+a\s+" + _V),
    # the Atlas service listens on port 8080 / moved to port 9090 / now uses port 9000
    _r("noun-value", _S + r"\s+" + _ADV + _HAS + _ADV + r"(?:listens|is\s+listening|serves|runs|"
       r"is\s+running|is|sits|lives|was\s+moved|moved|was\s+migrated|migrated|uses|is\s+using|"
       r"switched)\s+(?:on\s+|to\s+|at\s+|in\s+)?(?:the\s+)?(?:new\s+)?" + _NOUNS + r"\s+" + _V),
    _r("sustantivo-valor", _S + r"\s+" + _ADV + r"(?:escucha|esta|corre|funciona|usa|utiliza|"
       r"se\s+(?:ha\s+)?(?:movido|movio|migrado|migro)|(?:ha\s+)?(?:movido|migrado|pasado)|"
       r"paso|cambio)\s+(?:en\s+|a\s+|al\s+)?(?:el\s+|la\s+)?(?:nuevo\s+)?" + _NOUNS + r"\s+"
       + _V),
    # the Atlas service runs on Python 3.12 / upgraded the Atlas service to Go 1.22
    _r("runs-on", _S + r"\s+" + _ADV + r"(?:runs|is\s+running|is\s+deployed|corre|funciona|"
       r"se\s+ejecuta)\s+(?:on|sobre|en|con)\s+" + _V, "version"),
    _r("upgraded", r"(?:we\s+|they\s+)?" + _HAS + r"(?:upgraded|bumped|actualizamos|"
       r"hemos\s+actualizado)\s+" + _S + r"\s+(?:to|a)\s+" + _V, "version"),
    _r("was-upgraded", _S + r"\s+(?:(?:was|has\s+been|got)\s+(?:upgraded|bumped)\s+to|"
       r"se\s+(?:ha\s+)?actualizado\s+a|se\s+actualizo\s+a)\s+" + _V, "version"),
    # Ana Smith owns the Atlas service / ownership of X passed from A to B
    _r("owns", r"(?P<val>[^,;:()\[\]]{2,60}?)\s+" + _ADV + r"owns\s+" + r"(?P<subj>[^,;:()\[\]]+)",
       "owner"),
    _r("owned-by", _S + r"\s+(?:is|es)\s+" + _ADV + r"(?:owned\s+by|propiedad\s+de)\s+" + _V,
       "owner"),
    _r("ownership", r"(?:the\s+|la\s+)?(?:ownership|propiedad)\s+(?:of|de)\s+" + _S + r"\s+"
       + _HAS + r"(?:passed|moved|went|was\s+transferred|was\s+handed\s+over|transferred|"
       r"was\s+passed|paso|pasa)\s+(?:from\s+[^,;]+?\s+|de\s+[^,;]+?\s+)?(?:to|a)\s+" + _V,
       "owner"),
    # Ana Smith is the tech lead of Dylumou / Ana es la responsable de X
    _r("is-the-of", r"(?P<val>[^,;:()\[\]]{2,60}?)\s+(?:is|es)\s+" + _ADV
       + r"(?:the|our|el|la)\s+(?:new\s+|nuev[oa]\s+)?" + _A + r"\s+(?:of|for|de|del)\s+"
       + r"(?P<subj>[^,;:()\[\]]+)"),
    # Ana Smith lives in Madrid / moved to Berlin / se ha mudado a Sevilla
    _r("lives", r"(?P<subj>[^,;:()\[\]]{3,60}?)\s+" + _ADV + _HAS + _ADV
       + r"(?:lives|is\s+living|moved|relocated|vive|reside|se\s+(?:ha\s+)?(?:mudado|mudo|"
       r"trasladado|traslado)|ha\s+trasladado)\s+(?:in|to|en|a)\s+" + _V, "city"),
)

_RULES_BY_WORD: dict[str, tuple[int, ...]] = {}
for _i, _rule in enumerate(_RULES):
    for _w in _rule.keys:
        _RULES_BY_WORD[_w] = (*_RULES_BY_WORD.get(_w, ()), _i)
_PERSON_RULES = frozenset({"lives"})
_OWNER_VALUE_RULES = frozenset({"owns", "is-the-of"})

# ---------------------------------------------------------------------------------- text


def _base(ch: str) -> str:
    if ch.isascii():
        return ch
    dec = unicodedata.normalize("NFKD", ch)
    kept = "".join(c for c in dec if not unicodedata.combining(c))
    return kept if len(kept) == 1 else ch


def _strip_accents(text: str) -> str:
    """Accents removed character by character: positions stay those of ``text``."""
    return text if text.isascii() else "".join(_base(c) for c in text)


_SPLIT = lazy(r"(?<=[.!?;])\s+|\n+")
_LABEL = lazy(r"^\s*(?:[A-Za-z][\w'-]*(?:\s+[\w'-]+){0,2})\s*:\s+(?=\S)")
_LEAD_TIME = lazy(
    r"^\s*(?:(?:as\s+of|since|starting|desde|a\s+partir\s+de)\b[^,]{0,30}|today|hoy|now|"
    r"ahora|yesterday|ayer|(?:last|this|in|on|en|el)\s+(?:" + _MONTHS + r"|week|month|year|"
    r"semana|mes|ano|\d{1,4})\b[^,]{0,12}),\s+", re.IGNORECASE)
_LEAD_WORDS = lazy(r"^\s*(?:heads\s+up|fyi|ok|okay|so|also|and|btw|y|ademas)\b[:,]?\s+",
                         re.IGNORECASE)
_WORD = lazy(r"[\w'’-]+")


def _clauses(text: str) -> Iterable[tuple[str, str]]:
    """(clause, its sentence) pairs: sentences, their label ("Update:") and lead-in
    ("As of today,") stripped; the sentence is kept to look for question marks."""
    for sent in _SPLIT.split(text):
        sent = sent.strip()
        if not sent:
            continue
        body = sent.rstrip(".!;… ").strip()
        for _ in range(3):
            new = _LEAD_WORDS.sub("", _LEAD_TIME.sub("", _LABEL.sub("", body, count=1), count=1),
                                  count=1)
            if new == body:
                break
            body = new
        if body:
            yield body, sent


def _words(text: str) -> list[str]:
    return [fold(w).replace("’", "'") for w in _WORD.findall(text)]


def _singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _is_name(token: str, initial: bool) -> bool:
    """A token that names something: capitalised, an identifier, or all capitals."""
    core = token.strip("'’\"`")
    if not core or not core[0].isalnum():
        return False
    if any(c.isdigit() for c in core) and any(c.isalpha() for c in core):
        return True
    if any(c in "_./" for c in core.strip("-_./")) and any(c.isalpha() for c in core):
        return True  # reconcile_ledger, db.internal (a plain compound such as
        # "email-digest" is a word, not an identifier: "db-eu-7" has its digit)
    if not core[0].isupper():
        return False
    if any(c.isupper() for c in core[1:]) and not core.isupper():
        return True  # reconcileLedger, GitHub
    low = fold(core)
    if low in STOPWORDS or low in _PRONOUNS:
        return False
    if initial and low in _COMMON_START:
        return False
    return True


def _subject_key(raw: str, initial: bool) -> str | None:
    """The normalised key of an entity phrase, or None when it does not name one."""
    tokens = raw.split()
    while tokens and fold(tokens[0]).rstrip(":,") in _ARTICLES | _DISCOURSE:
        tokens = tokens[1:]
        initial = False
    if not tokens or len(tokens) > 6:
        return None
    low = [fold(t).strip("'’\"`") for t in tokens]
    if any(w.endswith(("'s", "’s")) for w in low):
        return None  # a possessive inside: "Dylumou's rate" is not an entity
    first_ok = _is_name(tokens[0], initial)
    if not first_ok and low[0] in _LEADING_HEADS and len(tokens) > 1:
        first_ok = _is_name(tokens[1], False)
    if not first_ok:
        return None
    for i, w in enumerate(low):
        if w in _PRONOUNS or w in _NEGATIONS or w in _HYPOTHETICAL:
            return None
        if w in STOPWORDS and not (w in _CONNECTORS | _ARTICLES and 0 < i < len(low) - 1):
            return None
    if low[0] in _LEADING_HEADS:
        low = low[1:]  # "project Zorbit" is Zorbit
    key = [w for w in low if w not in _CONNECTORS and w not in _ARTICLES and w not in _HEADS]
    text = " ".join(key).strip()
    if not text or text in ("user", "i", "we", "yo") or "::" in text:
        return None
    return text


def _person(raw: str) -> bool:
    """'Ana Smith', "Liam O'Neill", 'María de la Fuente': 2-4 capitalised words."""
    tokens = raw.split()
    names = [t for t in tokens if fold(t) not in ("de", "del", "la", "van", "von", "da")]
    if not 2 <= len(names) <= 4 or len(tokens) > 6:
        return False
    return all(t[:1].isupper() and fold(t) not in STOPWORDS and fold(t) not in _COMMON_START
               and not any(c.isdigit() for c in t) for t in names)


def _attribute(raw: str) -> str | None:
    """The canonical attribute of a short noun phrase, or None."""
    words = [fold(w) for w in raw.split()]
    while words and words[0] in _ARTICLES | {"new", "nuevo", "nueva", "current", "actual"}:
        words = words[1:]
    if not 1 <= len(words) <= 5:
        return None
    for i, w in enumerate(words):
        if not re.fullmatch(r"[a-z][a-z-]*", w):
            return None
        inner_de = w in ("de", "del") and 0 < i < len(words) - 1
        if (w in STOPWORDS and not inner_de) or w in _PRONOUNS or w in _NEGATIONS:
            return None
    if words[-1] in ("de", "del") or len([w for w in words if w not in ("de", "del")]) > 4:
        return None
    phrase = " ".join(_singular(w) for w in words)
    if phrase in _BAD_ATTRS or words[0] in _BAD_ATTRS:
        return None
    return _SYNONYMS.get(phrase, _SYNONYMS.get(" ".join(words), phrase))


_VALUE_CUT = lazy(
    r"\s+\(|\s*[;]|,(?!\s*\d{4}\b)|\s+[-–—]\s+|\.(?=\s|$)|[!?]"
    r"|\s+(?:because|since|after|before|instead|but|which|while|although|unless|rather|when|"
    r"until|so|and|or|replacing|previously|formerly|porque|pero|aunque|mientras|tras|despues|"
    r"antes|en\s+lugar|en\s+vez|desde|hasta|cuando|y|o|as\s+of|from\s+now|for\s+now)\b",
    re.IGNORECASE)
_VALUE_TAIL = lazy(
    r"\s+(?:(?:now|today|currently|again|too|as\s+well|recently|yesterday|already|anymore|"
    r"ahora|hoy|actualmente|ya|de\s+nuevo|otra\s+vez|tambien)"
    r"|(?:last|this|past|el|la|este|esta)\s+(?:week|month|year|quarter|mes|semana|ano|"
    r"trimestre)(?:\s+pasad[oa])?"
    r"|(?:in|on|en|el)\s+(?:(?:" + _MONTHS + r")\b.*|\d{4}))$", re.IGNORECASE)


def _value(raw: str) -> str | None:
    cut = _VALUE_CUT.search(raw)
    value = raw[: cut.start()] if cut else raw
    value = value.strip()
    for _ in range(3):
        value = _VALUE_TAIL.sub("", value).strip()
    value = value.strip(" .,:;'\"`“”‘’*_")
    words = value.split()
    if not words or len(words) > 8:
        return None
    first = fold(words[0])
    if first in _NEGATIONS or (len(words) == 1 and first in _PRONOUNS | {"unknown", "unclear"}):
        return None
    return value


def _settled(before: str, after: str) -> bool:
    """No negation, condition or plan in the words leading to the value, and no future time
    word right after it."""
    words = set(_words(before))
    if words & _NEGATIONS or words & _HYPOTHETICAL or any(w.endswith("n't") for w in words):
        return False
    return not set(_words(after)[:6]) & _FUTURE


_QUESTION_START = lazy(
    r"^\W*(?:(?:what|which|who|whom|where|when|why|how|is|are|was|were|does|do|did|can|could|"
    r"should|would|will|has|have|que|cual|quien|donde|cuando|como|por\s+que)\b)", re.IGNORECASE)


@dataclass(frozen=True)
class Statement:
    """One settled (subject, attribute, value) statement found in a text."""

    subject: str  # normalised key: 'dylumou', 'atlas billing'
    attribute: str  # canonical: 'login provider', 'port', 'rate limit' ...
    value: str  # as written: 'Keycloak', '100 requests per minute'
    rule: str


def find_statements(text: str) -> list[Statement]:
    """Statements of a new value for an entity's attribute, in text order; one per
    subject::attribute (the last one said wins)."""
    if not isinstance(text, str) or not text.strip():
        return []
    out: dict[tuple[str, str], Statement] = {}
    for clause, sentence in _clauses(text):
        if "?" in sentence or "¿" in sentence or _QUESTION_START.match(clause):
            continue
        plain = _strip_accents(clause)
        for st in _match_clause(clause, plain):
            out.pop((st.subject, st.attribute), None)
            out[(st.subject, st.attribute)] = st
    return list(out.values())


def _match_clause(clause: str, plain: str) -> Iterable[Statement]:
    found: set[tuple[str, str]] = set()
    low = plain.lower().replace("’", "'")
    words = set(re.findall(r"[\w=]+", low))
    if "'s " in low or low.endswith("'s"):
        words.add("'s")
    # Only the rules one of whose words the clause holds (most clauses hold none).
    for i in sorted({i for w in words for i in _RULES_BY_WORD.get(w, ())}):
        rule = _RULES[i]
        m = rule.pattern.match(plain)
        if m is None:
            continue
        st = _statement(rule, m, clause)
        if st is not None and (st.subject, st.attribute) not in found:
            found.add((st.subject, st.attribute))
            yield st


def _split_attr_of(raw: str, offset: int) -> tuple[str, str, int] | None:
    """'login provider of Dylumou' -> ('login provider', 'Dylumou'): the first split at
    of/for/behind/de whose two sides are an attribute and an entity."""
    for m in re.finditer(r"\s+(?:of|for|behind|de|del)\s+", raw, re.IGNORECASE):
        attr, subj = raw[: m.start()], raw[m.end():]
        if _attribute(attr) and _subject_key(subj, False):
            return attr, subj, offset + m.end()
    return None


def _split_bare(raw: str, offset: int) -> tuple[str, str, int] | None:
    """'Dylumou rate limit' -> ('rate limit', 'Dylumou'): leading name tokens (through a
    head noun: 'the Atlas billing service port') are the subject, the rest the attribute."""
    tokens = list(re.finditer(r"\S+", raw))
    i = 0
    while i < len(tokens) and fold(tokens[i].group()) in _ARTICLES:
        i += 1
    start = i
    while i < len(tokens) and _is_name(tokens[i].group(), i == 0):
        i += 1
    if i == start:
        return None
    for j in range(i, min(i + 3, len(tokens))):
        if fold(tokens[j].group()) in _LEADING_HEADS:
            i = j + 1
            break
    if i >= len(tokens):
        return None
    subj = raw[: tokens[i - 1].end()]
    attr = raw[tokens[i].start():]
    return attr, subj, offset


def _attr_before_from(mid: str) -> str:
    """'proveedor de login de Okta' -> 'proveedor de login': Spanish "de" both joins an
    attribute and says "from"; the longest known attribute wins, else the longest valid."""
    cuts = [mid] + [mid[: m.start()] for m in reversed(list(re.finditer(r"\s+de\s+", mid)))]
    valid = [c for c in cuts if _attribute(c) and not any(w[:1].isupper() for w in c.split())]
    known = [c for c in valid if _attribute(c) in _SYNONYMS.values()]
    return (known or valid or [""])[0]


def _statement(rule: _Rule, m: re.Match[str], clause: str) -> Statement | None:
    groups = m.groupdict()
    owner_value = rule.name in _OWNER_VALUE_RULES
    if owner_value:
        # "<value> owns <subject>": the value comes first
        before = clause[: m.start("val")] + " " + clause[m.end("val"): m.start("subj")]
        after = ""
        val_raw = clause[m.start("val"): m.end("val")]
        subj_raw = _value(clause[m.start("subj"):]) or ""
        attr_raw = clause[m.start("attr"): m.end("attr")] if groups.get("attr") else "owner"
        initial = False
        if not (_person(val_raw) or (rule.name == "owns" and len(val_raw.split()) <= 4
                                     and all(_is_name(t, True) for t in val_raw.split()))):
            return None
    else:
        vstart = m.start("val")
        val_raw = clause[vstart:]
        after = val_raw
        cop = m.span("cop") if groups.get("cop") is not None else None
        before = (clause[: cop[0]] + " " + clause[cop[1]: vstart]) if cop else clause[:vstart]
        initial = False
        if rule.name in ("attr-of", "bare", "we-verb-of"):
            splitter = _split_bare if rule.name == "bare" else _split_attr_of
            split = splitter(clause[m.start("aos"): m.end("aos")], m.start("aos"))
            if split is None:
                return None
            attr_raw, subj_raw, _ = split
            initial = rule.name == "bare" and m.start("aos") == 0
        else:
            subj_raw = clause[m.start("subj"): m.end("subj")]
            initial = m.start("subj") == 0
            if groups.get("mid") is not None:
                attr_raw = _attr_before_from(clause[m.start("mid"): m.end("mid")])
            elif groups.get("attr") is not None:
                attr_raw = clause[m.start("attr"): m.end("attr")]
            elif groups.get("noun") is not None:
                attr_raw = groups["noun"]
                if not attr_raw.islower():
                    return None  # "runs on Node 20" names a runtime, not a node
            else:
                attr_raw = rule.attribute or ""
        if rule.name in ("uses-for", "usa-para"):
            attr_raw = _value(attr_raw) or ""
            val_raw = clause[vstart: m.end("val")]
            after = clause[m.end("attr"):]
    if not _settled(before, after):
        return None
    if rule.name in _PERSON_RULES and not _person(subj_raw):
        return None
    subject = _subject_key(subj_raw, initial)
    if rule.attribute and groups.get("noun") is None and not groups.get("attr"):
        attribute: str | None = rule.attribute
    else:
        attribute = _attribute(attr_raw)
    if rule.name == "runs-on":
        noun = re.match(r"(?:the\s+)?(port|host|server|node|cluster)\s+", val_raw)
        if noun:
            attribute = _SYNONYMS.get(noun.group(1).lower(), noun.group(1).lower())
            val_raw = val_raw[noun.end():]
    value = _value(val_raw)
    if not (subject and attribute and value):
        return None
    if rule.name == "runs-on" and not any(c.isdigit() for c in value):
        attribute = "platform"  # "runs on GitHub Actions" names where, not a version
    if rule.name in _PERSON_RULES and not value[:1].isupper():
        return None
    return Statement(subject, attribute, value, rule.name)


def statement_facts(text: str, date: str | None, source: str | None) -> list[Fact]:
    """The statements of ``text`` as timeline facts dated ``date`` (none when undated)."""
    if not date:
        return []
    return [Fact(subject=s.subject, attribute=s.attribute, value=s.value, date=date,
                 source=source) for s in find_statements(text)]


# ---------------------------------------------------------------------------------- links


def _norm(value: str) -> str:
    return " ".join(fold(value).split()).strip(" .,;:!?")


def version_links(statements: list[Fact]) -> list[tuple[str, str, str]]:
    """(old leaf, new leaf, date) for one subject::attribute's statements in date order:
    every statement of a value is superseded by the first statement of the next value.
    A repeated value is a confirmation: it links nothing."""
    runs: list[list[Fact]] = []
    for s in statements:
        if runs and _norm(runs[-1][-1].value) == _norm(s.value):
            runs[-1].append(s)
        else:
            runs.append([s])
    out: list[tuple[str, str, str]] = []
    for run, nxt in zip(runs, runs[1:]):
        new = nxt[0]
        for s in run:
            if s.source and new.source and s.source != new.source:
                out.append((s.source, new.source, new.date[:10]))
    return out


# ---------------------------------------------------------------------------------- search

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


def _linked(fact: Fact) -> bool:
    """Facts about the user or a patient keep their own timeline notices; statements about
    other entities also link their memories."""
    return fact.subject not in ("user", "patient")


def implicit_links(timeline: FactTimeline, facts: Iterable[Fact]) -> list[tuple[str, str, str]]:
    """The (old leaf, new leaf, date) links that the subject::attribute keys of ``facts``
    call for and the timeline does not hold yet. Reads only those keys' statements.

    An old memory that an explicit ``replaces`` pointed at another memory keeps that mark.
    """
    keys = sorted({(f.subject, f.attribute) for f in facts if _linked(f)})
    out: list[tuple[str, str, str]] = []
    for subject, attribute in keys:
        stmts = timeline.statements(subject, attribute)
        sources = {s.source for s in stmts if s.source}
        for old, new, when in version_links(stmts):
            current = timeline.outdated_by(old)
            if current == new or (current is not None and current not in sources):
                continue
            out.append((old, new, when))
    return out
