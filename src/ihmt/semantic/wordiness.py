"""How much of a text is words: the weight its similarity carries as evidence of meaning.

A sentence encoder maps a text with almost no words ("ok", "abcdef", base64, the bytes of
an image read as text) to a vector near the centre of its space, and the centre is close
to every short query: measured, "decision" scored 0.365 against "ok" and 0.336 against
"abcdef", but 0.328 against "Decision: the frontend uses SvelteKit". Such a similarity says
nothing about meaning, so it is scaled by :func:`wordiness` before it ranks anything.

A word is a run of 2 to 24 letters with a vowel, in lowercase, Capitalised or an acronym,
with CamelCase humps of three letters or more (``SvelteKit`` and ``IHDR`` are words,
``iVBORw`` and ``nGNgYGD`` from base64 are not). The weight is
``min(1, words / FULL_WORDS) x min(1, share / FULL_SHARE)``, ``share`` being the part of the
text's visible characters that lie in words: 1 for any ordinary sentence of three words or
more, about 0.3 for "ok", near 0 for encoded data.
"""

from __future__ import annotations

import re

FULL_WORDS = 3  # from this many words on, a text counts fully
FULL_SHARE = 0.5  # ... when at least this share of its visible characters are in words
_RUN = re.compile(r"[^\W\d_]+")
_VOWEL = re.compile(r"[aeiouyáéíóúàèìòùäëïöüâêîôûãõåæøœ]", re.IGNORECASE)
# lowercase, Capitalised or an acronym, then CamelCase humps of three letters or more
_WORD = re.compile(r"(?:[A-ZÀ-Þ]?[a-zß-ÿ]+|[A-ZÀ-Þ]{2,8})(?:[A-ZÀ-Þ][a-zß-ÿ]{2,})*")


def wordiness(text: str) -> float:
    """Between 0 (no words) and 1 (an ordinary sentence): see the module docstring."""
    visible = sum(1 for c in text if not c.isspace())
    if not visible:
        return 0.0
    words = 0
    in_words = 0
    for run in _RUN.findall(text[:4000]):
        if 2 <= len(run) <= 24 and _VOWEL.search(run) and _WORD.fullmatch(run):
            words += 1
            in_words += len(run)
    share = in_words / min(visible, 4000)
    return min(1.0, words / FULL_WORDS) * min(1.0, share / FULL_SHARE)
