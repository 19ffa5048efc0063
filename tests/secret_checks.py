"""Checks shared by the secrets test files: generated values, a secret caught and masked,
a format named, and the guard that a rule stays linear in its input."""

from __future__ import annotations

import random
import string
import time
from collections.abc import Callable

from bench.secrets import covered

from ihmt.secrets import KINDS, find_secrets, mask

B62 = string.ascii_letters + string.digits


def drawer(rng: random.Random) -> Callable[..., str]:
    """``draw(n, alphabet=B62)``: ``n`` characters from ``rng``; from B62, with both cases
    and at least two digits, as generated keys have."""
    def draw(n: int, alphabet: str = B62) -> str:
        while True:
            s = "".join(rng.choice(alphabet) for _ in range(n))
            if alphabet != B62 or (any(c.islower() for c in s) and any(c.isupper() for c in s)
                                   and sum(c.isdigit() for c in s) >= 2):
                return s
    return draw


def caught(text: str, value: str) -> bool:
    i = text.index(value)
    return covered(find_secrets(text), i, i + len(value))


def assert_caught(cause: str, value: str, template: str) -> None:
    """``value`` in ``template`` is found, never shown in a preview, and masked away."""
    text = template.format(value)
    assert caught(text, value), (cause, find_secrets(text))
    for f in find_secrets(text):
        assert value not in f.preview and f.kind in KINDS
    shown = mask(text)
    assert value not in shown.text and mask(shown.text).count == 0


def assert_named(kind: str, value: str, template: str) -> None:
    """The finding that covers ``value`` is of ``kind`` and does not show it."""
    text = template.format(value)
    i = text.index(value)
    covering = [f for f in find_secrets(text) if f.start <= i and f.end >= i + len(value)]
    assert covering and covering[0].kind == kind, find_secrets(text)
    assert value not in covering[0].preview


def assert_linear(unit: str) -> None:
    """Four times the input costs about four times the time (quadratic would be 16x). The
    best of several runs, in CPU time: on a busy machine a run that waited for a core says
    nothing of complexity."""
    def timed(text: str) -> float:
        t0 = time.process_time()
        find_secrets(text)
        return time.process_time() - t0

    small = unit * (10_000 // len(unit))
    large = small * 4
    t_small = min(timed(small) for _ in range(5))
    t_large = min(timed(large) for _ in range(7))
    assert t_large < max(8 * t_small, 0.05), (t_small, t_large)
