"""Type and domain detection on realistic English and Spanish samples."""

from __future__ import annotations

import pytest

from ihmt.ingest.detect import detect
from ihmt.model import DATA_TYPES

JAVA = """\
package com.shop.inventory;

import java.util.Optional;

public final class InventoryService {
    private final StockRepository repo;

    public Optional<String> reserveStock(Sku sku, int quantity) {
        if (quantity <= 0) {
            return Optional.empty();
        }
        return repo.hold(sku, quantity);
    }
}
"""

PYTHON = '''\
import json
from pathlib import Path


def load_config(path: str) -> dict:
    """Read the settings file."""
    with open(path) as fh:
        data = json.load(fh)
    if "name" not in data:
        raise ValueError("missing name")
    return data


class Settings:
    def __init__(self, data):
        self.data = data
'''

GO = """\
package main

import "fmt"

func main() {
    total := 0
    for i := 0; i < 10; i++ {
        total += i
    }
    fmt.Println(total)
}
"""

RECETA = """\
TORTILLA DE PATATAS

Ingredientes (4 personas):
- 6 huevos
- 500 g de patatas
- 1 cebolla
- 200 ml de aceite de oliva
- Sal al gusto

Preparación:
1. Pela y corta las patatas en láminas finas. Pica la cebolla.
2. Calienta el aceite en una sartén a fuego medio y fríe las patatas con la cebolla.
3. Bate los huevos con una pizca de sal en un bol grande.
4. Escurre las patatas, mézclalas con el huevo y deja reposar 5 minutos.
5. Cuaja la tortilla por un lado, dale la vuelta con un plato y termina por el otro.
"""

RECIPE_EN = """\
Banana bread

Ingredients:
- 3 ripe bananas
- 250g of flour
- 100 g of sugar
- 2 eggs
- 1 tsp baking soda

Steps:
1. Preheat the oven to 180C.
2. Mash the bananas, whisk in the eggs and sugar, then fold in the flour.
3. Bake for 55 minutes.
"""

RUNBOOK = """\
# Runbook: rolling back the payments service

Use this procedure when a deploy of payments-api breaks checkout.

## Prerequisites
- kubectl access to the prod cluster
- The previous release tag (see the deploy log)

## Steps
Step 1: Announce the rollback in #incidents and page the on-call engineer.
Step 2: Run `helm rollback payments-api 0 -n prod`.
Step 3: Verify the health check: `kubectl get pods -n prod -l app=payments-api`.
Step 4: Watch the error rate dashboard for 10 minutes.

## Rollback verification
If errors persist, escalate to the database team and restore the last backup.
"""

JOURNAL = """\
2024-03-11
Today I finally moved into the new flat in Valencia. My sister helped me carry the boxes
and I felt exhausted but happy.

2024-03-12
Querido diario: hoy he ido al mercado con mi madre. Me siento mucho mejor que ayer.

Wednesday, March 13, 2024
I went running by the beach. Dinner with my friends at night.

14 de marzo de 2024
Hoy he empezado el nuevo trabajo. Estoy muy nerviosa.
"""

CLINICA = """\
Paciente: María López, 54 años.
Fecha de consulta: 11/03/2024

Motivo de consulta: cefalea intensa de tres días de evolución.
Antecedentes: hipertensión arterial en tratamiento.
Exploración física: TA 150/95 mmHg, FC 82 lpm, afebril.
Diagnóstico: migraña sin aura.
Tratamiento: ibuprofeno 600 mg cada 8 horas durante 5 días.
Medicación habitual: enalapril 10 mg al día.
Plan: revisión en dos semanas; acudir a urgencias si empeora.
"""

CLINICAL_EN = """\
Patient: John Doe, 61.
Chief complaint: chest pain on exertion for two weeks.
Medication: aspirin 100 mg daily, atorvastatin 40 mg at night.
Diagnosis: stable angina.
Treatment: nitroglycerin 0.4 mg as needed; follow-up with cardiology.
"""

