"""Branch files of the second format: the term table cut into hashed buckets, so that a
reader opens, and a forget rewrites, only the buckets of the terms it needs.

The first format (one JSON object, ``layers/<N>/<id>.json``) holds a branch's whole term
table in one piece: at 50,000 memories the upper branches are megabytes, and taking one
memory out of them meant parsing every term of the file, building its in-memory form and
encoding all of it again. A file of this format, ``layers/<N>/<id>.branch``, is::

    MAGIC
    head    meta length, bucket count, term count, CRC-32 of meta and table
    meta    the branch's JSON object without its term table (children, counts, summary,
            band bits, mask width, slot widths)
    table   where each bucket lies in the body (offsets), and the CRC-32 of each
    body    the buckets, one after the other

A term lives in bucket ``crc32(term) % buckets`` (about :data:`BUCKET_TERMS` terms each).
A bucket is columnar and needs no parsing per term: its terms sorted and joined by
newlines (as plain UTF-8, so a search of the folder for a word finds every file holding
it), the number of groups of each term, every group's four ints as raw bytes, and the
slot masks of its groups compressed together. A reader decodes a bucket the first time a
term of it is asked for; a writer taking a memory out copies the other buckets' bytes as
they are. Each bucket is checked against its CRC-32 when it is decoded, the head and the
table when the file is opened: a damaged file raises DamagedFileError, as a damaged JSON
branch does (the tree is rebuilt from the leaves).

Files are written whole and renamed into place (:func:`ihmt.store.files.atomic_write`),
so a reader holds one version of a branch, never parts of two.
"""

from __future__ import annotations

import bisect
import json
import operator
import struct
import sys
import zlib
from array import array
from collections.abc import Iterable, Iterator, Sequence
from itertools import accumulate
from typing import Any

from ..errors import DamagedFileError
from .branch import BranchBase

try:  # a fast encoder (a dependency; the stdlib otherwise)
    import orjson as _orjson
except ImportError:  # pragma: no cover - installed with IHMT
    _orjson = None

MAGIC = b"IHMT-branch-2\n"
SUFFIX = ".branch"
BUCKET_TERMS = 64  # terms per bucket, about: what a reader decodes for one term
_HEAD = struct.Struct("<IIII")  # meta length, buckets, terms, CRC-32 of all that + meta + table
# terms, groups, name bytes, compressed mask bytes, bytes per int of the groups (2 or 4)
_BUCKET = struct.Struct("<IIIIB3x")
_KINDS = {2: "H", 4: "I"}
_INT_MAX = 2**31 - 1
_SWAP = sys.byteorder != "little"

Row = tuple[str, Sequence[int], Any]  # term, flat groups, masks (bytes-like or None)


def bucket_of(term: str, n: int) -> int:
    return zlib.crc32(term.encode("utf-8", "surrogatepass")) % n


def _le(values: array) -> bytes:
    if _SWAP:
        values = array(values.typecode, values)
        values.byteswap()
    return values.tobytes()


def _from_le(typecode: str, raw: Any) -> array:
    out = array(typecode)
    out.frombytes(raw)
    if _SWAP:
        out.byteswap()
    return out


