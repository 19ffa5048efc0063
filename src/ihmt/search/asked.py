"""The kind of thing a question asks for: "which *bundler* does the frontend use?".

A question that asks *which X* names the answer's type, not a word the answer holds: the
memory that answers it says "the frontend: Rspack -> esbuild", never "bundler". Coverage
(:func:`ihmt.search.rank.assess`) would count that word as missing and answer NOT FOUND
for the right memory. In that test a type word the best memory lacks weighs
:data:`TYPE_WEIGHT` of its weight, and only when that memory holds a name the question
does not (an answer to "which …" is a name: a capitalised word inside a sentence, a word
with a digit or an inner capital). The confidence, the ranking and a memory that holds
the type word count it in full: its absence is no sign of a stray match, but no evidence
of the right memory either (letting it raise the confidence made the agent hooks inject
more often on LoCoMo at a lower precision, 0.800 -> 0.788).

Recognised forms: "which|what <one to three words> <auxiliary>" ("which log shipper do we
use", "what database is billing on") and "qué|cuál <one to three words> <verb of use or
being>" ("qué base de datos usa la facturación", "qué broker lleva los eventos"). A verb
right after "what" ("what ships the logs") is no type: without the auxiliary nothing is
recognised.
"""

from __future__ import annotations

import re

from ..lazy_re import lazy
from ..text import fold, tokenize

TYPE_WEIGHT = 0.25  # share of its weight a type word the answer lacks still counts

_AUX = "do|does|did|is|are|was|were|should|can|could|will|would|has|have|had"
_ES_VERB = ("usa|usan|usamos|usais|lleva|llevan|es|son|era|eran|esta|estan|tiene|tienen"
            "|tenemos|corre|corren|sirve|sirven|ejecuta|ejecutan|instala|instalan|guarda"
            "|guardan|gestiona|gestionan|hace|hacen|maneja|manejan|aloja|alojan|se")
_ASKED = lazy(
    r"\b(?:which|what)\s+((?:[a-z][\w-]*\s+){0,2}?[a-z][\w-]*)\s+(?:" + _AUX + r")\b"
    r"|\b(?:que|cual|cuales)\s+((?:[a-z][\w-]*\s+){0,2}?[a-z][\w-]*)\s+(?:" + _ES_VERB
    + r")\b")

# A name: capitalised after the first word of a sentence, or with a digit or inner capital.
_WORD = re.compile(r"\w[\w.+#-]*")
_SENTENCE_END = re.compile(r"[.!?\n]")


# "What's my daughter called?", "¿cómo se llama mi hija?": the verb asks for a name, it is
# no word the answer must hold ("My daughter is Sofia"), and a stray memory holding it
# ("Jamal's dog is called Biscuit") would outrank the answer.
_CALLED = lazy(
    r"^\W*(?:what(?:'s|\s+is|\s+are|\s+was|\s+were)|how\s+(?:is|are))\s+\S.*?\s+"
    r"(called|named)\W*$"
    r"|\b(?:como|cual)\s+(?:se\s+)?(llama|llaman|llamaba)\b")


def frame_terms(query: str, stemmer: str) -> frozenset[str]:
    """Index terms of the words a question uses to ask for a name, not for a word of the
    answer (see ``_CALLED``): left out of the query's terms."""
    m = _CALLED.search(fold(query))
    return frozenset(tokenize(m.group(1) or m.group(2), stemmer)) if m else frozenset()


def answer_type_terms(query: str, stemmer: str) -> frozenset[str]:
    """Index terms of the words a question uses for the kind of its answer (may be empty)."""
    out: set[str] = set()
    for m in _ASKED.finditer(fold(query)):
        out.update(tokenize(m.group(1) or m.group(2) or "", stemmer))
    return frozenset(out)


def names_beyond(text: str, query_terms: set[str], stemmer: str) -> bool:
    """Whether ``text`` holds a word that reads as a name and is none of the query's."""
    end = 0  # where the previous word ended
    for m in _WORD.finditer(text):
        w = m.group().rstrip(".")
        start = end == 0 or bool(_SENTENCE_END.search(text, end - 1, m.start()))
        end = m.end()
        named = any(c.isdigit() for c in w) or any(c.isupper() for c in w[1:]) or \
            (w[0].isupper() and not start)
        if named and not set(tokenize(w, stemmer)) <= query_terms:
            return True
    return False


# A question among other sentences: "Which proxy fronts cobalt today? I need to add a
# route." The part that asks ends with "?", opens with "¿", or starts with a word of
# asking; the rest says why the user asks (a task, a plan), not what the answer holds.
_PARTS = re.compile(r"(?<=[?!.;:])\s+|\s+[-\u2013\u2014]\s+|\n+")
_ASKS = lazy(
    r"^\W*(?:what|which|where|who|whom|whose|when|how|why|is|are|do|does|did|can|could"
    r"|should|will|would|has|have|que|cual|cuales|donde|quien|quienes|cuando|como"
    r"|cuanto|cuanta|cuantos|cuantas|por\s+que)\b")


def context_terms(query: str, stemmer: str) -> frozenset[str]:
    """Index terms found only in the parts of ``query`` that do not ask (its context: "I
    need to add a route", "Before I add a background job to sable:"); nothing for a query
    of one part, or one with no part that asks."""
    parts = [p for p in _PARTS.split(query.strip()) if p.strip()]
    if len(parts) < 2:
        return frozenset()
    asks = [p for p in parts if p.rstrip().endswith("?") or p.lstrip().startswith("¿")
            or _ASKS.search(fold(p))]
    if not asks or len(asks) == len(parts):
        return frozenset()
    asked = {t for p in asks for t in tokenize(p, stemmer)}
    return frozenset(t for p in parts if p not in asks for t in tokenize(p, stemmer)
                     if t not in asked)