STORY = """\
Chapter 1: The Storm

The rain had not stopped for three days when Elena finally reached the lighthouse. She
pushed the heavy door open and stood in the dark, listening to the sea hammer against the
rocks below. Somewhere above her a shutter banged, again and again, like a slow heartbeat.

"Is anyone here?" she called. Her voice came back to her, thin and strange.

"Up here," a man answered at last. "Mind the seventh step, it's rotten."

She climbed slowly, counting. The lamp room smelled of oil and salt, and the old keeper sat
beside the great lens with a blanket over his knees, watching the black water.

"You came about the letters," he said. It was not a question.
"""

CUENTO = """\
Capítulo 3

—¿Quién anda ahí? —preguntó la vieja desde la cocina.

Nadie respondió. El viento golpeaba las contraventanas y el perro gruñía bajo la mesa.

—Soy yo, abuela —dijo por fin el muchacho, empapado, con la gorra en la mano.
"""

NOTE = (
    "The staging database is reset every Sunday at 02:00 UTC. Use the read replica for "
    "reports; the primary is reserved for the API. Ask Marta before changing the retention "
    "policy."
)


@pytest.mark.parametrize(
    ("text", "filename", "expected"),
    [
        (JAVA, "src/main/java/InventoryService.java", ("CODE", "software.java")),
        (JAVA, None, ("CODE", "software.java")),
        (PYTHON, None, ("CODE", "software.python")),
        (GO, None, ("CODE", "software.go")),
        (RECETA, None, ("PROCESS", "process.cooking")),
        (RECIPE_EN, None, ("PROCESS", "process.cooking")),
        (RUNBOOK, None, ("PROCESS", "process.runbook")),
        (JOURNAL, None, ("PERSONAL", "personal")),
        (CLINICA, None, ("CLINICAL", "medicine.clinical")),
        (CLINICAL_EN, None, ("CLINICAL", "medicine.clinical")),
        (STORY, None, ("NARRATIVE", "narrative")),
        (CUENTO, None, ("NARRATIVE", "narrative")),
        (NOTE, None, ("GENERIC", "general")),
        (NOTE, "notes.md", ("GENERIC", "general")),
    ],
)
def test_detect_samples(text: str, filename: str | None, expected: tuple[str, str]) -> None:
    assert detect(text, filename) == expected


def test_extension_decides_code_even_for_prose() -> None:
    assert detect("just a comment", "script.py") == ("CODE", "software.python")
    assert detect("", "App.tsx") == ("CODE", "software.typescript")
    assert detect("x", "Program.cs") == ("CODE", "software.csharp")


@pytest.mark.parametrize(
    "text",
    [
        "I prefer tabs over spaces and Python 3.12 for new projects.",
        "Use `def main()` as the entry point; the CLI calls it.",
        "import paths must be absolute in this repository",
        "Luis is the tech lead of the billing team.",
        "1. milk\n2. bread\n3. coffee",
        "",
        "   \n\n",
    ],
)
def test_short_memories_are_generic(text: str) -> None:
    assert detect(text) == ("GENERIC", "general")


def test_filename_adds_evidence() -> None:
    entry = "Hoy he ido al cine con mi hermano."
    assert detect(entry, "diario.txt") == ("PERSONAL", "personal")


def test_one_line_snippet_is_code() -> None:
    assert detect("def add(a, b):\n    return a + b\n")[0] == "CODE"


def test_result_is_always_a_known_type() -> None:
    for text in (JAVA, RECETA, JOURNAL, NOTE, "???", "日本語のテキスト"):
        data_type, domain = detect(text)
        assert data_type in DATA_TYPES
        assert domain


def test_detect_is_deterministic_and_bounded() -> None:
    big = STORY * 500  # 400 kB: only a prefix is read
    assert detect(big) == detect(big) == ("NARRATIVE", "narrative")
