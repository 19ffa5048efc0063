"""Session scratch memory: notes and digested tool outputs that outlive a context compaction.

An agent's context is compacted in the middle of long sessions, and what it had worked out
(a port number, the failing test, the command that finally built the project) is summarised
away. The server process keeps running through a compaction, so notes kept here are still
there afterwards; they are deliberately *not* written to disk, because they belong to one
session and would only be noise in the next one (durable facts go to the long-term memory).

``digest_output`` exists because the expensive thing in a session is often one long log: a
test run of 3,000 lines that the agent needs three lines of. The digest keeps the first
lines, the errors and failures, the test totals and the last lines, and the full text stays
here, recallable by its label or by words inside it.
"""

from __future__ import annotations

import math
import re
import threading
import time
from collections import Counter
from dataclasses import dataclass, field

from ..errors import InputError
from ..text import clip, clip_shown, count_tokens, tokenize

DIGEST_MAX_TOKENS = 600
RECALL_MAX_TOKENS = 1500
NOTE_MAX_BYTES = 20_000  # a note is a remark to keep; a long output goes to digest_output
TIE_MARGIN = 0.12  # relative score gap under which two entries count as tied
CLUE_BOOST, CLUE_DEMOTE = 1.6, 0.7
K1, B = 1.2, 0.75
LINE_CHARS = 220


@dataclass
class _Entry:
    number: int
    kind: str  # note | output
    text: str
    at: str
    label: str = ""
    terms: Counter[str] = field(default_factory=Counter)


@dataclass
class _Scored:
    entry: _Entry
    score: float
    matched: set[str]


class SessionMemory:
    """Notes and outputs of one session, searchable with BM25, kept in process memory only."""

    def __init__(self, stemmer: str = "english") -> None:
        self.stemmer = stemmer
        self._entries: list[_Entry] = []
        self._labels: dict[str, _Entry] = {}
        self._mutex = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    # ------------------------------------------------------------------ writing
    def note(self, text: str) -> str:
        """Keep ``text`` for the rest of the session; returns a one-line acknowledgement."""
        if not isinstance(text, str) or not text.strip():
            raise InputError("the note is empty: say what to remember")
        size = len(text.encode("utf-8", "surrogatepass"))
        if size > NOTE_MAX_BYTES:
            raise InputError(
                f"the note is {size:,} bytes, over the {NOTE_MAX_BYTES:,}-byte limit for a "
                "note; keep the few lines worth remembering, and hand a long output (a log, "
                "a test run) to digest_output, which keeps it whole and answers recall")
        with self._mutex:
            entry = self._add("note", text.strip(), label="")
        return f"noted #{entry.number} ({count_tokens(entry.text)} tok); recall it with recall()"

    def digest_output(self, text: str, label: str = "output") -> str:
        """A compact digest of a long output (about 600 tokens at most); the full text is
        kept under ``label`` (made unique: ``output``, ``output-2``, ...)."""
        if not isinstance(text, str) or not text.strip():
            raise InputError("the output is empty: nothing to digest")
        base = " ".join((label or "output").split()) or "output"
        with self._mutex:
            name = base
            n = 2
            while name.lower() in self._labels:
                name = f"{base}-{n}"
                n += 1
            entry = self._add("output", text, label=name)
        return digest(text, label=name, max_tokens=DIGEST_MAX_TOKENS, number=entry.number)

    def _add(self, kind: str, text: str, *, label: str) -> _Entry:
        entry = _Entry(number=len(self._entries) + 1, kind=kind, text=text,
                       at=time.strftime("%H:%M:%S"), label=label,
                       terms=Counter(tokenize(f"{label} {text}", self.stemmer)))
        self._entries.append(entry)
        if label:
            self._labels[label.lower()] = entry
        return entry

    # ------------------------------------------------------------------ reading
    def recall(self, query: str, clue: str | None = None,
               max_tokens: int = RECALL_MAX_TOKENS) -> str:
        """The best matching note or output, compact; AMBIGUOUS when several tie (give a
        ``clue``), NOT FOUND when nothing matches. ``recall("<label>")`` returns a kept
        output in full (within ``max_tokens``); ``recall("#3")`` returns entry 3."""
        if not isinstance(query, str) or not query.strip():
            raise InputError("the query is empty: say what to recall")
        q = query.strip()
        with self._mutex:
            entries = list(self._entries)
            by_label = self._labels.get(q.lower())
        if not entries:
            return "NOT FOUND: nothing was noted or digested in this session yet."
        if by_label is not None and not clue:
            return _full(by_label, max_tokens)
        m = re.fullmatch(r"#?(\d+)", q)
        if m and not clue:
            k = int(m.group(1))
            if 1 <= k <= len(entries):
                return _full(entries[k - 1], max_tokens)
        terms = list(dict.fromkeys(tokenize(q, self.stemmer)))
        clue_terms = list(dict.fromkeys(tokenize(clue, self.stemmer))) if clue else []
        ranked = _rank(entries, terms + [t for t in clue_terms if t not in terms], clue_terms)
        if not ranked:
            return f"NOT FOUND: no note or output of this session mentions {query!r}."
        best = ranked[0]
        rivals = [s for s in ranked[1:] if s.score >= best.score * (1.0 - TIE_MARGIN)]
        if rivals:
            lines = [f"AMBIGUOUS: {1 + len(rivals)} entries match {query!r} about equally "
                     "well; call recall again with clue='<a detail>' to choose:"]
            for s in [best, *rivals][:8]:
                lines.append(f"#{s.entry.number} {_title(s.entry)}")
            return "\n".join(lines)
        out = [_render(best, terms + clue_terms, max_tokens)]
        others = [s for s in ranked[1:4]]
        if others:
            out.append("Also matching: " + "; ".join(
                f"#{s.entry.number} {clip(_title(s.entry), 60)}" for s in others))
        return "\n".join(out)


