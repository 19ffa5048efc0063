"""The plain-file layout of one memory folder and every read and write of it.

::

    ihmt_memory/
      root.json               the trunk: counters, domains, the unconsolidated top nodes
      layer_0/<domain>/*.txt  leaves (the source of truth)
      layers/<N>/*.json       branches: per-child summaries and routing statistics
      state/catalog.jsonl     append-only journal: one line per leaf and branch written
      state/facts.jsonl       the fact timeline (see ihmt.timeline)
      quarantine/             leaves whose header could not be parsed, kept verbatim
      ihmt.config.json

Costs: a save writes its leaf, appends one catalog line and rewrites ``root.json``, whose
size depends on the number of unconsolidated nodes (at most ``branch_factor - 1`` per
layer and domain), not on the number of memories. Branch files are immutable once
written, so a long-running process caches them without ever checking them again; it only
re-reads ``root.json`` when its stat signature changes.
"""

from __future__ import annotations

import base64
import json
import logging
import math
import os
import shutil
import sys
import threading
import zlib
from array import array
from collections import OrderedDict
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..config import CONFIG_NAME, Config
from ..errors import DamagedFileError, NotFoundError, StoreError, UnreadableFileError
from ..model import Leaf
from . import files
from .leaves import format_leaf, read_leaf
from .lock import WriteLock

log = logging.getLogger(__name__)

STORE_DIRNAME = "ihmt_memory"
ROOT_VERSION = 1


def utcnow() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def resolve_store_path(path: str | os.PathLike[str]) -> Path:
    """The store folder for a user-given path: the path itself when it is (or is named like)
    a store, otherwise ``<path>/ihmt_memory``."""
    p = Path(path).expanduser()
    if p.name == STORE_DIRNAME or (p / "root.json").exists() or (p / CONFIG_NAME).exists():
        return p.absolute()
    return (p / STORE_DIRNAME).absolute()


def empty_root() -> dict[str, Any]:
    return {
        "version": ROOT_VERSION,
        "epoch": utcnow(),  # changes on rebuild: cached branches of another epoch are dropped
        "generation": 0,  # bumped on every write of the root
        "n_leaves": 0,
        "total_len": 0,
        "n_branches": 0,
        "domains": {},
        "top": [],
        "updated_at": utcnow(),
    }


def copy_root(root: dict[str, Any]) -> dict[str, Any]:
    """A copy of the trunk safe to mutate: readers in other threads keep the cached one."""
    out = dict(root)
    out["top"] = list(root["top"])
    out["domains"] = {k: dict(v) for k, v in root["domains"].items()}
    return out


