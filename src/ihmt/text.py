"""Words, tokens and token counts shared by ingest, the tree and search.

Indexing and querying must see text through exactly the same function, so this module is
the one place that turns text into terms: accents folded, CamelCase and snake_case split
(the whole identifier is kept too), stop words dropped, and optionally stemmed.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import Counter

_WORD = re.compile(
    r"[A-Za-z0-9]+(?:[-._][A-Za-z0-9]+)+|[^\W_]+(?:['’][^\W_]+)?", re.UNICODE)
_JOINERS = re.compile(r"[-._]")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")

STOP_EN = frozenset(
    """a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is it
    its itself just me more most my myself no nor not now of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours yourself
    yourselves s t don ll ve re d m o y also us let get got one""".split()
)
STOP_ES = frozenset(
    """a al algo algunas algunos ante antes como con contra cual cuando de del desde donde
    durante e el ella ellas ellos en entre era erais eran eras eres es esa esas ese eso esos
    esta estaba estado estamos estan estar estas este esto estos estoy fue fueron fui ha han
    has hasta hay la las le les lo los mas me mi mis mucho muy nada ni no nos nosotros o os otra
    otros para pero poco por porque que quien se sea ser si sin sobre su sus tambien te tenemos
    tengo ti tiene tienen todo todos tu tus un una uno unos vosotros y ya yo""".split()
)
STOPWORDS = STOP_EN | STOP_ES


def fold(text: str) -> str:
    """Lower-case and strip accents: 'Mudé' -> 'mude'."""
    if text.isascii():
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower()


@functools.lru_cache(maxsize=8)
def _stemmer(name: str):
    if name in ("", "none"):
        return None
    import Stemmer  # PyStemmer

    return Stemmer.Stemmer(name)


@functools.lru_cache(maxsize=200_000)
def _stem(word: str, stemmer: str) -> str:
    st = _stemmer(stemmer)
    return st.stemWord(word) if st is not None else word


def words(text: str) -> list[str]:
    """The raw words of a text, in order, as they appear (no folding)."""
    return _WORD.findall(text)


def tokenize(text: str, stemmer: str = "english") -> list[str]:
    """Index terms of ``text``: folded, identifiers split into parts, stop words removed.

    ``reserveStock`` gives ``reservestock``, ``reserve``, ``stock``; ``max_tokens`` gives
    ``max_tokens``, ``max``, ``tokens`` (each then stemmed with ``stemmer``).
    """
    out: list[str] = []
    for raw in _WORD.findall(text):
        out.extend(_word_terms(raw, stemmer))
    return out


@functools.lru_cache(maxsize=200_000)
def _word_terms(raw: str, stemmer: str) -> tuple[str, ...]:
    """The terms of one raw word (a few thousand distinct words make up most text, so
    each is worked out once)."""
    out: list[str] = []
    parts: list[str] = []
    if "_" in raw or "-" in raw or "." in raw:
        parts = [p for p in _JOINERS.split(raw) if p]
    elif not raw.islower() and not raw.isupper() and any(c.isupper() for c in raw[1:]):
        parts = _CAMEL.findall(raw)
    whole = fold(raw).replace("’", "'")
    if "'" in whole:
        whole = whole.split("'", 1)[0]
    if whole and whole not in STOPWORDS and (len(whole) > 1 or whole.isdigit()):
        out.append(_stem(whole, stemmer))
    if len(parts) > 1:
        for p in parts:
            f = fold(p)
            if len(f) > 1 and f not in STOPWORDS:
                out.append(_stem(f, stemmer))
    return tuple(out)


def term_counts(text: str, stemmer: str = "english") -> Counter[str]:
    return Counter(tokenize(text, stemmer))


def memory_terms(text: str, tags: list[str], stemmer: str = "english") -> Counter[str]:
    """The words a memory is indexed under: its text's, plus once each the words of its
    tags, so that a memory tagged ``decision`` is found by "decision"."""
    tf = term_counts(text, stemmer)
    for t in set(tokenize(" ".join(tags), stemmer)):
        tf[t] += 1
    return tf


def count_tokens(text: str) -> int:
    """Estimated LLM tokens: about four characters each. Budgets need consistency, not exactness."""
    return (len(text) + 3) // 4


def clip(text: str, max_chars: int) -> str:
    """First ``max_chars`` characters on one line, with an ellipsis when cut."""
    flat = " ".join(text.split())
    return flat if len(flat) <= max_chars else flat[: max_chars - 1].rstrip() + "…"



def shown(text: str) -> str:
    """``text`` as a reader may see it: every value the secrets detector flags masked.

    Excerpts, titles and keywords are made from this, never from the raw text, so a cut
    cannot leave half a key that the detector would no longer recognise."""
    from .secrets import mask  # the detector depends on nothing here

    return mask(text).text


def clip_shown(text: str, max_chars: int) -> str:
    """:func:`clip` of :func:`shown`: the excerpt of a memory for display."""
    return clip(shown(text), max_chars)


def count(n: int, one: str, many: str | None = None) -> str:
    """``n`` and the noun it counts, singular for exactly one: "1 memory", "3 memories"."""
    return f"{n} {one if n == 1 else (many or one + 's')}"
