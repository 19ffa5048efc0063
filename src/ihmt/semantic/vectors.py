"""The vector files: derived data beside the leaves, one append-only file per domain.

``state/vectors/<domain>.vec`` starts with a 24-byte header (magic ``IHMTVEC2``, the
dimension, the record size, a random generation number that a rewrite changes) followed by
fixed-size records::

    leaf id (80 bytes, ASCII, NUL-padded) | part (u8) | parts (u8) | flag (u8) | zero byte
    | 384 x float16 | CRC-32 of all before it (4 bytes)

(flag 1: a block converted from the first layout; flag 2: a tombstone, see
:mod:`ihmt.semantic.erase`.)

A memory is one block of ``parts + 1`` consecutive records: part 0 is the whole text, parts
1.. its units (:mod:`ihmt.semantic.units`); a memory that is one unit has part 0 alone.
A save appends the blocks of its new leaves with one ``write`` under the store's write
lock: the file is never rewritten by a save (a file of the first layout, ``IHMTVEC1``, one
vector per memory, is read as it is and converted once by the first save that appends to
it). Readers hold every domain's vectors in memory (int8 with a scale per row), read a file once, and
afterwards only what was appended (an ``(inode, size)`` signature says when; a new inode
means ``ihmt rebuild --embeddings`` replaced it). A record whose checksum fails is skipped
and counted; a torn tail left by a crash is cut off by the next writer before it appends.

Scoring (:meth:`VectorStore.score`): a query is its whole vector ``q`` plus the vectors of
its clauses ``c1..ck`` (none for a one-clause query, which then stands for its only
clause). A memory's similarity is ``(W_WHOLE x q.whole + (1 - W_WHOLE) x mean_j max_u
cj.u)``: how close the two whole texts are, and how well some unit of the memory answers
each clause of the query. Candidates are the memories owning the rows most similar to any
query vector, among all rows of a small domain or among the rows the routing tree
(:mod:`ihmt.semantic.tree`) hands out for a large one.

Nothing here is needed to open, save to or search a store: when a file is missing or
damaged, search falls back to the lexical ranking and ``ihmt doctor`` says so.
"""

from __future__ import annotations

import logging
import os
import struct
import threading
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..store import files
from .loader import DIM

log = logging.getLogger(__name__)

MAGIC = b"IHMTVEC2"
ID_BYTES = 80
VEC_BYTES = DIM * 2
META = 4  # part, parts, two zero bytes
REC = ID_BYTES + META + VEC_BYTES + 4
HEAD_FMT = "<IIQ"
HEADER_LEN = len(MAGIC) + struct.calcsize(HEAD_FMT)
OLD_MAGIC = b"IHMTVEC1"  # first layout: one vector per memory, no part bytes
OLD_REC = ID_BYTES + VEC_BYTES + 4
OLD_HEADER = OLD_MAGIC + struct.pack("<II", DIM, OLD_REC)
SUFFIX = ".vec"
W_WHOLE = 0.5  # weight of the whole-text similarity (the rest: clauses answered by units)
ROUTE_MIN = 32768  # rows in a domain from which search goes through the routing tree
ROWS_PER_VECTOR = 4  # candidate rows kept per query vector per wanted memory
READ_CHUNK = 16384  # records read and converted at a time
FORGOTTEN = 2  # third meta byte of a tombstone record: the memory was forgotten


def vectors_dir(state_dir: Path) -> Path:
    return Path(state_dir) / "vectors"


def header(gen: int) -> bytes:
    return MAGIC + struct.pack(HEAD_FMT, DIM, REC, gen)


def new_gen() -> int:
    return int.from_bytes(os.urandom(8), "little") or 1


def read_header(raw: bytes) -> tuple[int, int] | None:
    """(record size, generation) of a header of either layout; None when damaged."""
    if raw[:len(MAGIC)] == MAGIC and len(raw) >= HEADER_LEN:
        dim, rec, gen = struct.unpack(HEAD_FMT, raw[len(MAGIC):HEADER_LEN])
        return (rec, gen) if (dim, rec) == (DIM, REC) else None
    if raw[:len(OLD_HEADER)] == OLD_HEADER:
        return OLD_REC, 0
    return None