class Branch:
    """A branch file loaded in memory.

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

    __slots__ = ("data", "id", "layer", "domain", "children", "terms", "_flat", "_masks",
                 "_mask_bytes", "_widths", "_layout", "n_leaves", "total_len", "band_bits")

    def __init__(self, data: dict[str, Any]) -> None:
        try:
            self.data = data
            self.id: str = data["id"]
            self.layer: int = int(data["layer"])
            self.domain: str = data["domain"]
            self.children: list[dict[str, Any]] = list(data["children"])
            raw = data.pop("terms")
            if not isinstance(raw, dict):
                raise TypeError("terms is not an object")
            # A warm process keeps thousands of branches: all groups live in one int array
            # and each (interned, so shared) term maps to (offset << 12 | groups).
            flat = array("i")
            index: dict[str, int] = {}
            for term, groups in raw.items():
                index[_intern(term)] = (len(flat) << _SHIFT) | (len(groups) // 4)
                flat.extend(groups)
            self.terms = index
            self._flat = flat
            self.band_bits = int(data.pop("bands", 0))
            if not 0 <= self.band_bits <= 8:
                raise ValueError(f"bands {self.band_bits}")
            self._mask_bytes = int(data.pop("mask_bytes", 0))
            self._widths = [int(w) for w in data.pop("slot_widths", ())]
            self._layout: tuple[list[int | None], list[int] | None, int] | None = None
            self._masks = _unpack_masks(data.pop("masks", None), len(flat) // 4,
                                        self._mask_bytes)
            if self._masks is not None and len(self._widths) != len(self.children):
                raise ValueError("slot_widths does not match the children")
            self.n_leaves: int = int(data["n_leaves"])
            self.total_len: int = int(data["total_len"])
        except (KeyError, TypeError, ValueError, OverflowError) as exc:
            raise DamagedFileError(f"branch {data.get('id', '?')}: bad field ({exc})") from exc
        if not self.children:
            raise DamagedFileError(f"branch {self.id}: no children")

    def groups(self, term: str) -> array | None:
        """Flat ``(code, max_tf, min_len, df)`` groups of ``term``, or None if absent; the
        child of a group is ``code >> band_bits``, its band ``code & (2**band_bits - 1)``."""
        code = self.terms.get(term)
        if code is None:
            return None
        start = code >> _SHIFT
        return self._flat[start : start + 4 * (code & _MASK)]

    @property
    def has_masks(self) -> bool:
        return self._masks is not None

    @property
    def mask_data(self) -> tuple[bytes, int]:
        """The raw masks (fixed width, one per group in file order) and their width; only
        when :attr:`has_masks`."""
        assert self._masks is not None
        return self._masks, self._mask_bytes

    def mask_offset(self, term: str) -> int:
        """Byte offset in :attr:`mask_data` of the first mask of ``term``'s groups."""
        return (self.terms[term] >> _SHIFT) // 4 * self._mask_bytes

    def slot_width(self) -> int:
        """How many slots this subtree's masks have (see :meth:`_term_bands`)."""
        widths, offsets, sub = self._slots()
        if offsets is not None:
            return sum(widths)  # type: ignore[arg-type]
        return sub * len(widths)

    def _slots(self) -> tuple[list[int | None], list[int] | None, int]:
        """(child widths, offsets when laid side by side else None, slots per child)."""
        if self._layout is None:
            if self._masks is not None:
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
        code = self.terms.get(term)
        if code is None:
            return {}
        return {b: (mx, mn, df, mask) for b, mx, mn, df, mask in self._term_bands(code)}

    def all_band_signatures(self) -> Iterator[tuple[str, list[tuple[int, int, int, int, int]]]]:
        """:meth:`band_signatures` of every term, as ``(term, [(band, max_tf, min_len, df,
        mask), ...])`` in band order: for building a parent."""
        for term, code in self.terms.items():
            yield term, self._term_bands(code)

    def _term_bands(self, code: int) -> list[tuple[int, int, int, int, int]]:
        """``(band, max_tf, min_len, df, slot mask)`` of one term (its index ``code``).

        The mask says which slots of this subtree hold the term in leaves of the band.
        While the children's slots fit in ``MASK_BITS`` they are laid side by side (so a
        slot is one leaf up to two levels down with the default branch factor of 16);
        beyond that each child gets ``MASK_BITS // children`` slots and its own mask is
        folded into them. Folding only merges slots, so a mask may say two terms meet where
        they do not (a looser bound), never the reverse. A child whose mask is unknown (an
        older file) fills all of its slots.
        """
        flat = self._flat
        shift = self.band_bits
        low = (1 << shift) - 1
        widths, offsets, sub = self._slots()
        raw = self._masks
        w = self._mask_bytes
        leaves_only = offsets is not None and raw is None
        first = (code >> _SHIFT) // 4
        if code & _MASK == 1 and leaves_only:  # most terms of a leaf parent: one leaf
            c = flat[4 * first]
            return [(c & low, flat[4 * first + 1], flat[4 * first + 2], flat[4 * first + 3],
                     1 << offsets[c >> shift])]  # type: ignore[index]
        acc: dict[int, list[int]] = {}
        for j in range(first, first + (code & _MASK)):
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
        return len(self.terms) + len(self.children)


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
    if block == 8 and width <= MASK_BITS:  # the default shape: byte tricks, all in C
        x = mask | (mask >> 4)
        x |= x >> 2
        x |= x >> 1
        raw = (x & _BYTE_LOW).to_bytes(MASK_BITS // 8, "little")[: sub]
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


def _writer_alive(part_name: str) -> bool:
    """Whether the process named in a temporary file's name (``.NAME.PID.THREAD.part``)
    is still running: its file is not a left-over."""
    bits = part_name.split(".")
    try:
        pid = int(bits[-3])
    except (IndexError, ValueError):
        return False
    return files.pid_alive(pid)


class Store:
    """One memory folder. Thread-safe for readers; writers go through :meth:`locked`."""

    def __init__(self, path: Path, config: Config) -> None:
        self.path = path
        self.config = config
        self.lock = WriteLock(path / "state" / "write.lock")
        self._root: dict[str, Any] | None = None
        self._root_sig: tuple[int, int, int] | None = None
        self._branches: OrderedDict[str, Branch] = OrderedDict()
        self._cache_lock = threading.Lock()  # tool calls arrive on worker threads
        self._branch_weight = 0
        self.branch_cache_limit = 1_500_000  # term entries kept in memory (LRU), ~200 MB
        self.problems: list[str] = []  # damage found and repaired, reported once
        self._domain_dirs: dict[str, Path] = {}  # domain -> its leaf folder (names checked)

    # ------------------------------------------------------------------ layout
    @property
    def root_path(self) -> Path:
        return self.path / "root.json"

    @property
    def state_dir(self) -> Path:
        return self.path / "state"

    @property
    def catalog_path(self) -> Path:
        return self.state_dir / "catalog.jsonl"

    def leaf_path(self, leaf_id: str, domain: str | None = None) -> Path:
        if domain is None:
            domain = domain_of_id(leaf_id)
        folder = self._domain_dirs.get(domain)
        if folder is None:
            # safe_name refuses names that would leave the store; only accepted ones are kept.
            folder = self.path / "layer_0" / files.safe_name(domain, "domain")
            if len(self._domain_dirs) < 10_000:
                self._domain_dirs[domain] = folder
        if not _valid_id(leaf_id):
            raise NotFoundError(f"{leaf_id!r} is not a leaf id")
        return folder / f"{leaf_id}.txt"

    def branch_path(self, node_id: str, layer: int) -> Path:
        if not _valid_id(node_id):
            raise NotFoundError(f"{node_id!r} is not a node id")
        return self.path / "layers" / str(int(layer)) / f"{node_id}.json"

    # ------------------------------------------------------------------ create/open
    @classmethod
    def create(cls, path: Path, config: Config, *, force: bool = False) -> Store:
        if path.exists() and not path.is_dir():
            raise StoreError(f"{path} exists and is not a folder")
        existed = (path / "root.json").exists() or (path / "layer_0").exists()
        try:
            files.ensure_dir(path)
            for sub in ("layer_0", "layers", "state"):
                files.ensure_dir(path / sub)
            os.chmod(path, files.DIR_MODE)
        except OSError as exc:
            raise StoreError(f"cannot create the memory folder {path}: {exc.strerror}") from exc
        store = cls(path, config)
        if not existed or force or not (path / CONFIG_NAME).exists():
            files.write_json(path / CONFIG_NAME, config.to_dict(), indent=2)
        if force and existed:
            # Discard derived state only; leaves are never deleted.
            with store.lock.hold():
                shutil.rmtree(path / "layers", ignore_errors=True)
                files.ensure_dir(path / "layers")
        if not (path / "root.json").exists() or force:
            store.write_root(empty_root())
        return store

    @classmethod
    def open(cls, path: Path) -> Store:
        if not path.is_dir():
            raise StoreError(f"no memory folder at {path}: run 'ihmt init' or pass create=True")
        return cls(path, Config.load(path))

    def check_writable(self) -> None:
        probe = self.state_dir / f".probe-{os.getpid()}"
        try:
            files.ensure_dir(self.state_dir)
            probe.write_bytes(b"")
            probe.unlink()
        except OSError as exc:
            raise StoreError(
                f"the memory folder {self.path} cannot be written ({exc.strerror}); check its "
                "permissions or choose another folder with IHMT_HOME / --path"
            ) from exc

    # ------------------------------------------------------------------ root
    def _stat_sig(self) -> tuple[int, int, int] | None:
        try:
            st = os.stat(self.root_path)
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size, st.st_ino)

    def root(self) -> dict[str, Any]:
        """The trunk, re-read only when another write changed it. Raises DamagedFileError."""
        sig = self._stat_sig()
        if self._root is not None and sig == self._root_sig:
            return self._root
        if sig is None:
            raise DamagedFileError("root.json is missing")
        try:
            data = files.read_json(self.root_path)
        except (OSError, ValueError) as exc:
            raise DamagedFileError(f"root.json cannot be parsed ({exc})") from exc
        if not isinstance(data, dict) or not isinstance(data.get("top"), list):
            raise DamagedFileError("root.json has no 'top' list")
        for key in ("n_leaves", "total_len", "n_branches", "generation"):
            if not isinstance(data.get(key), int):
                raise DamagedFileError(f"root.json has no valid {key!r}")
        if self._root is not None and data.get("epoch") != self._root.get("epoch"):
            self.clear_cache()
        self._root, self._root_sig = data, sig
        return data

    def write_root(self, data: dict[str, Any]) -> None:
        data["generation"] = int(data.get("generation", 0)) + 1
        data["updated_at"] = utcnow()
        files.write_json(self.root_path, data)
        self._root, self._root_sig = data, self._stat_sig()

    # ------------------------------------------------------------------ write intent
    @property
    def intent_path(self) -> Path:
        return self.state_dir / "intent.log"

    def begin_write(self, what: str) -> None:
        """Record, durably, that a write is under way. Called with the lock held.

        One appended line and one fsync of an existing file (no new directory entry to
        sync). If the writer dies, the next writer (or the next open) sees a 'B' line with
        no 'E' after it and repairs the store.
        """
        files.append_line(self.intent_path, f"B {os.getpid()} {what} {utcnow()}", durable=True)

    def end_write(self) -> None:
        path = self.intent_path
        files.append_line(path, "E")
        try:
            if path.stat().st_size > 65536:
                os.truncate(path, 0)
        except OSError:
            pass

    def remove_partial_files(self) -> int:
        """Delete temporary files a killed writer left behind (lock held: no live writer
        owns one). Their content was never acknowledged."""
        n = 0
        for sub in ("layer_0", "layers", "state", ""):
            base = self.path / sub if sub else self.path
            pattern = "*/.*.part" if sub in ("layer_0", "layers") else ".*.part"
            for p in base.glob(pattern):
                if _writer_alive(p.name):
                    continue  # a live process (a reader's derived file, say) is writing it
                try:
                    p.unlink()
                    n += 1
                except OSError:
                    pass
        return n

    def interrupted(self) -> bool:
        try:
            with open(self.intent_path, "rb") as fh:
                fh.seek(0, os.SEEK_END)
                size = fh.tell()
                fh.seek(max(0, size - 256))
                tail = fh.read().decode("utf-8", "replace").strip().splitlines()
        except OSError:
            return False
        return bool(tail) and tail[-1].startswith("B ")

    # ------------------------------------------------------------------ leaves
    def write_leaf(self, leaf: Leaf, *, durable: bool = True, new: bool = True) -> Path:
        """Write a leaf; ``new=False`` (a header update of an existing leaf) syncs the data
        but not the folder entry."""
        path = self.leaf_path(leaf.id, leaf.domain)
        files.atomic_write(path, format_leaf(leaf), durable=durable, sync_dir=new)
        return path

    def read_leaf(self, leaf_id: str, domain: str | None = None) -> Leaf:
        path = self.leaf_path(leaf_id, domain)
        if not path.exists():
            raise NotFoundError(f"no memory with id {leaf_id}")
        try:
            return read_leaf(path)
        except UnreadableFileError as exc:
            log.warning("%s", exc)
            self.problems.append(str(exc))
            raise
        except DamagedFileError as exc:
            self.quarantine(path, str(exc))
            raise

    def leaf_exists(self, leaf_id: str, domain: str | None = None) -> bool:
        try:
            return self.leaf_path(leaf_id, domain).exists()
        except (NotFoundError, ValueError):
            return False

    def iter_leaf_paths(self) -> Iterator[Path]:
        base = self.path / "layer_0"
        if not base.is_dir():
            return
        for dom in sorted(base.iterdir()):
            if dom.is_dir() and not dom.is_symlink():
                for p in sorted(dom.glob("L-*.txt")):
                    if not p.is_symlink():
                        yield p

    def quarantine(self, path: Path, reason: str) -> Path:
        """Move a leaf whose header is broken out of the tree, keeping its bytes."""
        qdir = files.ensure_dir(self.path / "quarantine")
        target = qdir / path.name
        n = 1
        while target.exists():
            target = qdir / f"{path.stem}.{n}{path.suffix}"
            n += 1
        try:
            os.replace(path, target)
        except OSError as exc:
            log.error("could not quarantine %s: %s", path, exc)
            return path
        files.append_line(qdir / "REASONS.txt", f"{utcnow()} {path.name}: {reason}")
        msg = f"leaf {path.name} has a damaged header and was moved to quarantine/ ({reason})"
        log.warning(msg)
        self.problems.append(msg)
        return target

    # ------------------------------------------------------------------ branches
    def write_branch(self, data: dict[str, Any]) -> Branch:
        files.write_json(self.branch_path(data["id"], int(data["layer"])), data)
        branch = Branch(data)
        self._cache_branch(branch)
        return branch

    def branch(self, node_id: str, layer: int) -> tuple[Branch, bool]:
        """The branch and whether it had to be read from disk (False: served from cache)."""
        with self._cache_lock:
            cached = self._branches.get(node_id)
            if cached is not None:
                self._branches.move_to_end(node_id)
                return cached, False
        path = self.branch_path(node_id, layer)
        try:
            data = files.read_json(path)
        except FileNotFoundError as exc:
            raise DamagedFileError(f"branch {node_id} is missing") from exc
        except (OSError, ValueError) as exc:
            raise DamagedFileError(f"branch {node_id} cannot be parsed ({exc})") from exc
        if not isinstance(data, dict):
            raise DamagedFileError(f"branch {node_id} is not a JSON object")
        branch = Branch(data)
        self._cache_branch(branch)
        return branch, True

    def _cache_branch(self, branch: Branch) -> None:
        with self._cache_lock:
            old = self._branches.pop(branch.id, None)
            if old is not None:
                self._branch_weight -= old.weight()
            self._branches[branch.id] = branch
            self._branch_weight += branch.weight()
            while self._branch_weight > self.branch_cache_limit and len(self._branches) > 1:
                _, dropped = self._branches.popitem(last=False)
                self._branch_weight -= dropped.weight()

    def clear_cache(self) -> None:
        with self._cache_lock:
            self._branches.clear()
            self._branch_weight = 0
        self._root = None
        self._root_sig = None

    def iter_branch_paths(self) -> Iterator[Path]:
        base = self.path / "layers"
        if not base.is_dir():
            return
        for layer_dir in sorted(base.iterdir(), key=lambda p: (len(p.name), p.name)):
            if layer_dir.is_dir() and layer_dir.name.isdigit():
                yield from sorted(layer_dir.glob("N*.json"))

    # ------------------------------------------------------------------ catalog
    def catalog_append(self, entries: list[dict[str, Any]]) -> None:
        if not entries:
            return
        text = "\n".join(json.dumps(e, ensure_ascii=False) for e in entries)
        files.append_line(self.catalog_path, text)

    def catalog(self) -> dict[str, dict[str, Any]]:
        """id -> latest catalog entry. Reads the whole journal: for tools, never for search."""
        out: dict[str, dict[str, Any]] = {}
        try:
            fh = open(self.catalog_path, encoding="utf-8", errors="replace")
        except OSError:
            return out
        bad = 0
        with fh:
            for line in fh:
                try:
                    e = json.loads(line)
                    out.setdefault(e["id"], {}).update(e)
                except (ValueError, KeyError, TypeError):
                    bad += 1
        if bad:
            log.warning("catalog: skipped %d damaged line(s); 'ihmt rebuild' rewrites it", bad)
        return out


def _intern(term: str) -> str:
    return sys.intern(term) if type(term) is str else term


def domain_of_id(node_id: str) -> str:
    """Ids look like ``L-<domain>-<hash>`` / ``N<layer>-<domain>-<hash>``."""
    parts = node_id.split("-")
    if len(parts) < 3:
        raise NotFoundError(f"{node_id!r} is not an IHMT id")
    return "-".join(parts[1:-1])


def _valid_id(node_id: str) -> bool:
    return (
        isinstance(node_id, str)
        and 0 < len(node_id) < 200
        and "/" not in node_id
        and "\\" not in node_id
        and ".." not in node_id
        and "\x00" not in node_id
        and node_id[0] in "LN"
    )
