"""The vector files: derived data beside the leaves, one append-only file per domain.

``state/vectors/<domain>.vec`` starts with a 16-byte header (magic ``IHMTVEC1``, the
dimension, the record size) followed by fixed-size records::

    leaf id (80 bytes, ASCII, NUL-padded) | 384 x float16 | CRC-32 of the two (4 bytes)

A save appends the records of its new leaves with one ``write`` under the store's write
lock: the file is never rewritten by a save. Readers keep the vectors of every domain in
memory, read the file once, and afterwards only read what was appended since (an
``(inode, size)`` signature says when; a new inode means ``ihmt rebuild --embeddings``
replaced it). A record whose checksum fails is skipped and counted; a torn tail left by a
crash is cut off by the next writer before it appends. Nothing here is needed to open,
save to or search a store: when a file is missing or damaged, search falls back to the
lexical ranking and ``ihmt doctor`` says so.
"""

from __future__ import annotations

import os
import struct
import threading
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..store import files
from .encoder import DIM

MAGIC = b"IHMTVEC1"
ID_BYTES = 80
VEC_BYTES = DIM * 2
REC = ID_BYTES + VEC_BYTES + 4
HEADER = MAGIC + struct.pack("<II", DIM, REC)
SUFFIX = ".vec"
IVF_MIN = 20_000  # from this many vectors in a domain, search routes through centroids
NPROBE = 16  # clusters scanned per query (of about sqrt(n))


def vectors_dir(state_dir: Path) -> Path:
    return Path(state_dir) / "vectors"


def encode_records(ids: list[str], vecs: Any) -> bytes:
    """Records for ``ids`` (ASCII, at most 80 bytes) and their float32 unit vectors."""
    import numpy as np

    half = np.asarray(vecs, dtype=np.float32).astype("<f2")
    parts = []
    for leaf_id, v in zip(ids, half):
        raw_id = leaf_id.encode("ascii")
        if len(raw_id) > ID_BYTES:
            raise ValueError(f"leaf id {leaf_id!r} is longer than {ID_BYTES} bytes")
        body = raw_id.ljust(ID_BYTES, b"\0") + v.tobytes()
        parts.append(body + struct.pack("<I", zlib.crc32(body)))
    return b"".join(parts)


@dataclass
class DomainVectors:
    """The vectors of one domain held in memory, grown as the file grows."""

    ids: list[str] = field(default_factory=list)
    mat: Any = None  # float32 (capacity, DIM); rows [:len(ids)] are valid
    offset: int = 0  # bytes of the file consumed (header + whole records)
    sig: tuple[int, int] | None = None  # (inode, size) when everything was consumed
    ino: int = -1
    damaged: int = 0  # records skipped for a bad checksum
    bad_header: bool = False
    pos: dict[str, int] = field(default_factory=dict)  # leaf id -> row (the last one)
    ivf: Any = None  # _Routing once the domain is large

    def add(self, ids: list[str], vecs: Any) -> None:
        import numpy as np

        n = len(self.ids)
        need = n + len(ids)
        if self.mat is None or self.mat.shape[0] < need:
            cap = max(need, 2 * (0 if self.mat is None else self.mat.shape[0]), 256)
            grown = np.zeros((cap, DIM), dtype=np.float32)
            if self.mat is not None:
                grown[:n] = self.mat[:n]
            self.mat = grown
        self.mat[n:need] = vecs
        self.ids.extend(ids)
        for j, leaf_id in enumerate(ids, n):
            self.pos[leaf_id] = j

    def view(self) -> Any:
        return self.mat[:len(self.ids)] if self.mat is not None else None

    def candidates(self, qvec: Any) -> Any:
        """Rows worth scoring for ``qvec``: all of them in a small domain, else the rows of
        the :data:`NPROBE` clusters whose centroids are closest (None means all)."""
        n = len(self.ids)
        if n < IVF_MIN:
            return None
        if self.ivf is None or n > 2 * self.ivf.built_for:
            self.ivf = _Routing(self.view())
        self.ivf.assign(self.view())
        return self.ivf.rows(qvec)


