"""Ranking symbols for ``find_code`` by what they do as well as by what they are called.

An agent often asks what code *does* ("the time left on a progress bar") rather than what
it is called (``format_eta``). Small helpers answer most such questions, and a plain BM25
over whole symbols hands them to the big classes that happen to repeat the question's
words. So every symbol is described by five fields, stored in the manifest at sync time:

* ``n``: the words of its name (``format_eta`` -> format, eta), the strongest evidence;
* ``d``: the words of its docstrings and comments;
* ``k``: the names it calls and returns (``unstyle`` returns ``strip_ansi(text)``);
* ``o``: its owner, the class and the file path it sits in;
* ``c``: every word of its code, and the words of its punctuation literals (``"-".join``
  joins with dashes).

Each field is weighed down when it is long (BM25's length normalisation, per field), so
size alone never wins.

A query word counts once, through the best field it is found in, and also through the
generic vocabulary of code (:mod:`ihmt.project.vocab`: ``eta`` ~ remaining ~ estimate,
``ansi`` ~ escape, 'regular expression' ~ ``regex``), worth less than the word itself.
Rare words weigh more (idf over the project's symbols), and a symbol that covers more of
the question's weight is preferred.

A name is a summary of what its code does, so a symbol whose name the question says in
full, in its own words or in equivalent ones ('the beginning of a flag' for
``_start_of_option``), is raised (:meth:`SymbolRanker.name_match`); a name of two words
written as one (``checksum``, ``weekday``) is read as its two words when the project uses
both in names of their own. Neighbouring words of the question found side by side in a
symbol's name or docstring ('control codes') count a little more than the same words
apart. Nothing here depends on a symbol being public or long.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from ..errors import InputError
from ..ingest.languages import EXTENSIONS
from ..text import _word_terms, count_tokens, tokenize, words
from .vocab import EQUIVALENTS, literal_words, phrase_words

EQUIV_WEIGHT = 0.8
PART_WEIGHT = 0.6  # a part of an identifier the query spells (``refund`` of refund_order)
FIELD_WEIGHTS = {"n": 3.0, "d": 2.0, "k": 1.5, "o": 1.0, "c": 1.0}
K1, B = 1.2, 0.75  # saturation and length normalisation of the code field (BM25's usual)
POOL = 100
COVER_FLOOR = 0.4  # score share a symbol keeps however little of the query it covers
MIN_HALF = 3  # the shortest half of a compound name ('weekday' -> week, day)
NAME_SHARE = 0.3  # share of the query's weight a name must carry to count in full
NAME_GAIN = 1.5
ONE_WORD = 0.3  # a name the question says in k words counts (1 - ONE_WORD ** k) of itself
PAIR_GAIN = 0.5  # the most neighbouring words side by side multiply the score by (1 + this)  # the most a name the query says in full multiplies the score by (1 + this)
TIE_MARGIN = 0.05  # relative score gap under which two symbols count as tied

_DOC_RX = re.compile(r'"""(.*?)"""|\'\'\'(.*?)\'\'\'|/\*(.*?)\*/|(?:#|//)([^\n]*)', re.S)
_CALL_RX = re.compile(r"([A-Za-z_][\w.]*)\s*\(")
_RETURN_RX = re.compile(r"\breturn\s+([A-Za-z_][\w.]*)")
_KEYWORDS = frozenset(
    "if elif else for while return def class with not and or in is lambda yield assert "
    "print super self this new function switch catch typeof sizeof".split())


@dataclass
class CodeHit:
    path: str
    name: str
    kind: str
    start: int
    end: int
    score: float
    leaf: str
    tokens: int = 0
    is_test: bool = False

    @property
    def where(self) -> str:
        return f"{self.path}:{self.start}-{self.end}"

    def line(self) -> str:
        label = self.name or f"({self.kind})"
        return f"{self.where} {label} ({self.kind})"


@dataclass
class CodeAnswer:
    """A structured find_code answer; :func:`render_answer` turns it into agent text."""

    query: str
    status: str  # FOUND | AMBIGUOUS | NOT_FOUND
    hits: list[CodeHit] = field(default_factory=list)
    code: str = ""
    message: str = ""


# ---------------------------------------------------------------------- fields
def _joined(terms: Iterable[str]) -> str:
    return " ".join(dict.fromkeys(terms))


def symbol_fields(text: str, name: str, stemmer: str, rel: str = "") -> dict[str, str]:
    """The described fields of one symbol, as space-separated distinct terms."""
    last = name.split(".")[-1] if name else ""
    owner = name.split(".")[:-1]
    if rel:
        owner += PurePosixPath(rel).with_suffix("").parts
    docs = " ".join(next(g for g in m.groups() if g is not None) for m in _DOC_RX.finditer(text))
    code = _DOC_RX.sub(" ", text)
    called = [m.group(1) for m in _CALL_RX.finditer(code)]
    called += [m.group(1) for m in _RETURN_RX.finditer(code)]
    called = [c.split(".")[-1] for c in called if c.split(".")[-1] not in _KEYWORDS]
    if last:
        called = [c for c in called if c != last]
    return {"n": _joined(identifier_terms(last, stemmer)) if last else "",
            "d": _joined(tokenize(docs, stemmer)),
            "k": _joined(t for c in called for t in identifier_terms(c, stemmer)),
            "o": _joined(t for o in owner for t in identifier_terms(o, stemmer)),
            "c": _joined([*tokenize(text, stemmer), *tokenize(" ".join(literal_words(code)),
                                                             stemmer)])}


def identifier_terms(name: str, stemmer: str) -> list[str]:
    """Terms of an identifier, stemmed like the index: 'reserveStock' -> reservestock,
    reserve, stock (the whole, as the index keeps it, then its parts); a number ends a
    word ('sha256' -> sha256, sha, 256)."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Za-z])(?=[0-9])|_", " ", name)
    return list(dict.fromkeys([*tokenize(name, stemmer), *tokenize(spaced, stemmer)]))