# ---------------------------------------------------------------------- ranking
def _rank(entries: list[_Entry], terms: list[str], clue_terms: list[str]) -> list[_Scored]:
    """BM25 over the session's entries; with a clue, entries holding both the query and the
    clue are boosted and those holding only one demoted (the joint cross-reference)."""
    if not terms:
        return []
    n = len(entries)
    avgdl = max(1.0, sum(sum(e.terms.values()) for e in entries) / n)
    df = {t: sum(1 for e in entries if t in e.terms) for t in terms}
    qset = [t for t in terms if t not in clue_terms]
    out: list[_Scored] = []
    for e in entries:
        dl = sum(e.terms.values())
        score = 0.0
        matched: set[str] = set()
        for t in terms:
            tf = e.terms.get(t, 0)
            if not tf:
                continue
            idf = math.log(1.0 + (n - df[t] + 0.5) / (df[t] + 0.5))
            score += idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * dl / avgdl))
            matched.add(t)
        if not matched:
            continue
        if clue_terms:
            in_q = any(t in matched for t in qset) or not qset
            in_c = any(t in matched for t in clue_terms)
            score *= CLUE_BOOST if (in_q and in_c) else CLUE_DEMOTE
        out.append(_Scored(e, score, matched))
    out.sort(key=lambda s: (-s.score, -s.entry.number))
    return out


def _title(e: _Entry) -> str:
    if e.kind == "output":
        lines = e.text.count("\n") + 1
        return f"[output {e.label!r}, {lines} lines, {e.at}] " + clip_shown(e.text, 100)
    return f"[note {e.at}] " + clip_shown(e.text, 140)


def _full(e: _Entry, max_tokens: int) -> str:
    head = f"#{e.number} {e.kind}" + (f" {e.label!r}" if e.label else "") + f" ({e.at})"
    if count_tokens(e.text) <= max_tokens:
        return f"{head}:\n{e.text}"
    lines = e.text.splitlines()
    kept: list[str] = []
    used = 0
    for line in lines:
        cost = count_tokens(line) + 1
        if used + cost > max_tokens:
            break
        kept.append(line)
        used += cost
    return (f"{head}, first {len(kept)} of {len(lines)} lines (over {max_tokens} tok; recall "
            "words from the rest to get those lines, or raise max_tokens):\n" + "\n".join(kept))


def _render(s: _Scored, terms: list[str], max_tokens: int) -> str:
    """A note in full; an output by the lines that hold the query's words."""
    e = s.entry
    if e.kind == "note" or count_tokens(e.text) <= max_tokens:
        return _full(e, max_tokens)
    want = set(terms)
    lines = e.text.splitlines()
    picked: list[int] = []
    used = 0
    for i, line in enumerate(lines):
        if want & set(tokenize(line)):
            cost = count_tokens(line[:LINE_CHARS]) + 1
            if used + cost > max_tokens:
                break
            picked.append(i)
            used += cost
    head = (f"#{e.number} output {e.label!r} ({e.at}): {len(picked)} of {len(lines)} lines "
            f"match; recall({e.label!r}) for the whole text")
    body = [f"{i + 1}: {clip(lines[i], LINE_CHARS)}" for i in picked]
    return "\n".join([head, *body])


