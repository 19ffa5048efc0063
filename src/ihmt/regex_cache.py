"""Compiled regular expressions kept between hook processes.

An agent hook is a fresh process for every prompt, and CPython compiles every pattern it
uses again in each of them, in pure Python: the word lists of change, time and intent,
the tokenizer and the prompt filter cost a hook call about 20 ms of its ~110 ms of work
(15% of its instructions), more than its search. :mod:`ihmt.lazy_re` compiles a pattern
only where it is used; this module keeps what the compiler made of the patterns a hook
used, so that the next hook process finds them compiled.

How: CPython's ``re`` keeps the patterns it compiled in ``re._cache``, keyed by the
pattern's type, text and flags. :func:`load` fills that cache from a file with what
``_sre.compile`` (the C constructor ``re.compile`` ends in) is given for each pattern: the
compiled code and its groups; every ``re.compile``, ``re.search`` or :func:`ihmt.lazy_re.lazy`
of the same text and flags then finds it. :func:`save` adds the patterns this process
compiled that the file lacked, each compiled again through the stdlib's own compiler and
kept only if the pattern made from it is equal (same code) to the one ``re`` made.

Derived, disposable and checked: the file holds the Python version and the ``_sre`` magic
it was made with, and a CRC-32 of its content; a file of another Python, a damaged or
missing file, or an entry ``_sre`` refuses, is no error: the pattern is compiled as usual,
and the file is written again after the answer. On an interpreter without these internals
(not CPython, a future ``re``), nothing happens. Used by the hook only
(:mod:`ihmt.faces.hook`), with its file in the store's ``state/cache/``.
"""

from __future__ import annotations

import marshal
import re
import sys
import zlib
from pathlib import Path
from typing import Any

VERSION = 1
MAX_ENTRIES = 400  # re keeps 512
MAGIC = b"IHMT-regex-cache-1\n"

# (type, text, flags) -> the arguments of _sre.compile after the text
_known: dict[tuple[type, Any, int], tuple] = {}


def _stamp() -> str:
    import _sre

    return f"{VERSION}|{sys.implementation.name}|{sys.hexversion}|{_sre.MAGIC}|{_sre.CODESIZE}"


def _cache() -> dict | None:
    cache = getattr(re, "_cache", None)
    return cache if isinstance(cache, dict) else None


def load(path: Path) -> int:
    """Put the patterns kept in ``path`` into ``re``'s cache; how many. Never raises."""
    try:
        import _sre

        make = _sre.compile
        cache = _cache()
        if cache is None or sys.implementation.name != "cpython":
            return 0
        raw = path.read_bytes()
        if not raw.startswith(MAGIC):
            return 0
        crc, body = int.from_bytes(raw[len(MAGIC):len(MAGIC) + 4], "little"), \
            raw[len(MAGIC) + 4:]
        if zlib.crc32(body) != crc:
            return 0
        stamp, entries = marshal.loads(body)
        if stamp != _stamp():
            return 0
    except Exception:  # noqa: BLE001 - missing, damaged, another Python: compile as usual
        return 0
    n = 0
    for entry in entries:
        try:
            pattern, flags, args = entry
            key = (type(pattern), pattern, flags)
            if key not in cache:
                cache[key] = make(pattern, *args)
            _known[key] = args
            n += 1
        except Exception:  # noqa: BLE001 - an entry _sre refuses is compiled as usual
            continue
    return n


def _arguments(pattern: str | bytes, flags: int, compiled: re.Pattern) -> tuple | None:
    """What ``_sre.compile`` was given for ``pattern``: the stdlib compiler's own steps
    (``re._compiler.compile``), kept only if they make a pattern equal to ``compiled``."""
    import _sre

    try:
        from re import _compiler, _parser
    except ImportError:  # Python 3.10
        import sre_compile as _compiler  # type: ignore[no-redef]
        import sre_parse as _parser  # type: ignore[no-redef]
    p = _parser.parse(pattern, flags)
    code = [int(c) for c in _compiler._code(p, flags)]  # (opcodes are an int subclass)
    groupindex = p.state.groupdict
    indexgroup: list[Any] = [None] * p.state.groups
    for k, i in groupindex.items():
        indexgroup[i] = k
    args = (int(flags | p.state.flags), code, int(p.state.groups) - 1, dict(groupindex),
            tuple(indexgroup))
    return args if _sre.compile(pattern, *args) == compiled else None


def save(path: Path) -> int:
    """Keep the patterns of ``re``'s cache in ``path`` when some are not kept yet (how many
    were added). Written whole and renamed over the old file; a failure is ignored."""
    cache = _cache()
    if cache is None or sys.implementation.name != "cpython":
        return 0
    try:
        stamp = _stamp()
    except Exception:  # noqa: BLE001
        return 0
    added = 0
    for key, compiled in list(cache.items()):
        if key in _known or not isinstance(key, tuple) or len(key) != 3:
            continue
        kind, pattern, flags = key
        if kind not in (str, bytes) or not isinstance(flags, int) or flags & re.DEBUG \
                or not isinstance(compiled, re.Pattern):
            continue
        try:
            args = _arguments(pattern, int(flags), compiled)
        except Exception:  # noqa: BLE001 - not kept: compiled as usual next time
            args = None
        if args is not None:
            _known[(kind, pattern, int(flags))] = args
            added += 1
    if not added:
        return 0
    entries = [(p, f, a) for (_, p, f), a in list(_known.items())[-MAX_ENTRIES:]]
    body = marshal.dumps((stamp, entries))
    from .store.files import atomic_write  # private, like every file of the store

    try:
        atomic_write(path, MAGIC + zlib.crc32(body).to_bytes(4, "little") + body)
    except OSError:
        return 0
    return added
