"""Short forms and their long forms: "prod" is "production", "k8s" is "Kubernetes", "retro"
is "retrospective", "repo" is "repositorio"; and the forms of an irregular verb: "kept" is
"keep", "went" is "go".

People write a thing short in one note and long in the next, or ask with the other form:
"Migrated prod to PG 15" answers "which database does production run on?", and "Retros are
monthly now" answers "how often do we have retrospectives?". Words alone never meet there.
A query word of a group below also looks for the group's other words, which count
:data:`ALIAS_WEIGHT` of a word the query holds itself; a memory found by one of them counts
as matching the query's own word (the confidence is not lowered for it), and the rule of
changes (:mod:`ihmt.search.changes`) reads a group's words as one word.

The groups are clipped words and the abbreviations of the trade every developer writes,
in English and Spanish: a lexicon of the domain, written from how people write, kept
apart from the benchmarks and walks that measure it. Only forms that mean nothing else
belong here ("dev" is also a name, "hr" human resources, "tf" TensorFlow as well as
Terraform, "sec" security, "pr" and "mr" stand for too much), and only long forms whose
stem is not another word's ("management" stems as "manager" does, "engineering" as
"engine").
"""

from __future__ import annotations

import functools
import re

from ..text import tokenize

ALIAS_WEIGHT = 0.7  # share of a query word's weight another word of its group gets

# Each line one group of words (single words; no phrases) that say the same thing.
GROUPS: tuple[str, ...] = (
    "prod production produccion producción",
    "stg staging",
    "preprod pre-prod preproduction pre-production preproduccion preproducción",
    "repo repos repository repositories repositorio repositorios",
    "retro retros retrospective retrospectives retrospectiva retrospectivas",
    "app apps application applications aplicacion aplicación aplicaciones",
    "db dbs database databases",
    "pg postgres postgresql",
    "k8s kubernetes",
    "env envs environment environments",
    "config configs configuration configurations configuracion configuración",
    "auth authentication autenticacion autenticación",
    "docs documentation documentacion documentación",
    "infra infrastructure infraestructura",
    "iac infrastructure-as-code",
    "msg msgs message messages",
    "perf performance",
    "deps dependencies dependency dependencias",
    "js javascript",
    "ts typescript",
    "admin admins administrator administrators administrador",
    "tz timezone",
    "req reqs request requests",
    "mins minute minutes",
    "dept department departamento",
    "cert certs certificate certificates certificado certificados",
    "creds credentials credenciales",
    "gh github",
    "vm vms virtual-machine",
    "ack acks acked acknowledge acknowledges acknowledged acknowledgement",
    "oncall on-call",
    # adverbs the English stemmer keeps apart from their adjective ("mainly" and "main"
    # meet; "primarily" and "primary" do not)
    "primary primarily", "temporary temporarily",
    # the forms of an irregular English verb, which no stemmer joins ("where do we keep
    # sessions?" for "sessions are kept in Redis"); not those that are other words too
    # ("left", "found", "saw", "led", "lay")
    "keep keeps kept", "send sends sent", "build builds built", "write writes wrote written",
    "hold holds held", "pay pays paid", "buy buys bought", "sell sells sold",
    "bring brings brought", "choose chooses chose chosen", "begin begins began begun",
    "drive drives drove driven", "take takes took taken", "give gives gave given",
    "go goes went gone", "run runs ran", "meet meets met", "speak speaks spoke spoken",
    "teach teaches taught", "tell tells told", "eat eats ate eaten", "fly flies flew flown",
    "get gets got gotten", "make makes made", "leave leaves", "lose loses lost",
    "forget forgets forgot forgotten", "break breaks broke broken", "grow grows grew grown",
)


@functools.lru_cache(maxsize=8)
def _table(stemmer: str) -> dict[str, tuple[str, frozenset[str]]]:
    """Per term of any group: the group's canonical term (its first word's) and its terms."""
    out: dict[str, tuple[str, frozenset[str]]] = {}
    for line in GROUPS:
        terms = list(dict.fromkeys(t for w in line.split() for t in tokenize(w, stemmer)[:1]))
        if len(terms) < 2:
            continue
        group = frozenset(terms)
        for t in terms:
            out.setdefault(t, (terms[0], group))
    return out


def canon(term: str, stemmer: str) -> str:
    """The term that stands for ``term``'s group (``term`` itself outside every group)."""
    hit = _table(stemmer).get(term)
    return hit[0] if hit else term


def expand(terms: list[str], stemmer: str) -> dict[str, str]:
    """The other words of the groups of ``terms``: each mapped to the query term it stands
    for (a word the query holds itself is never another's alias)."""
    table = _table(stemmer)
    have = set(terms)
    out: dict[str, str] = {}
    for t in terms:
        hit = table.get(t)
        if hit is None:
            continue
        for other in sorted(hit[1]):
            if other not in have and other not in out:
                out[other] = t
    return out


_PAIR = re.compile(r"(?<![\w'-])([^\W\d_]+)[ \t]+(?=([^\W\d_]+)(?![\w'-]))")


def compounds(text: str, words: list[str], stemmer: str) -> dict[str, str]:
    """Two words of ``text`` side by side, written as one: "log in" is "login", "front end"
    "frontend", "data base" "database". Each joined term maps to the query term it stands
    for (the first of the two that ``words`` holds; a pair of which neither is a query word,
    "how do", gives nothing). A joined form that no memory holds simply finds nothing."""
    have = set(words)
    out: dict[str, str] = {}
    for m in _PAIR.finditer(text):
        a, b = m.group(1), m.group(2)
        if len(a) + len(b) < 5:
            continue
        joined = tokenize(a + b, stemmer)[:1]
        if not joined or joined[0] in have or joined[0] in out:
            continue
        stands = [t for w in (a, b) for t in tokenize(w, stemmer)[:1] if t in have]
        if stands:
            out[joined[0]] = stands[0]
    return out


_WORD = re.compile(r"[^\W\d_]+")


def acronyms(text: str, stemmer: str) -> dict[str, list[str]]:
    """Three or four neighbouring words of ``text`` said by their initials: "architecture
    decision records" is "ADR", "mean time to recovery" is not (a function word breaks the
    run). Each acronym's term, and its plural's ("SLOs"), maps to the terms of the words it
    stands for, so a memory that writes "ADRs" matches all three. Two-letter initials
    stand for too much ("pr", "dr") and are left out; an acronym no memory holds simply
    finds nothing."""
    run: list[tuple[str, str]] = []  # (initial, term) of the current run of content words
    out: dict[str, list[str]] = {}
    last = -1
    for m in _WORD.finditer(text):
        term = tokenize(m.group(), stemmer)[:1]
        gap = text[last:m.start()] if last >= 0 else " "
        if not term or len(m.group()) < 2 or gap.strip(" -"):
            run = []  # a function word, a number or punctuation ends the run
        if term and len(m.group()) >= 2:
            run.append((m.group()[0].lower(), term[0]))
            for k in (3, 4):
                if len(run) >= k:
                    initials = "".join(i for i, _ in run[-k:])
                    for form in (initials, initials + "s"):  # "SLOs" stems as "slos"
                        short = tokenize(form, stemmer)[:1]
                        if short and short[0] not in out:
                            out[short[0]] = [t for _, t in run[-k:]]
        last = m.end()
    return out