# ---------------------------------------------------------------------- digest
# Priority classes: lower is kept first when the budget is short.
_TOTALS = [
    re.compile(r"^=+ .*\b(passed|failed|errors?|skipped|no tests ran|deselected)\b.* =+$"),
    re.compile(r"^\d+ (passed|failed)\b.* in [\d.]+s"),  # pytest -q summary
    re.compile(r"^Ran \d+ tests? in "),  # unittest
    re.compile(r"^(OK|FAILED)( \(.*\))?$"),  # unittest verdict
    re.compile(r"^(Tests|Test Suites|Snapshots|Time):\s+\d"),  # jest
    re.compile(r"^(ok|FAIL|PASS)\s+\S+\s+[\d.]+s"),  # go test per package
    re.compile(r"^(PASS|FAIL)$"),  # go test verdict
    re.compile(r"^test result: (ok|FAILED)\. \d+ passed"),  # cargo test
    re.compile(r"^(BUILD (SUCCESS|FAILURE)|Tests run: \d+, Failures: \d+)"),  # maven
]
_FAILURES = [
    re.compile(r"^(FAILED|ERROR) \S"),  # pytest short summary
    re.compile(r"^--- FAIL: "),  # go test
    re.compile(r"^\s*●\s"),  # jest failing test heading
    re.compile(r"^(FAIL|ERROR): \w"),  # unittest
    re.compile(r"^_{3,} .+ _{3,}$"),  # pytest failure section heading
]
_ERRORS = [
    re.compile(r"^E\s{2,}\S"),  # pytest assertion detail
    re.compile(r"(^|\s|:)(error|fatal)(\[\w+\])?:", re.IGNORECASE),  # compilers, linkers
    re.compile(r"^\S+:\d+:(\d+:)? "),  # file:line: message
    re.compile(r"^\w*(Error|Exception|Warning)\b[:(]"),  # Python exception line
    re.compile(r"^panic: "),
    re.compile(r"\b(Traceback \(most recent call last\)|Segmentation fault|Killed)\b"),
]
_FIRST, _LAST = 5, 5


def digest(text: str, *, label: str = "output", max_tokens: int = DIGEST_MAX_TOKENS,
           number: int | None = None) -> str:
    """Condense ``text`` to its first lines, errors, failures, test totals and last lines.

    Lines are kept in their original order with ``…`` marking what was left out, so the
    digest still reads like the log. When the budget is short the totals go in first, then
    failures, then errors, then the head and tail.
    """
    lines = text.splitlines()
    n = len(lines)
    prio: dict[int, int] = {}

    def want(i: int, p: int) -> None:
        if 0 <= i < n and lines[i].strip():
            prio[i] = min(prio.get(i, 9), p)

    in_tb = False
    for i, raw in enumerate(lines):
        line = raw.rstrip()
        s = line.strip()
        if not s:
            continue
        if any(rx.search(s) for rx in _TOTALS):
            want(i, 0)
        elif any(rx.search(line) for rx in _FAILURES):
            want(i, 1)
        elif any(rx.search(line) for rx in _ERRORS):
            want(i, 2)
        if "Traceback (most recent call last)" in line:
            in_tb = True
        elif in_tb and line and not line[0].isspace():
            want(i, 1)  # the exception that ended the traceback
            in_tb = False
    nonblank = [i for i in range(n) if lines[i].strip()]
    for i in nonblank[:_FIRST]:
        want(i, 3)
    for i in nonblank[-_LAST:]:
        want(i, 3)

    total_tok = count_tokens(text)
    head = (f"DIGEST {label!r}" + (f" (#{number})" if number else "")
            + f": {n} lines, {total_tok} tok; full text: recall({label!r})")
    budget = max_tokens - count_tokens(head) - 2
    kept: set[int] = set()
    used = 0
    dropped = Counter[int]()
    for i in sorted(prio, key=lambda i: (prio[i], i)):
        cost = count_tokens(clip(lines[i], LINE_CHARS)) + 1
        if used + cost > budget:
            dropped[prio[i]] += 1
            continue
        kept.add(i)
        used += cost
    out = [head]
    prev = -1
    for i in sorted(kept):
        if i > prev + 1:
            out.append(f"… ({i - prev - 1} lines)")
        out.append(clip(lines[i], LINE_CHARS) if len(lines[i]) > LINE_CHARS
                   else lines[i].rstrip())
        prev = i
    if prev < n - 1:
        out.append(f"… ({n - 1 - prev} lines)")
    if dropped:
        out.append(f"({sum(dropped.values())} more error/failure lines left out to stay within "
                   f"{max_tokens} tok; recall words from them to see them)")
    return "\n".join(out)
