"""Pull dated facts (where the user lives, works, what they build with ...) out of free text.

Facts feed the timeline, which decides what is current and flags what is outdated. A wrong
fact is worse than a missing one: "I don't live in Paris" recorded as a move would mark the
user's real address as outdated. So every rule here leans towards precision:

* a fact needs an unconditional first-person statement: negations ("I don't live in",
  "ya no vivo en"), conditionals ("if I live in") and questions ("do I live in Madrid?")
  produce nothing;
* values are cut to the name itself ("I live in Valencia now" gives "Valencia", not
  "Valencia now"): when the writer capitalises names, the value is the run of capitalised
  words ("Nimbus Labs", "San Sebastián", "University of Valencia"); when the text is all
  lower case, it ends at the first time word, conjunction or preposition;
* a fact without a date cannot be ordered against others, so undated text gives no facts
  unless the caller passes ``fallback_date``.

Matching is case-insensitive and accent-tolerant ("me mude a" matches "me mudé a"): rules
run over an accent-stripped copy of the text and values are cut from the original, so they
keep their accents and capitals.
"""

from __future__ import annotations

import functools
import logging
import re
import threading
import unicodedata
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date as _date

from ..errors import InputError
from ..ingest.dates import FULL_MONTHS
from ..model import Fact
from ..text import fold

__all__ = ["add_pattern", "extract_facts", "reset_patterns"]

log = logging.getLogger(__name__)

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

_HARD_STOPS = re.compile(r"[,;:()\[\]{}\"“”«»!?¿¡|]|\s[-–—]\s|[–—]|\.\.\.|…")
_LIST_STOPS = re.compile(r"[;()\[\]{}\"“”«»!?¿¡|]|\s[-–—]\s|[–—]|\.\.\.|…|\.(?=\s|$)")
_NUMBERISH = re.compile(r"^\d[\d.,:/h-]*(?:am|pm|h)?$", re.IGNORECASE)
_EDGE_PUNCT = ".,;:!?…'\"“”‘’«»()[]{}*_`"
_CLAUSE_SEP = re.compile(r"[,;:]|\b(?:but|pero|and|y|because|porque|so|then|entonces|sino)\b")
_QUESTION = re.compile(
    r"^\W*(?:(?:where|what|which|when|how|why|who|donde|cuando|como|que|cual|quien)\s+)?"
    r"(?:do|does|did|am|are|is|was|were|can|could|should|would|will|have|has|shall)"
    r"\s+(?:i|we|you)\b",
    re.IGNORECASE,
)
_SENT_END = re.compile(r"[.!?;…]+[\"'”’)\]]*(?=\s)")

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
    compiled = re.compile(pattern, re.IGNORECASE | flags)
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


def _trigger_index(rules: tuple[_Rule, ...]) -> dict[str, frozenset[int]]:
    """Which built-in rules each key can trigger."""
    owners: dict[str, set[int]] = {}
    for i, rule in enumerate(rules):
        for key in rule.keys:
            owners.setdefault(key, set()).add(i)
    return {key: frozenset(ids) for key, ids in owners.items()}


_TRIGGER_RULES = _trigger_index(_BUILTIN)

_custom_lock = threading.Lock()
# Patterns added with add_pattern: process-wide on purpose, like a codec registry, because
# they are configuration that every Memory in the process should honour.
_custom: list[_Rule] = []