def encode_blocks(ids: list[str], blocks: list[Any], *, whole_only: bool = False,
                  prefix: bytes = b"") -> bytearray:
    """Records for ``ids`` and their blocks (float arrays ``(1 + units, DIM)``, the
    whole-text vector first), after ``prefix`` (a file header). ``whole_only`` flags blocks
    converted from the first layout, whose units were never computed (``rebuild
    --embeddings`` computes them)."""
    import numpy as np

    out = bytearray(prefix)  # grown in place: records joined at the end are held twice
    for leaf_id, block in zip(ids, blocks):
        raw_id = leaf_id.encode("ascii")
        if len(raw_id) > ID_BYTES:
            raise ValueError(f"leaf id {leaf_id!r} is longer than {ID_BYTES} bytes")
        half = np.asarray(block, dtype=np.float32).reshape(-1, DIM).astype("<f2")
        n = min(len(half), 256)
        for part in range(n):
            body = (raw_id.ljust(ID_BYTES, b"\0") + bytes((part, n - 1, int(whole_only), 0))
                    + half[part].tobytes())
            out += body
            out += struct.pack("<I", zlib.crc32(body))
    return out


@dataclass
class DomainVectors:
    """The vectors of one domain held in memory, grown as the file grows."""

    mat: Any = None  # int8 (capacity, DIM); rows [:n] are the file's records in order
    scale: Any = None  # float32 per row: a row's vector is ``mat[row] * scale[row]``
    n: int = 0
    owner: Any = None  # int32 per row: index into ``leaves``, -1 for a row not to use
    unit: Any = None  # bool per row: the row is a unit (or the only row) of its memory
    leaves: list[str] = field(default_factory=list)
    pos: dict[str, int] = field(default_factory=dict)  # leaf id -> index into leaves
    start: list[int] = field(default_factory=list)  # leaf index -> row of its part 0
    span: list[int] = field(default_factory=list)  # leaf index -> rows in its block
    rec: int = REC
    gen: int = 0
    offset: int = 0  # bytes of the file consumed (header + whole records)
    sig: tuple[int, int] | None = None  # (inode, size) when everything was consumed
    ino: int = -1
    damaged: int = 0  # records skipped for a bad checksum
    bad_header: bool = False
    pending: dict[str, Any] = field(default_factory=dict)  # block being read: leaf -> rows
    router: Any = None  # the routing tree's reader (:class:`ihmt.semantic.tree.Tree`)
    _arr: Any = None
    whole_only: set[str] = field(default_factory=set)  # memories without unit vectors yet

    def grow(self, need: int) -> None:
        import numpy as np

        if self.mat is not None and self.mat.shape[0] >= need:
            return
        cap = max(need, 2 * (0 if self.mat is None else self.mat.shape[0]), 256)
        mat = np.zeros((cap, DIM), dtype=np.int8)
        scale = np.zeros(cap, dtype=np.float32)
        owner = np.full(cap, -1, dtype=np.int32)
        unit = np.zeros(cap, dtype=bool)
        if self.mat is not None:
            mat[:self.n] = self.mat[:self.n]
            scale[:self.n] = self.scale[:self.n]
            owner[:self.n] = self.owner[:self.n]
            unit[:self.n] = self.unit[:self.n]
        self.mat, self.scale, self.owner, self.unit = mat, scale, owner, unit

    def put(self, at: int, vecs: Any) -> None:
        """Store float vectors from row ``at`` on, as int8 with one scale per row: a
        quarter of float32's memory, and int8 converts to float32 several times faster
        than float16 when rows are scanned (the cosine moves by about 0.003)."""
        import numpy as np

        v = np.asarray(vecs, dtype=np.float32)
        sc = np.maximum(np.abs(v).max(axis=1), 1e-12) / 127.0
        self.mat[at:at + len(v)] = np.rint(v / sc[:, None]).astype(np.int8)
        self.scale[at:at + len(v)] = sc

    def vectors(self, rows: Any) -> Any:
        """float32 vectors of ``rows``."""
        import numpy as np

        return self.mat[rows].astype(np.float32) * self.scale[rows, None]

    def sims(self, rows: Any, qmat: Any) -> Any:
        """Cosine of ``rows`` (None: all) with every query vector: (rows, query vectors)."""
        import numpy as np

        if rows is None:  # every row, in slices: never a float32 copy of the whole domain
            out = np.empty((self.n, qmat.shape[0]), dtype=np.float32)
            for a in range(0, self.n, 16384):
                b = min(self.n, a + 16384)
                out[a:b] = (self.mat[a:b].astype(np.float32) @ qmat.T) * self.scale[a:b, None]
            return out
        return (self.mat[rows].astype(np.float32) @ qmat.T) * self.scale[rows, None]

    def rows(self, leaf_index: int) -> tuple[int, int]:
        return self.start[leaf_index], self.span[leaf_index]

    def arrays(self) -> tuple[Any, Any]:
        """``start`` and ``span`` as arrays (rebuilt only after they changed)."""
        import numpy as np

        if self._arr is None or len(self._arr[0]) != len(self.start):
            self._arr = (np.asarray(self.start, dtype=np.int64),
                         np.asarray(self.span, dtype=np.int64))
        return self._arr

    def scores(self, cand: Any, qmat: Any) -> Any:
        """Similarity of the leaves ``cand`` (indices into ``leaves``) to the query
        matrix (whole query first, then its clauses)."""
        import numpy as np

        cand = np.asarray(cand, dtype=np.int64)
        if not len(cand):
            return np.zeros(0, dtype=np.float32)
        start, span = self.arrays()
        starts = start[cand]
        # A block cut short by a crash may claim rows a later writer reused: clip to the
        # rows read, and use a unit only while it still belongs to the memory.
        spans = np.maximum(1, np.minimum(span[cand], self.n - starts))
        bounds = np.cumsum(spans) - spans
        rows = np.arange(int(spans.sum())) - np.repeat(bounds, spans) + np.repeat(starts, spans)
        sims = self.sims(rows, qmat)  # (rows, 1 + clauses)
        whole = sims[bounds, 0]
        usable = self.unit[rows] & (self.owner[rows] == np.repeat(cand, spans))
        clause = sims[:, 1:] if qmat.shape[0] > 1 else sims[:, :1]
        clause = np.where(usable[:, None], clause, -2.0)
        best = np.maximum.reduceat(clause, bounds, axis=0)  # (cand, clauses)
        best = np.where(best < -1.5, whole[:, None], best)  # a block with no usable unit
        return W_WHOLE * whole + (1.0 - W_WHOLE) * best.mean(axis=1)


