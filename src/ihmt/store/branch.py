"""Branch files in memory: per-child routing statistics and the slot masks that bound the
BM25 score of any leaf below a child without opening it (see :class:`Branch`), and the
helpers that pack, fold and read those masks.
"""

from __future__ import annotations

import base64
import math
import sys
import zlib
from array import array
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ..errors import DamagedFileError


class BranchBase:
    """A branch loaded in memory, whatever the file it came from (see :class:`Branch` for
    the statistics it keeps and :mod:`ihmt.store.branch_file` for the current format).

    Subclasses say how a term's groups are found (:meth:`_lookup`) and walked
    (:meth:`_rows`); everything a search or a writer computes from them is here.
    """

    __slots__ = ("data", "id", "layer", "domain", "children", "band_bits", "_mask_bytes",
                 "_widths", "_layout", "_masked", "n_leaves", "total_len")

    def _meta(self, data: dict[str, Any], masked: bool) -> None:
        """Take the fields every format shares from ``data`` (the file's object without
        its term table; ``bands``, ``mask_bytes`` and ``slot_widths`` are taken out)."""
        try:
            self.data = data
            self.id: str = data["id"]
            self.layer: int = int(data["layer"])
            self.domain: str = data["domain"]
            self.children: list[dict[str, Any]] = list(data["children"])
            self.band_bits = int(data.pop("bands", 0))
            if not 0 <= self.band_bits <= 8:
                raise ValueError(f"bands {self.band_bits}")
            self._mask_bytes = int(data.pop("mask_bytes", 0))
            self._widths = [int(w) for w in data.pop("slot_widths", ())]
            self._layout: tuple[list[int | None], list[int] | None, int] | None = None
            self._masked = masked
            if masked and len(self._widths) != len(self.children):
                raise ValueError("slot_widths does not match the children")
            self.n_leaves: int = int(data["n_leaves"])
            self.total_len: int = int(data["total_len"])
        except (KeyError, TypeError, ValueError, OverflowError) as exc:
            raise DamagedFileError(f"branch {data.get('id', '?')}: bad field ({exc})") from exc
        if not self.children:
            raise DamagedFileError(f"branch {self.id}: no children")

    # ------------------------------------------------------------------ per format
    def _lookup(self, term: str) -> tuple[Sequence[int], Any] | None:
        """``term``'s flat groups and their masks (fixed width, or None), or None."""
        raise NotImplementedError

    def _rows(self) -> Iterator[tuple[str, Sequence[int], Any]]:
        """Every term with its groups and masks, as :meth:`_lookup` gives them."""
        raise NotImplementedError

    def term_count(self) -> int:
        raise NotImplementedError

    # ------------------------------------------------------------------ shared
    @property
    def mask_bytes(self) -> int:
        return self._mask_bytes

    @property
    def slot_widths(self) -> list[int]:
        return self._widths

    @property
    def has_masks(self) -> bool:
        return self._masked

    def meta(self) -> dict[str, Any]:
        """A copy of the file's object without its term table, as
        :func:`ihmt.store.branch_file.encode` takes it (children copied too: safe to edit)."""
        out = dict(self.data)
        out["children"] = [dict(c) for c in self.children]
        out["bands"] = self.band_bits
        if self._masked:
            out["mask_bytes"] = self._mask_bytes
            out["slot_widths"] = list(self._widths)
        return out

    def groups(self, term: str) -> Sequence[int] | None:
        """Flat ``(code, max_tf, min_len, df)`` groups of ``term``, or None if absent; the
        child of a group is ``code >> band_bits``, its band ``code & (2**band_bits - 1)``."""
        found = self._lookup(term)
        return None if found is None else found[0]

    def term_masks(self, term: str) -> Any:
        """The slot masks of ``term``'s groups, :attr:`mask_bytes` each, in group order
        (``bytes`` or sliced like it); None when the branch keeps no masks or lacks the term."""
        found = self._lookup(term)
        return None if found is None else found[1]

    def slot_width(self) -> int:
        """How many slots this subtree's masks have (see :meth:`_term_bands`)."""
        widths, offsets, sub = self._slots()
        if offsets is not None:
            return sum(widths)  # type: ignore[arg-type]
        return sub * len(widths)

    def _slots(self) -> tuple[list[int | None], list[int] | None, int]:
        """(child widths, offsets when laid side by side else None, slots per child)."""
        if self._layout is None:
            if self._masked:
                widths: list[int | None] = list(self._widths)
            else:
                widths = [1 if int(c["layer"]) == 0 else None for c in self.children]
            offsets: list[int] | None = None
            if None not in widths and sum(widths) <= MASK_BITS:  # type: ignore[arg-type]
                offsets = [0] * len(widths)
                for i in range(1, len(widths)):
                    offsets[i] = offsets[i - 1] + widths[i - 1]  # type: ignore[operator]
            self._layout = (widths, offsets, max(1, MASK_BITS // len(widths)))
        return self._layout

    def band_signatures(self, term: str) -> dict[int, tuple[int, int, int, int]]:
        """Per length band holding ``term`` below: ``(max_tf, min_len, df, slot mask)``.

        What a parent branch stores for this subtree as its child (one group per band).
        An older file without bands answers one band, 0, for every leaf.
        """
        found = self._lookup(term)
        if found is None:
            return {}
        return {b: (mx, mn, df, mask) for b, mx, mn, df, mask in self._term_bands(*found)}

    def all_band_signatures(self) -> Iterator[tuple[str, list[tuple[int, int, int, int, int]]]]:
        """:meth:`band_signatures` of every term, as ``(term, [(band, max_tf, min_len, df,
        mask), ...])`` in band order: for building a parent."""
        for term, flat, raw in self._rows():
            yield term, self._term_bands(flat, raw)

    def _term_bands(self, flat: Sequence[int], raw: Any) -> list[tuple[int, int, int, int, int]]:
        """``(band, max_tf, min_len, df, slot mask)`` of one term (its groups ``flat`` and
        their masks ``raw``).

        The mask says which slots of this subtree hold the term in leaves of the band.
        While the children's slots fit in ``MASK_BITS`` they are laid side by side (so a
        slot is one leaf up to two levels down with the default branch factor of 16);
        beyond that each child gets ``MASK_BITS // children`` slots and its own mask is
        folded into them. Folding only merges slots, so a mask may say two terms meet where
        they do not (a looser bound), never the reverse. A child whose mask is unknown (an
        older file) fills all of its slots.
        """
        shift = self.band_bits
        low = (1 << shift) - 1
        widths, offsets, sub = self._slots()
        w = self._mask_bytes
        leaves_only = offsets is not None and raw is None
        if len(flat) == 4 and leaves_only:  # most terms of a leaf parent: one leaf
            c = flat[0]
            return [(c & low, flat[1], flat[2], flat[3], 1 << offsets[c >> shift])]  # type: ignore[index]
        acc: dict[int, list[int]] = {}
        for j in range(len(flat) // 4):
            i = 4 * j
            c = flat[i]
            ci = c >> shift
            if leaves_only:
                part = 1 << offsets[ci]  # type: ignore[index]
            else:
                wc = widths[ci]
                if wc == 1:
                    part = 1
                elif raw is not None and wc:
                    part = int.from_bytes(raw[j * w:(j + 1) * w], "little")
                else:
                    part = -1  # unknown: the child may hold the term in any of its slots
                if offsets is not None:
                    part = (part if part >= 0 else (1 << wc) - 1) << offsets[ci]
                else:
                    part = ((1 << sub) - 1 if part < 0 else fold_mask(part, wc or 1, sub)
                            ) << (ci * sub)
            band = c & low
            a = acc.get(band)
            if a is None:
                acc[band] = [flat[i + 1], flat[i + 2], flat[i + 3], part]
            else:
                if flat[i + 1] > a[0]:
                    a[0] = flat[i + 1]
                if flat[i + 2] < a[1]:
                    a[1] = flat[i + 2]
                a[2] += flat[i + 3]
                a[3] |= part
        return [(b, *acc[b]) for b in sorted(acc)]  # type: ignore[misc]

    def self_stats(self, term: str) -> tuple[int, int, int] | None:
        """(max_tf, min_len, df) of ``term`` over the whole subtree, or None if absent."""
        g = self.groups(term)
        if not g:
            return None
        return max(g[1::4]), min(g[2::4]), sum(g[3::4])

    def weight(self) -> int:
        return self.term_count() + len(self.children)


class Branch(BranchBase):
    """A branch file of the first format (JSON, ``layers/<N>/<id>.json``) loaded in memory.

    ``terms`` maps a term to a flat list of int groups ``(child, max_tf, min_len, df)``:
    for child ``child`` the largest count of the term in one leaf below it, the shortest
    leaf length among the leaves holding it, and how many leaves below it hold it. For a
    leaf child these are exact (its count, its length, 1), so leaves are scored without
    opening them; for a branch child they bound the BM25 score of every leaf below.

    Files written with length bands (``"bands"`` in the file) keep one group per child *and
    length band*: the group's first int is ``child << band_bits | band`` (see
    :func:`length_band`). A leaf lies in exactly one band, so the bound of a child is the
    best bound over its bands, each computed with the shortest length *of that band*; with
    one group per child the shortest leaf holding a word anywhere below would set the
    length for every leaf below, which at the upper levels makes most bounds loose. Older
    files have one group per child (``band_bits`` 0, every leaf in band 0) and still work.

    A branch whose children are branches also keeps, per group, a *slot mask*: the child's
    subtree is cut into up to ``MASK_BITS`` slots (single leaves while they fit, then
    small groups of leaves) and the mask says which slots hold the term. Two query terms
    whose masks share no slot never occur in the same leaf below that child, so their
    bounds need not be added: the descent takes the best sum over one slot (see
    :func:`best_common`), much tighter than adding every term and never below a real
    score.
    """

    __slots__ = ("terms", "_flat", "_masks")

    def __init__(self, data: dict[str, Any],
                 packed: tuple[Mapping[str, int], array, Any] | None = None) -> None:
        """``data``: a branch file's JSON object (its term and mask fields are taken out).
        ``packed``: the term index, the int array and the raw masks already built (see
        :meth:`from_packed`), instead of ``data``'s ``terms`` and ``masks``."""
        try:
            if packed is None:
                raw = data.pop("terms")
                if not isinstance(raw, dict):
                    raise TypeError("terms is not an object")
                # A warm process keeps thousands of branches: all groups live in one int
                # array and each (interned, so shared) term maps to (offset << 12 | groups).
                flat = array("i")
                index: dict[str, int] = {}
                for term, groups in raw.items():
                    index[_intern(term)] = (len(flat) << _SHIFT) | (len(groups) // 4)
                    flat.extend(groups)
                blob = data.pop("masks", None)
            else:
                index, flat, masks = packed
            width = int(data.get("mask_bytes", 0))
            if packed is None:
                masks = _unpack_masks(blob, len(flat) // 4, width)
            else:
                masks = _check_masks(masks, len(flat) // 4, width)
        except (KeyError, TypeError, ValueError, OverflowError) as exc:
            raise DamagedFileError(f"branch {data.get('id', '?')}: bad field ({exc})") from exc
        self.terms = index
        self._flat = flat
        self._masks = masks
        self._meta(data, masks is not None)

    @classmethod
    def from_packed(cls, data: dict[str, Any], index: Mapping[str, int], flat: array,
                    masks: Any) -> Branch:
        """A branch from its packed parts (:mod:`ihmt.store.branch_cache`): ``data`` is the
        file's object without ``terms`` and ``masks``; ``index`` and ``flat`` as
        :attr:`terms` and the int array; ``masks`` the raw slot masks (``bytes``, or
        anything sliced and measured like them) or None."""
        if len(flat) % 4:
            raise DamagedFileError(f"branch {data.get('id', '?')}: packed groups cut short")
        return cls(data, (index, flat, masks))

    def packed(self) -> tuple[Mapping[str, int], array, Any]:
        """The term index, the int array and the raw masks (what :meth:`from_packed` takes)."""
        return self.terms, self._flat, self._masks

    @property
    def mask_data(self) -> tuple[bytes, int]:
        """The raw masks (fixed width, one per group in file order) and their width; only
        when :attr:`has_masks`."""
        assert self._masks is not None
        return self._masks, self._mask_bytes

    def mask_offset(self, term: str) -> int:
        """Byte offset in :attr:`mask_data` of the first mask of ``term``'s groups."""
        return (self.terms[term] >> _SHIFT) // 4 * self._mask_bytes

    def term_count(self) -> int:
        return len(self.terms)

    def _lookup(self, term: str) -> tuple[Sequence[int], Any] | None:
        code = self.terms.get(term)
        if code is None:
            return None
        return self._slice(code)

    def _slice(self, code: int) -> tuple[Sequence[int], Any]:
        start = code >> _SHIFT
        n = code & _MASK
        flat = self._flat[start:start + 4 * n]
        if self._masks is None:
            return flat, None
        w = self._mask_bytes
        return flat, self._masks[start // 4 * w:(start // 4 + n) * w]

    def _rows(self) -> Iterator[tuple[str, Sequence[int], Any]]:
        for term, code in self.terms.items():
            yield (term, *self._slice(code))


_SHIFT = 16
_MASK = (1 << _SHIFT) - 1
MASK_BITS = 512  # slots per subtree: every leaf of a 512-leaf subtree has its own
BAND_BITS = 5  # low bits of a group's code that hold its length band (files with bands)
BAND_BASE = 8  # leaves of at most this many tokens are band 0
BANDS_PER_DOUBLING = 3  # a band spans a factor 2 ** (1/3) (about 26 %) of length


def length_band(length: int) -> int:
    """The length band of a leaf of ``length`` tokens: 0 up to :data:`BAND_BASE` tokens,
    then one band per factor ``2 ** (1 / BANDS_PER_DOUBLING)``, the last one open-ended.

    Bands are fixed (not relative to the average length, which moves as the store grows),
    so a branch file never goes stale. Within a band BM25's length normalisation changes
    a word's weight by at most about 20 %, which is what keeps a band's bound tight.
    """
    if length <= BAND_BASE:
        return 0
    return min((1 << BAND_BITS) - 1, int(math.log2(length / BAND_BASE) * BANDS_PER_DOUBLING))
_BYTE_LOW = int.from_bytes(b"\x01" * (MASK_BITS // 8), "little")
_BITS = bytes.maketrans(b"\x00\x01", b"01")


def fold_mask(mask: int, width: int, sub: int) -> int:
    """A ``width``-slot mask folded to ``sub`` slots: slot i is set if any slot of the
    i-th block of ``ceil(width / sub)`` slots is."""
    if width <= sub:
        return mask
    block = -(-width // sub)
    k = block // 8
    if block % 8 == 0 and k & (k - 1) == 0 and width <= MASK_BITS:
        # Whole bytes per slot (the default shapes: 8 or 16 slots to one): byte tricks, in C.
        # Bit 0 of each byte becomes "any bit of the byte", then "any of the k bytes from
        # here"; every k-th byte is a slot.
        x = mask | (mask >> 4)
        x |= x >> 2
        x |= x >> 1
        s = 8
        while s < block:
            x |= x >> s
            s <<= 1
        raw = (x & _BYTE_LOW).to_bytes(MASK_BITS // 8, "little")[::k][:sub]
        return int(raw.translate(_BITS)[::-1] or b"0", 2)
    low = (1 << block) - 1
    out = 0
    for i in range(sub):
        if (mask >> (i * block)) & low:
            out |= 1 << i
    return out


def best_common(items: list[tuple[float, int]], floor: float = 0.0) -> float:
    """The largest sum of weights whose masks all share one slot.

    ``items`` are ``(weight, mask)`` of the query terms present below a child; a leaf
    below can hold only terms that meet in one slot, so this bounds its score. When even
    the plain sum is at most ``floor`` (the score the answer already needs), the plain sum
    is returned: the child cannot win either way. ``items`` may be reordered.
    """
    n = len(items)
    if n == 1:
        return items[0][0]
    common = -1
    total = 0.0
    for w, m in items:
        common &= m
        total += w
    if common or n > 16 or total <= floor:
        return total
    if n == 2:
        return max(items[0][0], items[1][0])
    items.sort(reverse=True)
    ws = [w for w, _ in items]
    ms = [m for _, m in items]
    suffix = [0.0] * (n + 1)
    for i in range(n - 1, -1, -1):
        suffix[i] = suffix[i + 1] + ws[i]
    best = 0.0

    def go(i: int, mask: int, acc: float) -> None:
        nonlocal best
        if acc + suffix[i] <= best:
            return
        if i == n:
            best = acc
            return
        m2 = mask & ms[i]
        if m2:
            go(i + 1, m2, acc + ws[i])
        go(i + 1, mask, acc)

    go(0, -1, 0.0)
    return best


def pack_masks(masks: list[int]) -> tuple[str, int]:
    """Slot masks as stored in a branch file (fixed width, little-endian, zlib, base64),
    and that width in bytes."""
    width = max(1, -(-max(masks, default=1).bit_length() // 8))
    raw = b"".join(m.to_bytes(width, "little") for m in masks)
    return base64.b64encode(zlib.compress(raw, 6)).decode("ascii"), width


def _unpack_masks(blob: Any, n_groups: int, width: int) -> bytes | None:
    if blob is None or width <= 0:
        return None
    try:
        raw = zlib.decompress(base64.b64decode(blob, validate=True))
    except (TypeError, ValueError, zlib.error) as exc:
        raise DamagedFileError(f"branch masks cannot be read ({exc})") from exc
    if len(raw) != n_groups * width:
        raise DamagedFileError(f"branch masks: {len(raw)} bytes for {n_groups} groups")
    return raw


def _check_masks(raw: bytes | None, n_groups: int, width: int) -> bytes | None:
    if raw is None or width <= 0:
        return None
    if len(raw) != n_groups * width:
        raise DamagedFileError(f"branch masks: {len(raw)} bytes for {n_groups} groups")
    return raw


def _intern(term: str) -> str:
    return sys.intern(term) if type(term) is str else term
