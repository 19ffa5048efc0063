"""Erasing the vectors of forgotten memories from the append-only vector files.

A forget must not leave a memory's vectors behind (an embedding says a good deal about
the text it came from), but rewriting a domain's file costs as much as the store is
large. So the memory's records are overwritten where they lie: id, meta and vector
zeroed, a valid checksum, a record every reader skips. Then one tombstone record
(the id, flag :data:`ihmt.semantic.vectors.FORGOTTEN`, a zero vector) is appended: the
file grows, so every other process reads it on its next look and drops the vectors it
still holds in memory. Rows keep their numbers, so the routing tree stays valid.

The records are found through this process's view of the file (one read of what was
appended since its last look); without numpy (the extra was uninstalled after vectors
were written) the file is scanned record by record instead.
"""

from __future__ import annotations

import logging
import os
import struct
import zlib
from pathlib import Path

from ..store import files
from .vectors import (
    FORGOTTEN,
    HEADER_LEN,
    ID_BYTES,
    OLD_HEADER,
    REC,
    SUFFIX,
    VectorStore,
    read_header,
)

log = logging.getLogger(__name__)


def _record(body: bytes) -> bytes:
    return body + struct.pack("<I", zlib.crc32(body))


def _rows_by_domain(vs: VectorStore, ids: set[str]) -> dict[str, list[int]]:
    try:
        vs.refresh()
    except ImportError:
        return {}
    out: dict[str, list[int]] = {}
    for dom, dv in vs.domains.items():
        for leaf_id in ids & set(dv.pos):
            j = dv.pos[leaf_id]
            out.setdefault(dom, []).extend(range(dv.start[j], dv.start[j] + dv.span[j]))
    return out


def _scan(path: Path, rec: int, start: int, ids: set[str]) -> list[int]:
    """Rows of ``ids`` found by reading every record id (the path without numpy)."""
    want = {i.encode("ascii") for i in ids}
    rows: list[int] = []
    with open(path, "rb") as fh:
        fh.seek(start)
        row = 0
        while True:
            raw = fh.read(rec)
            if len(raw) < rec:
                break
            if raw[:ID_BYTES].rstrip(b"\0") in want:
                rows.append(row)
            row += 1
    return rows


def erase(vs: VectorStore, ids: set[str]) -> int:
    """Erase every vector record of ``ids`` (caller holds the write lock). Returns the
    number of records erased."""
    if not ids or not vs.dir.is_dir():
        return 0
    known = _rows_by_domain(vs, ids)
    erased = 0
    for path in sorted(vs.dir.glob(f"*{SUFFIX}")):
        dom = path.stem
        fd = os.open(path, os.O_RDWR)
        try:
            head = read_header(os.pread(fd, HEADER_LEN, 0))
            if head is None:
                continue  # a damaged header: its records are unusable already
            rec = head[0]
            start = HEADER_LEN if rec == REC else len(OLD_HEADER)
            rows = known.get(dom)
            if rows is None:
                if dom in vs.domains:
                    continue  # read, and none of them is here
                rows = _scan(path, rec, start, ids)
            blank = _record(bytes(rec - 4))
            for row in rows:
                os.pwrite(fd, blank, start + row * rec)
            erased += len(rows)
            if rec == REC and rows:
                size = os.fstat(fd).st_size
                extra = (size - HEADER_LEN) % REC
                if extra:  # a torn tail a crashed writer left: keep records aligned
                    os.ftruncate(fd, size - extra)
                stones = b"".join(
                    _record(i.encode("ascii").ljust(ID_BYTES, b"\0")
                            + bytes((0, 0, FORGOTTEN, 0)) + bytes(REC - ID_BYTES - 8))
                    for i in sorted(ids))
                os.lseek(fd, 0, os.SEEK_END)
                files.write_all(fd, stones)
            os.fsync(fd)
        finally:
            os.close(fd)
    if erased:
        try:
            vs.refresh()  # this process reads its own tombstones now
        except ImportError:
            pass
    return erased