def _strip_accents(text: str) -> str:
    """Drop accents but keep case, so a custom pattern can still use \\S, \\W and friends."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def add_pattern(
    pattern: str | re.Pattern[str],
    attribute: str,
    subject: str = "user",
    value_group: str | int = "value",
) -> None:
    """Teach the extractor a new statement shape, e.g. ``r"my editor is (?P<value>.+)"``.

    The pattern is matched case-insensitively and accent-tolerantly, one sentence at a time.
    The captured value is cleaned like a stack value (trailing time words and punctuation
    dropped, cut where a new clause starts); restrict the group yourself, e.g. ``[^,]+``, if
    commas end your value. Negated and hypothetical statements and questions are skipped, as
    for the built-in rules. The registry is process-wide; :func:`reset_patterns` empties it.
    """
    if not isinstance(attribute, str) or not attribute.strip():
        raise InputError("add_pattern needs a non-empty attribute name, e.g. 'editor'")
    if not isinstance(subject, str) or not subject.strip() or "::" in subject:
        raise InputError("add_pattern needs a non-empty subject without '::', e.g. 'user'")
    if isinstance(pattern, re.Pattern):
        if not isinstance(pattern.pattern, str):
            raise InputError("add_pattern needs a text pattern, not a bytes pattern")
        source, flags = pattern.pattern, pattern.flags
    elif isinstance(pattern, str):
        source, flags = pattern, 0
    else:
        raise InputError("add_pattern needs a regular expression string or compiled pattern")
    try:
        compiled = re.compile(_strip_accents(source), flags | re.IGNORECASE)
    except re.error as exc:
        raise InputError(f"add_pattern: invalid regular expression {source!r}: {exc}") from None
    if isinstance(value_group, int):
        if not 0 <= value_group <= compiled.groups:
            raise InputError(
                f"add_pattern: the pattern has {compiled.groups} group(s), "
                f"value_group={value_group} does not exist"
            )
    elif value_group not in compiled.groupindex:
        raise InputError(
            f"add_pattern: the pattern has no group named {value_group!r}; "
            f"write it as (?P<{value_group}>...) or pass value_group=<group number>"
        )
    rule = _Rule(compiled, attribute.strip(), subject.strip(), value_group, "custom")
    with _custom_lock:
        _custom.append(rule)


def reset_patterns() -> None:
    """Forget every pattern added with :func:`add_pattern` (tests, long-lived servers)."""
    with _custom_lock:
        _custom.clear()


# ---------------------------------------------------------------------------------------------
# Text helpers
# ---------------------------------------------------------------------------------------------


def _fold_word(word: str) -> str:
    return fold(word.strip(_EDGE_PUNCT))


@functools.lru_cache(maxsize=4096)
def _bare(ch: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c))


_NON_ASCII = re.compile(r"[^\x00-\x7f]+")


class _Offsets:
    """Maps a position in the accent-stripped text back to the original text.

    Stripping changes the length only at ligatures ("ﬁ" -> "fi") and decomposed accents
    (a combining mark disappears), so only the points where the shift changes are stored.
    """

    def __init__(self) -> None:
        self.at: list[int] = [0]  # folded positions where the shift changes
        self.shift: list[int] = [0]  # original = folded + shift, from that position on

    def note(self, folded_pos: int, shift: int) -> None:
        if self.at[-1] == folded_pos:
            self.shift[-1] = shift
        else:
            self.at.append(folded_pos)
            self.shift.append(shift)

    def __call__(self, pos: int) -> int:
        return pos + self.shift[bisect_right(self.at, pos) - 1]


def _mapped(text: str) -> tuple[str, _Offsets | None]:
    """Accent-stripped copy of ``text`` (case kept) and, if lengths differ, its offset map.

    Only the non-ASCII runs are looked at, so plain English text costs one ``isascii``.
    """
    if text.isascii():
        return text, None
    pieces: list[str] = []
    offsets = _Offsets()
    done = 0  # original position copied so far
    flen = 0  # folded length so far
    changed = False
    for m in _NON_ASCII.finditer(text):
        pieces.append(text[done : m.start()])
        flen += m.start() - done
        for i, ch in enumerate(m.group(), m.start()):
            bare = _bare(ch)
            pieces.append(bare)
            if len(bare) != 1:
                changed = True
                for k in range(1, len(bare)):  # every extra character still points at ch
                    offsets.note(flen + k, i - flen - k)
                flen += len(bare)
                offsets.note(flen, i + 1 - flen)
            else:
                flen += 1
        done = m.end()
    pieces.append(text[done:])
    folded = "".join(pieces)
    return folded, (offsets if changed else None)


def _orig(offsets: _Offsets | None, pos: int) -> int:
    return pos if offsets is None else offsets(pos)


def _line_segments(text: str, ls: int, le: int) -> list[tuple[int, int]]:
    """(start, end) of each sentence of one line: split after . ! ? ; unless an abbreviation."""
    segs: list[tuple[int, int]] = []
    start = ls
    for m in _SENT_END.finditer(text, ls, le):
        if not _ends_sentence(text, m, le):
            continue
        segs.append((start, m.end()))
        start = m.end()
    if start < le:
        segs.append((start, le))
    return segs


def _ends_sentence(text: str, m: re.Match[str], line_end: int) -> bool:
    if m.group().rstrip("\"'”’)]") != ".":
        return True
    before = re.search(r"(\w+)$", text[max(0, m.start() - 20) : m.start()])
    word = before.group(1).lower() if before else ""
    if len(word) == 1 or word in _ABBREVIATIONS:
        return False
    if word in _COMPANY_SUFFIXES:
        nxt = re.match(r"\s+(\S)", text[m.end() : line_end])
        return bool(nxt and nxt.group(1).isupper())
    return True


def _windows(folded: str) -> list[tuple[int, int, frozenset[int]]]:
    """Stretches of text around trigger words, with the built-in rules worth running there.

    Every built-in match contains one of its rule's keys at a word start, and no useful
    value runs more than a few hundred characters past it, so each key found gives the
    window [hit - 80, hit + 600] clipped to its line; overlapping windows are merged.
    Finding plain substrings in a lower-cased copy, then running only the rules a key can
    trigger, is far faster than letting every rule try every position of a long text.
    """
    low = folded.lower()
    if len(low) != len(folded):  # a rare character changed length: scan everything
        return [(0, len(folded), frozenset(range(len(_BUILTIN))))]
    hits: list[tuple[int, str]] = []
    for key in _TRIGGER_RULES:  # str.find runs at C speed, unlike a big regex alternation
        pos = low.find(key)
        while pos >= 0:
            if not (pos and low[pos - 1].isalnum()):  # "because" does not contain "use "
                hits.append((pos, key))
            pos = low.find(key, pos + 1)
    hits.sort()
    spans: list[tuple[int, int, frozenset[int]]] = []
    for hit, key in hits:
        rules = _TRIGGER_RULES[key]
        line_start = folded.rfind("\n", 0, hit) + 1
        line_end = folded.find("\n", hit)
        line_end = len(folded) if line_end < 0 else line_end
        start, end = max(line_start, hit - 80), min(line_end, hit + 600)
        if spans and start <= spans[-1][1]:
            prev_start, prev_end, prev_rules = spans[-1]
            spans[-1] = (prev_start, max(prev_end, end), prev_rules | rules)
        else:
            spans.append((start, end, rules))
    return spans


def _is_question(segment: str) -> bool:
    return "?" in segment or "¿" in segment or bool(_QUESTION.match(segment))


def _is_i(word: str) -> bool:
    core = word.strip(_EDGE_PUNCT).replace("’", "'")
    return core == "I" or core.startswith("I'")


def _writes_capitals(segment: str) -> bool:
    """Whether the writer capitalises names here (any capital beyond the first word and 'I')."""
    words = [w.strip(_EDGE_PUNCT) for w in segment.split()]
    words = [w for w in words if w]
    return any(any(c.isupper() for c in w) and not _is_i(w) for w in words[1:])


def _denied(prefix: str) -> bool:
    """Whether the clause leading up to a trigger negates it or makes it hypothetical."""
    parts = _CLAUSE_SEP.split(prefix.lower())
    clause = parts[-1] if parts else ""
    for raw in re.findall(r"[^\W\d_]+(?:['’][^\W\d_]+)?", clause):
        if raw.endswith(("n't", "n’t")):
            return True
        word = fold(raw).replace("’", "'")
        word = word.split("'")[-1] if "'" in word else word  # I'll -> ll, we'd -> d
        if word == "si" and raw != "si":  # "sí" (yes) is not "si" (if)
            continue
        if word in _NEGATIONS or word in _HYPOTHETICAL:
            return True
    return False


def _capitalised(word: str) -> bool:
    return any(c.isupper() for c in word)


def _number_then_unit(words: list[str], i: int) -> bool:
    return (
        _NUMBERISH.match(words[i].strip(_EDGE_PUNCT)) is not None
        and i + 1 < len(words)
        and _fold_word(words[i + 1]) in _UNITS
    )


def _strip_edges(value: str) -> str:
    return value.strip().strip(_EDGE_PUNCT).strip()


def _strip_trailing_phrases(words: list[str]) -> list[str]:
    changed = True
    while changed and words:
        changed = False
        for n in (4, 3, 2, 1):
            if len(words) > n and tuple(_fold_word(w) for w in words[-n:]) in _TRAILING:
                words = words[:-n]
                changed = True
                break
        if words and not words[-1].strip(_EDGE_PUNCT):
            words = words[:-1]
            changed = True
    return words


# ---------------------------------------------------------------------------------------------
# Value cleaning
# ---------------------------------------------------------------------------------------------


def _clean_name(raw: str, writer_caps: bool) -> str | None:
    """A place or company name out of the text that follows a trigger, or None."""
    raw = raw.lstrip(" \t'\"“”‘’«*_`")
    cut = _HARD_STOPS.search(raw)
    if cut:
        raw = raw[: cut.start()]
    words = raw.split()
    had_article = False
    while len(words) > 1 and words[0] in _ARTICLES:  # lower-case only: "La Coruña" stays
        words = words[1:]
        had_article = True
    if not words:
        return None
    first = words[0].strip(_EDGE_PUNCT)
    ffold = fold(first)
    if (
        not first
        or _NUMBERISH.match(first)
        or (
            not _capitalised(first)
            and (ffold in _NOT_A_NAME or ffold in _TIME or ffold in _BOUNDARY or ffold in _ARTICLES)
        )
    ):
        return None
    if _capitalised(first):
        kept = [words[0]]
        stopped_at: str | None = None
        for i in range(1, len(words)):
            w = words[i]
            core = w.strip(_EDGE_PUNCT)
            if not core or _is_i(w) or _number_then_unit(words, i):
                stopped_at = core
                break
            if core in _CONNECTORS:
                kept.append(w)
            elif _capitalised(core) and fold(core) not in _TIME:
                kept.append(w)
            elif core[0].isdigit():
                kept.append(w)
            else:
                stopped_at = core
                break
        while len(kept) > 1 and kept[-1].strip(_EDGE_PUNCT) in _CONNECTORS:
            kept.pop()
        # "Acme's data team": a possessive before a noun; "McDonald's in Madrid" keeps it.
        last = kept[-1].replace("’", "'")
        if stopped_at and last.endswith("'s") and fold(stopped_at) not in _BOUNDARY | _TIME:
            kept[-1] = kept[-1][:-2]
    else:
        if writer_caps or had_article:
            return None  # this writer capitalises names: a lower-case value is not one
        kept = [words[0]]
        for i in range(1, len(words)):
            f = _fold_word(words[i])
            if not f or f in _TIME or f in _BOUNDARY or _number_then_unit(words, i):
                break
            kept.append(words[i])
    if len(kept) > 8:
        return None
    value = _strip_edges(" ".join(kept))
    return value or None


def _clean_list(raw: str) -> str | None:
    """A stack or tool list: keeps commas and 'and', drops a trailing clause or time phrase."""
    raw = raw.lstrip(" \t'\"“”‘’«*_`:")
    cut = _LIST_STOPS.search(raw)
    if cut:
        raw = raw[: cut.start()]
    words = raw.split()
    while words and _fold_word(words[0]) in _TIME:
        words = words[1:]
    kept: list[str] = []
    for i, w in enumerate(words):
        f = _fold_word(w)
        if i and f in _LIST_BOUNDARY:
            break
        if i and f in {"and", "y", "e"} and i + 1 < len(words):
            if _fold_word(words[i + 1]) in _PRONOUNS:
                break
        if i and f in _PRONOUNS and words[i - 1].endswith(","):
            break
        kept.append(w)
    kept = _strip_trailing_phrases(kept)
    if not kept:
        return None
    first = fold(kept[0].strip(_EDGE_PUNCT))
    if not first or first in _NOT_A_NAME or first in _NEGATIONS:
        return None
    if len(kept) > 20:
        return None
    value = _strip_edges(" ".join(kept))
    return value or None


def _clean_tool(raw: str) -> str | None:
    words = raw.split()
    while len(words) > 1 and words[0] in _ARTICLES:
        words = words[1:]
    value = _clean_list(" ".join(words))
    if value is None or len(value.split()) > 6:
        return None
    return value


def _purpose(raw: str) -> str | None:
    """'the CI/CD pipeline' -> 'ci/cd pipeline': the normalised name of what a tool is for."""
    cut = _HARD_STOPS.search(raw)
    if cut:
        raw = raw[: cut.start()]
    words = raw.split()
    while words and _fold_word(words[0]) in _PURPOSE_LEAD:
        words = words[1:]
    kept: list[str] = []
    for i, w in enumerate(words):
        f = _fold_word(w)
        if not f or (i and (f in _BOUNDARY or f in _TIME)):
            break
        kept.append(w)
    if not kept or len(kept) > 4:
        return None
    first = _fold_word(kept[0])
    if first in _TIME or first in _UNITS or first in _NOT_A_NAME or first in _BOUNDARY:
        return None
    if _NUMBERISH.match(first):
        return None
    norm = re.sub(r"[^a-z0-9/+#.\- ]+", " ", fold(" ".join(kept)))
    norm = " ".join(norm.split()).strip(".-")
    return norm or None


def _clean_clinical(raw: str) -> str | None:
    value = raw.replace("**", "").replace("__", "").strip()
    value = value.rstrip(" .;,")
    if len(value) > 500:
        value = value[:500].rsplit(" ", 1)[0] + "…"
    return value or None


# ---------------------------------------------------------------------------------------------
# Dates
# ---------------------------------------------------------------------------------------------

_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}(?:[T ][0-9:.,+\-Z]*)?$")


def _check_date(value: str | None, name: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not _ISO.match(value.strip()):
        raise InputError(f"{name} must be an ISO date like 2026-02-03, got {value!r}")
    value = value.strip()
    try:
        _date.fromisoformat(value[:10])
    except ValueError:
        raise InputError(f"{name} {value!r} is not a real calendar day") from None
    return value


@functools.lru_cache(maxsize=1)
def _resolver() -> Callable[[str, str], str | None] | None:
    """The relative-date resolver, imported late: ingest depends on timeline, not the reverse."""
    try:
        from ..ingest.dates import resolve_relative
    except ImportError:  # pragma: no cover - only while the ingest package is incomplete
        log.debug("ihmt.ingest.dates unavailable; relative dates in facts are not resolved")
        return None
    return resolve_relative


def _date_for(sentence: str, anchor: str) -> str:
    resolve = _resolver()
    if resolve is None:
        return anchor
    try:
        resolved = resolve(sentence, anchor)
    except ValueError:  # InputError included: the anchor was validated, so log and go on
        log.debug("could not resolve a relative date in %r", sentence, exc_info=True)
        return anchor
    return resolved or anchor


# ---------------------------------------------------------------------------------------------
# Extraction
# ---------------------------------------------------------------------------------------------


def _clean(
    rule: _Rule, m: re.Match[str], value: str, sentence: str, purpose: str
) -> tuple[str, str] | None:
    """(attribute, value) for a match, or None when the value is not a clean fact."""
    if rule.kind == "name":
        cleaned = _clean_name(value, _writes_capitals(sentence))
        return (rule.attribute, cleaned) if cleaned else None
    if rule.kind == "list" or rule.kind == "custom":
        cleaned = _clean_list(value)
        return (rule.attribute, cleaned) if cleaned else None
    if rule.kind == "tool":
        cleaned = _clean_tool(value)
        norm = _purpose(purpose)
        return (f"tool:{norm}", cleaned) if cleaned and norm else None
    # clinical
    cleaned = _clean_clinical(value)
    label = _CLINICAL_LABELS.get(m.group("label").lower(), "")
    return (label, cleaned) if cleaned and label else None


def extract_facts(
    text: str,
    date: str | None,
    source: str | None = None,
    *,
    fallback_date: str | None = None,
) -> list[Fact]:
    """Facts stated in ``text``, dated so the timeline can order them.

    A sentence with a relative date ("I moved to Valencia last month", "ayer me mudé a
    Valencia") is dated by resolving it against ``date``; otherwise the fact takes ``date``.
    When ``date`` is None, ``fallback_date`` is used instead; when both are None the text
    yields no facts, because an undated fact cannot be placed before or after another one.
    The same (subject, attribute, value) stated twice in one text is returned once.
    """
    if not isinstance(text, str):
        raise InputError(f"extract_facts needs text (str), got {type(text).__name__}")
    anchor = _check_date(date, "date") or _check_date(fallback_date, "fallback_date")
    if source is not None and not isinstance(source, str):
        raise InputError(f"source must be a leaf id (str) or None, got {type(source).__name__}")
    if anchor is None:
        log.debug("undated text: no facts extracted (pass date= or fallback_date=)")
        return []
    if not text.strip():
        return []

    folded, offsets = _mapped(text)
    line_segs: dict[int, list[tuple[int, int]]] = {}  # line start -> its sentences
    seen: set[tuple[str, str]] = set()
    found: list[tuple[int, Fact]] = []

    def line_of(pos: int) -> tuple[int, int]:
        start = folded.rfind("\n", 0, pos) + 1
        end = folded.find("\n", pos)
        return start, len(folded) if end < 0 else end

    def sentences(line: tuple[int, int]) -> list[tuple[int, int]]:
        segs = line_segs.get(line[0])
        if segs is None:
            segs = line_segs[line[0]] = _line_segments(folded, *line)
        return segs

    def segment_of(pos: int) -> tuple[int, int]:
        segs = sentences(line_of(pos))
        i = bisect_right([s for s, _ in segs], pos) - 1
        return segs[i] if i >= 0 and pos < segs[i][1] else (pos, pos)

    def original(start: int, end: int) -> str:
        if end <= start:
            return ""
        # up to where the next folded character starts: keeps a decomposed accent at the end
        return text[_orig(offsets, start) : _orig(offsets, end)]

    def emit(rule: _Rule, m: re.Match[str], seg: tuple[int, int], offset: int) -> None:
        vstart, vend = m.span(rule.value_group)
        vstart, vend = vstart + offset, min(vend + offset, seg[1])
        if vstart < 0 or vstart >= vend:
            return
        sentence = original(*seg)
        if rule.kind != "clinical":
            if _is_question(folded[seg[0] : seg[1]]):
                return
            if _denied(original(seg[0], m.start() + offset)):
                return
            if rule.noun_before:
                prev = re.search(
                    r"(\w+)\W*$", folded[max(seg[0], m.start() + offset - 30) : m.start() + offset]
                )
                if prev and prev.group(1).lower() in rule.noun_before:
                    return
        purpose = ""
        if "purpose" in m.re.groupindex:
            pstart, pend = m.span("purpose")
            pstart, pend = pstart + offset, min(pend + offset, seg[1])
            if pstart < 0 or pstart >= pend:
                return
            purpose = original(pstart, pend)
        cleaned = _clean(rule, m, original(vstart, vend), sentence, purpose)
        if cleaned is None:
            return
        attribute, value = cleaned
        subject = rule.subject
        marker = (f"{subject}::{attribute}", fold(value))
        if marker in seen:
            return
        seen.add(marker)
        when = _date_for(sentence, anchor)
        found.append((m.start() + offset, Fact(subject, attribute, value, when, source)))

    for window_start, window_end, rule_ids in _windows(folded):
        for rule_id in sorted(rule_ids):
            rule = _BUILTIN[rule_id]
            for m in rule.pattern.finditer(folded, window_start, window_end):
                seg = segment_of(m.start()) if rule.kind != "clinical" else (m.start(), m.end())
                emit(rule, m, seg, 0)

    with _custom_lock:
        custom = tuple(_custom)
    if custom:
        for line in re.finditer(r"[^\n]+", folded):
            for seg in sentences(line.span()):
                piece = folded[seg[0] : seg[1]]
                for rule in custom:
                    for m in rule.pattern.finditer(piece):
                        if m.start(rule.value_group) < 0:
                            continue
                        emit(rule, m, seg, seg[0])

    found.sort(key=lambda item: item[0])
    return [fact for _, fact in found]
