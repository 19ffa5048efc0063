"""Branch files of the second format: the term table cut into hashed buckets, so that a
reader parses, and a forget rewrites, only the buckets of the terms it needs.

The first format (one JSON object with a ``terms`` table) holds a branch's whole term table
in one piece: at 50,000 memories the upper branches are megabytes, and taking one memory
out of them meant parsing every term of the file, building its in-memory form and encoding
all of it again. A file of this format is still one JSON document you can read, at the same
place (``layers/<N>/<id>.json``), laid out in lines::

    {"ihmt_branch":2,"terms":T,"meta":{...},"table":[[length,crc32],...],"crc":C,"buckets":[
    {"terms":{"alpha":[code,max_tf,min_len,df, ...],"beta":[...]},"masks":"..."},
    ...
    {"terms":{...}}
    ]}

The first line (the head) holds the branch's object without its term table (``meta``:
children, counts, summary, band bits, mask width, slot widths), the byte length and CRC-32
of every bucket, and the CRC-32 of the head's bytes before ``"crc"``. Each further line is
one bucket: the terms whose ``crc32(term) % buckets`` is its number (about
:data:`BUCKET_TERMS` of them), sorted, each with its flat groups as the first format keeps
them, and the slot masks of its groups packed as the first format packs them (fixed width,
zlib, base64). Term names are plain UTF-8, so a search of the folder for a word finds every
file holding it.

A reader parses the head when it opens the file and a bucket the first time a term of it is
asked for; a writer taking a memory out encodes the buckets of that memory's terms again
and copies the other lines' bytes as they are. Every byte is checked: the head against its
CRC-32 and the file's length against the table when the file is opened, a bucket against
its CRC-32 and the bytes around it when it is parsed. A damaged file raises
DamagedFileError, as a damaged branch of the first format does (the tree is rebuilt from
the leaves).

Files are written whole and renamed into place (:func:`ihmt.store.files.atomic_write`),
so a reader holds one version of a branch, never parts of two.
"""

from __future__ import annotations

import base64
import bisect
import json
import zlib
from array import array
from collections.abc import Iterable, Iterator, Sequence
from itertools import accumulate
from typing import Any

from ..errors import DamagedFileError
from .branch import BranchBase
from .files import fast_json

PREFIX = b'{"ihmt_branch":2,'  # how a file of this format begins (the first format: not so)
BUCKET_TERMS = 64  # terms per bucket, about: what a reader parses for one term
_CRC = b',"crc":'
_OPEN = b',"buckets":['  # the head line ends so
_TAIL = b"]}\n"  # after the last bucket's line
_SEP, _LAST = b",\n", b"\n"  # after a bucket's line, and after the last one
_INT_MAX = 2**31 - 1

Row = tuple[str, Sequence[int], Any]  # term, flat groups, masks (bytes-like or None)


def bucket_of(term: str, n: int) -> int:
    return zlib.crc32(term.encode("utf-8", "surrogatepass")) % n


def is_branch_file(blob: bytes) -> bool:
    """Whether ``blob`` is a branch file of this format (else: of the first format)."""
    return blob.startswith(PREFIX)


def _ints(values: Iterable[int]) -> array:
    """The groups' ints as every reader holds them (signed 32-bit); ValueError when one
    does not fit."""
    try:
        return array("i", values)
    except (OverflowError, TypeError) as exc:
        raise ValueError(f"a branch statistic out of range ({exc})") from exc


def _json_bytes(obj: Any) -> bytes:
    _orjson = fast_json()
    if _orjson is not None:
        try:
            return _orjson.dumps(obj)
        except TypeError:  # a lone surrogate, an int past 64 bits ...: the stdlib, escaped
            pass
    return json.dumps(obj, separators=(",", ":")).encode("ascii")


def _parse(raw: Any) -> Any:
    _orjson = fast_json()
    if _orjson is not None:
        try:
            return _orjson.loads(raw)
        except _orjson.JSONDecodeError:  # (orjson refuses an escaped lone surrogate)
            pass
    return json.loads(bytes(raw).decode("utf-8"))