class _Routing:
    """Inverted lists over k-means centroids (k about sqrt(n)): a query scores the k
    centroids and then only the rows of the closest few clusters, so its cost grows with
    about the square root of the domain's size instead of linearly. Rebuilt in memory when
    the domain has doubled; vectors appended since are assigned to their nearest centroid.
    Derived from the vector file alone, so nothing more is stored."""

    def __init__(self, mat: Any, iters: int = 6, sample: int = 20_000) -> None:
        import numpy as np

        n = mat.shape[0]
        k = max(2, int(n ** 0.5))
        rng = np.random.default_rng(n)
        pick = rng.choice(n, size=min(n, sample), replace=False)
        data = mat[pick]
        cent = data[rng.choice(len(data), size=k, replace=False)].copy()
        for _ in range(iters):
            near = np.argmax(data @ cent.T, axis=1)
            sums = np.zeros_like(cent)
            np.add.at(sums, near, data)
            counts = np.bincount(near, minlength=k)
            filled = counts > 0
            cent[filled] = sums[filled] / counts[filled, None]
            cent /= np.maximum(np.linalg.norm(cent, axis=1, keepdims=True), 1e-12)
        self.cent = cent
        self.lists: list[list[int]] = [[] for _ in range(k)]
        self.done = 0
        self.built_for = n

    def assign(self, mat: Any, chunk: int = 8192) -> None:
        import numpy as np

        n = mat.shape[0]
        while self.done < n:
            end = min(n, self.done + chunk)
            near = np.argmax(mat[self.done:end] @ self.cent.T, axis=1)
            for row, c in enumerate(near.tolist(), self.done):
                self.lists[c].append(row)
            self.done = end

    def rows(self, qvec: Any) -> Any:
        import numpy as np

        scores = self.cent @ qvec
        probe = min(NPROBE, len(scores))
        best = np.argpartition(-scores, probe - 1)[:probe]
        out: list[int] = []
        for c in best.tolist():
            out.extend(self.lists[c])
        return np.asarray(out, dtype=np.int64)


