"""Regular expressions compiled on first use.

An agent hook is a fresh process for every prompt, and Python compiles each module-level
``re.compile`` again in each of them: the secrets scanner's hundred-odd patterns and the
word lists of change and time cost tens of milliseconds before any work, though most texts
wake only a few of them (a shape is tried only where its literal prefix occurs). A
:class:`LazyPattern` has the pattern's source and flags at once and compiles itself the
first time it is used; every method of :class:`re.Pattern` is reached through it.

Only for patterns used through their methods (``rx.search(text)``), not handed to the
module functions (``re.sub(rx, ...)``) or tested with ``isinstance``.
"""

from __future__ import annotations

import re
from typing import Any


class LazyPattern:
    """A compiled pattern in waiting (see the module docstring)."""

    __slots__ = ("pattern", "flags", "_rx")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self.flags = flags
        self._rx: re.Pattern[str] | None = None

    def compiled(self) -> re.Pattern[str]:
        rx = self._rx
        if rx is None:
            rx = self._rx = re.compile(self.pattern, self.flags)
        return rx

    def __getattr__(self, name: str) -> Any:  # search, match, finditer, groupindex ...
        return getattr(self.compiled(), name)

    def __repr__(self) -> str:
        return f"lazy({self.pattern!r})"


def lazy(pattern: str, flags: int = 0) -> Any:
    """A :class:`LazyPattern` (typed ``Any``: it stands where a ``re.Pattern`` is used)."""
    return LazyPattern(pattern, flags)