def encode_bucket(rows: list[Row], width: int) -> bytes:
    """One bucket of ``rows`` (sorted by term; masks ``width`` bytes per group, or no
    masks when ``width`` is 0)."""
    flat = _ints(x for r in rows for x in r[1])
    return _bucket_bytes([r[0] for r in rows], array("I", [len(r[1]) // 4 for r in rows]),
                         flat, b"".join(bytes(r[2]) for r in rows) if width else b"")


def _bucket_bytes(names: list[str], counts: array, flat: array, masks: bytes) -> bytes:
    """A bucket's line from its columns: sorted terms, groups per term, the groups, the raw
    masks of every group in order."""
    values = flat.tolist()
    terms: dict[str, list[int]] = {}
    at = 0
    for name, n in zip(names, counts):
        terms[name] = values[at:at + 4 * n]
        at += 4 * n
    obj: dict[str, Any] = {"terms": terms}
    if masks:
        obj["masks"] = base64.b64encode(zlib.compress(masks, 1)).decode("ascii")
    return _json_bytes(obj)


class Bucket:
    """One parsed bucket: its sorted terms, and their groups and masks on demand."""

    __slots__ = ("names", "counts", "starts", "flat", "_zmasks", "_masks", "width", "where")

    def __init__(self, raw: Any, width: int, where: str = "a branch bucket") -> None:
        self.where = where  # for messages: which branch and bucket
        obj = _parse(raw)
        if not isinstance(obj, dict) or not isinstance(obj.get("terms"), dict):
            raise ValueError("a bucket is not an object with terms")
        terms: dict[str, Any] = obj["terms"]
        names = list(terms)
        flat = array("i")
        counts = array("I")
        for groups in terms.values():
            if not isinstance(groups, list) or not groups or len(groups) % 4:
                raise ValueError("a term's groups are not groups of four ints")
            flat.extend(groups)  # (TypeError/OverflowError: not ints, or too large)
            counts.append(len(groups) // 4)
        if any(x >= y for x, y in zip(names, names[1:])):
            raise ValueError("the bucket's terms are not in order")
        zmasks = obj.get("masks", "")
        if not isinstance(zmasks, str) or (bool(zmasks) != (width > 0 and bool(names))):
            raise ValueError("the bucket's masks do not match the branch")
        self.names = names
        self.counts = counts
        self.starts = array("I", accumulate(counts, initial=0))
        self.flat = flat
        self._zmasks = zmasks
        self._masks: bytes | None = None
        self.width = width

    def find(self, term: str) -> int:
        names = self.names
        i = bisect.bisect_left(names, term)
        return i if i < len(names) and names[i] == term else -1

    def masks(self) -> bytes | None:
        """The masks of every group, unpacked the first time (raises DamagedFileError)."""
        if self._masks is None and self.width:
            try:
                raw = zlib.decompress(base64.b64decode(self._zmasks, validate=True)) \
                    if self._zmasks else b""
            except (ValueError, zlib.error) as exc:
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
        None to drop it), the change in its number of terms, and the new bucket parsed
        (or None). The runs of terms between two edited ones are copied as slices of the
        columns: the work is per edit, not per term."""
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
        new = {i: _ints(got[0]) if got is not None else None for i, got in at.items()}
        out_names: list[str] = []
        out_counts = array("I")
        out_flat = array("i")
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
        """A bucket from its columns, as parsing its line would give it."""
        self = cls.__new__(cls)
        self.where = where
        self.names = names
        self.counts = counts
        self.starts = array("I", accumulate(counts, initial=0))
        self.flat = flat
        self._zmasks = ""
        self._masks = masks if width else None
        self.width = width
        return self

    def _edited_rows(self, edits: dict[str, tuple[Sequence[int], Any] | None]
                     ) -> tuple[bytes, int, None]:
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

    __slots__ = ("_body", "_starts", "_lengths", "_crcs", "_buckets", "_n_terms")

    def __init__(self, blob: bytes, name: str = "?",
                 decoded: dict[int, Bucket] | None = None) -> None:
        """``blob``: the file's bytes; ``name``: the branch's id, for messages;
        ``decoded``: buckets of it already parsed (by the writer that made it)."""
        node = name
        try:
            if not blob.startswith(PREFIX):
                raise ValueError("not a branch file of this format")
            nl = blob.find(b"\n")
            head = blob[:nl] if nl > 0 else b""
            k = head.rfind(_CRC)
            digits = head[k + len(_CRC):len(head) - len(_OPEN)]
            if k < 0 or not head.endswith(_OPEN) or not digits.isdigit() \
                    or zlib.crc32(head[:k]) != int(digits):
                raise ValueError("head damaged")
            obj = _parse(head[:k] + b"}")
            data, table, n_terms = obj["meta"], obj["table"], obj["terms"]
            if not isinstance(data, dict) or not isinstance(table, list) or not table:
                raise ValueError("head damaged")
            node = str(data.get("id", name))
            lengths = array("Q", [int(x[0]) for x in table])
            crcs = array("I", [int(x[1]) for x in table])
            starts = array("Q", accumulate((x + len(_SEP) for x in lengths), initial=0))
            body = memoryview(blob)[nl + 1:len(blob) - len(_TAIL)]
            if len(body) != starts[-1] - len(_SEP) + len(_LAST) \
                    or not blob.endswith(_LAST + _TAIL):
                raise ValueError("the file's length does not match its table")
        except (ValueError, TypeError, KeyError, IndexError, OverflowError,
                UnicodeDecodeError) as exc:
            raise DamagedFileError(f"branch {node} cannot be read ({exc})") from exc
        self._body = body
        self._starts = starts
        self._lengths = lengths
        self._crcs = crcs
        self._buckets: dict[int, Bucket] = dict(decoded) if decoded else {}
        self._n_terms = int(n_terms)
        self._meta(data, int(data.get("mask_bytes", 0) or 0) > 0)

    @property
    def n_buckets(self) -> int:
        return len(self._crcs)

    def bucket(self, b: int) -> Bucket:
        got = self._buckets.get(b)
        if got is None:
            at, n = self._starts[b], self._lengths[b]
            raw = self._body[at:at + n]
            sep = _LAST if b == len(self._crcs) - 1 else _SEP
            try:
                if zlib.crc32(raw) != self._crcs[b] \
                        or self._body[at + n:at + n + len(sep)] != sep:
                    raise ValueError("CRC-32 does not match")
                got = Bucket(raw, self._mask_bytes, f"branch {self.id}: bucket {b}")
            except (ValueError, TypeError, KeyError, OverflowError, UnicodeDecodeError,
                    zlib.error) as exc:
                raise DamagedFileError(f"branch {self.id}: bucket {b} cannot be read "
                                       f"({exc})") from exc
            self._buckets[b] = got
        return got

    def bucket_bytes(self, b: int) -> memoryview:
        """Bucket ``b``'s line as stored (without its line end)."""
        return self._body[self._starts[b]:self._starts[b] + self._lengths[b]]

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
    it) and the buckets' lines (without their line ends)."""
    pieces: list[Any] = []
    for raw in buckets[:-1]:
        pieces.extend((raw, _SEP))
    pieces.extend((buckets[-1], _LAST))
    return _assemble(meta, [len(x) for x in buckets], [zlib.crc32(x) for x in buckets],
                     pieces, n_terms)


def _assemble(meta: dict[str, Any], lengths: Sequence[int], crcs: Sequence[int],
              body: Sequence[Any], n_terms: int) -> bytes:
    """A whole file from its table (each bucket's length and CRC-32) and the body's pieces
    in order (the buckets' lines, each with its line end)."""
    head = b"".join((PREFIX, b'"terms":', str(int(n_terms)).encode(), b',"meta":',
                     _json_bytes(meta), b',"table":',
                     _json_bytes([[int(n), int(c)] for n, c in zip(lengths, crcs)])))
    crc = str(zlib.crc32(head)).encode()
    return b"".join((head, _CRC, crc, _OPEN, b"\n", *body, _TAIL))


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
        starts = br._starts
        body = br._body
        last = br.n_buckets - 1
        lengths = array("Q", br._lengths)
        crcs = array("I", br._crcs)
        pieces: list[Any] = []
        n_terms = br.term_count()
        prev = 0
        self.decoded = dict(br._buckets)  # unchanged buckets stay as they were parsed
        for b in sorted(b for b, edits in self._changed.items() if edits):
            raw, delta, done = br.bucket(b).edited(self._changed[b])
            pieces.append(body[starts[prev]:starts[b]])
            pieces.append(raw)
            pieces.append(_LAST if b == last else _SEP)
            lengths[b] = len(raw)
            crcs[b] = zlib.crc32(raw)
            if done is not None:
                self.decoded[b] = done
            else:
                self.decoded.pop(b, None)
            n_terms += delta
            prev = b + 1
        if prev <= last:
            pieces.append(body[starts[prev]:])
        return _assemble(self.data, lengths, crcs, pieces, n_terms)
