"""A packed copy of the parsed fact log, so that a fresh process (an agent hook) does not
parse every line of ``state/facts.jsonl`` again: at 50,000 memories that is 13,847 lines
and about 110 ms of every hook call, the largest part of it.

``state/cache/facts.bin`` holds what reading the log's first ``offset`` bytes gave (the
statements, the outdated marks, the counts), with the log's inode, its first 64 bytes and
the CRC-32 of those ``offset`` bytes. The log only grows by appends between two rewrites,
so a copy whose bytes still match describes the log's start exactly (checking them costs a
read and a CRC of the log, about 3 ms at 50,000 memories, against 110 ms of parsing), and
the reader parses only what was appended after them. Anything else (another inode, a shorter
file, other bytes, a damaged or foreign copy) and the copy is deleted and the log parsed
whole. It is derived, checked on every use, and safe to delete; the writers that rewrite
the log (a forget, a rebuild) delete it first, so no copy keeps a forgotten fact.
"""

from __future__ import annotations

import logging
import marshal
import os
import zlib
from pathlib import Path
from typing import Any, BinaryIO

from ..store.files import atomic_write

log = logging.getLogger(__name__)

MAGIC = b"IHMT-facts-snapshot-1\n"
FILE = Path("cache") / "facts.bin"
MIN_BYTES = 16 * 1024  # below about 100 lines parsing costs no more than checking a copy


def path_of(state_dir: Path) -> Path:
    return Path(state_dir) / FILE


def remove(state_dir: Path) -> None:
    """Delete the copy (before the log is rewritten, or when it no longer matches)."""
    try:
        path_of(state_dir).unlink()
    except FileNotFoundError:
        pass
    except OSError as exc:  # a cache that cannot go is only stale: it is never trusted
        log.warning("cannot remove the fact log's packed copy: %s", exc)


def _prefix_crc(fh: BinaryIO, offset: int) -> int:
    fh.seek(0)
    return zlib.crc32(fh.read(offset))


def save(state_dir: Path, fh: BinaryIO, state: dict[str, Any]) -> None:
    """Write the copy of ``state`` (what reading ``fh``'s first ``state['offset']`` bytes
    gave; see :meth:`ihmt.timeline.reading.TimelineLog.write_deferred_cache`)."""
    st = os.fstat(fh.fileno())
    offset = int(state["offset"])
    record = (st.st_dev, st.st_ino, offset, state["head"], _prefix_crc(fh, offset),
              state["lines"], state["damaged"], state["seq"], state["stmts"],
              state["outdated"], state["implicit"])
    blob = marshal.dumps(record)
    try:
        atomic_write(path_of(state_dir), MAGIC + zlib.crc32(blob).to_bytes(4, "little") + blob)
    except OSError as exc:
        log.warning("cannot write the fact log's packed copy: %s", exc)


def load(state_dir: Path, fh: BinaryIO) -> dict[str, Any] | None:
    """The copy's state when it describes the start of the log open in ``fh`` (``fh`` is
    left anywhere), else None (and a copy that does not match is deleted)."""
    path = path_of(state_dir)
    try:
        raw = path.read_bytes()
    except OSError:  # none yet, or unreadable: the log is parsed
        return None
    try:
        if not raw.startswith(MAGIC):
            raise ValueError("not a packed fact log")
        at = len(MAGIC)
        crc = int.from_bytes(raw[at:at + 4], "little")
        blob = raw[at + 4:]
        if zlib.crc32(blob) != crc:
            raise ValueError("CRC-32 does not match")
        (dev, ino, offset, head, crc_log, lines, damaged, seq, stmts, outdated,
         implicit) = marshal.loads(blob)
        st = os.fstat(fh.fileno())
        if (dev, ino) != (st.st_dev, st.st_ino) or st.st_size < offset:
            raise ValueError("the log was replaced or cut")
        fh.seek(0)
        if fh.read(len(head)) != head or _prefix_crc(fh, offset) != crc_log:
            raise ValueError("the log's bytes differ")
    except (ValueError, EOFError, TypeError, OSError) as exc:
        log.debug("fact log copy not used: %s", exc)
        remove(state_dir)
        return None
    return {"offset": offset, "head": head, "lines": lines, "damaged": damaged, "seq": seq,
            "stmts": stmts, "outdated": outdated, "implicit": implicit}
