"""The built-in extraction rules of :mod:`ihmt.timeline.extract`, and the word lists the
rules and the value cleaner share (accent-folded, lower case).

Each rule is one statement shape in English or Spanish ("I work at", "me contrataron en",
"my manager is") with the attribute it records; the matching engine, the value cleaner
and the registry of patterns added at run time stay in :mod:`ihmt.timeline.extract`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..ingest.dates import FULL_MONTHS
from ..lazy_re import lazy

# ---------------------------------------------------------------------------------------------
# Word lists (accent-folded, lower case)
# ---------------------------------------------------------------------------------------------

_MONTHS = frozenset(FULL_MONTHS)
_WEEKDAYS = frozenset(
    """monday tuesday wednesday thursday friday saturday sunday
    lunes martes miercoles jueves viernes sabado domingo""".split()
)
# Words that say *when*, never part of a place or company name.
_TIME = (
    frozenset(
        """now today tonight yesterday tomorrow currently recently lately nowadays already again
        too also anymore still just finally last this next these since ago earlier soon
        ahora hoy ayer manana anoche anteayer antier actualmente recientemente ya tambien
        todavia aun desde hace hasta pasado pasada proximo proxima este esta estos estas
        finalmente nuevamente ultimamente""".split()
    )
    | _MONTHS
    | _WEEKDAYS
)
# Words that end a lower-case name: conjunctions, prepositions, pronouns, manner adverbs.
_BOUNDARY = frozenset(
    """and y e or o u but pero sino because porque as como with con without sin for por para
    in en at on a al from to where donde which que who quien when cuando while mientras near
    cerca outside fuera around close so then luego though although aunque if si unless until
    after before during durante tras antes despues since i we my our mi nuestro nuestra
    full-time part-time remotely remote remoto happily permanently temporarily""".split()
)
# A value cannot start with these: they introduce a description, not a name.
_NOT_A_NAME = frozenset(
    """a an my our your his her their its this that these those some any no not never every
    each another other un una unos unas mi mis tu tus su sus nuestro nuestra nuestros nuestras
    vuestro vuestra este esta estos estas ese esa esos esas aquel aquella lo otro otra algun
    alguna ningun ninguna cada todo toda nunca it them him us me myself ourselves home casa
    here there aqui alli alla aca remote remotely remoto equipo somewhere anywhere everywhere
    nowhere night nights weekends same mismo misma nothing nada something algo""".split()
)
_ARTICLES = frozenset({"the", "el", "la", "los", "las"})
# Lower-case words allowed inside a capitalised name ("Rio de Janeiro", "Bank of America").
_CONNECTORS = frozenset(
    "de del la las los el of the da das do dos di du van von der den am im upon sur le les &".split()
)
_UNITS = frozenset(
    """day days week weeks month months year years dia dias semana semanas mes meses ano anos
    hour hours hora horas""".split()
)
# Before a trigger, these mean the statement is denied or only imagined.
_NEGATIONS = frozenset(
    """not never no nunca jamas tampoco ni dont doesnt didnt havent hasnt wont cant cannot isnt
    arent wasnt werent neither nor""".split()
)
_HYPOTHETICAL = frozenset(
    """if si unless whether would could might may maybe perhaps quizas quiza ojala wish hope
    want wanna plan planning planeo quiero queremos espero will ll going gonna voy vamos
    should deberia podria used solia thinking pensando considering considerando dream""".split()
)
# Ends a stack or tool list: a new clause starts here.
_LIST_BOUNDARY = frozenset(
    """but pero because porque since desde although aunque though which que who where donde
    when cuando while mientras until hasta except excepto salvo sino unless""".split()
)
_PRONOUNS = frozenset(
    """i we you they he she it my our yo nosotros nosotras mi mis nuestro nuestra nuestros
    nuestras me nos""".split()
)
# Time phrases that trail a list value ("Python and Go now", "... el mes pasado").
_TRAILING = frozenset(
    tuple(p.split())
    for p in (
        "now|today|currently|too|also|already|again|anymore|yesterday|nowadays|still|"
        "these days|right now|for now|at the moment|last week|last month|last year|this week|"
        "this month|this year|ahora|hoy|ayer|actualmente|tambien|ya|todavia|ahora mismo|"
        "por ahora|de nuevo|otra vez|el mes pasado|la semana pasada|el ano pasado|este mes|"
        "este ano|esta semana|hoy en dia|en la actualidad"
    ).split("|")
)
# Word before "trabajo"/"uso" that makes it a noun ("mi trabajo en ...", "el uso de ...").
_NOUN_BEFORE = frozenset(
    """mi tu su el un del al buen mal gran este ese nuestro vuestro cuyo otro primer nuevo
    de en con sin para por sobre tanto poco""".split()
)
_PURPOSE_LEAD = frozenset(
    """the our my all a an el la los las un una nuestro nuestra nuestros nuestras mi mis todo
    toda todos todas""".split()
)
# "Dr." and "St." do not end a sentence; "Corp." does when a capitalised word follows.
_ABBREVIATIONS = frozenset("dr dra mr mrs ms sr sra srta st av avda prof jr vs etc eg ie".split())
_COMPANY_SUFFIXES = frozenset("corp inc ltd co llc sa sl gmbh plc".split())

_HARD_STOPS = lazy(r"[,;:()\[\]{}\"“”«»!?¿¡|]|\s[-–—]\s|[–—]|\.\.\.|…")
_LIST_STOPS = lazy(r"[;()\[\]{}\"“”«»!?¿¡|]|\s[-–—]\s|[–—]|\.\.\.|…|\.(?=\s|$)")
_NUMBERISH = lazy(r"^\d[\d.,:/h-]*(?:am|pm|h)?$", re.IGNORECASE)
_EDGE_PUNCT = ".,;:!?…'\"“”‘’«»()[]{}*_`"
_CLAUSE_SEP = lazy(r"[,;:]|\b(?:but|pero|and|y|because|porque|so|then|entonces|sino)\b")
_QUESTION = lazy(
    r"^\W*(?:(?:where|what|which|when|how|why|who|donde|cuando|como|que|cual|quien)\s+)?"
    r"(?:do|does|did|am|are|is|was|were|can|could|should|would|will|have|has|shall)"
    r"\s+(?:i|we|you)\b",
    re.IGNORECASE,
)
_SENT_END = lazy(r"[.!?;…]+[\"'”’)\]]*(?=\s)")

# ---------------------------------------------------------------------------------------------
# Rules
# ---------------------------------------------------------------------------------------------

_ADV = (
    r"(?:now|currently|still|also|actually|just|recently|finally|officially|already|happily|"
    r"permanently|really)"
)
_ADV_ES = r"(?:ahora|actualmente|ya|tambien|todavia|aun|finalmente|por\s+fin)"
_AP = r"['’]"
# Built-in rule values are captured inside a lookahead so that two statements on one line
# ("I live in Madrid. I moved to Valencia ...") are both found by one finditer.
_VALUE = r"(?=(?P<value>[^\n]*))"
_TOOL_VALUE = r"(?P<value>(?:[^\n.;!?]|\.(?=\S))+?)"


@dataclass(frozen=True)
class _Rule:
    """One extraction rule. ``kind`` picks the cleaning: name, list, tool, clinical, custom."""

    pattern: re.Pattern[str]
    attribute: str
    subject: str = "user"
    value_group: str | int = "value"
    kind: str = "name"
    noun_before: frozenset[str] = field(default_factory=frozenset)
    # Built-in rules only: plain lower-case, accent-free strings, one of which every match
    # contains at a word start. They let long texts skip the rule where none occurs.
    keys: tuple[str, ...] = ()


def _rule(
    pattern: str,
    attribute: str,
    kind: str = "name",
    *,
    keys: tuple[str, ...],
    subject: str = "user",
    flags: int = 0,
    noun_before: frozenset[str] = frozenset(),
) -> _Rule:
    compiled = lazy(pattern, re.IGNORECASE | flags)
    return _Rule(compiled, attribute, subject, "value", kind, noun_before, keys)


_CLINICAL_LABELS = {
    "diagnosis": "diagnosis",
    "diagnoses": "diagnosis",
    "diagnostico": "diagnosis",
    "diagnosticos": "diagnosis",
    "treatment": "treatment",
    "treatments": "treatment",
    "tratamiento": "treatment",
    "tratamientos": "treatment",
    "medication": "medication",
    "medications": "medication",
    "medicacion": "medication",
    "medicaciones": "medication",
    "medicamento": "medication",
    "medicamentos": "medication",
}

_BUILTIN: tuple[_Rule, ...] = (
    # --- where the user lives ------------------------------------------------------------------
    _rule(
        rf"\b(?:I|we)(?:\s+(?:{_ADV}\s+)?live\s+(?:{_ADV}\s+)?in"
        rf"|(?:\s+am|{_AP}m|\s+are|{_AP}re)\s+(?:{_ADV}\s+)?(?:living|based)\s+in"
        rf"|(?:\s+have|{_AP}ve)\s+(?:{_ADV}\s+)?been\s+living\s+in"
        rf"|(?:\s+have|{_AP}ve)?\s+(?:{_ADV}\s+)?(?:moved|relocated)\s+(?:back\s+|over\s+)?to"
        rf")\s+{_VALUE}",
        "location",
        keys=("liv", "based", "moved", "relocat"),
    ),
    _rule(
        rf"\b(?:vivo|vivimos|resido|residimos|estoy\s+viviendo|estamos\s+viviendo)"
        rf"\s+(?:{_ADV_ES}\s+)?en\s+{_VALUE}",
        "location",
        keys=("viv", "resid"),
    ),
    _rule(
        rf"\b(?:me\s+(?:he\s+)?(?:mude|mudado|traslade|trasladado)"
        rf"|nos\s+(?:hemos\s+)?(?:mudamos|mudado|trasladamos|trasladado))"
        rf"\s+(?:{_ADV_ES}\s+)?a\s+{_VALUE}",
        "location",
        keys=("mud", "traslad"),
    ),
    _rule(
        rf"\b(?:me\s+(?:fui|vine)|nos\s+(?:fuimos|vinimos))\s+a\s+vivir"
        rf"\s+(?:{_ADV_ES}\s+)?(?:a|en)\s+{_VALUE}",
        "location",
        keys=("viv",),
    ),
    _rule(
        rf"\b(?:(?:I|we)(?:\s+have|{_AP}ve)?\s+(?:finally\s+)?settled"
        rf"|(?:my|our)\s+new\s+(?:home|flat|apartment|house|place)\s+is)\s+in\s+{_VALUE}",
        "location",
        keys=("settled", "my new", "our new"),
    ),
    _rule(
        rf"\b(?:me\s+(?:he\s+)?instal(?:e|ado)|nos\s+(?:hemos\s+)?instal(?:amos|ado))"
        rf"\s+(?:{_ADV_ES}\s+)?en\s+{_VALUE}",
        "location",
        keys=("me ", "nos "),
    ),
    # --- who the user reports to ---------------------------------------------------------------
    _rule(
        rf"\b(?:my\s+(?:new\s+)?(?:line\s+|direct\s+)?(?:manager|boss)\s+is"
        rf"|I\s+(?:{_ADV}\s+)?report(?:\s+directly)?\s+to)\s+{_VALUE}",
        "manager",
        keys=("manager", "boss", "report"),
    ),
    _rule(
        rf"\b(?:mi\s+(?:nuevo\s+|nueva\s+)?(?:jefe|jefa|responsable|manager)"
        rf"(?:\s+(?:nuevo|nueva|directo|directa))?\s+es"
        rf"|(?:{_ADV_ES}\s+)?(?:le\s+)?reporto\s+a)\s+{_VALUE}",
        "manager",
        keys=("jefe", "jefa", "responsable", "manager", "reporto"),
    ),
    _rule(  # a hand-over: the team (or the user) now sits under someone else
        rf"\b(?:(?:my|our|the)\s+team\s+(?:was|has\s+been|got)\s+handed\s+over\s+to"
        rf"|I\s+(?:was|have\s+been|got)\s+(?:{_ADV}\s+)?(?:moved|put)\s+under"
        rf"|(?:my|our)\s+new\s+(?:line\s+)?(?:manager|boss|lead)\s+is)\s+{_VALUE}",
        "manager",
        keys=("handed", "under", "new"),
    ),
    _rule(
        rf"\b(?:(?:mi|nuestro|el)\s+equipo\s+(?:pas[oó]|ha\s+pasado)\s+a\s+manos\s+de"
        rf"|(?:ahora\s+)?dependo\s+(?:directamente\s+)?de"
        rf"|me\s+(?:pusieron|han\s+puesto)\s+(?:a\s+cargo\s+de|bajo))\s+{_VALUE}",
        "manager",
        keys=("manos", "dependo", "pusieron", "puesto"),
    ),
    # --- where the user works ------------------------------------------------------------------
    _rule(
        rf"\b(?:I|and)(?:\s+(?:{_ADV}\s+)?work"
        rf"|(?:\s+am|{_AP}m)\s+(?:{_ADV}\s+)?working"
        rf"|(?:\s+have|{_AP}ve)\s+(?:{_ADV}\s+)?been\s+working)"
        rf"\s+(?:as\s+(?:an?\s+)?(?:[\w-]+\s+){{1,4}}?)?(?:at|for)\s+{_VALUE}",
        "employer",
        keys=("work",),
    ),
    _rule(
        rf"\bI(?:\s+have|{_AP}ve)?\s+(?:{_ADV}\s+)?(?:joined"
        rf"|started\s+(?:working\s+|a\s+new\s+job\s+)?(?:at|for)"
        rf"|began\s+working\s+(?:at|for))\s+{_VALUE}",
        "employer",
        keys=("join", "start", "began"),
    ),
    _rule(
        rf"\b(?:(?:my\s+)?first\s+(?:day|week|month)\s+(?:at|with)"
        rf"|(?:my\s+)?new\s+job\s+(?:at|with)"
        rf"|accepted\s+(?:an|the|their)\s+(?:job\s+)?offer\s+from"
        rf"|(?:I\s+was|I\s+got|I{_AP}ve\s+been|I\s+have\s+been|got)\s+hired\s+(?:at|by)"
        rf"|signed\s+(?:a\s+contract\s+)?with)\s+{_VALUE}",
        "employer",
        keys=("first", "new job", "accepted", "hired", "signed"),
    ),
    _rule(
        rf"\b(?:(?:mi\s+)?primer\s+(?:dia|semana|mes)\s+(?:en|con)"
        rf"|(?:mi\s+)?nuevo\s+(?:trabajo|empleo)\s+(?:en|con)"
        rf"|me\s+(?:contrataron|han\s+contratado|ficharon|han\s+fichado)\s+(?:en|para)"
        rf"|empece\s+(?:hoy\s+|ayer\s+|esta\s+semana\s+)?(?:a\s+trabajar\s+)?(?:en|para))"
        rf"\s+{_VALUE}",
        "employer",
        keys=("primer", "nuevo", "me contrat", "me han", "me fich", "empece"),
    ),
    _rule(
        rf"\b(?:trabajo|trabajamos|estoy\s+trabajando|estamos\s+trabajando)"
        rf"\s+(?:{_ADV_ES}\s+)?(?:como\s+(?:[\w-]+\s+){{1,4}}?)?(?:en|para)\s+{_VALUE}",
        "employer",
        noun_before=_NOUN_BEFORE,
        keys=("trabaj",),
    ),
    _rule(
        rf"\b(?:entre|empece|comence)\s+(?:a\s+trabajar\s+)?(?:en|para)\s+{_VALUE}",
        "employer",
        keys=("entre", "empec", "comenc"),
    ),
    _rule(
        rf"\b(?:me\s+incorpore|me\s+he\s+incorporado|nos\s+incorporamos|me\s+uni|fiche)"
        rf"\s+(?:a|en|por)\s+{_VALUE}",
        "employer",
        keys=("incorpor", "me uni", "fiche"),
    ),
    # A note that starts with the verb ("Started at Hooli this week", "Joined Globex") and
    # "I'm now at Aviato" / "now I'm at Aviato".
    _rule(
        rf"(?:^|(?<=[.;:!]\s))(?:just\s+|finally\s+|officially\s+)?(?:joined"
        rf"|started\s+(?:working\s+|a\s+new\s+job\s+)?(?:at|for|with))\s+{_VALUE}",
        "employer",
        flags=re.MULTILINE,
        keys=("join", "start"),
    ),
    _rule(
        rf"\b(?:I(?:\s+am|{_AP}m)\s+now|now\s+I(?:\s+am|{_AP}m))\s+(?:working\s+)?(?:at|with|for)"
        rf"\s+{_VALUE}",
        "employer",
        keys=("now",),
    ),
    # --- the CI, the services' Python, the commute (what a team or the user runs on) -----
    _rule(
        rf"\b(?:switched|moved|migrated|ported)\s+(?:over\s+)?(?:all\s+|every\s+|the\s+|our\s+)*"
        rf"(?:ci|pipelines?|builds?|ci\s+jobs?)\s+(?:from\s+(?:[\w.-]+\s+){{1,3}}?)?"
        rf"(?:to|onto|over\s+to|into)\s+{_VALUE}",
        "ci",
        keys=("switch", "moved", "migrat", "ported"),
    ),
    _rule(
        rf"\b(?:migramos|movimos|pasamos|cambiamos)\s+(?:toda\s+|todos\s+|todas\s+)?"
        rf"(?:la\s+ci|el\s+ci|los\s+pipelines|las\s+builds|la\s+integracion\s+continua)"
        rf"\s+(?:de\s+(?:[\w.-]+\s+){{1,3}}?)?a\s+{_VALUE}",
        "ci",
        keys=("migramos", "movimos", "pasamos", "cambiamos"),
    ),
    _rule(
        rf"\b(?:every|each|all(?:\s+(?:of\s+)?our)?|our|the)\s+(?:pipelines?|builds?|ci\s+jobs?)"
        rf"\s+(?:now\s+)?(?:run|runs|go|goes|live|lives)\s+(?:now\s+)?(?:on|in|through)\s+{_VALUE}",
        "ci",
        keys=("every", "each", "all", "our", "the"),
    ),
    _rule(
        r"\b(?:bumped|upgraded|moved|migrated|updated)\s+(?:all\s+|every\s+|the\s+|our\s+)*"
        r"(?:python\s+)?(?:services?|backend|backends)\s+to\s+(?=(?P<value>python\s+\d+(?:\.\d+)*))",
        "runtime",
        keys=("bump", "upgrad", "moved", "migrat", "updat"),
    ),
    _rule(
        r"\b(?:actualizamos|subimos|migramos|pasamos)\s+(?:todos\s+)?(?:los\s+)?servicios"
        r"\s+a\s+(?=(?P<value>python\s+\d+(?:\.\d+)*))",
        "runtime",
        keys=("actualizamos", "subimos", "migramos", "pasamos"),
    ),
    _rule(
        rf"\bI\s+(?:{_ADV}\s+)?(?P<value>cycle|bike|drive|walk)\s+to\s+(?:the\s+office|work)\b",
        "commute",
        "custom",
        keys=("cycle", "bike", "drive", "walk"),
    ),
    _rule(
        rf"\bI\s+(?:{_ADV}\s+)?(?:take|ride)\s+(?:the|my)\s+(?P<value>bus|train|tram|metro|"
        r"subway|ferry|bike|scooter)\s+to\s+(?:the\s+office|work)\b",
        "commute",
        "custom",
        keys=("take", "ride"),
    ),
    # --- the stack ---------------------------------------------------------------------------------
    _rule(
        rf"\b(?:my|our)\s+(?:(?:tech|technology|current|main|usual|default|preferred|"
        rf"favou?rite|new)\s+)*stack(?:\s+(?:now\s+)?(?:is|are|has\s+become)(?:\s+now)?|{_AP}s)"
        rf"\s*:?\s*{_VALUE}",
        "stack",
        "list",
        keys=("stack",),
    ),
    _rule(
        rf"\b(?:mi|nuestro)\s+stack\s+(?:(?:tecnologico|actual|principal|habitual|nuevo)\s+)*"
        rf"(?:ahora\s+)?(?:es|son)(?:\s+ahora)?\s*:?\s*{_VALUE}",
        "stack",
        "list",
        keys=("stack",),
    ),
    _rule(
        rf"\b(?:we|I)(?:\s+(?:{_ADV}\s+)?use"
        rf"|(?:\s+are|{_AP}re|\s+am|{_AP}m)\s+(?:{_ADV}\s+)?using"
        rf"|(?:\s+have|{_AP}ve)\s+been\s+using)"
        rf"\s+(?={_TOOL_VALUE}\s+(?:for|as(?:\s+(?:our|my|the|an?))?)\s+(?P<purpose>[^\n]*))",
        "tool:",
        "tool",
        keys=("use ", "using"),
    ),
    _rule(
        rf"\b(?:usamos|utilizamos|empleamos|uso|utilizo|estamos\s+usando|estamos\s+utilizando)"
        rf"\s+(?={_TOOL_VALUE}\s+(?:para|como)\s+(?P<purpose>[^\n]*))",
        "tool:",
        "tool",
        noun_before=_NOUN_BEFORE,
        keys=("usamos", "uso ", "usando", "utiliz", "emple"),
    ),
    # --- clinical headers ----------------------------------------------------------------------------
    _rule(
        r"^[ \t>*#•-]*(?:\*\*|__)?(?P<label>" + "|".join(_CLINICAL_LABELS) + r")"
        r"(?:\*\*|__)?[ \t]*:(?:\*\*|__)?[ \t]*(?P<value>[^\n]*)",
        "clinical",
        "clinical",
        subject="patient",
        flags=re.MULTILINE,
        keys=("diagn", "trat", "treat", "medic"),
    ),
)