# ---------------------------------------------------------------------- the ranker
@dataclass
class Concept:
    """One word of the query: the terms that stand for it and what each is worth."""

    word: str
    terms: dict[str, float]


@dataclass
class Ranked:
    rel: str
    sym: dict[str, Any]
    score: float
    cover: float
    matched: set[str]  # the query words (lower-case) this symbol matched
    named: float = 0.0  # how much of the symbol's name the query says (see name_match)


class SymbolRanker:
    """An in-memory index of every symbol's fields, built from the manifest."""

    def __init__(self, man: dict[str, Any], stemmer: str) -> None:
        self.stemmer = stemmer
        self.syms: list[tuple[str, dict[str, Any]]] = []
        self.post: dict[str, dict[str, list[int]]] = {f: {} for f in FIELD_WEIGHTS}
        self.df: dict[str, int] = {}
        lengths: dict[str, list[int]] = {f: [] for f in FIELD_WEIGHTS}
        for rel, f in sorted(man["files"].items()):
            for sym in f["symbols"]:
                fields = sym.get("f") or {}
                i = len(self.syms)
                self.syms.append((rel, sym))
                seen: set[str] = set()
                for key in FIELD_WEIGHTS:
                    terms = (fields.get(key) or "").split()
                    lengths[key].append(len(terms))
                    for t in terms:
                        self.post[key].setdefault(t, []).append(i)
                        seen.add(t)
                for t in seen:
                    self.df[t] = self.df.get(t, 0) + 1
        self.lengths = lengths
        # The words of each symbol's own name (its whole identifier dropped when it has
        # parts); a name written as one word of two ('checksum', 'weekday') gets its halves,
        # in the name field too, when the project uses both as words of their own.
        self.names: list[list[str]] = []
        for i, (_, sym) in enumerate(self.syms):
            terms = ((sym.get("f") or {}).get("n") or "").split()
            parts = terms[1:] if len(terms) > 1 else terms
            halves = [h for p in parts for h in self._halves(p)]
            for h in halves:
                if i not in self.post["n"].setdefault(h, [])[-1:]:
                    self.post["n"][h].append(i)
            self.names.append(parts + [h for h in halves if h not in parts])
        self.avg = {f: max(1.0, sum(v) / len(v)) if v else 1.0 for f, v in lengths.items()}
        self.groups: dict[str, set[str]] = {}
        for line in EQUIVALENTS:
            members = {t for w in line.split() for t in tokenize(w, stemmer)}
            for t in members:
                self.groups.setdefault(t, set()).update(members - {t})

    def _halves(self, word: str) -> list[str]:
        """Two words of the project that make up ``word`` ('checksum' -> check, sum), the
        most even cut first; none when no cut gives two words of at least three letters
        that the project uses in names of their own (a word of a name is a word of code;
        'ent' and 'ish', the ends of 'client' and 'finish', are not)."""
        cuts = [(word[:k], word[k:]) for k in range(MIN_HALF, len(word) - MIN_HALF + 1)]
        cuts.sort(key=lambda c: -min(len(c[0]), len(c[1])))
        names = self.post["n"]
        for a, b in cuts:
            if a in names and b in names:
                return [a, b]
        return []

    def idf(self, term: str) -> float:
        d = self.df.get(term, 0)
        n = len(self.syms)
        return math.log(1.0 + (n - d + 0.5) / (d + 0.5)) if d else 0.0

    def concepts(self, text: str) -> list[Concept]:
        out: dict[str, Concept] = {}
        raws: list[str] = []
        for raw in words(text):
            # 'lower-case' in a sentence is two words; 'max_tokens' is one identifier.
            raws.extend(raw.split("-") if "-" in raw and "_" not in raw else [raw])
        raws.extend(phrase_words(text))  # 'regular expressions' is also 'regex'
        for raw in raws:
            terms = _word_terms(raw, self.stemmer)
            if not terms:
                continue
            word = raw.lower()
            if word in out:
                continue
            weights: dict[str, float] = {}
            for j, t in enumerate(terms):
                w = 1.0 if j == 0 else PART_WEIGHT
                weights[t] = max(weights.get(t, 0.0), w)
            for t, w in list(weights.items()):
                for e in self.groups.get(t, ()):
                    weights[e] = max(weights.get(e, 0.0), w * EQUIV_WEIGHT)
            out[word] = Concept(word, weights)
        return list(out.values())

    def name_match(self, parts: list[str], said: dict[str, float], total: float) -> float:
        """How far the query says the symbol's name, 0..1: the share of the name's words
        (by idf) the query holds, itself or through an equivalence, damped when those
        words carry little of the query's weight (a property called ``name`` is not the
        answer to every question that says 'name'), and less when it says only one of
        them (a one-word name is often an example the question gives: 'such as bell')."""
        if not parts or total <= 0:
            return 0.0
        mass = sum(self.idf(p) for p in parts)
        if mass <= 0:
            return 0.0
        got = sum(self.idf(p) * said.get(p, 0.0) for p in parts)
        k = sum(1 for p in parts if said.get(p, 0.0) > 0)
        return (got / mass) * min(1.0, got / (NAME_SHARE * total)) * (1 - ONE_WORD ** k)

    def weight(self, c: Concept) -> float:
        """What a query word is worth: the idf of its own terms when the project has them,
        else of the best equivalent it stands for (a rare abbreviation in its group does
        not make a common word weigh more: 'value' is worth 'value', not a rare 'val')."""
        own = [self.idf(t) for t, w in c.terms.items() if w >= 1.0]
        if any(own):
            return max(own)
        return max((self.idf(t) * w for t, w in c.terms.items()), default=0.0)

    def rank(self, text: str, pool: int = POOL) -> list[Ranked]:
        """The best ``pool`` symbols for ``text``, best first."""
        concepts = self.concepts(text)
        weight_of = {c.word: self.weight(c) for c in concepts}
        total = sum(weight_of.values())
        if total <= 0:
            return []
        score: dict[int, float] = {}
        cover: dict[int, float] = {}
        matched: dict[int, set[str]] = {}
        for c in concepts:
            cw = weight_of[c.word]
            if cw <= 0:
                continue
            best: dict[int, float] = {}
            strength: dict[int, float] = {}
            for t, w in c.terms.items():
                # An equivalent is never worth more than the word itself ('value' found as
                # a rare 'val' counts as 'value').
                worth = min(self.idf(t) * w, cw)
                if worth <= 0:
                    continue
                for key, fw in FIELD_WEIGHTS.items():
                    for i in self.post[key].get(t, ()):
                        dl = self.lengths[key][i]
                        v = worth * fw * (1 + K1) / (1 + K1 * (1 - B + B * dl / self.avg[key]))
                        if v > best.get(i, 0.0):
                            best[i] = v
                        if worth > strength.get(i, 0.0):
                            strength[i] = worth
            for i, v in best.items():
                score[i] = score.get(i, 0.0) + v
                cover[i] = cover.get(i, 0.0) + min(strength[i], cw)
                matched.setdefault(i, set()).add(c.word)
        said: dict[str, float] = {}
        for c in concepts:
            for t, w in c.terms.items():
                said[t] = max(said.get(t, 0.0), w)
        out: list[Ranked] = []
        for i, s in score.items():
            cv = cover[i] / total
            rel, sym = self.syms[i]
            out.append(Ranked(rel, sym, s * (COVER_FLOOR + (1 - COVER_FLOOR) * cv), cv,
                              matched[i], self.name_match(self.names[i], said, total)))
        out.sort(key=lambda r: (-r.score, r.rel, int(r.sym["start"])))
        if PAIR_GAIN > 0 and len(concepts) > 1:
            head = out[:3 * pool]
            for r in head:
                r.score *= 1.0 + PAIR_GAIN * self.pairs(r.sym, concepts, weight_of) / total
            head.sort(key=lambda r: (-r.score, r.rel, int(r.sym["start"])))
            out = head
        return out[:pool]

    def pairs(self, sym: dict[str, Any], concepts: list[Concept],
              weight_of: dict[str, float]) -> float:
        """Weight of the neighbouring query words found next to each other in the
        symbol's name or docstring ('control characters', 'byte count'): the lighter word
        of each such pair."""
        fields = sym.get("f") or {}
        found: set[int] = set()  # the pairs (by their first word's place in the query)
        for key in ("n", "d"):
            terms = (fields.get(key) or "").split()
            if len(terms) < 2:
                continue
            at: dict[str, list[int]] = {}
            for p, t in enumerate(terms):
                at.setdefault(t, []).append(p)
            for k, (a, b) in enumerate(zip(concepts, concepts[1:])):
                pa = {p for t in a.terms for p in at.get(t, ())}
                if k in found or not pa:
                    continue
                pb = {p for t in b.terms for p in at.get(t, ())}
                if any(p + d in pb for p in pa for d in (-1, 1)):
                    found.add(k)
        got = sum(min(weight_of[concepts[k].word], weight_of[concepts[k + 1].word])
                  for k in found)
        return got


