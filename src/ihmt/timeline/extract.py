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
from datetime import date as _date

from ..errors import InputError
from ..model import Fact
from ..text import fold
from .extract_rules import (
    _ABBREVIATIONS,
    _BUILTIN,
    _CLAUSE_SEP,
    _CLINICAL_LABELS,
    _COMPANY_SUFFIXES,
    _EDGE_PUNCT,
    _HYPOTHETICAL,
    _NEGATIONS,
    _QUESTION,
    _SENT_END,
    _Rule,
)
from .extract_values import (
    _clean_clinical,
    _clean_list,
    _clean_name,
    _clean_tool,
    _is_i,
    _purpose,
)

__all__ = ["add_pattern", "extract_facts", "reset_patterns"]

log = logging.getLogger(__name__)

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
