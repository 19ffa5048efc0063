"""Prose splitters: byte-exact reconstruction, line spans, and the blocks they never cut."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ihmt.errors import InputError
from ihmt.ingest.chunkers.generic import chunk_generic, line_spans
from ihmt.ingest.chunkers.narrative import chunk_narrative, sentence_spans
from ihmt.ingest.chunkers.process import chunk_process, heading_of
from ihmt.ingest.chunkers.temporal import chunk_temporal
from ihmt.ingest.dates import leading_date
from ihmt.model import Chunk
from ihmt.text import count_tokens

Chunker = Callable[..., list[Chunk]]
CHUNKERS: dict[str, Chunker] = {
    "narrative": chunk_narrative,
    "temporal": chunk_temporal,
    "process": chunk_process,
    "generic": chunk_generic,
}


def check_invariants(text: str, chunks: list[Chunk], max_tokens: int) -> None:
    """Chunks tile the text exactly, carry the right 1-based line span and honest flags."""
    assert "".join(c.text for c in chunks) == text
    pos = 0
    for c in chunks:
        assert c.text, "no empty chunk"
        assert c.start_line == text.count("\n", 0, pos) + 1
        last_char = pos + len(c.text) - 1
        assert c.end_line == text.count("\n", 0, last_char) + 1
        assert c.start_line <= c.end_line
        assert c.oversized == (count_tokens(c.text) > max_tokens)
        pos += len(c.text)


def dated_lines(text: str) -> list[str]:
    return [d for a, b in line_spans(text) if (d := leading_date(text[a:b]))]


# --------------------------------------------------------------------------- all chunkers


@pytest.mark.parametrize("name", CHUNKERS)
def test_empty_text_gives_no_chunks(name: str) -> None:
    assert CHUNKERS[name]("") == []


@pytest.mark.parametrize("name", CHUNKERS)
@pytest.mark.parametrize(
    "text",
    [
        "one line, no newline",
        "\n",
        "\n\n\n",
        "  \t \n",
        "a\r\nb\r\n\r\nc",
        "tabs\tand ünïcödé — ¿qué? ¡sí! 日本語\n\nsecond 🙂 block",
        "Capítulo 1\r\n\r\nÉrase una vez.\r\n***\r\nOtra escena.",
        "## 2024-03-11\r\nentry\r\n## 2024-03-12\r\nother",
        "Ingredientes:\n- 2 huevos\n\nPasos:\nPaso 1: batir\nPaso 2: freír",
        "\n\nleading blank lines\n\n\ntrailing blank lines\n\n\n",
    ],
)
def test_byte_exact_on_awkward_text(name: str, text: str) -> None:
    for target, limit in ((2000, 3000), (3, 5), (1, 1)):
        check_invariants(text, CHUNKERS[name](text, target_tokens=target, max_tokens=limit), limit)


@pytest.mark.parametrize("name", CHUNKERS)
def test_bad_budgets_are_rejected(name: str) -> None:
    with pytest.raises(InputError, match="max_tokens"):
        CHUNKERS[name]("text", target_tokens=100, max_tokens=50)
    with pytest.raises(InputError, match="positive"):
        CHUNKERS[name]("text", target_tokens=0, max_tokens=50)


@pytest.mark.parametrize("name", CHUNKERS)
def test_small_text_is_one_chunk(name: str) -> None:
    text = "A short note.\n\nWith two paragraphs.\n"
    chunks = CHUNKERS[name](text)
    assert len(chunks) == 1
    assert (chunks[0].start_line, chunks[0].end_line) == (1, 3)


# --------------------------------------------------------------------------- narrative

STORY = """\
Prologue

The town had one road and one secret.

Chapter 1: The Storm

The rain had not stopped for three days when Elena reached the lighthouse.

"Is anyone here?" she called.

* * *

The keeper was asleep beside the lens.

CHAPTER 2

Morning came grey and quiet.

***

Capítulo 3

