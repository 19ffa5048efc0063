"""A binary copy of the large branch files, so that a fresh process opens them fast.

An agent hook is a new process on every prompt, and its search opens the top of the tree:
branch files of hundreds of kilobytes (megabytes in a large store) whose JSON parse, plus
packing every term's groups into one int array, took most of a cold search. This module
keeps, for each branch file of at least :data:`MIN_BYTES`, the already packed form in
``state/cache/branches/<id>.bin``, made to be read without work proportional to the
branch's size: the int array as raw bytes, the term names sorted with their codes (a
search looks up its few terms by bisection, :class:`PackedTerms`), the slot masks
compressed in small chunks opened only where a search reads (:class:`ChunkedMasks`).

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
import struct
import sys
import zlib
from array import array
from collections.abc import Iterator, Mapping
from itertools import accumulate
from pathlib import Path

from . import files
from .branch import Branch

log = logging.getLogger(__name__)

FOLDER = ("cache", "branches")  # under state/
MIN_BYTES = 32 * 1024  # smaller branch files parse in well under a millisecond
MAGIC = b"IHMT-branch-cache-2\n"
MASK_CHUNK = 16 * 1024  # bytes of masks compressed together
# source size, source crc, content crc, int size, byte order, mask bytes (-1: none), mask
# chunk, seven section lengths
_HEAD = struct.Struct("<QIIBBqI7Q")
_ORDER = 0 if sys.byteorder == "little" else 1


def folder(state_dir: Path) -> Path:
    return state_dir.joinpath(*FOLDER)


def clear(state_dir: Path) -> None:
    """Remove every cache file (the branches were all rewritten: a rebuild)."""
    import shutil  # (with bz2 and lzma: not for the read-only hook)

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
    names = sorted(terms)  # one C-level pass each below: a top branch has 100,000+ terms
    starts = array("q", accumulate(map(len, names), initial=0))  # in characters
    raw = bytes(masks) if masks is not None else b""
    chunks = [zlib.compress(raw[i:i + MASK_CHUNK], 1) for i in range(0, len(raw), MASK_CHUNK)]
    sections = [json.dumps(meta, ensure_ascii=False).encode("utf-8"),
                "".join(names).encode("utf-8", "surrogatepass"), starts.tobytes(),
                array("q", map(terms.__getitem__, names)).tobytes(), flat.tobytes(),
                array("q", map(len, chunks)).tobytes(), b"".join(chunks)]
    body = b"".join(sections)
    head = _HEAD.pack(len(source), zlib.crc32(source), zlib.crc32(body), flat.itemsize,
                      _ORDER, len(raw) if masks is not None else -1, MASK_CHUNK,
                      *(len(x) for x in sections))
    return MAGIC + head + body


def _decode(blob: bytes, source: bytes) -> Branch | None:
    if not blob.startswith(MAGIC):
        return None
    at = len(MAGIC)
    size, crc, body_crc, itemsize, order, n_masks, chunk, *lengths = _HEAD.unpack_from(blob, at)
    body = memoryview(blob)[at + _HEAD.size:]
    flat = array("i")
    if (size != len(source) or itemsize != flat.itemsize or order != _ORDER or chunk <= 0
            or len(body) != sum(lengths) or zlib.crc32(body) != body_crc
            or zlib.crc32(source) != crc):
        return None
    parts = []
    pos = 0
    for n in lengths:
        parts.append(body[pos:pos + n])
        pos += n
    meta = json.loads(bytes(parts[0]).decode("utf-8"))
    starts, codes, chunk_lengths = array("q"), array("q"), array("q")
    starts.frombytes(parts[2])
    codes.frombytes(parts[3])
    flat.frombytes(parts[4])
    chunk_lengths.frombytes(parts[5])
    names = bytes(parts[1]).decode("utf-8", "surrogatepass")
    if len(starts) != len(codes) + 1 or starts[-1] != len(names):
        return None
    masks = None if n_masks < 0 else \
        ChunkedMasks(parts[6], chunk_lengths, n_masks, chunk)
    return Branch.from_packed(meta, PackedTerms(names, starts, codes), flat, masks)


class PackedTerms(Mapping[str, int]):
    """A branch's term index as the cache holds it: the names sorted, in one string, their
    codes beside them. A search looks up its few terms by bisection; only a caller walking every
    term (a writer building a parent) turns it into a dict, in the file's own order (the
    codes' offsets grow in it)."""

    __slots__ = ("_names", "_starts", "_codes", "_dict")

    def __init__(self, names: str, starts: array, codes: array) -> None:
        self._names = names
        self._starts = starts
        self._codes = codes
        self._dict: dict[str, int] | None = None

    def get(self, term: object, default: object = None) -> object:  # type: ignore[override]
        if self._dict is not None:
            return self._dict.get(term, default)  # type: ignore[call-overload]
        if not isinstance(term, str):
            return default
        key = term
        names, starts = self._names, self._starts
        lo, hi = 0, len(self._codes)
        while lo < hi:
            mid = (lo + hi) // 2
            if names[starts[mid]:starts[mid + 1]] < key:
                lo = mid + 1
            else:
                hi = mid
        if lo < len(self._codes) and names[starts[lo]:starts[lo + 1]] == key:
            return self._codes[lo]
        return default

    def __getitem__(self, term: str) -> int:
        code = self.get(term, _MISSING)
        if code is _MISSING:
            raise KeyError(term)
        return code  # type: ignore[return-value]

    def __contains__(self, term: object) -> bool:
        return self.get(term, _MISSING) is not _MISSING

    def __len__(self) -> int:
        return len(self._codes)

    def __iter__(self) -> Iterator[str]:
        return iter(self._full())

    def keys(self):  # type: ignore[no-untyped-def]
        return self._full().keys()

    def values(self):  # type: ignore[no-untyped-def]
        return self._full().values()

    def items(self):  # type: ignore[no-untyped-def]
        return self._full().items()

    def _full(self) -> dict[str, int]:
        if self._dict is None:
            names, starts, codes = self._names, self._starts, self._codes
            order = sorted(range(len(codes)), key=codes.__getitem__)
            self._dict = {sys.intern(names[starts[i]:starts[i + 1]]): codes[i] for i in order}
        return self._dict