class VectorStore:
    """All vector files of one store, as this process sees them."""

    def __init__(self, state_dir: Path) -> None:
        self.dir = vectors_dir(state_dir)
        self.domains: dict[str, DomainVectors] = {}
        self._lock = threading.RLock()

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
        import numpy as np

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
                    head = fh.read(len(HEADER))
                    if head != HEADER:
                        dv.bad_header = True
                        dv.sig = sig
                        return
                    dv.offset = len(HEADER)
                fh.seek(dv.offset)
                whole = (st.st_size - dv.offset) // REC * REC
                data = fh.read(whole)
        except OSError:
            return
        n = len(data) // REC
        ids: list[str] = []
        rows: list[int] = []
        consumed = 0
        for i in range(n):
            rec = data[i * REC:(i + 1) * REC]
            body, crc = rec[:-4], struct.unpack("<I", rec[-4:])[0]
            if zlib.crc32(body) != crc:
                if i == n - 1:
                    break  # maybe a write still under way: look again next time
                dv.damaged += 1
                consumed = (i + 1) * REC
                continue
            try:
                leaf_id = body[:ID_BYTES].rstrip(b"\0").decode("ascii")
            except UnicodeDecodeError:
                dv.damaged += 1
                consumed = (i + 1) * REC
                continue
            ids.append(leaf_id)
            rows.append(i)
            consumed = (i + 1) * REC
        if rows:
            raw = np.frombuffer(data, dtype=np.uint8).reshape(n, REC)
            vec = raw[rows, ID_BYTES:ID_BYTES + VEC_BYTES].copy().view("<f2")
            dv.add(ids, vec.astype(np.float32))
        dv.offset += consumed
        dv.sig = sig if consumed == whole else None

    def count(self) -> int:
        """Leaves with a vector (a leaf two racing writers both appended counts once)."""
        return sum(len(d.pos) for d in self.domains.values())

    def has(self, leaf_id: str) -> bool:
        return any(leaf_id in d.pos for d in self.domains.values())

    def similarity(self, leaf_ids: list[str], qvec: Any) -> dict[str, float]:
        """Cosine similarity of the given leaves that have a vector."""
        out: dict[str, float] = {}
        with self._lock:
            for leaf_id in leaf_ids:
                for d in self.domains.values():
                    j = d.pos.get(leaf_id)
                    if j is not None:
                        out[leaf_id] = float(d.mat[j] @ qvec)
                        break
        return out

    def damaged(self) -> dict[str, int]:
        """Domains whose file has a bad header (-1) or skipped records (their count)."""
        out = {}
        for dom, d in self.domains.items():
            if d.bad_header:
                out[dom] = -1
            elif d.damaged:
                out[dom] = d.damaged
        return out

    def top(self, qvec: Any, n: int, floor: float) -> list[tuple[str, float]]:
        """The ``n`` most similar leaves with a similarity of at least ``floor``."""
        import numpy as np

        best: list[tuple[str, float]] = []
        with self._lock:
            for d in self.domains.values():
                m = d.view()
                if m is None or not len(d.ids):
                    continue
                rows = d.candidates(qvec)
                sims = (m if rows is None else m[rows]) @ qvec
                if not len(sims):
                    continue
                k = min(n, len(sims))
                idx = np.argpartition(-sims, k - 1)[:k]
                best.extend((d.ids[i if rows is None else int(rows[i])], float(sims[i]))
                            for i in idx if sims[i] >= floor)
        best.sort(key=lambda x: -x[1])
        return _unique(best)[:n]

    # ------------------------------------------------------------------ writing
    def append(self, by_domain: dict[str, tuple[list[str], Any]]) -> None:
        """Append records (caller holds the store's write lock). A torn tail a crashed
        writer left is cut off first, so every record stays aligned."""
        files.ensure_dir(self.dir)
        for dom, (ids, vecs) in by_domain.items():
            if not ids:
                continue
            path = self.dir / f"{files.safe_name(dom, 'domain')}{SUFFIX}"
            payload = encode_records(ids, vecs)
            fd = os.open(path, os.O_RDWR | os.O_CREAT, files.FILE_MODE)
            try:
                size = os.fstat(fd).st_size
                if size < len(HEADER) or os.pread(fd, len(HEADER), 0) != HEADER:
                    if size:
                        os.close(fd)
                        fd = -1
                        # A damaged header: keep what follows? It cannot be trusted.
                        files.atomic_write(path, HEADER + payload)
                        continue
                    os.write(fd, HEADER)
                    size = len(HEADER)
                extra = (size - len(HEADER)) % REC
                if extra:
                    os.ftruncate(fd, size - extra)
                os.lseek(fd, 0, os.SEEK_END)
                os.write(fd, payload)
            finally:
                if fd >= 0:
                    os.close(fd)

    def rewrite(self, dom: str, ids: list[str], vecs: Any) -> None:
        """Replace one domain's file whole (``rebuild --embeddings``; lock held)."""
        files.ensure_dir(self.dir)
        path = self.dir / f"{files.safe_name(dom, 'domain')}{SUFFIX}"
        files.atomic_write(path, HEADER + encode_records(ids, vecs))

    def remove_stale(self, keep: set[str]) -> None:
        for p in self.dir.glob(f"*{SUFFIX}"):
            if p.stem not in keep:
                p.unlink(missing_ok=True)


def _unique(pairs: list[tuple[str, float]]) -> list[tuple[str, float]]:
    seen: set[str] = set()
    out = []
    for leaf_id, s in pairs:
        if leaf_id not in seen:
            seen.add(leaf_id)
            out.append((leaf_id, s))
    return out
