"""The pieces of a text that get a vector of their own: sentences, cut into clauses.

One mean-pooled vector per memory blurs the sentence that matters among the others, and a
question usually names two things at once ("which broker did we pick for invoicing, given
that it survives an outage"): a memory should answer each part with one of its own parts.
So a memory is encoded whole *and* as units, and a query as its clauses
(:func:`query_clauses`); :mod:`ihmt.semantic.vectors` scores a memory by how well its
units answer every clause of the query, averaged with the similarity of the two whole
texts. Measured on the 5,000-memory synthetic set with paraphrase queries
(similarity alone, hit@5): one vector per memory 0.225, best sentence 0.25, this 0.425.

A unit is a sentence (:func:`ihmt.ingest.chunkers.narrative.sentence_spans`), cut at
clause punctuation (``, ; : ( ) —``) and before a word that opens a reason in English or
Spanish ("because", "since", "given that", "porque", "ya que", ...). Pieces of one word
join their neighbour; a memory keeps at most :data:`MAX_UNITS` units (neighbours are
merged beyond that), so a long leaf costs a bounded number of vectors.
"""

from __future__ import annotations

import re

from ..ingest.chunkers.narrative import sentence_spans

MAX_UNITS = 24  # vectors per memory besides the whole-memory one
MAX_QUERY_CLAUSES = 4
_CUT = re.compile(
    r"\s*[,;:()\u2014]\s*"
    r"|\s+(?=(?:because|since|given that|so that|as long as|porque|ya que|puesto que|"
    r"dado que|pues)\b)",
    re.IGNORECASE,
)
_STRIP = " \t\r\n.?!¿¡\"'"


def clauses(sentence: str) -> list[str]:
    """A sentence's clauses (the sentence itself when it has one)."""
    out: list[str] = []
    for piece in _CUT.split(sentence):
        piece = piece.strip(_STRIP)
        if not piece:
            continue
        if out and (len(piece.split()) < 2 or len(out[-1].split()) < 2):
            out[-1] = f"{out[-1]} {piece}"
        else:
            out.append(piece)
    return out or ([sentence.strip()] if sentence.strip() else [])


def units(text: str) -> list[str]:
    """The units of a memory's text; an empty list when the text is one unit (then the
    whole-memory vector stands for it and nothing more is stored)."""
    return _pieces(text, MAX_UNITS)


def query_clauses(query: str) -> list[str]:
    """The clauses of a query (at most :data:`MAX_QUERY_CLAUSES`); an empty list when the
    query is one clause."""
    return _pieces(query, MAX_QUERY_CLAUSES)


def _pieces(text: str, most: int) -> list[str]:
    """The clauses of every sentence of ``text``, merged into at most ``most`` runs of
    neighbours; empty when there is only one."""
    found: list[str] = []
    for a, b in sentence_spans(text, 0, len(text)):
        found.extend(clauses(text[a:b]))
    if len(found) <= 1:
        return []
    if len(found) > most:
        per = -(-len(found) // most)
        found = [" ".join(found[i:i + per]) for i in range(0, len(found), per)]
    return found