# ---------------------------------------------------------------------- query helpers
_FILE_RX = re.compile(r"[\w./\\-]+\.([A-Za-z0-9]+)\b")


def _named_files(query: str) -> tuple[list[str], str]:
    """File names the query mentions (lower-case, as spelled) and the query without their
    extensions (so '.java' does not count as a word to match)."""
    named: list[str] = []

    def repl(m: re.Match[str]) -> str:
        ext = "." + m.group(1).lower()
        if ext not in EXTENSIONS:
            return m.group(0)
        named.append(m.group(0).replace("\\", "/").lstrip("./").lower())
        return m.group(0)[: -len(ext)]

    plain = _FILE_RX.sub(repl, query)
    return named, plain


def _names_file(rel: str, named: list[str]) -> bool:
    """True when ``rel`` ends with a file the query names ('util.py', 'shop/a/util.py')."""
    low = rel.lower()
    return any(low == n or low.endswith("/" + n) for n in named)


def _file_stems(man: dict[str, Any]) -> dict[str, int]:
    out: Counter[str] = Counter()
    for rel in man["files"]:
        out[rel.rsplit("/", 1)[-1].split(".", 1)[0].lower()] += 1
    return dict(out)


def spelled_words(text: str) -> set[str]:
    """Words of a query that spell an identifier (lower-cased): written like one
    (``reserve_stock``, ``reserveStock``, ``Basket``), or every word of a short query.
    'lower-case a name' describes behaviour: its 'name' does not name ``Option.name``."""
    raw = words(text)
    return {w.lower() for w in raw
            if len(raw) <= 3 or "_" in w or "." in w or any(c.isupper() or c.isdigit()
                                                             for c in w)}


