"""Figures in a memory, for the rule of changes (:mod:`ihmt.search.change_notes`): numbers
said in digits or in words ("two weeks", "quinientos"), the unit each one counts ("30
days", "port 5432"), and which units measure the same thing ("minutes" and "hours").
"""

from __future__ import annotations

import functools
import re

from ..text import tokenize
from .change_words import UNIT_KINDS

# Numbers said in words, English and Spanish (folded), as digits: "two weeks" is a figure
# as "2 weeks" is, "five hundred requests" as "500 requests".
_SMALL = {w: i for i, ws in enumerate((
    "zero cero", "one uno una", "two dos", "three tres", "four cuatro", "five cinco",
    "six seis", "seven siete", "eight ocho", "nine nueve", "ten diez", "eleven once",
    "twelve doce", "thirteen trece", "fourteen catorce", "fifteen quince",
    "sixteen dieciseis", "seventeen diecisiete", "eighteen dieciocho",
    "nineteen diecinueve", "twenty veinte")) for w in ws.split()} | {
    w: 10 * i for i, ws in enumerate(("", "", "", "thirty treinta", "forty cuarenta",
                                       "fifty cincuenta", "sixty sesenta", "seventy setenta",
                                       "eighty ochenta", "ninety noventa"))
    for w in ws.split()} | {
    w: 100 * i for i, w in enumerate(("", "ciento", "doscientos", "trescientos",
                                      "cuatrocientos", "quinientos", "seiscientos",
                                      "setecientos", "ochocientos", "novecientos")) if w}
_SCALES = {"hundred": 100, "cien": 100, "thousand": 1000, "mil": 1000}
_NUMBER_WORD = "|".join(sorted([*_SMALL, *_SCALES], key=len, reverse=True))
# one number in words: "two", "twenty five", "five hundred", "one hundred and fifty",
# "dos mil quinientos"
_NUMBER_WORDS = (r"(?:" + _NUMBER_WORD + r")(?:(?:\s+|-)(?:(?:and|y)\s+)?(?:" + _NUMBER_WORD
                 + r"))*")
NAMED_FIGURE = re.compile(r"\b([a-z][a-z_-]+)(?:\s*[=:]\s*|\s+(?:(?:is|are|was|were|es|son|era)\s+"
                           # "max_connections raised to 400", "el pool subido a 40"
                           r"|(?:raised|lowered|increased|decreased|reduced|bumped|set|cut"
                           r"|changed|went\s+up|went\s+down|subid[oa]|bajad[oa]"
                           r"|cambiad[oa])\s+(?:to|a)\s+)?)"  # ("TIMEOUT_MS=4500")
                           r"(\d+(?:[.,:]\d+)*)(?![\w.,:]*\w)")
# words that number a place in a series, not a quantity or a setting
_ORDINAL = frozenset("""note notes item step part chapter section point entry round phase
    episode lesson slide page question nota paso punto parte capitulo seccion fase ronda
    pregunta pagina""".split())
# the second number of "18->20", "22 to 2222", "30 a 60"
_FIGURE_TO = re.compile(r"\s*(?:->|=>|\u2192|\bto\b|\ba\b)\s*(\d+(?:[.,:]\d+)*)(?![\w.,:]*\w)")
# "30 days", "2am", "5%", "4-space", "two weeks", "one-week", "five hundred requests"
_FIGURE = re.compile(r"\b(\d+(?:[.,:]\d+)?|" + _NUMBER_WORDS + r")(?:\s*-\s*|\s*)(%|[a-z]{2,})",
                     re.IGNORECASE)

# a figure that dates something: "ten years ago", "hace dos años"
_AGO = re.compile(r"\s+(?:ago|back)\b")
_HACE = re.compile(r"\bhace\s+$")

# a number at the end of a clause ("... to 50", "... a cincuenta")
BARE = re.compile(r"\b(?:\d+|" + _NUMBER_WORDS + r")\s*$", re.IGNORECASE)


@functools.lru_cache(maxsize=8)
def number_terms(stemmer: str) -> frozenset[str]:
    """The index terms of the numbers said in words ("five", "hundr"): a figure, never a
    word that names a thing."""
    return frozenset(t for w in [*_SMALL, *_SCALES] for t in tokenize(w, stemmer)[:1])


def number(said: str) -> str:
    """``said`` (digits, or a number in words) as digits: "five hundred" is "500"."""
    words = re.split(r"[\s-]+", said.lower())
    if not all(w in _SMALL or w in _SCALES or w in ("and", "y") for w in words):
        return said
    total = current = 0
    for w in words:
        if w in _SMALL:
            current += _SMALL[w]
        elif w in _SCALES and _SCALES[w] == 100:
            current = (current or 1) * 100
        elif w in _SCALES:
            total += (current or 1) * _SCALES[w]
            current = 0
    return str(total + current)


def figures_of(clause: str, stemmer: str) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
    """The (number, unit term) pairs of a folded clause: "kept for 30 days" is ("30",
    "day"), "one-week sprints" ("1", "week"), and a number after what it numbers, "port
    5432" ("5432", "port"), "the port is 5433" ("5433", "port"); and, apart, those of the
    last kind. (A stop word is no unit: "at 10", "is 20".)"""
    out = set()
    for m in _FIGURE.finditer(clause):
        if _AGO.match(clause, m.end()) or _HACE.search(clause, 0, m.start()):
            continue  # a time, not a value: "ten years ago", "hace dos años"
        unit = tokenize(m.group(2), stemmer)[:1]
        if unit:
            out.add((number(m.group(1)), unit[0]))
    named = set()
    for m in NAMED_FIGURE.finditer(clause):  # "port 5432", "node 20", "timeout is 30"
        unit = tokenize(m.group(1), stemmer)[:1]
        if m.group(1) in _ORDINAL:
            continue  # a place in a series, no value: "note 2", "step 3", "paso 4"
        if unit:
            named.add((m.group(2), unit[0]))
            # a range of one figure, "node 18->20", "port 22 to 2222": the last number is
            # of the same thing
            to = _FIGURE_TO.match(clause, m.end())
            if to is not None:
                named.add((to.group(1), unit[0]))
    return out | named, named


@functools.lru_cache(maxsize=8)
def _unit_kinds(stemmer: str) -> dict[str, int]:
    return {t: i for i, line in enumerate(UNIT_KINDS) for w in line.split()
            for t in tokenize(w, stemmer)[:1]}


def same_unit(a: str, b: str, stemmer: str) -> bool:
    """Whether two unit terms measure the same thing: the same term, or two units of one
    dimension ("minut" and "hour")."""
    if a == b:
        return True
    kinds = _unit_kinds(stemmer)
    return a in kinds and kinds.get(b) == kinds[a]
