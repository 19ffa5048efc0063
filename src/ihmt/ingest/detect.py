"""Deciding what kind of text a document is, so that the right splitter cuts it.

The type picks the chunker (a journal is cut at its dates, a recipe keeps its steps under
their heading) and the domain groups leaves into branches. Detection runs on every save, so it
is one pass over the words (dictionary lookups), one anchored regex per line and a few
substring counts, over at most the first 12,000 characters: no model, no I/O, the same answer
every time (tens of microseconds for a short memory).

The order of evidence: a code file extension wins outright; then the text itself is scored
for code syntax; then each prose type (clinical, process, personal, narrative) collects
weighted English and Spanish signatures, and the best one wins if it clears a threshold that
grows slowly with the length of the text. Anything else is GENERIC.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from pathlib import PurePath

from ihmt.ingest.dates import leading_date
from ihmt.ingest.languages import code_domain, language_for
from ihmt.text import fold

__all__ = ["detect"]

log = logging.getLogger(__name__)

_SAMPLE_CHARS = 12_000  # enough to tell a document's kind; keeps detection O(1) in its size
_SAMPLE_LINES = 400

# --------------------------------------------------------------------------- code

# A line that only a program would contain. Case-sensitive on purpose: prose says "Import".
_CODE_LINE = re.compile(
    r"""^\s*(?:
        (?:async\s+)?def\s+\w+\s*\(.*\)\s*(?:->.*)?:\s*(?:\#.*)?$
      | class\s+\w+\s*(?:\(.*\))?\s*:\s*$
      | import\s+[\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*\s*;?\s*$
      | import\s+[\w.*{}\s,]+\s+from\s+['"]
      | import\s+["'][\w./-]+["']\s*;?\s*$
      | from\s+[\w.]+\s+import\s+\S
      | (?:if|elif|while)\s+[^.!?]+:\s*$
      | for\s+\w+(?:\s*,\s*\w+)*\s+in\s+[^.!?]+:\s*$
      | (?:else|try|finally|except(?:\s+\w+(?:\s+as\s+\w+)?)?)\s*:\s*$
      | with\s+[\w.]+\(.*:\s*$
      | (?:return|yield|raise|throw)\b[^.!?]*;?\s*$
      | @\w+(?:\(.*\))?\s*$
      | self\.\w+
      | print\(.*\)\s*$
      | \w+(?:\.\w+)*\s*(?:\[[^\]]*\])?\s*[-+*/]?=\s*[^=\s].*$
      | (?:public|private|protected|internal)\s+[\w<>\[\],\s]+[({=;]
      | (?:public\s+|abstract\s+|final\s+)*(?:class|interface|enum|record)\s+\w+[^.]*\{\s*$
      | (?:function|const|let|var)\s+[\w$]+\s*[=(:]
      | export\s+(?:default\s+)?(?:function|class|const|let|interface|type)\b
      | (?:func|fn)\s+[\w.]+\s*[(<]
      | (?:impl|struct|trait|enum|mod|use)\s+[\w:<>]+.*[{;]\s*$
      | package\s+[\w.]+\s*;?\s*$
      | \#include\s*[<"]
      | \#define\s+\w+
      | using\s+[\w.]+\s*;\s*$
      | namespace\s+[\w.]+
      | <\?php
      | \$\w+\s*=
      | [}\])]+\s*[;,)]*\s*(?:else\b.*)?$
      | //
      | /\*
      | \*/\s*$
    )""",
    re.VERBOSE,
)

# Per-language signatures, to name the language of code found without a file name: literal
# fragments counted with str.count (cheap), with a weight each.
# fmt: off
_LANG_SIGNS: dict[str, tuple[tuple[str, float], ...]] = {
    "python": (("def ", 1), ("self.", 1), ("elif ", 2), ("None", 1), ("import ", 0.5),
               ("print(", 1), ("):\n", 1), (":\n    ", 1), ("__init__", 2), ("True", 0.5)),
    "java": (("public ", 1), ("System.out", 3), ("package ", 1), ("import java.", 3),
             ("@Override", 3), ("private ", 1), ("String ", 1), ("final ", 1), ("new ", 0.5)),
    "javascript": (("function", 1), ("const ", 1), ("let ", 1), ("=> ", 1),
                   ("console.log", 3), ("require(", 2), ("===", 2), ("module.exports", 3)),
    "typescript": (("interface ", 2), (": string", 2), (": number", 2), (": boolean", 2),
                   ("export type", 3), ("implements ", 1), ("readonly ", 2)),
    "go": (("func ", 1), (":= ", 2), ("fmt.", 3), ("package main", 3), ("go func", 3),
           ("err != nil", 3)),
    "rust": (("fn ", 1), ("let mut", 3), ("impl ", 2), ("::new(", 1), ("pub fn", 3),
             ("println!", 3), ("&mut ", 2), ("-> Result<", 3)),
    "c": (("#include <", 1), (".h>", 2), ("printf(", 2), ("malloc(", 3), ("int main", 1),
          ("->", 0.5)),
    "cpp": (("std::", 3), ("cout", 2), ("template<", 3), ("template <", 3), ("nullptr", 3),
            ("#include <iostream>", 3)),
    "c_sharp": (("using System", 3), ("namespace ", 2), ("Console.Write", 3),
                ("async Task", 3), ("{ get; set; }", 3)),
    "php": (("<?php", 5), ("$this->", 3), ("echo ", 1), ("function ", 0.5)),
    "ruby": (("puts ", 2), ("\nend", 2), (".each do", 3), ("attr_accessor", 3),
             ("def ", 0.5)),
    "kotlin": (("fun ", 2), ("val ", 1), ("data class", 3), ("println(", 1)),
    "swift": (("guard let", 3), ("import UIKit", 5), ("import Foundation", 5),
              ("import SwiftUI", 5), ("func ", 1), ("var ", 0.5)),
}
# fmt: on

# --------------------------------------------------------------------------- prose signatures
#
# Everything below runs on folded text (lower-case, accents removed: "diagnóstico" ->
# "diagnostico"). Words and phrases are looked up in one pass over the words of the text
# (a dict lookup per word), because a regex alternation of a hundred words tried at every
# character is what made the first version of this module slow. Only patterns tied to the
# start of a line or to a number stay regular expressions.

# (category, weight, entries): entries holding '|' are phrases separated by '|', others are
# single words separated by whitespace.
# fmt: off
_LEXICON: tuple[tuple[str, float, str], ...] = (
    ("CLINICAL", 1.0, """paciente pacientes patient patients dosis dose doses posologia fiebre
        fever cefalea headache dolor prescrito prescrita prescribed prescribe prescription
        prescripcion pautado pautada ibuprofeno ibuprofen paracetamol acetaminophen
        amoxicilina amoxicillin omeprazol antibiotico antibioticos antibiotic antibiotics
        analitica hemograma sintoma sintomas symptom symptoms diagnostico diagnosticos
        diagnosis diagnosed diagnostic medico medica medicos physician consulta clinica
        clinico clinical clinic hospital hospitalizacion hospitalized urgencias comprimido
        comprimidos tablet tablets capsula capsulas capsule capsules inyeccion injection
        cronico cronica chronic alergia alergias allergy allergies allergic enfermera
        enfermero nurse auscultacion saturacion glucemia insulina insulin hipertension
        hypertension diabetes infeccion infection tratamiento treatment medicacion
        medication medicamento medicamentos afebril febril analgesico analgesic mmhg lpm
        bpm"""),
    ("CLINICAL", 1.0, "receta medica|blood test|tension arterial|blood pressure"
        "|emergency room|exploracion fisica"),
    ("COOKING", 1.0, """receta recetas recipe recipes horno oven precalienta precalentar preheat
        preheated hornea hornear bake baked bakes baking harina flour azucar sugar huevo
        huevos egg eggs mantequilla butter pimienta pepper cucharada cucharadas cucharadita
        cucharaditas tbsp tsp tablespoon tablespoons teaspoon teaspoons taza tazas gramos
        grams mezcla mezclar mezcle whisk whisked batir bate sarten skillet hervir hierva
        boil boiling boiled sofreir sofrito saute sauteed freir frie fry fried picado picada
        picados picadas chop chopped diced servir serve serves cebolla cebollas onion onions
        ajo ajos garlic patata patatas potato potatoes tomate tomates tomato tomatoes leche
        milk levadura yeast masa dough raciones servings porciones emplatar coccion cocer
        simmer aceite"""),
    ("COOKING", 1.0, "aceite de oliva|olive oil|cups of|cup of|frying pan|al gusto|to taste"
        "|fuego lento|fuego medio|fuego alto|fuego suave|low heat|medium heat|high heat"
        "|modo de preparacion"),
    ("RUNBOOK", 2.0, "runbook playbook procedure procedimiento rollback revertir"),
    ("RUNBOOK", 2.0, "roll back|rolled back"),
    ("RUNBOOK", 1.0, """deploy deploys deployed deploying deployment despliegue desplegar
        kubectl systemctl docker helm terraform ansible restart restarts restarted reinicia
        reiniciar verify verifica verificar prerequisites prerequisite oncall guardia
        incident incidents incidencia escalate escalation failover backup backups migration
        migrations migracion healthcheck rollout drain maintenance mantenimiento sudo ssh
        checklist server servers servidor cluster database config configuration service
        servicio logs monitoring alert alerts upgrade actualizar"""),
    ("RUNBOOK", 1.0, "on call|requisitos previos|copia de seguridad|health check|base de datos"),
    ("PERSONAL", 5.0, "querido diario|dear diary"),
    ("PERSONAL", 2.0, "today i|tonight i|this morning i|yesterday i|i feel|i felt|i m feeling"
        "|i was so|hoy he|hoy ha|hoy hemos|hoy fui|hoy estuve|hoy me|hoy estoy|esta manana he"
        "|esta manana fui|ayer fui|ayer estuve|me siento|me senti|me he sentido|estoy cansado"
        "|estoy cansada|estoy muy cansado|estoy muy cansada|estoy feliz|estoy triste"
        "|estoy contento|estoy contenta|estoy nervioso|estoy nerviosa|estoy muy nerviosa"
        "|estoy muy nervioso|i went|i had|fui a|he ido|hemos ido"),
    ("NARRATIVE", 4.0, "once upon a time|erase una vez|habia una vez"),
    ("NARRATIVE", 1.0, """said asked replied whispered shouted answered murmured sighed dijo
        pregunto respondio susurro grito contesto murmuro suspiro exclamo"""),
    ("NARRATIVE", 0.1, "she he her his ella"),
)
# fmt: on
_RELATIVES = """wife husband mom mum mother dad father son daughter kids children girlfriend
    boyfriend partner friend friends brother sister cousin grandma grandpa family mujer
    marido madre padre hijo hija hijos novia novio pareja amigo amiga amigos hermano hermana
    primo prima abuela abuelo familia""".split()
_RELATIVES_SET = frozenset(_RELATIVES)
_FIRST_PERSON = frozenset(
    "i me my mine myself yo mi mis conmigo estoy fui estuve tengo voy".split()
)

# first word -> [(rest of the phrase, category, weight)]
_TABLE: dict[str, list[tuple[tuple[str, ...], str, float]]] = {}


def _add(phrase: str, category: str, weight: float) -> None:
    first, *rest = phrase.split()
    _TABLE.setdefault(first, []).append((tuple(rest), category, weight))


def _build_table() -> None:
    """Fill ``_TABLE``: an entry with '|' lists phrases, any other lists single words."""
    for category, weight, entries in _LEXICON:
        for phrase in entries.split("|") if "|" in entries else entries.split():
            _add(phrase, category, weight)


_build_table()


# Signatures tied to the start of a line, as one alternation tried once per line. The group
# name says what a match is evidence of: <CATEGORY>_<n>, weights in _LINE_WEIGHTS.
_LINE_RX = re.compile(
    r"(?P<CLINICAL_label>\W{0,4}(?:diagnosticos?|diagnosis|dx|tratamiento|treatment|medicacion"
    r"|medication|medicamentos|anamnesis|exploracion(?: fisica)?|physical exam(?:ination)?"
    r"|antecedentes(?: personales)?|alergias|allergies|motivo de consulta|chief complaint"
    r"|sintomas|symptoms|juicio clinico|impresion diagnostica|posologia|pauta|signos vitales"
    r"|vital signs|evolucion|history of present illness)\b[^:\n]{0,20}:)"
    r"|(?P<COOKING_label>\W{0,4}(?:ingredientes|ingredients|preparacion|elaboracion|directions"
    r"|method|modo de preparacion)\b[^\n]{0,30}$)"
    r"|(?P<STEPS_label>\W{0,4}(?:steps|pasos|instrucciones|instructions|procedure"
    r"|procedimiento)[ \t]*:?[ \t]*$)"
    r"|(?P<STEPS_step>\W{0,4}(?:step|paso|fase|phase|etapa)\s*\d+)"
    r"|(?P<STEPS_item>[ \t]*\d{1,2}[.)][ \t]+\S)"
    r"|(?P<NARRATIVE_chapter>\W{0,8}(?:chapter|capitulo|prologue|prologo|epilogue|epilogo)\b)"
    r"|(?P<NARRATIVE_dialogue>[ \t]*(?:[\"“«]|—|–))"
)
_LINE_WEIGHTS: dict[str, tuple[str, float]] = {
    "CLINICAL_label": ("CLINICAL", 3.0),
    "COOKING_label": ("COOKING", 3.0),
    "STEPS_label": ("STEPS", 3.0),
    "STEPS_step": ("STEPS", 2.0),
    "STEPS_item": ("STEPS", 1.0),
    "NARRATIVE_chapter": ("NARRATIVE", 4.0),
    "NARRATIVE_dialogue": ("NARRATIVE", 1.0),
}
# A number followed by a unit ("600 mg", "200g de", "every 8 hours") is found in the word pass.
_CLINICAL_UNITS = frozenset("mg mcg ml ui mmhg lpm bpm".split())
_COOKING_UNITS = frozenset("g gr kg ml l cl".split())
_HOURS = frozenset("h horas hours hrs".split())
_PUNCTUATION = str.maketrans({c: " " for c in "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~¿¡«»“”‘’—–…·•"})

_FILENAME_HINTS: tuple[tuple[re.Pattern[str], str, float], ...] = (
    (re.compile(r"journal|diary|diario|bitacora|dietario"), "PERSONAL", 4.0),
    (re.compile(r"recipe|receta|cocina|cooking"), "COOKING", 4.0),
    (re.compile(r"runbook|playbook|procedure|procedimiento|\bsop\b"), "RUNBOOK", 4.0),
    (re.compile(r"chapter|capitulo|novel|novela|story|cuento|relato"), "NARRATIVE", 4.0),
    (re.compile(r"clinic|medical|medico|historia_clinica|paciente|patient"), "CLINICAL", 4.0),
)


def _word_scores(words: list[str]) -> dict[str, float]:
    """One pass over the words: lexicon words and phrases, "my sister", numbers with units,
    and first-person pronouns (counted under the pseudo-category FIRST)."""
    scores = dict.fromkeys(("CLINICAL", "COOKING", "RUNBOOK", "PERSONAL", "NARRATIVE"), 0.0)
    scores["STEPS"] = 0.0
    first_person = 0
    table = _TABLE
    n = len(words)
    for i, w in enumerate(words):
        entries = table.get(w)
        if entries:
            for rest, category, weight in entries:
                if not rest or tuple(words[i + 1 : i + 1 + len(rest)]) == rest:
                    scores[category] += weight
        if w in _FIRST_PERSON:
            first_person += 1
            if w in ("my", "mi", "mis") and i + 1 < n and words[i + 1] in _RELATIVES_SET:
                scores["PERSONAL"] += 1.5
        elif w[0].isdigit():
            suffix = w.lstrip("0123456789")  # "600mg" -> "mg"
            unit, after = (suffix, i + 1) if suffix else (words[i + 1] if i + 1 < n else "", i + 2)
            if unit in _COOKING_UNITS and after < n and words[after] in ("de", "of"):
                scores["COOKING"] += 2.0  # "500 g de patatas", "200g of flour"
            elif unit in _CLINICAL_UNITS:
                scores["CLINICAL"] += 1.5  # "600 mg", "150/95 mmHg"
            elif unit in _HOURS and i > 0 and words[i - 1] in ("cada", "every"):
                scores["CLINICAL"] += 1.5  # "cada 8 horas"
    scores["FIRST"] = float(first_person)
    return scores


def _fold_fast(text: str) -> str:
    """Lower-case ASCII skeleton of ``text``: accents dropped ("Diagnóstico" -> "diagnostico"),
    characters with no ASCII form dropped too. Several times faster than
    :func:`ihmt.text.fold`, and the signatures are all Latin-script words."""
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii").lower()


def _code_verdict(lines: list[str]) -> bool:
    """True when most lines are syntax: a prose note quoting one call is not code."""
    content = [ln for ln in lines if ln.strip()]
    if not content:
        return False
    code = sum(1 for ln in content if ln.rstrip().endswith((";", "{")) or _CODE_LINE.match(ln))
    if len(content) <= 2:
        return code == len(content) and any(
            re.match(r"\s*(?:def|class|function|func|fn|import|from|#include|public)\b", ln)
            or ln.rstrip().endswith((";", "{", "}"))
            for ln in content
        )
    return code >= 2 and code / len(content) >= 0.6


def _guess_language(sample: str) -> str | None:
    best, best_score = None, 0.0
    for lang, signs in _LANG_SIGNS.items():
        score = sum(sample.count(fragment) * weight for fragment, weight in signs)
        if score > best_score:
            best, best_score = lang, score
    return best


def detect(text: str, filename: str | None = None) -> tuple[str, str]:
    """(data_type, domain) of a document: ``("CODE", "software.java")``, ``("PERSONAL",
    "personal")``, ``("GENERIC", "general")`` ...

    ``filename`` may be a path or a bare name; a programming-language extension decides CODE
    by itself, other names (``diario.txt``, ``recipes.md``) only add evidence.
    """
    language = language_for(filename) if filename and "." in filename else None
    if language:
        return "CODE", code_domain(language)
    sample = text[:_SAMPLE_CHARS] if text else ""
    if not sample.strip():
        return "GENERIC", "general"
    lines = sample.split("\n", _SAMPLE_LINES)[:_SAMPLE_LINES]

    if _code_verdict(lines):
        lang = _guess_language(sample)
        return "CODE", code_domain(lang) if lang else "software"

    folded = sample.lower() if sample.isascii() else _fold_fast(sample)
    words = folded.translate(_PUNCTUATION).split()
    n_words = len(words)
    scores = _word_scores(words)
    for line in folded.split("\n", _SAMPLE_LINES)[:_SAMPLE_LINES]:
        m = _LINE_RX.match(line)
        if m is not None and m.lastgroup:
            category, weight = _LINE_WEIGHTS[m.lastgroup]
            scores[category] += weight

    dated = sum(1 for ln in lines if ln[:1] not in (" ", "\t", "") and leading_date(ln))
    if dated >= 2:
        scores["PERSONAL"] += min(2.0 * dated, 30.0)
    if n_words:
        fp = scores["FIRST"] / n_words
        scores["PERSONAL"] += 3.0 if fp >= 0.08 else 1.5 if fp >= 0.04 else 0.0
    if n_words > 150:
        long_paragraphs = [p for p in re.split(r"\n[ \t]*\r?\n", sample) if len(p) > 350]
        scores["NARRATIVE"] += min(len(long_paragraphs), 4) * 0.75

    if filename:
        name = fold(PurePath(filename).name)
        for rx, category, weight in _FILENAME_HINTS:
            if rx.search(name):
                scores[category] += weight

    clinical, cooking, runbook = scores["CLINICAL"], scores["COOKING"], scores["RUNBOOK"]
    personal, narrative, steps = scores["PERSONAL"], scores["NARRATIVE"], scores["STEPS"]
    # Step structure only confirms a process whose subject is already evident: a numbered
    # shopping list is not a runbook.
    domain_evidence = max(cooking, runbook)
    process = domain_evidence + min(steps, domain_evidence)
    totals = {
        "CLINICAL": clinical,
        "PROCESS": process,
        "PERSONAL": personal,
        "NARRATIVE": narrative,
    }
    threshold = 4.0 + n_words / 250.0
    kind = max(totals, key=lambda k: totals[k])  # ties: the order above
    log.debug("detect scores %s threshold %.1f", totals, threshold)
    if totals[kind] < threshold:
        return "GENERIC", "general"
    if kind == "CLINICAL":
        return kind, "medicine.clinical"
    if kind == "PROCESS":
        return kind, "process.cooking" if cooking >= runbook else "process.runbook"
    if kind == "PERSONAL":
        return kind, "personal"
    return kind, "narrative"
