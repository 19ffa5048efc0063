"""The routing tree of one domain's vectors: centroids over buckets, so that a query
scores O(log n) vectors instead of all of them.

Derived data beside the vector file, in ``state/vectors/<domain>.tree/``:

- ``root.json``: the vector file's generation, the root node, the next node id, how many
  rows of the vector file are indexed, and a write counter;
- ``i<id>``: an internal node: per child its id, whether it is internal, how many rows lay
  below it and their vector sum (float32) when a split last made or changed that child,
  with a CRC-32; at most :data:`BRANCH` children;
- ``b<id>``: a bucket: the row numbers (u32) of the vector file routed to it, appended to;
  at most :data:`CAP` rows.

Every bucket is at the same depth. A save inserts its new rows one by one: down the
closest child at each level (cosine to the child's vector sum), into a bucket; a bucket
over :data:`CAP` splits in two (2-means on its rows' vectors, read from the vector file),
a node over :data:`BRANCH` children splits the same way, and a split root gets a new root
above it, as in a B-tree. A child's sum is set when it is made by a split (an IVF's fixed
centroids, refreshed at every split), so a save reads the nodes on its path, appends to one
bucket and rewrites ``root.json``, plus the few files a split changes: its cost grows with
the depth, not with the store.

A query keeps the :data:`BEAM` closest nodes per level for each of its vectors and scans
the rows of the :data:`PROBE` closest buckets: ``depth x BEAM x BRANCH`` centroids and
about ``PROBE x CAP`` rows, which grows with log n (``bench.routing`` measures it against
the flat scan). Rows of the vector file not yet indexed (``root.json``'s ``indexed``) are
scanned flat by the caller.

Nothing here is needed: a missing or damaged tree (or one built for an older vector file)
makes search scan every vector of that domain, and the next save starts a new tree and
indexes up to :data:`CATCH_UP` rows of the backlog per save; ``ihmt rebuild --embeddings``
and ``ihmt doctor --repair`` rebuild it at once.
"""

from __future__ import annotations

import json
import logging
import os
import struct
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..store import files
from .loader import DIM

log = logging.getLogger(__name__)

BRANCH = 16  # children per internal node
CAP = 128  # rows per bucket
BEAM = 64  # nodes kept per level per query vector
PROBE = 64  # buckets scanned per query vector
CATCH_UP = 20_000  # rows of backlog a save indexes beyond its own
NODE_MAGIC = b"IHMTVTN1"
TREE_SUFFIX = ".tree"


class TreeDamaged(Exception):
    """A node file is missing or fails its checksum: the tree cannot be trusted."""


@dataclass
class Node:
    """An internal node: its children and, per child, the sum and count of its rows."""

    ids: list[int]
    internal: list[bool]
    counts: Any  # float64 (k,)
    sums: Any  # float32 (k, DIM)

    def centroids(self) -> Any:
        import numpy as np

        return self.sums / np.maximum(np.linalg.norm(self.sums, axis=1, keepdims=True), 1e-12)

    def directions(self) -> Any:
        """:meth:`centroids`, computed once: a node read from disk is never changed (a
        writer changes copies)."""
        got = self.__dict__.get("_dirs")
        if got is None:
            got = self.__dict__["_dirs"] = self.centroids()
        return got

    def to_bytes(self) -> bytes:
        import numpy as np

        k = len(self.ids)
        body = (NODE_MAGIC + struct.pack("<I", k)
                + np.asarray(self.ids, dtype="<u4").tobytes()
                + np.asarray(self.internal, dtype=np.uint8).tobytes()
                + np.asarray(self.counts, dtype="<f8").tobytes()
                + np.asarray(self.sums, dtype="<f4").tobytes())
        return body + struct.pack("<I", zlib.crc32(body))

    @classmethod
    def from_bytes(cls, raw: bytes) -> Node:
        import numpy as np

        if len(raw) < 16 or raw[:8] != NODE_MAGIC:
            raise TreeDamaged("bad node header")
        if zlib.crc32(raw[:-4]) != struct.unpack("<I", raw[-4:])[0]:
            raise TreeDamaged("node checksum")
        k = struct.unpack("<I", raw[8:12])[0]
        at = 12
        need = at + k * (4 + 1 + 8 + 4 * DIM) + 4
        if len(raw) != need:
            raise TreeDamaged("node size")
        ids = np.frombuffer(raw, "<u4", k, at).tolist()
        at += 4 * k
        internal = [bool(x) for x in raw[at:at + k]]
        at += k
        counts = np.frombuffer(raw, "<f8", k, at).copy()
        at += 8 * k
        sums = np.frombuffer(raw, "<f4", k * DIM, at).reshape(k, DIM).copy()
        return cls(ids, internal, counts, sums)


