"""Implicit supersession: a new memory that states a new value for the same subject and the
same attribute as an earlier one corrects it, even when nobody said ``replaces``.

"The login provider of Dylumou is Okta" (March) and "Dylumou switched its login provider to
Keycloak" (September) both state ``dylumou :: login provider``; the second retires the first.
This module finds such statements (:func:`find_statements`), turns them into timeline facts
(:func:`statement_facts`), works out which leaf supersedes which from one subject::attribute's
statements (:func:`version_links`); :mod:`ihmt.timeline.versions` keeps, at search time, the versions
of one fact together with the current one first.

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

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from ..lazy_re import lazy
from ..model import Fact
from ..text import STOPWORDS, fold
from .facts import FactTimeline
from .statement_rules import (
    _ARTICLES,
    _BAD_ATTRS,
    _COMMON_START,
    _CONNECTORS,
    _DISCOURSE,
    _FUTURE,
    _HEADS,
    _HYPOTHETICAL,
    _LEADING_HEADS,
    _MONTHS,
    _NEGATIONS,
    _OWNER_VALUE_RULES,
    _PERSON_RULES,
    _PRONOUNS,
    _RULES,
    _RULES_BY_WORD,
    _SYNONYMS,
    _Rule,
)

__all__ = ["Statement", "find_statements", "implicit_links", "statement_facts", "version_links"]

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