class VectorStore:
    """All vector files of one store, as this process sees them."""

    def __init__(self, state_dir: Path) -> None:
        self.dir = vectors_dir(state_dir)
        self.domains: dict[str, DomainVectors] = {}
        self._lock = threading.RLock()
        self.scanned = 0  # vectors (rows and centroids) scored by the last :meth:`top`
        self.route = True  # False: always scan every row (the baseline of bench.routing)

    # ------------------------------------------------------------------ reading
    def refresh(self) -> None:
        """Catch up with the files: read only what was appended since the last call."""
        with self._lock:
            try:
                names = [p for p in os.listdir(self.dir) if p.endswith(SUFFIX)]
            except OSError:
                names = []
            present = {n[: -len(SUFFIX)] for n in names}
            for gone in set(self.domains) - present:
                del self.domains[gone]
            for dom in present:
                self._refresh_domain(dom)

    def _refresh_domain(self, dom: str) -> None:

        path = self.dir / f"{dom}{SUFFIX}"
        try:
            st = path.stat()
        except OSError:
            self.domains.pop(dom, None)
            return
        dv = self.domains.get(dom)
        sig = (st.st_ino, st.st_size)
        if dv is not None and dv.sig == sig:
            return
        if dv is None or dv.ino != st.st_ino or st.st_size < dv.offset or dv.bad_header:
            dv = DomainVectors(ino=st.st_ino)
            self.domains[dom] = dv
        try:
            with open(path, "rb") as fh:
                if dv.offset == 0:
                    head = read_header(fh.read(HEADER_LEN))
                    if head is None:
                        dv.bad_header = True
                        dv.sig = sig
                        return
                    dv.rec, dv.gen = head
                    dv.offset = HEADER_LEN if dv.rec == REC else len(OLD_HEADER)
                fh.seek(dv.offset)
                total = (st.st_size - dv.offset) // dv.rec
                dv.grow(dv.n + total)
                done = 0
                while done < total:
                    # In slices: a 50,000-memory file is 230 MB, and converting it whole
                    # took 1.7 GB at its peak.
                    k = min(READ_CHUNK, total - done)
                    data = fh.read(k * dv.rec)
                    if len(data) < k * dv.rec:
                        return
                    last = done + k == total
                    used = self._consume(dv, data, k, last)
                    done += used
                    if used < k:
                        break
        except OSError:
            return
        dv.sig = sig if done == total else None

    def _consume(self, dv: DomainVectors, data: bytes, n: int, last: bool) -> int:
        """Place ``n`` records read from the file; returns how many were consumed (a last
        record whose checksum fails may be a write still under way: left for later)."""
        import numpy as np

        rec = dv.rec
        raw = np.frombuffer(data, dtype=np.uint8).reshape(n, rec)
        crc_ok = np.fromiter((zlib.crc32(data[i * rec:(i + 1) * rec - 4]) for i in range(n)),
                             dtype=np.uint32, count=n) == raw[:, -4:].copy().view("<u4")[:, 0]
        if last and not crc_ok[-1]:
            n -= 1
            crc_ok, raw = crc_ok[:n], raw[:n]
        if not n:
            return 0
        vec_at = ID_BYTES + (META if rec == REC else 0)
        base = dv.n
        dv.grow(base + n)
        dv.put(base, raw[:, vec_at:vec_at + VEC_BYTES].copy().view("<f2").astype(np.float32))
        for i in range(n):
            row = base + i
            if not crc_ok[i]:
                dv.damaged += 1
                continue
            try:
                leaf_id = bytes(raw[i, :ID_BYTES]).rstrip(b"\0").decode("ascii")
            except UnicodeDecodeError:
                dv.damaged += 1
                continue
            part, parts, flag = (int(raw[i, ID_BYTES]), int(raw[i, ID_BYTES + 1]),
                                 int(raw[i, ID_BYTES + 2])) if rec == REC else (0, 0, 1)
            if not leaf_id:
                continue  # a record a forget erased
            if flag == FORGOTTEN:
                self._drop(dv, leaf_id)
                continue
            self._place(dv, leaf_id, row, part, parts)
            if part == 0:
                (dv.whole_only.add if flag else dv.whole_only.discard)(leaf_id)
        dv.n = base + n
        dv.offset += n * rec
        return n

    @staticmethod
    def _place(dv: DomainVectors, leaf_id: str, row: int, part: int, parts: int) -> None:
        """Attach one record to its memory: a block is usable once its part 0 is read;
        units read later join it (a damaged unit is simply absent)."""
        if part == 0:
            j = dv.pos.get(leaf_id)
            if j is None:
                j = len(dv.leaves)
                dv.leaves.append(leaf_id)
                dv.start.append(row)
                dv.span.append(parts + 1)
                dv.pos[leaf_id] = j
            else:  # the same memory appended again (two racing writers): the newest block
                old, k = dv.start[j], dv.span[j]
                dv.owner[old:old + k] = -1
                dv.start[j], dv.span[j] = row, parts + 1
                dv._arr = None
            dv.owner[row] = j
            dv.unit[row] = parts == 0
            dv.pending[leaf_id] = (row, parts)
            if parts == 0:
                dv.pending.pop(leaf_id, None)
            return
        got = dv.pending.get(leaf_id)
        if got is None or row != got[0] + part:
            return  # a unit whose part 0 was damaged: the memory has no vector
        dv.owner[row] = dv.pos[leaf_id]
        dv.unit[row] = True
        if part >= got[1]:
            dv.pending.pop(leaf_id, None)

    @staticmethod
    def _drop(dv: DomainVectors, leaf_id: str) -> None:
        """A forget's tombstone: the memory's rows are never used again."""
        j = dv.pos.pop(leaf_id, None)
        dv.pending.pop(leaf_id, None)
        dv.whole_only.discard(leaf_id)
        if j is not None:
            dv.owner[dv.start[j]:dv.start[j] + dv.span[j]] = -1
            dv._arr = None

    def count(self) -> int:
        """Leaves with a vector (a leaf two racing writers both appended counts once)."""
        return sum(len(d.pos) for d in self.domains.values())

    def rows(self) -> int:
        return sum(d.n for d in self.domains.values())

    def has(self, leaf_id: str) -> bool:
        return any(leaf_id in d.pos for d in self.domains.values())

    def damaged(self) -> dict[str, int]:
        """Domains whose file has a bad header (-1) or skipped records (their count)."""
        out = {}
        for dom, d in self.domains.items():
            if d.bad_header:
                out[dom] = -1
            elif d.damaged:
                out[dom] = d.damaged
        return out

    def outdated_layout(self) -> dict[str, int]:
        """Per domain, memories whose vectors have the first layout (one vector per
        memory, no units): a first-layout file, or blocks converted from one."""
        return {dom: len(d.whole_only) for dom, d in sorted(self.domains.items())
                if not d.bad_header and d.whole_only}

    def similarity(self, leaf_ids: list[str], qmat: Any) -> dict[str, float]:
        """The similarity of the given leaves that have a vector."""
        out: dict[str, float] = {}
        with self._lock:
            for d in self.domains.values():
                idx = [d.pos[i] for i in leaf_ids if i in d.pos]
                if idx:
                    for j, s in zip(idx, d.scores(idx, qmat).tolist()):
                        out[d.leaves[j]] = float(s)
        return out

    def top(self, qmat: Any, n: int, floor: float) -> list[tuple[str, float]]:
        """The ``n`` most similar leaves (similarity at least ``floor``) for the query
        matrix (the whole query's vector first, then its clauses')."""
        import numpy as np

        best: list[tuple[str, float]] = []
        self.scanned = 0
        with self._lock:
            for dom, d in self.domains.items():
                if not d.leaves:
                    continue
                rows = self._candidate_rows(dom, d, qmat)
                sims = d.sims(rows, qmat)
                if rows is None:
                    rows = np.arange(d.n)
                self.scanned += len(rows)
                keep = min(len(rows), n * ROWS_PER_VECTOR)
                if not keep:
                    continue
                pick = set()
                for j in range(sims.shape[1]):
                    col = sims[:, j]
                    idx = np.argpartition(-col, keep - 1)[:keep] if keep < len(col) \
                        else np.arange(len(col))
                    pick.update(rows[idx].tolist())
                picked = np.fromiter(pick, dtype=np.int64)
                owners = np.unique(d.owner[picked])
                owners = owners[owners >= 0]
                scores = d.scores(owners, qmat)
                best.extend((d.leaves[int(j)], float(s)) for j, s in zip(owners, scores)
                            if s >= floor)
        best.sort(key=lambda x: -x[1])
        return _unique(best)[:n]

    def _candidate_rows(self, dom: str, d: DomainVectors, qmat: Any) -> Any:
        """Rows worth scoring: None (all of them) for a small domain or when its routing
        tree is missing or damaged; else the tree's rows plus any not yet indexed."""
        import numpy as np

        if d.n < ROUTE_MIN or not self.route:
            return None
        from .tree import Tree

        if d.router is None:
            d.router = Tree(self.dir, dom)
        try:
            got = d.router.search(qmat, d.gen)
        except Exception as exc:  # noqa: BLE001 - a derived file never stops a search
            log.warning("routing tree of %s unusable (%s): scanning every vector", dom, exc)
            got = None
        if got is None:
            return None
        rows, indexed = got
        self.scanned += d.router.centroids_scored
        rows = rows[rows < d.n]
        if indexed < d.n:
            rows = np.concatenate([rows, np.arange(indexed, d.n)])
        return np.unique(rows)

    def block_rows(self, dom: str, rows: Any, exact: bool = False) -> Any:
        """float32 vectors of the given rows of one domain (from memory when this process
        has read them, else, or with ``exact``, the float16 values of the file)."""
        import numpy as np

        rows = np.asarray(rows, dtype=np.int64)
        d = self.domains.get(dom)
        if (not exact and d is not None and d.rec == REC and len(rows)
                and int(rows.max()) < d.n):
            return d.vectors(rows)
        out = np.zeros((len(rows), DIM), dtype=np.float32)
        path = self.dir / f"{dom}{SUFFIX}"
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            return out
        try:
            at = ID_BYTES + META
            for i, r in enumerate(rows.tolist()):
                raw = os.pread(fd, REC, HEADER_LEN + r * REC)
                if len(raw) == REC:
                    out[i] = np.frombuffer(raw[at:at + VEC_BYTES], dtype="<f2")
        finally:
            os.close(fd)
        return out

    # ------------------------------------------------------------------ writing
    def append(self, by_domain: dict[str, tuple[list[str], list[Any]]]
               ) -> dict[str, tuple[int, int, int]]:
        """Append blocks (caller holds the store's write lock). A torn tail a crashed
        writer left is cut off first, so every record stays aligned. Returns, per domain,
        (generation, first row appended, rows in the file afterwards)."""
        files.ensure_dir(self.dir)
        out: dict[str, tuple[int, int, int]] = {}
        for dom, (ids, blocks) in by_domain.items():
            if not ids:
                continue
            path = self.dir / f"{files.safe_name(dom, 'domain')}{SUFFIX}"
            payload = encode_blocks(ids, blocks)
            fd = os.open(path, os.O_RDWR | os.O_CREAT, files.FILE_MODE)
            try:
                size = os.fstat(fd).st_size
                head = read_header(os.pread(fd, HEADER_LEN, 0)) if size else None
                if head is None or head[0] != REC:
                    os.close(fd)
                    fd = -1
                    out[dom] = self._start_file(path, size, head, payload)
                    continue
                gen = head[1]
                extra = (size - HEADER_LEN) % REC
                if extra:
                    os.ftruncate(fd, size - extra)
                    size -= extra
                os.lseek(fd, 0, os.SEEK_END)
                files.write_all(fd, payload)
                first = (size - HEADER_LEN) // REC
                out[dom] = (gen, first, first + len(payload) // REC)
            finally:
                if fd >= 0:
                    os.close(fd)
        return out

    def _start_file(self, path: Path, size: int, head: tuple[int, int] | None,
                    payload: bytes | bytearray) -> tuple[int, int, int]:
        """A new file, or the one-time conversion of a first-layout file (its vectors are
        kept as one-part blocks); a damaged header cannot be trusted, so what follows it is
        dropped (``ihmt doctor`` then reports the memories without a vector)."""
        kept = b""
        if head is not None and head[0] == OLD_REC:
            data = path.read_bytes()[len(OLD_HEADER):]
            ids, vecs = [], []
            import numpy as np

            for i in range(len(data) // OLD_REC):
                r = data[i * OLD_REC:(i + 1) * OLD_REC]
                if zlib.crc32(r[:-4]) != struct.unpack("<I", r[-4:])[0]:
                    continue
                try:
                    ids.append(r[:ID_BYTES].rstrip(b"\0").decode("ascii"))
                except UnicodeDecodeError:
                    continue
                vecs.append(np.frombuffer(r[ID_BYTES:ID_BYTES + VEC_BYTES], dtype="<f2")
                            .astype(np.float32)[None, :])
            kept = encode_blocks(ids, vecs, whole_only=True)
            log.info("converted %s to the layout with units (%d vectors kept)", path, len(ids))
        elif size:
            log.warning("vector file %s has a damaged header: starting it anew", path)
        gen = new_gen()
        files.atomic_write(path, header(gen) + kept + payload)
        first = len(kept) // REC
        return gen, first, first + len(payload) // REC

    def rewrite(self, dom: str, ids: list[str], blocks: list[Any]) -> int:
        """Replace one domain's file whole (``rebuild --embeddings``; lock held). Returns
        the new generation."""
        files.ensure_dir(self.dir)
        path = self.dir / f"{files.safe_name(dom, 'domain')}{SUFFIX}"
        gen = new_gen()
        files.atomic_write(path, encode_blocks(ids, blocks, prefix=header(gen)))
        return gen

    def remove_stale(self, keep: set[str]) -> None:
        from .tree import remove_tree

        for p in self.dir.glob(f"*{SUFFIX}"):
            if p.stem not in keep:
                p.unlink(missing_ok=True)
                remove_tree(self.dir, p.stem)


def _unique(pairs: list[tuple[str, float]]) -> list[tuple[str, float]]:
    seen: set[str] = set()
    out = []
    for leaf_id, s in pairs:
        if leaf_id not in seen:
            seen.add(leaf_id)
            out.append((leaf_id, s))
    return out