—¿Quién anda ahí? —preguntó la vieja.
"""


def test_narrative_hard_boundaries_and_names() -> None:
    chunks = chunk_narrative(STORY)  # everything would fit in one chunk: boundaries still cut
    check_invariants(STORY, chunks, 3000)
    starts = [c.text.split("\n", 1)[0] for c in chunks]
    assert starts == [
        "Prologue",
        "Chapter 1: The Storm",
        "The keeper was asleep beside the lens.",
        "CHAPTER 2",
        "Capítulo 3",
    ]
    names = [c.name for c in chunks]
    assert names == ["Prologue", "Chapter 1: The Storm", None, "CHAPTER 2", "Capítulo 3"]
    assert [c.kind for c in chunks] == ["section", "section", "paragraph", "section", "section"]
    # the scene break closes the scene before it
    assert chunks[1].text.rstrip().endswith("* * *")
    assert chunks[3].text.rstrip().endswith("***")


def test_narrative_heading_without_blank_line_still_cuts() -> None:
    text = "End of part one.\nChapter 2\nStart of part two.\n"
    chunks = chunk_narrative(text)
    assert [c.text for c in chunks] == ["End of part one.\n", "Chapter 2\nStart of part two.\n"]
    assert chunks[1].start_line == 2


def test_narrative_prose_starting_with_chapter_word_is_not_a_heading() -> None:
    text = "Chapter after chapter she read on, until the candle died.\n\nThen she slept.\n"
    assert len(chunk_narrative(text)) == 1


def test_narrative_packs_paragraphs_up_to_target() -> None:
    paragraphs = [f"Paragraph {i} " + "word " * 18 + "end.\n\n" for i in range(10)]
    text = "".join(paragraphs)  # ~30 tokens each
    chunks = chunk_narrative(text, target_tokens=70, max_tokens=100)
    check_invariants(text, chunks, 100)
    assert len(chunks) == 5
    for c in chunks:  # paragraph-atomic: every chunk is whole paragraphs
        assert c.text.startswith("Paragraph ")
        assert c.text.endswith("end.\n\n")
        assert count_tokens(c.text) <= 70


def test_narrative_splits_only_an_oversized_paragraph_at_sentences() -> None:
    big = " ".join(f"Dr. Smith saw patient number {i} today." for i in range(40))
    text = "Short opening paragraph.\n\n" + big + "\n\nShort closing paragraph.\n"
    chunks = chunk_narrative(text, target_tokens=60, max_tokens=80)
    check_invariants(text, chunks, 80)
    assert chunks[0].text == "Short opening paragraph.\n\n"
    assert chunks[-1].text == "Short closing paragraph.\n"
    middle = chunks[1:-1]
    assert len(middle) > 1
    for c in middle:
        assert c.text.startswith("Dr. Smith saw patient")  # never cut after "Dr."
        assert not c.oversized


def test_sentence_spans_english_and_spanish() -> None:
    text = "¿Vienes mañana? ¡Claro que sí! El Sr. García dijo: «Vale». Mr. Brown left. The end"
    spans = sentence_spans(text, 0, len(text))
    sentences = [text[a:b] for a, b in spans]
    assert "".join(sentences) == text
    assert sentences == [
        "¿Vienes mañana? ",
        "¡Claro que sí! ",
        "El Sr. García dijo: «Vale». ",
        "Mr. Brown left. ",
        "The end",
    ]


def test_narrative_giant_sentence_is_kept_whole_and_flagged() -> None:
    sentence = "and then " * 400 + "it ended."
    text = "Chapter 9\n\n" + sentence + "\n"
    chunks = chunk_narrative(text, target_tokens=100, max_tokens=200)
    check_invariants(text, chunks, 200)
    assert len(chunks) == 1
    assert chunks[0].oversized
    assert chunks[0].name == "Chapter 9"


# --------------------------------------------------------------------------- temporal

JOURNAL = """\
Mi diario de 2024 (notas sueltas).

2024-03-11
Today I moved into the new flat in Valencia.

2024-03-12
Querido diario: hoy he ido al mercado con mi madre.
Ayer estaba agotada.

Wednesday, March 13, 2024
I went running by the beach.