def _boost(rel: str, sym: dict[str, Any], named: list[str], raw_words: set[str],
           stems: dict[str, int], spelled: set[str] | None = None,
           name_said: float = 0.0) -> float:
    """Code-aware multipliers on the score: the file the query names, the symbol it
    spells (``spelled``: see :func:`spelled_words`; all raw words when not given)."""
    f = 1.0
    base = rel.rsplit("/", 1)[-1].lower()
    stem = base.split(".", 1)[0]
    if _names_file(rel, named):
        f *= 2.0
    elif stem in raw_words and stems.get(stem, 0) >= 1:
        f *= 1.3
    name: str = sym.get("name") or ""
    if name:
        parts = [p.lower() for p in name.split(".")]
        if parts[-1] in (raw_words if spelled is None else spelled):
            f *= 1.5  # the query spells the symbol's name
        else:
            # 'atomic write' for atomic_write, 'reserve stock' for reserveStock, and
            # 'beginning of a flag' for _start_of_option (see SymbolRanker.name_match)
            f *= 1.0 + NAME_GAIN * name_said
        if len(parts) > 1 and any(p in raw_words for p in parts[:-1]):
            f *= 1.2
    kind = sym.get("kind")
    if kind == "imports":
        f *= 0.3
    elif not name:
        f *= 0.6  # a module docstring or stray statements: not a symbol that answers
    elif kind in ("header", "other"):
        f *= 0.8
    return f