def encode_bucket(rows: list[Row], width: int) -> bytes:
    """One bucket of ``rows`` (sorted by term; masks ``width`` bytes per group, or no
    masks when ``width`` is 0)."""
    flat = _narrow([x for r in rows for x in r[1]])
    return _bucket_bytes([r[0] for r in rows], array("H", [len(r[1]) // 4 for r in rows]),
                         flat, b"".join(bytes(r[2]) for r in rows) if width else b"")


def _bucket_bytes(names: list[str], counts: array, flat: array, masks: bytes) -> bytes:
    """A bucket from its columns: sorted terms, groups per term, the groups (an unsigned
    array of 2 or 4 bytes per int, see :func:`_narrow`), raw masks."""
    text = "\n".join(names).encode("utf-8", "surrogatepass")
    zmasks = zlib.compress(masks, 1) if masks else b""
    return b"".join((_BUCKET.pack(len(names), len(flat) // 4, len(text), len(zmasks),
                                  flat.itemsize), text, _le(counts), _le(flat), zmasks))


def _narrow(values: Any) -> array:
    """The groups' ints as a 2-byte unsigned array when they all fit (codes, counts and
    lengths nearly always do, and a word's number of memories below most branches), else
    a 4-byte one: half the bytes for most buckets, read back with no conversion."""
    try:
        return array("H", values)
    except OverflowError:
        pass
    try:
        wide = array("I", values)
    except OverflowError as exc:
        raise ValueError(f"a branch statistic out of range ({exc})") from exc
    if max(wide, default=0) > _INT_MAX:  # every reader holds them as signed 32-bit ints
        raise ValueError(f"a branch statistic out of range ({max(wide)} > {_INT_MAX})")
    return wide


class Bucket:
    """One decoded bucket: its sorted terms, and their groups and masks on demand."""

    __slots__ = ("names", "counts", "starts", "flat", "_zmasks", "_masks", "width", "where")

    def __init__(self, blob: memoryview, width: int, where: str = "a branch bucket") -> None:
        self.where = where  # for messages: which branch and bucket
        n, n_groups, n_names, n_masks, size = _BUCKET.unpack_from(blob, 0)
        at = _BUCKET.size
        text = bytes(blob[at:at + n_names]).decode("utf-8", "surrogatepass")
        self.names = text.split("\n") if n else []
        at += n_names
        counts = _from_le("H", blob[at:at + 2 * n])
        at += 2 * n
        self.flat = _from_le(_KINDS[size], blob[at:at + 4 * size * n_groups])
        at += 4 * size * n_groups
        self._zmasks = blob[at:at + n_masks]
        self._masks: bytes | None = None
        self.width = width
        self.counts = counts
        self.starts = array("I", accumulate(counts, initial=0))
        if (len(self.names) != n or len(counts) != n or self.starts[-1] != n_groups
                or len(self.flat) != 4 * n_groups or at + n_masks != len(blob)
                or (n_masks > 0) != (width > 0 and n_groups > 0)):
            raise ValueError("bucket fields do not add up")

    def find(self, term: str) -> int:
        names = self.names
        i = bisect.bisect_left(names, term)
        return i if i < len(names) and names[i] == term else -1

    def masks(self) -> bytes | None:
        """The masks of every group, decompressed the first time (raises DamagedFileError)."""
        if self._masks is None and self.width:
            try:
                raw = zlib.decompress(self._zmasks) if len(self._zmasks) else b""
            except zlib.error as exc:
                raise DamagedFileError(f"{self.where}: masks cannot be read ({exc})") from exc
            if len(raw) != self.starts[-1] * self.width:
                raise DamagedFileError(f"{self.where}: masks do not add up")
            self._masks = raw
        return self._masks

    def row(self, i: int) -> tuple[Sequence[int], Any]:
        a, b = self.starts[i], self.starts[i + 1]
        flat = self.flat[4 * a:4 * b]
        if not self.width:
            return flat, None
        w = self.width
        return flat, self.masks()[a * w:b * w]  # type: ignore[index]

    def rows(self) -> Iterator[Row]:
        for i, name in enumerate(self.names):
            yield (name, *self.row(i))

    def edited(self, edits: dict[str, tuple[Sequence[int], Any] | None]
               ) -> tuple[bytes, int, Bucket | None]:
        """This bucket encoded again with ``edits`` (term -> its new groups and masks, or
        None to drop it), the change in its number of terms, and the new bucket decoded
        (or None). The runs of terms between two edited ones are copied as slices: the
        work is per edit, not per term."""
        at: dict[int, tuple[Sequence[int], Any] | None] = {}
        for term, got in edits.items():
            i = self.find(term)
            if i < 0:
                if got is not None:  # a new term (never in a forget): the plain way
                    return self._edited_rows(edits)
                continue
            at[i] = got
        names, counts, starts, flat, w = self.names, self.counts, self.starts, self.flat, \
            self.width
        masks = self.masks() if w else None
        if flat.typecode == "H" and any(max(got[0], default=0) > 0xFFFF
                                        for got in at.values() if got is not None):
            flat = array("I", flat)  # a new value needs 4 bytes: the whole bucket does
        new = {i: _narrow(got[0]) if got is not None else None for i, got in at.items()}
        for i, vals in new.items():
            if vals is not None and vals.typecode != flat.typecode:
                new[i] = array(flat.typecode, vals)
        out_names: list[str] = []
        out_counts = array("H")
        out_flat = array(flat.typecode)
        out_masks: list[Any] = []
        prev = 0
        for i in sorted(at):
            out_names.extend(names[prev:i])
            out_counts.extend(counts[prev:i])
            out_flat.extend(flat[4 * starts[prev]:4 * starts[i]])
            if masks is not None:
                out_masks.append(masks[starts[prev] * w:starts[i] * w])
            got = at[i]
            if got is not None:
                out_names.append(names[i])
                out_counts.append(len(got[0]) // 4)
                out_flat.extend(new[i])  # type: ignore[arg-type]
                if masks is not None:
                    out_masks.append(got[1])
            prev = i + 1
        out_names.extend(names[prev:])
        out_counts.extend(counts[prev:])
        out_flat.extend(flat[4 * starts[prev]:])
        if masks is not None:
            out_masks.append(masks[starts[prev] * w:])
        raw_masks = b"".join(out_masks) if w else b""
        done = Bucket.of(out_names, out_counts, out_flat, raw_masks, w, self.where)
        return _bucket_bytes(out_names, out_counts, out_flat, raw_masks), \
            len(out_names) - len(names), done

    @classmethod
    def of(cls, names: list[str], counts: array, flat: array, masks: bytes, width: int,
           where: str) -> Bucket:
        """A bucket from its columns, as decoding its bytes would give it."""
        self = cls.__new__(cls)
        self.where = where
        self.names = names
        self.counts = counts
        self.starts = array("I", accumulate(counts, initial=0))
        self.flat = flat
        self._zmasks = b""
        self._masks = masks if width else None
        self.width = width
        return self

    def _edited_rows(self, edits: dict[str, tuple[Sequence[int], Any] | None]
                     ) -> tuple[bytes, int]:
        rows: list[Row] = []
        for name, flat, masks in self.rows():
            if name in edits:
                got = edits[name]
                if got is not None:
                    rows.append((name, *got))
            else:
                rows.append((name, flat, masks))
        for name, got in edits.items():
            if got is not None and self.find(name) < 0:
                rows.append((name, *got))
        rows.sort(key=_first)
        return encode_bucket(rows, self.width), len(rows) - len(self.names), None


class PackedBranch(BranchBase):
    """A branch read from a file of this format (see the module docstring)."""

    __slots__ = ("_body", "_offsets", "_crcs", "_buckets", "_n_terms")

    def __init__(self, blob: bytes, name: str = "?",
                 decoded: dict[int, Bucket] | None = None) -> None:
        """``blob``: the file's bytes; ``name``: the branch's id, for messages;
        ``decoded``: buckets of it already decoded (by the writer that made it)."""
        view = memoryview(blob)
        node = name
        try:
            if not blob.startswith(MAGIC):
                raise ValueError("not a branch file of this version")
            at = len(MAGIC)
            meta_len, n, n_terms, crc = _HEAD.unpack_from(view, at)
            at += _HEAD.size
            end = at + meta_len + 12 * n + 8
            if (n < 1 or end > len(blob)
                    or zlib.crc32(view[at:end], zlib.crc32(view[at - _HEAD.size:at - 4])) != crc):
                raise ValueError("head damaged")
            data = json.loads(bytes(view[at:at + meta_len]).decode("utf-8"))
            if not isinstance(data, dict):
                raise ValueError("meta is not an object")
            node = str(data.get("id", name))
            at += meta_len
            offsets = _from_le("Q", view[at:at + 8 * (n + 1)])
            crcs = _from_le("I", view[at + 8 * (n + 1):end])
            body = view[end:]
            if offsets[0] != 0 or offsets[-1] != len(body):
                raise ValueError("bucket table damaged")  # (a bucket cut wrong fails its CRC)
        except (ValueError, struct.error, UnicodeDecodeError) as exc:
            raise DamagedFileError(f"branch {node} cannot be read ({exc})") from exc
        self._body = body
        self._offsets = offsets
        self._crcs = crcs
        self._buckets: dict[int, Bucket] = dict(decoded) if decoded else {}
        self._n_terms = n_terms
        self._meta(data, int(data.get("mask_bytes", 0) or 0) > 0)

    @property
    def n_buckets(self) -> int:
        return len(self._crcs)

    def bucket(self, b: int) -> Bucket:
        got = self._buckets.get(b)
        if got is None:
            raw = self._body[self._offsets[b]:self._offsets[b + 1]]
            try:
                if zlib.crc32(raw) != self._crcs[b]:
                    raise ValueError("CRC-32 does not match")
                got = Bucket(raw, self._mask_bytes, f"branch {self.id}: bucket {b}")
            except (ValueError, KeyError, OverflowError, struct.error, UnicodeDecodeError,
                    zlib.error) as exc:
                raise DamagedFileError(f"branch {self.id}: bucket {b} cannot be read "
                                       f"({exc})") from exc
            self._buckets[b] = got
        return got

    def bucket_bytes(self, b: int) -> tuple[memoryview, int]:
        """A bucket's bytes as stored, and their CRC-32 (copied as they are by a writer)."""
        return self._body[self._offsets[b]:self._offsets[b + 1]], self._crcs[b]

    def _lookup(self, term: str) -> tuple[Sequence[int], Any] | None:
        bucket = self.bucket(bucket_of(term, len(self._crcs)))
        i = bucket.find(term)
        return None if i < 0 else bucket.row(i)

    def _rows(self) -> Iterator[Row]:
        for b in range(len(self._crcs)):
            yield from self.bucket(b).rows()

    def term_count(self) -> int:
        return self._n_terms


def encode(meta: dict[str, Any], buckets: Sequence[bytes], n_terms: int) -> bytes:
    """A whole file: ``meta`` (JSON-able; ``bands``, ``mask_bytes``, ``slot_widths`` in
    it) and the buckets' bytes."""
    return _assemble(meta, array("Q", accumulate(map(len, buckets), initial=0)),
                     array("I", map(zlib.crc32, buckets)), buckets, n_terms)


def _assemble(meta: dict[str, Any], offsets: array, crcs: array, body: Sequence[Any],
              n_terms: int) -> bytes:
    """A whole file from its table (bucket offsets in the body, CRC-32s) and the body's
    pieces in order."""
    head = _json_bytes(meta)
    table = _le(offsets) + _le(crcs)
    fields = _HEAD.pack(len(head), len(crcs), n_terms, 0)[:-4]
    crc = zlib.crc32(head + table, zlib.crc32(fields))
    return b"".join((MAGIC, fields, struct.pack("<I", crc), head, table, *body))


def _json_bytes(obj: Any) -> bytes:
    if _orjson is not None:
        try:
            return _orjson.dumps(obj)
        except TypeError:  # a lone surrogate, an int past 64 bits ...: the stdlib, escaped
            pass
    return json.dumps(obj, separators=(",", ":")).encode("ascii")


def encode_rows(meta: dict[str, Any], rows: Iterable[Row], n_terms: int) -> bytes:
    """A whole file from every term's row (a new branch, or one of the first format)."""
    width = int(meta.get("mask_bytes", 0) or 0)
    n = max(1, -(-n_terms // BUCKET_TERMS))
    parts: list[list[Row]] = [[] for _ in range(n)]
    count = 0
    for row in rows:
        parts[bucket_of(row[0], n)].append(row)
        count += 1
    if count != n_terms:
        raise ValueError(f"{count} terms where {n_terms} were announced")
    for p in parts:
        p.sort(key=_first)
    return encode(meta, [encode_bucket(p, width) for p in parts], n_terms)


def _first(row: Row) -> str:
    return row[0]


def encode_data(data: dict[str, Any]) -> bytes:
    """A file from a branch as :meth:`ihmt.tree.consolidate.Consolidator.build_branch`
    makes it: ``terms`` (term -> flat groups) and ``masks`` (term -> one int per group)."""
    meta = {k: v for k, v in data.items() if k not in ("terms", "masks")}
    terms: dict[str, list[int]] = data["terms"]
    masks: dict[str, list[int]] | None = data.get("masks")
    width = int(meta.get("mask_bytes", 0) or 0) if masks is not None else 0
    if not width:
        meta.pop("mask_bytes", None)
        meta.pop("slot_widths", None)
        rows: Iterable[Row] = ((t, g, None) for t, g in terms.items())
    else:
        rows = ((t, g, b"".join(m.to_bytes(width, "little") for m in masks[t]))
                for t, g in terms.items())
    return encode_rows(meta, rows, len(terms))


def convert(branch: BranchBase) -> PackedBranch:
    """A branch of the first format in this one (rewritten so when a forget edits it)."""
    meta = branch.meta()
    if branch.has_masks:
        rows: Iterable[Row] = ((t, g, bytes(m)) for t, g, m in branch._rows())
    else:
        rows = ((t, g, None) for t, g, _ in branch._rows())
    return PackedBranch(encode_rows(meta, rows, branch.term_count()))


class BranchEdit:
    """A branch being rewritten term by term (a forget): the buckets of the terms it
    changes are encoded again, every other bucket's bytes are copied."""

    def __init__(self, branch: PackedBranch) -> None:
        self.branch = branch
        self.data = branch.meta()
        self.width = branch.mask_bytes if branch.has_masks else 0
        self._changed: dict[int, dict[str, tuple[list[int], bytes | None] | None]] = {}
        self.decoded: dict[int, Bucket] = {}  # the new file's buckets known decoded

    def rows(self, term: str) -> tuple[Sequence[int], Any] | None:
        """``term``'s groups and masks as they stand in the edit."""
        edits = self._changed.get(bucket_of(term, self.branch.n_buckets))
        if edits is not None and term in edits:
            return edits[term]
        return self.branch._lookup(term)

    def child_terms(self, ci: int, candidates: Iterable[str], total: int) -> list[str]:
        """The terms with a group of leaf child ``ci``. A leaf's groups hold its exact
        counts, which add up to its length ``total``: when ``candidates`` (its terms as
        worked out now) account for all of it they are the answer, without reading the
        other buckets; otherwise every term is looked at."""
        shift = self.branch.band_bits
        found: list[str] = []
        seen = 0
        for term in candidates:
            got = self.rows(term)
            if got is None:
                continue
            flat = got[0]
            for k in range(0, len(flat), 4):
                if flat[k] >> shift == ci:
                    found.append(term)
                    seen += flat[k + 1]
                    break
        if seen == total:
            return found
        out = []
        for term, flat, _ in self.branch._rows():
            if any(flat[k] >> shift == ci for k in range(0, len(flat), 4)):
                out.append(term)
        return out

    def replace(self, term: str, ci: int, new: list[tuple[int, int, int, int, int]]) -> None:
        """Child ``ci``'s groups of ``term`` become ``new`` ((band, max_tf, min_len, df,
        mask) per band); the term goes when no child holds it any more."""
        old = self.rows(term)
        if old is None and not new:
            return
        shift = self.branch.band_bits
        w = self.width
        flat: list[int] = []
        masks: list[bytes] = []
        if old is not None:
            g, m = old
            for k in range(0, len(g), 4):
                if g[k] >> shift != ci:
                    flat.extend(g[k:k + 4])
                    if w:
                        masks.append(bytes(m[k // 4 * w:(k // 4 + 1) * w]))
        for band, mx, mn, df, sig in new:
            flat.extend((ci << shift | band, mx, mn, df))
            if w:
                if sig.bit_length() > 8 * w:  # cannot happen: taking a leaf out only clears bits
                    raise ValueError(f"a mask of {term!r} outgrew the branch's width")
                masks.append(sig.to_bytes(w, "little"))
        b = bucket_of(term, self.branch.n_buckets)
        self._changed.setdefault(b, {})[term] = (flat, b"".join(masks) if w else None) \
            if flat else None

    def encode(self) -> bytes:
        """The new file: the changed buckets encoded again, the runs of buckets between
        them copied from the old file's body in one slice each (the work is per change)."""
        br = self.branch
        old = br._offsets
        body = br._body
        lengths = array("Q", map(operator.sub, old[1:], old[:-1]))
        crcs = array("I", br._crcs)
        pieces: list[Any] = []
        n_terms = br.term_count()
        prev = 0
        self.decoded = dict(br._buckets)  # unchanged buckets stay as they were decoded
        for b in sorted(b for b, edits in self._changed.items() if edits):
            raw, delta, done = br.bucket(b).edited(self._changed[b])
            pieces.append(body[old[prev]:old[b]])
            pieces.append(raw)
            lengths[b] = len(raw)
            crcs[b] = zlib.crc32(raw)
            if done is not None:
                self.decoded[b] = done
            else:
                self.decoded.pop(b, None)
            n_terms += delta
            prev = b + 1
        pieces.append(body[old[prev]:])
        return _assemble(self.data, array("Q", accumulate(lengths, initial=0)), crcs, pieces,
                         n_terms)