14 de marzo de 2024
Hoy he empezado el nuevo trabajo.
"""


def test_temporal_one_date_per_chunk_and_preamble_undated() -> None:
    chunks = chunk_temporal(JOURNAL)
    check_invariants(JOURNAL, chunks, 3000)
    assert [c.date for c in chunks] == [
        None,
        "2024-03-11",
        "2024-03-12",
        "2024-03-13",
        "2024-03-14",
    ]
    assert chunks[0].kind == "block"
    assert all(c.kind == "entry" for c in chunks[1:])
    assert chunks[1].start_line == 3
    assert chunks[2].text.startswith("2024-03-12\nQuerido diario")
    assert "Ayer estaba agotada." in chunks[2].text  # relative date left inside its entry


def test_temporal_packs_same_day_entries_only() -> None:
    chat = (
        "[2024-03-11 10:00] Ana: ¿comemos juntos?\n"
        "[2024-03-11 10:01] Luis: vale, a las dos\n"
        "[2024-03-11 18:30] Ana: ¿qué tal la reunión?\n"
        "[2024-03-12 09:00] Luis: buenos días\n"
        "[2024-03-12 09:05] Ana: hola\n"
    )
    chunks = chunk_temporal(chat)
    check_invariants(chat, chunks, 3000)
    assert [c.date for c in chunks] == ["2024-03-11", "2024-03-12"]
    assert chunks[0].text.count("\n") == 3
    assert (chunks[1].start_line, chunks[1].end_line) == (4, 5)


def test_temporal_same_day_respects_target() -> None:
    chat = "".join(f"[2024-03-11 10:{i:02d}] Ana: " + "bla " * 15 + "\n" for i in range(6))
    chunks = chunk_temporal(chat, target_tokens=50, max_tokens=60)
    check_invariants(chat, chunks, 60)
    assert len(chunks) == 3
    assert all(c.date == "2024-03-11" for c in chunks)


def test_temporal_oversized_entry_is_whole_and_flagged() -> None:
    long_entry = "## 2024-05-01\n" + "A very long day. " * 100 + "\n"
    text = long_entry + "## 2024-05-02\nShort.\n"
    chunks = chunk_temporal(text, target_tokens=50, max_tokens=100)
    check_invariants(text, chunks, 100)
    assert [c.date for c in chunks] == ["2024-05-01", "2024-05-02"]
    assert chunks[0].text == long_entry
    assert chunks[0].oversized
    assert not chunks[1].oversized


def test_temporal_without_dates_is_undated_blocks() -> None:
    text = "Nothing dated here.\n\nYesterday does not count as an entry date.\n"
    chunks = chunk_temporal(text)
    check_invariants(text, chunks, 3000)
    assert [c.date for c in chunks] == [None]


# --------------------------------------------------------------------------- process

RECETA = """\
TORTILLA DE PATATAS

Ingredientes (4 personas):
- 6 huevos
- 500 g de patatas
- 1 cebolla

Preparación:
Paso 1: Pela y corta las patatas en láminas finas.
Paso 2: Fríe las patatas con la cebolla a fuego medio.
Paso 3: Bate los huevos y mézclalo todo.
Paso 4: Cuaja la tortilla por los dos lados.
"""

RUNBOOK = """\
# Runbook: payments rollback

Use this when a deploy breaks checkout.

## Steps
1. Announce the rollback in #incidents.
2. Run `helm rollback payments-api 0 -n prod`.
3. Verify the pods are healthy.