def _norm_subpath(subpath: str) -> str:
    if not isinstance(subpath, str):
        raise InputError("subpath must be text (a folder or file inside the project)")
    s = subpath.replace("\\", "/").strip().strip("/")
    while s.startswith("./"):
        s = s[2:]
    if s in (".", ""):
        return ""
    if ".." in s.split("/"):
        raise InputError("subpath must stay inside the project (no '..')")
    return s


def _under(rel: str, prefix: str) -> bool:
    return not prefix or rel == prefix or rel.startswith(prefix + "/")


def render_answer(ans: CodeAnswer, max_tokens: int = 1500) -> str:
    """The text an agent reads: the code within ``max_tokens``, or the candidates."""
    if ans.status == "NOT_FOUND":
        out = f"NOT FOUND: {ans.message}."
        if ans.hits:
            out += "\nClosest (not answers): " + "; ".join(c.line() for c in ans.hits[:3])
        return out
    if ans.status == "AMBIGUOUS":
        tied = [c for c in ans.hits if c.score >= ans.hits[0].score * (1.0 - TIE_MARGIN)]
        lines = [f"AMBIGUOUS: {ans.message}:"]
        lines += [f"{i}. {c.line()}" for i, c in enumerate(tied[:8], 1)]
        return "\n".join(lines)
    best = ans.hits[0]
    head = best.line()
    others = [c.line() for c in ans.hits[1:4]]
    tail = ("Other candidates: " + "; ".join(others)) if others else ""
    note = f"({ans.message})\n" if ans.message else ""
    budget = max_tokens - count_tokens(head + tail + note) - 4
    code = ans.code if ans.code.endswith("\n") else ans.code + "\n"
    if count_tokens(code) > budget:
        kept: list[str] = []
        used = 0
        for line in code.splitlines(True):
            if used + count_tokens(line) > budget - 30:
                break
            kept.append(line)
            used += count_tokens(line)
        cut_at = best.start + len(kept)
        code = "".join(kept) + (f"… truncated at {max_tokens} tok: read_file({best.path!r}, "
                                f"start_line={cut_at}, end_line={best.end}) for the rest\n")
    return note + head + "\n" + code + tail
