"""The words and patterns :mod:`ihmt.timeline.supersede` reads statements with: the
vocabulary of subjects (articles, heads, pronouns, negations, plans, words that open a
sentence), attribute synonyms and attributes never tracked, and the table of rules ("the A
of S is V", "S switched its A to V", "S listens on port V", ...), English and Spanish.

A lexicon kept apart from the code that applies it; the names keep their leading
underscore because they are the timeline package's own, used by :mod:`.supersede` and
:mod:`.versions` only.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from ..ingest.dates import FULL_MONTHS
from ..lazy_re import lazy

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