ROLLBACK VERIFICATION
- Error rate back under 0.1 %
- No pending migrations
"""


def test_process_heading_keeps_its_steps() -> None:
    chunks = chunk_process(RECETA, target_tokens=30, max_tokens=200)
    check_invariants(RECETA, chunks, 200)
    prep = [c for c in chunks if "Preparación:" in c.text]
    assert len(prep) == 1
    assert all(f"Paso {i}:" in prep[0].text for i in range(1, 5))
    assert prep[0].text.startswith("Preparación:")
    assert prep[0].name == "Preparación"
    # the title has no body of its own: it travels with the first section
    assert chunks[0].text.startswith("TORTILLA DE PATATAS\n\nIngredientes")
    assert chunks[0].name == "TORTILLA DE PATATAS"
    for c in chunks:  # a step never opens a chunk
        assert not c.text.startswith("Paso")


def test_process_runbook_sections() -> None:
    chunks = chunk_process(RUNBOOK, target_tokens=20, max_tokens=200)
    check_invariants(RUNBOOK, chunks, 200)
    names = [c.name for c in chunks]
    assert names == ["Runbook: payments rollback", "Steps", "ROLLBACK VERIFICATION"]
    assert chunks[1].text.count("\n1. ") + chunks[1].text.count("\n2. ") == 2
    assert all(c.kind == "section" for c in chunks)


def test_process_ignores_headings_inside_code_fences() -> None:
    text = (
        "## Restart\n"
        "Run this:\n"
        "```bash\n"
        "# drain the node first\n"
        "kubectl drain node-1\n"
        "```\n"
        "## Verify\n"
        "Check the dashboard.\n"
    )
    chunks = chunk_process(text, target_tokens=5, max_tokens=100)
    check_invariants(text, chunks, 100)
    assert [c.name for c in chunks] == ["Restart", "Verify"]
    assert "# drain the node first" in chunks[0].text


def test_process_packs_small_sections() -> None:
    chunks = chunk_process(RUNBOOK)
    assert len(chunks) == 1
    assert chunks[0].name == "Runbook: payments rollback"


def test_process_oversized_section_kept_whole() -> None:
    steps = "".join(f"Step {i}: restart node {i} and verify it rejoins.\n" for i in range(60))
    text = "Intro line.\n\nProcedure:\n" + steps + "\nAfterwards:\nClose the ticket.\n"
    chunks = chunk_process(text, target_tokens=50, max_tokens=100)
    check_invariants(text, chunks, 100)
    big = [c for c in chunks if c.oversized]
    assert len(big) == 1
    assert big[0].text == "Procedure:\n" + steps + "\n"
    assert big[0].name == "Procedure"


@pytest.mark.parametrize(
    ("line", "title"),
    [
        ("## Steps", "Steps"),
        ("Ingredientes:", "Ingredientes"),
        ("Steps:\n", "Steps"),
        ("ROLLBACK PLAN", "ROLLBACK PLAN"),
        ("**Preparación**", "Preparación"),
        ("Step 1: stop the service", None),
        ("Paso 2", None),
        ("## Step 3: drain", None),
        ("1. Mix with the following:", None),
        ("- items:", None),
        ("This sentence is clearly too long to be a heading even though it ends:", None),
        ("OK", None),
        ("", None),
    ],
)
def test_heading_of(line: str, title: str | None) -> None:
    assert heading_of(line) == title


# --------------------------------------------------------------------------- generic


def test_generic_packs_blocks() -> None:
    text = "".join(f"Block {i} " + "x " * 30 + "\n\n" for i in range(6))
    chunks = chunk_generic(text, target_tokens=40, max_tokens=60)
    check_invariants(text, chunks, 60)
    assert len(chunks) == 3
    assert all(c.kind == "block" and c.text.startswith("Block ") for c in chunks)


def test_generic_oversized_line_flagged_and_long_block_cut_at_lines() -> None:
    long_line = "z" * 1000 + "\n"
    many_lines = "".join(f"log line {i:03d} with some text\n" for i in range(80))
    text = long_line + "\n" + many_lines
    chunks = chunk_generic(text, target_tokens=100, max_tokens=150)
    check_invariants(text, chunks, 150)
    assert chunks[0].text == long_line + "\n"
    assert chunks[0].oversized
    rest = chunks[1:]
    assert len(rest) > 1
    assert not any(c.oversized for c in rest)
    assert all(c.text.endswith("\n") and c.text.startswith("log line") for c in rest)


# --------------------------------------------------------------------------- properties

FRAGMENTS = [
    "\n",
    "\n\n",
    "\r\n",
    " ",
    "\t",
    "word ",
    "Otra frase. ",
    "Dr. House dijo: ¿sí? ",
    "¡Hola! ",
    "é",
    "日本",
    "🙂",
    "***\n",
    "* * *\n",
    "---\n",
    "Chapter 1\n",
    "Capítulo dos\n",
    "## 2024-03-11\n",
    "2024-03-12 ",
    "[2024-03-11 10:00] Ana: hola\n",
    "Monday, March 11, 2024\n",
    "11 de marzo de 2024\n",
    "30/02/2024\n",
    "Ingredientes:\n",
    "STEPS\n",
    "Paso 1: mezclar\n",
    "- 200 g de harina\n",
    "1. Preheat\n",
    "# Heading\n",
    "x" * 40,
]

texts = st.one_of(
    st.lists(st.sampled_from(FRAGMENTS), max_size=40).map("".join),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=200),
)
budgets = st.tuples(st.integers(1, 40), st.integers(0, 40)).map(lambda t: (t[0], t[0] + t[1]))


@pytest.mark.parametrize("name", CHUNKERS)
@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(text=texts, budget=budgets)
def test_property_byte_exact(name: str, text: str, budget: tuple[int, int]) -> None:
    target, limit = budget
    chunks = CHUNKERS[name](text, target_tokens=target, max_tokens=limit)
    check_invariants(text, chunks, limit)
    if name == "temporal":
        for c in chunks:
            dates = set(dated_lines(c.text))
            if c.date is None:
                assert not dates
            else:
                assert dates == {c.date}, "a chunk never mixes two dates"
