"""A binary copy of the large branch files, so that a fresh process opens them fast.

An agent hook is a new process on every prompt, and its search opens the top of the tree:
branch files of hundreds of kilobytes (megabytes in a large store) whose JSON parse, plus
packing every term's groups into one int array, took most of a cold search. This module
keeps, for each branch file of at least :data:`MIN_BYTES`, the already packed form in
``state/cache/branches/<id>.bin``: the term index and the int array as raw bytes, the slot
masks zlib-compressed (they are most of the size), read back with no per-group work: about
3 ms instead of 25-30 for a 700 KB branch file.

The cache is derived and never trusted: each file names the size and CRC-32 of the JSON it
was made from, and of its own content. The JSON is still read (reading bytes is cheap;
parsing them is not), and a cache file that does not match it, or is damaged, missing or
unwritable, is ignored and rewritten from the JSON; nothing here raises. A search gets the
same :class:`Branch` either way. The folder is not synced (``state/`` is local) and can be
deleted at any time.
"""

from __future__ import annotations

import json
import logging
import shutil
import struct
import sys
import zlib
from array import array
from pathlib import Path

from . import files
from .branch import Branch

log = logging.getLogger(__name__)

FOLDER = ("cache", "branches")  # under state/
MIN_BYTES = 32 * 1024  # smaller branch files parse in well under a millisecond
MAGIC = b"IHMT-branch-cache-1\n"
# source size, source crc, content crc, int size, byte order, five section lengths
_HEAD = struct.Struct("<QIIBB5Q")
_ORDER = 0 if sys.byteorder == "little" else 1


def folder(state_dir: Path) -> Path:
    return state_dir.joinpath(*FOLDER)


def clear(state_dir: Path) -> None:
    """Remove every cache file (the branches were all rewritten: a rebuild)."""
    shutil.rmtree(folder(state_dir), ignore_errors=True)


def _path(state_dir: Path, node_id: str) -> Path:
    return folder(state_dir) / f"{node_id}.bin"


def load(state_dir: Path, node_id: str, source: bytes) -> Branch | None:
    """The branch made from ``source`` (the JSON file's bytes), if the cache holds it."""
    if len(source) < MIN_BYTES:
        return None
    try:
        blob = _path(state_dir, node_id).read_bytes()
    except OSError:
        return None
    try:
        return _decode(blob, source)
    except Exception as exc:  # noqa: BLE001 - a damaged cache file is only a slower read
        log.debug("branch cache of %s ignored: %s", node_id, exc)
        return None


def save(state_dir: Path, node_id: str, source: bytes, branch: Branch) -> None:
    """Keep the packed form of ``branch``, read from ``source``; failures are ignored."""
    if len(source) < MIN_BYTES:
        return
    try:
        files.atomic_write(_path(state_dir, node_id), _encode(source, branch))
    except Exception as exc:  # noqa: BLE001 - read-only folder, full disk: no cache, no harm
        log.debug("branch cache of %s not written: %s", node_id, exc)


def forget(state_dir: Path, node_id: str) -> None:
    """Remove the cache file of a branch that no longer exists."""
    try:
        _path(state_dir, node_id).unlink(missing_ok=True)
    except OSError:
        pass


def _encode(source: bytes, branch: Branch) -> bytes:
    meta = dict(branch.data)
    meta["bands"] = branch.band_bits
    meta["mask_bytes"] = branch.mask_bytes
    meta["slot_widths"] = list(branch.slot_widths)
    terms, flat, masks = branch.packed()
    if any("\n" in t for t in terms):
        raise ValueError("a term holds a line break")  # cannot be listed one a line
    sections = [json.dumps(meta, ensure_ascii=False).encode("utf-8"),
                "\n".join(terms).encode("utf-8", "surrogatepass"),
                array("q", terms.values()).tobytes(), flat.tobytes(),
                zlib.compress(masks, 1) if masks is not None else b""]
    body = b"".join(sections)
    head = _HEAD.pack(len(source), zlib.crc32(source), zlib.crc32(body), flat.itemsize,
                      _ORDER, *(len(s) for s in sections))
    return MAGIC + head + body


def _decode(blob: bytes, source: bytes) -> Branch | None:
    if not blob.startswith(MAGIC):
        return None
    at = len(MAGIC)
    size, crc, body_crc, itemsize, order, *lengths = _HEAD.unpack_from(blob, at)
    body = memoryview(blob)[at + _HEAD.size:]
    flat = array("i")
    if (size != len(source) or itemsize != flat.itemsize or order != _ORDER
            or len(body) != sum(lengths) or zlib.crc32(body) != body_crc
            or zlib.crc32(source) != crc):
        return None
    parts = []
    pos = 0
    for n in lengths:
        parts.append(body[pos:pos + n])
        pos += n
    meta = json.loads(bytes(parts[0]).decode("utf-8"))
    names = bytes(parts[1]).decode("utf-8", "surrogatepass").split("\n") if lengths[1] else []
    codes = array("q")
    codes.frombytes(parts[2])
    if len(names) != len(codes):
        return None
    flat.frombytes(parts[3])
    index = dict(zip(map(sys.intern, names), codes))
    masks = zlib.decompress(parts[4]) if lengths[4] else None
    return Branch.from_packed(meta, index, flat, masks)