class ChunkedMasks:
    """A branch's slot masks, compressed in chunks of :data:`MASK_CHUNK` bytes and opened
    only where a slice asks (a search reads the masks of its few terms). Sliced like the
    ``bytes`` a branch file's masks give."""

    __slots__ = ("_data", "_ends", "_size", "_chunk", "_open")

    def __init__(self, data: memoryview, lengths: array, size: int, chunk: int) -> None:
        self._data = data
        ends = [0]
        for n in lengths:
            ends.append(ends[-1] + n)
        self._ends = ends
        self._size = size
        self._chunk = chunk
        self._open: dict[int, bytes] = {}
        if ends[-1] != len(data) or len(lengths) != -(-size // chunk):
            raise ValueError("mask chunks do not add up")

    def __len__(self) -> int:
        return self._size

    def _piece(self, i: int) -> bytes:
        piece = self._open.get(i)
        if piece is None:
            piece = self._open[i] = zlib.decompress(self._data[self._ends[i]:self._ends[i + 1]])
        return piece

    def __getitem__(self, which: slice) -> bytes:
        start, stop, step = which.indices(self._size)
        if step != 1:
            raise ValueError("masks are read in runs")
        if start >= stop:
            return b""
        first, last = start // self._chunk, (stop - 1) // self._chunk
        joined = self._piece(first) if first == last else \
            b"".join(self._piece(i) for i in range(first, last + 1))
        base = first * self._chunk
        return joined[start - base:stop - base]

    def __bytes__(self) -> bytes:
        return b"".join(self._piece(i) for i in range(len(self._ends) - 1))


_MISSING = object()