def tree_dir(vdir: Path, dom: str) -> Path:
    return Path(vdir) / f"{dom}{TREE_SUFFIX}"


def remove_tree(vdir: Path, dom: str) -> None:
    import shutil  # imported where used: a read-only hook never removes a tree

    shutil.rmtree(tree_dir(vdir, dom), ignore_errors=True)


class Tree:
    """One domain's routing tree as this process sees it (files cached, checked against
    their signature whenever ``root.json`` changed)."""

    def __init__(self, vdir: Path, dom: str) -> None:
        self.dir = tree_dir(vdir, dom)
        self.meta: dict[str, Any] | None = None
        self._meta_raw: bytes | None = None
        self.epoch = 0
        self._cache: dict[str, list[Any]] = {}  # name -> [sig, epoch checked, value]
        self.centroids_scored = 0  # by the last search (for benchmarks)

    # ------------------------------------------------------------------ reading
    def load_meta(self) -> dict[str, Any] | None:
        """``root.json`` (read on every call: a few bytes, and the only way to see another
        process's save); a change makes every cached node be checked once more."""
        try:
            raw = (self.dir / "root.json").read_bytes()
        except OSError:
            self.meta, self._meta_raw = None, None
            return None
        if raw != self._meta_raw:
            try:
                meta = json.loads(raw)
                ok = isinstance(meta, dict) and {"gen", "root", "internal", "next",
                                                 "indexed"} <= set(meta)
            except ValueError:
                ok = False
            self.meta = meta if ok else None
            self._meta_raw = raw
            self.epoch += 1
        return self.meta

    def _file(self, name: str, parse: Callable[[bytes], Any]) -> Any:
        ent = self._cache.get(name)
        if ent is not None and ent[1] == self.epoch:
            return ent[2]
        path = self.dir / name
        try:
            st = path.stat()
        except OSError as exc:
            raise TreeDamaged(f"{name} is missing") from exc
        sig = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        if ent is not None and ent[0] == sig:
            ent[1] = self.epoch
            return ent[2]
        try:
            value = parse(path.read_bytes())
        except OSError as exc:
            raise TreeDamaged(f"{name} unreadable") from exc
        self._cache[name] = [sig, self.epoch, value]
        return value

    def node(self, nid: int) -> Node:
        return self._file(f"i{nid}", Node.from_bytes)

    def bucket(self, bid: int) -> Any:
        import numpy as np

        return self._file(f"b{bid}", lambda raw: np.frombuffer(
            raw[:len(raw) // 4 * 4], dtype="<u4").astype(np.int64))

    def search(self, qmat: Any, gen: int) -> tuple[Any, int] | None:
        """(rows to score, rows indexed) for the query vectors, or None when the tree is
        missing, damaged or built for another generation of the vector file."""
        import numpy as np

        meta = self.load_meta()
        if meta is None or meta["gen"] != str(gen):
            return None
        self.centroids_scored = 0
        try:
            chosen: set[int] = set()
            for q in qmat:
                chosen.update(self._route(meta, q))
            parts = [self.bucket(b) for b in sorted(chosen)]
        except TreeDamaged as exc:
            log.info("routing tree %s unusable: %s", self.dir, exc)
            return None
        rows = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
        return rows, int(meta["indexed"])

    def _route(self, meta: dict[str, Any], q: Any) -> list[int]:
        import numpy as np

        if not meta["internal"]:
            return [int(meta["root"])]
        frontier = [int(meta["root"])]
        leaves: list[tuple[float, int]] = []
        while frontier:
            ids: list[int] = []
            inner: list[bool] = []
            scores: list[Any] = []
            for nid in frontier:
                nd = self.node(nid)
                ids.extend(nd.ids)
                inner.extend(nd.internal)
                scores.append(nd.directions() @ q)
                self.centroids_scored += len(nd.ids)
            s = np.concatenate(scores) if scores else np.zeros(0)
            order = np.argsort(-s)
            frontier = []
            for i in order.tolist():
                if inner[i]:
                    if len(frontier) < BEAM:
                        frontier.append(ids[i])
                else:
                    leaves.append((float(s[i]), ids[i]))
        leaves.sort(key=lambda x: -x[0])
        return [b for _, b in leaves[:PROBE]]

    def depth(self) -> int:
        meta = self.load_meta()
        if meta is None:
            return 0
        d, nid, internal = 1, int(meta["root"]), bool(meta["internal"])
        while internal:
            nd = self.node(nid)
            nid, internal = nd.ids[0], nd.internal[0]
            d += 1
        return d

    # ------------------------------------------------------------------ writing
    def insert(self, gen: int, end: int, fetch: Callable[[Any], Any],
               known: dict[int, Any] | None = None, limit: int | None = CATCH_UP) -> int:
        """Index the rows of the vector file up to ``end`` (caller holds the store's write
        lock). ``known`` holds vectors the caller has (row -> float32), ``fetch`` reads the
        others; at most ``limit`` rows beyond ``known`` are indexed (None: all). A tree that
        is missing, damaged or of another generation is started anew. Returns the rows
        indexed afterwards."""
        known = known or {}
        meta = self.load_meta()
        meta = dict(meta) if meta is not None else None  # changed in memory until written
        fresh = meta is None or meta["gen"] != str(gen) or int(meta["indexed"]) > end
        if fresh:
            meta = self._reset(gen)
        assert meta is not None
        try:
            return self._insert(meta, end, fetch, known, limit)
        except TreeDamaged as exc:  # a node on the way down: nothing was written yet
            log.warning("routing tree %s damaged (%s): starting it anew", self.dir, exc)
            return self._insert(self._reset(gen), end, fetch, known, limit)

    def _insert(self, meta: dict[str, Any], end: int, fetch: Callable[[Any], Any],
                known: dict[int, Any], limit: int | None) -> int:
        import numpy as np

        self._check(meta)
        start = int(meta["indexed"])
        if start >= end:
            return start
        backlog = [r for r in range(start, end) if r not in known]
        if limit is not None and len(backlog) > limit:
            end = backlog[limit]  # index in order: the rest waits for the next saves
        rows = list(range(start, end))
        need = [r for r in rows if r not in known]
        vec_of: dict[int, Any] = dict(known)
        for at in range(0, len(need), 4096):
            part = need[at:at + 4096]
            for r, v in zip(part, fetch(np.asarray(part))):
                vec_of[r] = v
        w = _Writer(self, meta, fetch, vec_of)
        for r in rows:
            w.add(r, np.asarray(vec_of[r], dtype=np.float32))
        meta["indexed"] = end
        w.flush()
        return end

    def _check(self, meta: dict[str, Any]) -> None:
        """Read the root node (and so detect a damaged or missing top)."""
        if meta["internal"]:
            self.node(int(meta["root"]))
        else:
            self.bucket(int(meta["root"]))

    def _reset(self, gen: int) -> dict[str, Any]:
        if self.dir.exists():
            import shutil

            shutil.rmtree(self.dir, ignore_errors=True)
        files.ensure_dir(self.dir)
        files.atomic_write(self.dir / "b0", b"")
        meta = {"gen": str(gen), "root": 0, "internal": False, "next": 1, "indexed": 0,
                "seq": 0}
        self._write_meta(meta)
        self._cache.clear()
        return meta

    def _write_meta(self, meta: dict[str, Any]) -> None:
        meta["seq"] = int(meta.get("seq", 0)) + 1
        raw = (json.dumps(meta, separators=(",", ":")) + "\n").encode()
        files.atomic_write(self.dir / "root.json", raw)
        self.meta, self._meta_raw = meta, raw

    def remember(self, name: str, value: Any) -> None:
        """Cache a file this process just wrote (so it is not read back)."""
        try:
            st = (self.dir / name).stat()
        except OSError:
            self._cache.pop(name, None)
            return
        self._cache[name] = [(st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns),
                             self.epoch, value]


class _Writer:
    """One batch of insertions: changes held in memory, written once at the end."""

    def __init__(self, tree: Tree, meta: dict[str, Any], fetch: Callable[[Any], Any],
                 vec_of: dict[int, Any]) -> None:
        self.t = tree
        self.meta = meta
        self.fetch = fetch
        self.vec_of = vec_of
        self.nodes: dict[int, Node] = {}  # changed internal nodes
        self.cents: dict[int, Any] = {}  # their normalised child vectors, kept current
        self.rows: dict[int, list[int]] = {}  # buckets touched: all their rows
        self.appended: dict[int, list[int]] = {}  # ... rows appended to an unsplit bucket
        self.rewritten: set[int] = set()

    def _node(self, nid: int) -> Node:
        nd = self.nodes.get(nid)
        if nd is None:
            old = self.t.node(nid)
            nd = Node(list(old.ids), list(old.internal), old.counts.copy(), old.sums.copy())
            self.nodes[nid] = nd
            self.cents[nid] = nd.centroids()
        return nd

    def _rows(self, bid: int) -> list[int]:
        got = self.rows.get(bid)
        if got is None:
            got = self.t.bucket(bid).tolist()
            self.rows[bid] = got
        return got

    def _vecs(self, rows: list[int]) -> Any:
        import numpy as np

        missing = [r for r in rows if r not in self.vec_of]
        if missing:
            for r, v in zip(missing, self.fetch(np.asarray(missing))):
                self.vec_of[r] = v
        return np.stack([np.asarray(self.vec_of[r], dtype=np.float32) for r in rows])

    def add(self, row: int, v: Any) -> None:
        import numpy as np

        path: list[tuple[int, int]] = []  # (internal node, child position)
        nid, internal = int(self.meta["root"]), bool(self.meta["internal"])
        while internal:
            # A child's vector sum is the one its last split gave it: a save that only adds
            # a row to a bucket writes that bucket and root.json, no node (the direction of
            # a subtree barely moves between two of its splits).
            changed = self.nodes.get(nid)
            nd = changed if changed is not None else self.t.node(nid)
            dirs = self.cents[nid] if changed is not None else nd.directions()
            i = int(np.argmax(dirs @ v))
            path.append((nid, i))
            nid, internal = nd.ids[i], nd.internal[i]
        rows = self._rows(nid)
        rows.append(row)
        if nid not in self.rewritten:
            self.appended.setdefault(nid, []).append(row)
        if len(rows) > CAP:
            self._split_bucket(nid, path)

    def _new_id(self) -> int:
        nid = int(self.meta["next"])
        self.meta["next"] = nid + 1
        return nid

    def _split_bucket(self, bid: int, path: list[tuple[int, int]]) -> None:
        rows = self.rows[bid]
        vecs = self._vecs(rows)
        a, b = _two_means(vecs)
        new = self._new_id()
        self.rows[bid] = [rows[i] for i in a]
        self.rows[new] = [rows[i] for i in b]
        self.rewritten.update((bid, new))
        self.appended.pop(bid, None)
        self._replace_child(path, [(bid, False, vecs[a].sum(axis=0), float(len(a))),
                                   (new, False, vecs[b].sum(axis=0), float(len(b)))])

    def _replace_child(self, path: list[tuple[int, int]],
                       halves: list[tuple[int, bool, Any, float]]) -> None:
        """The child at the end of ``path`` became two: update its parent (a new root
        when it had none), and split the parent in turn when it has too many children."""
        import numpy as np

        (id_a, int_a, sum_a, cnt_a), (id_b, int_b, sum_b, cnt_b) = halves
        if not path:
            root = self._new_id()
            nd = Node([id_a, id_b], [int_a, int_b], np.array([cnt_a, cnt_b]),
                      np.stack([sum_a, sum_b]).astype(np.float32))
            self.nodes[root] = nd
            self.cents[root] = nd.centroids()
            self.meta["root"], self.meta["internal"] = root, True
            return
        pid, i = path[-1]
        nd = self._node(pid)
        nd.sums[i], nd.counts[i] = sum_a, cnt_a
        nd.ids.append(id_b)
        nd.internal.append(int_b)
        nd.counts = np.append(nd.counts, cnt_b)
        nd.sums = np.vstack([nd.sums, np.asarray(sum_b, dtype=np.float32)[None, :]])
        self.cents[pid] = nd.centroids()
        if len(nd.ids) > BRANCH:
            self._split_node(pid, path[:-1])

    def _split_node(self, nid: int, path: list[tuple[int, int]]) -> None:
        nd = self.nodes[nid]
        a, b = _two_means(self.cents[nid])
        new = self._new_id()

        def part(idx: list[int]) -> Node:
            return Node([nd.ids[i] for i in idx], [nd.internal[i] for i in idx],
                        nd.counts[idx].copy(), nd.sums[idx].copy())

        left, right = part(a), part(b)
        self.nodes[nid], self.nodes[new] = left, right
        self.cents[nid], self.cents[new] = left.centroids(), right.centroids()
        self._replace_child(path, [
            (nid, True, left.sums.sum(axis=0), float(left.counts.sum())),
            (new, True, right.sums.sum(axis=0), float(right.counts.sum()))])

    def flush(self) -> None:
        """Buckets first, then nodes, then ``root.json``: a reader that sees the new root
        finds every file it names."""
        import numpy as np

        d = self.t.dir
        for bid, rows in self.rows.items():
            name = f"b{bid}"
            arr = np.asarray(rows, dtype="<u4")
            if bid in self.rewritten:
                files.atomic_write(d / name, arr.tobytes())
            elif bid in self.appended:
                _append(d / name, np.asarray(self.appended[bid], dtype="<u4").tobytes())
            else:
                continue
            self.t.remember(name, arr.astype(np.int64))
        for nid, nd in self.nodes.items():
            files.atomic_write(d / f"i{nid}", nd.to_bytes())
            self.t.remember(f"i{nid}", nd)
        self.t._write_meta(self.meta)


def _append(path: Path, data: bytes) -> None:
    """Append row numbers; a torn tail (a crash mid-append) is cut off first."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, files.FILE_MODE)
    try:
        size = os.fstat(fd).st_size
        if size % 4:
            os.ftruncate(fd, size - size % 4)
        os.lseek(fd, 0, os.SEEK_END)
        files.write_all(fd, data)
    finally:
        os.close(fd)


def _two_means(vecs: Any, iters: int = 5) -> tuple[list[int], list[int]]:
    """Split unit vectors in two groups of similar direction (never an empty group)."""
    import numpy as np

    n = len(vecs)
    mean = vecs.mean(axis=0)
    first = int(np.argmin(vecs @ mean))  # the row least like the rest
    second = int(np.argmin(vecs @ vecs[first]))  # and the row least like that one
    cent = vecs[[first, second]].copy()
    side = np.zeros(n, dtype=bool)
    for _ in range(iters):
        s = vecs @ cent.T
        side = s[:, 1] > s[:, 0]
        if side.all() or not side.any():
            break
        cent[0], cent[1] = vecs[~side].mean(axis=0), vecs[side].mean(axis=0)
    if side.all() or not side.any() or min(side.sum(), n - side.sum()) < n // 8:
        # Lopsided: cut along the direction that separates the two seeds.
        proj = vecs @ (vecs[second] - vecs[first])
        order = np.argsort(proj, kind="stable")
        side = np.zeros(n, dtype=bool)
        side[order[n // 2:]] = True
    return np.flatnonzero(~side).tolist(), np.flatnonzero(side).tolist()
