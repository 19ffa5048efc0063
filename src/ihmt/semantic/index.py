"""What a :class:`ihmt.Memory` uses: encode (inside a bulk load, or just after a single
save on a worker thread: :mod:`ihmt.semantic.deferred`), append under the lock, query,
rebuild.

Every method is safe to call with the extra absent or switched off (it does nothing), and
no failure here stops a save or a search: it is logged and reported as a notice.

The vectors record the model that made them (``state/vectors/model.json``: its name, the
digest of its files, the dimension, and whether a rebuild finished). Vectors of two models
are never mixed: when the store's model is not the one its vectors were made with, a search
ranks lexically, a save appends no vector, ``ihmt doctor`` names both models, and ``ihmt
rebuild --embeddings`` (or ``ihmt semantic model``) recomputes them. Vector files from
before this record are taken as the packaged default's, which made them.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable
from typing import Any

from ..store import files
from . import resolve
from . import vectors as _vectors
from .deferred import WAIT_S, Deferred
from .tree import CATCH_UP, Tree, remove_tree
from .vectors import REC, VectorStore

log = logging.getLogger(__name__)

FLOOR = 0.2  # below this similarity a memory is not a semantic candidate at all
MODEL_MARK = "model.json"  # in state/vectors/: the model the vectors were made with


class SemanticIndex:
    def __init__(self, store: Any) -> None:
        self.store = store
        self.active, self.reason, self.spec = resolve(
            getattr(store.config, "semantic", "auto"),
            getattr(store.config, "semantic_model", None))
        self.vectors = VectorStore(store.state_dir)
        self._warned: set[str] = set()
        self._trees: dict[str, Any] = {}  # domain -> Tree, kept for its cache
        self.deferred = Deferred(self)  # encoding after single saves, off their path
        self._wordiness: dict[str, float] = {}  # leaf id -> weight (a leaf never changes)

    def _fail(self, what: str, exc: BaseException) -> None:
        msg = f"semantic search unavailable ({what}: {exc}); using the lexical ranking"
        log.warning(msg)
        if what not in self._warned:
            self._warned.add(what)
            self.store.problems.append(msg)

    def _stale(self, why: str) -> None:
        """Vectors of another model: said once per process (a notice, a log line)."""
        if "model" not in self._warned:
            self._warned.add("model")
            msg = (f"semantic search unavailable ({why}); using the lexical ranking: run "
                   "'ihmt rebuild --embeddings'")
            log.warning(msg)
            self.store.problems.append(msg)

    def use(self, spec: Any) -> None:
        """Encode with ``spec`` from now on (``ihmt semantic model``; the caller checked
        that semantic search is wanted and the model loads)."""
        self.spec, self.active = spec, True
        where = "packaged" if spec.packaged else f"folder {spec.folder}"
        self.reason = f"semantic search is on ({spec.name}, {where}, local, offline)"
        self._trees.clear()

    def _encoder(self, bulk: bool = False) -> Any:
        from .encoder import get_encoder

        return get_encoder(bulk=bulk, spec=self.spec)

    # ------------------------------------------------------------------ model record
    def vectors_model(self) -> dict[str, Any] | None:
        """What ``model.json`` says (``{"damaged": True}`` when unreadable), None when
        there is none."""
        path = self.vectors.dir / MODEL_MARK
        try:
            raw = json.loads(path.read_bytes())
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            return {"damaged": True}
        return raw if isinstance(raw, dict) and isinstance(raw.get("id"), str) \
            else {"damaged": True}

    def mismatch(self) -> str | None:
        """Why the vectors on disk must not be used with this store's model (None: they
        may): made by another model, an unfinished rebuild, or an unreadable record."""
        mark = self.vectors_model()
        if mark is None:
            has_files = self.vectors.dir.is_dir() and any(
                self.vectors.dir.glob(f"*{_vectors.SUFFIX}"))
            if not has_files or self.spec.packaged:
                return None  # nothing yet, or made by the default before models were recorded
            return (f"the vectors were made with the packaged default model, not with "
                    f"{self.spec.name}")
        if mark.get("damaged"):
            return f"state/vectors/{MODEL_MARK} is damaged: which model made the vectors is unknown"
        if mark["id"] != self.spec.identity():
            if mark.get("name") == self.spec.name:  # same name, other files (an upgrade)
                return (f"the vectors were made with other files of {self.spec.name} "
                        f"({mark['id'].rpartition(':')[2]}, now "
                        f"{self.spec.identity().rpartition(':')[2]})")
            return f"the vectors were made with {mark.get('name', '?')}, not with {self.spec.name}"
        if not mark.get("complete", True):
            return f"rebuilding the vectors with {self.spec.name} did not finish"
        return None

    def _mark(self, complete: bool = True) -> None:
        files.ensure_dir(self.vectors.dir)
        files.write_json(self.vectors.dir / MODEL_MARK,
                         {"name": self.spec.name, "id": self.spec.identity(),
                          "dim": _vectors.DIM, "complete": complete,
                          "folder": None if self.spec.packaged else str(self.spec.folder)})

    def model_info(self) -> dict[str, Any]:
        """The model in use and the one the vectors on disk were made with."""
        out: dict[str, Any] = {"on": self.active, "message": self.reason}
        if self.spec is not None:
            out.update(name=self.spec.name, folder=None if self.spec.packaged
                       else str(self.spec.folder), packaged=self.spec.packaged,
                       dim=_vectors.DIM, model_file=str(self.spec.model),
                       tokenizer_file=str(self.spec.tokenizer))
        mark = self.vectors_model()
        out["vectors_model"] = (None if mark is None else
                                "unknown (model.json damaged)" if mark.get("damaged")
                                else mark.get("name"))
        self.vectors.refresh()
        out["vectors"] = self.vectors.count()
        out["mismatch"] = self.mismatch() if self.spec is not None else None
        return out

    # ------------------------------------------------------------------ saving
    def encode(self, leaves: Iterable[Any], *, bulk: bool = False
               ) -> dict[str, tuple[list[str], list[Any]]] | None:
        """Vector blocks (whole text, then its units) of the new leaves among ``leaves``,
        grouped by domain (computed before the lock is taken; a leaf whose file exists
        already has its vectors). ``bulk`` uses the encoder with every core."""
        if not self.active:
            return None
        items = list({lf.id: lf for lf in leaves
                      if not self.store.leaf_exists(lf.id, lf.domain)}.values())
        if not items:
            return None
        try:
            return self.encode_all(items, bulk=bulk)
        except Exception as exc:  # noqa: BLE001 - a derived file never stops a save
            self._fail("encoding", exc)
            return None

    def encode_all(self, leaves: list[Any], *, bulk: bool = False
                   ) -> dict[str, tuple[list[str], list[Any]]]:
        """Vector blocks of every leaf given, grouped by domain (raises on failure)."""
        out: dict[str, tuple[list[str], list[Any]]] = {}
        for lf, block in zip(leaves, self._blocks([lf.text for lf in leaves], bulk=bulk)):
            ids, rows = out.setdefault(lf.domain, ([], []))
            ids.append(lf.id)
            rows.append(block)
        return out

    def note(self, leaves: list[Any]) -> None:
        """Journal leaves a save is about to write (caller holds the write lock), so that a
        process killed before :meth:`later` leaves them to the next one."""
        if self.active and leaves:
            self.deferred.note(leaves)

    def later(self, leaves: list[Any], *, noted: bool = False) -> None:
        """Queue saved leaves for encoding on the worker thread (caller holds the write
        lock): :mod:`ihmt.semantic.deferred`. ``noted``: :meth:`note` journalled them."""
        if self.active and leaves:
            self.deferred.look_for_orphans()
            self.deferred.add(leaves, noted=noted)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the leaves this process queued have their vectors."""
        return self.deferred.wait(timeout)

    def _blocks(self, texts: list[str], *, bulk: bool = False) -> list[Any]:
        """One array per text: its whole vector, then one per unit; every piece of every
        text goes through the encoder in one call (sorted by length, so little padding)."""
        from .units import units

        pieces: list[str] = []
        spans: list[tuple[int, int]] = []
        for t in texts:
            u = units(t)
            spans.append((len(pieces), 1 + len(u)))
            pieces.append(t)
            pieces.extend(u)
        vecs = self._encoder(bulk=bulk).encode(pieces)
        return [vecs[a:a + k] for a, k in spans]

    def append(self, encoded: dict[str, tuple[list[str], list[Any]]] | None) -> None:
        """Append blocks from :meth:`encode` and route their rows into each domain's tree
        (caller holds the write lock). The vector file is not read: a save costs the same
        whatever the store's size, plus the files on its path down the tree."""
        if not encoded:
            return
        try:
            why = self.mismatch()
            if why:
                self._stale(why)
                return
            if self.vectors_model() is None:
                self._mark()
            placed = self.vectors.append(encoded)
        except Exception as exc:  # noqa: BLE001
            self._fail("writing vectors", exc)
            return
        import numpy as np

        for dom, (gen, first, end) in placed.items():
            # Row number -> vector, as views of the blocks (a bulk batch's rows are not
            # copied once more: they are a hundred megabytes and more).
            rows = (v for b in encoded[dom][1]
                    for v in np.asarray(b, dtype=np.float32).reshape(-1, b.shape[-1]))
            known = dict(zip(range(first, end), rows))
            self._route(dom, gen, end, known, limit=CATCH_UP)

    def forget(self, ids: set[str]) -> str | None:
        """Erase the vectors of forgotten memories (caller holds the write lock); returns
        a warning instead of raising, since the forget itself must complete."""
        from .erase import erase

        try:
            erase(self.vectors, ids)
        except Exception as exc:  # noqa: BLE001 - reported; rebuild --embeddings finishes it
            log.warning("could not erase the vectors of forgotten memories: %s", exc)
            return (f"their vectors could not be erased ({exc}); 'ihmt rebuild --embeddings' "
                    "rewrites the vector files without them")
        return None

    def _route(self, dom: str, gen: int, end: int, known: dict[int, Any],
               limit: int | None) -> None:
        try:
            tree = self._trees.get(dom)
            if tree is None:
                tree = self._trees[dom] = Tree(self.vectors.dir, dom)
            tree.insert(gen, end, lambda rows: self.vectors.block_rows(dom, rows), known,
                        limit=limit)
        except Exception as exc:  # noqa: BLE001 - a derived file never stops a save
            log.warning("routing tree of %s not updated (%s); search scans its vectors", dom,
                        exc)

    # ------------------------------------------------------------------ searching
    def query_matrix(self, text: str) -> Any:
        """The query's whole vector, then one per clause (:mod:`ihmt.semantic.units`)."""
        from .units import query_clauses

        return self._encoder().encode([text] + query_clauses(text))

    def query(self, text: str, n: int, also: list[str] = ()
              ) -> tuple[list[tuple[str, float]], dict[str, float]] | None:
        """The ``n`` leaves closest in meaning to ``text`` (similarity at least
        :data:`FLOOR`), and the similarity of every leaf of ``also`` that has a vector.
        None when semantic search is off or unavailable."""
        if not self.active:
            return None
        try:
            self.deferred.look_for_orphans()
            if not self.deferred.wait(WAIT_S) and not self.store.lock.owned():
                log.warning("vectors of this process's last saves not ready after %.0f s; "
                            "searching without them", WAIT_S)
            self.vectors.refresh()
            if not self.vectors.count():
                return None
            why = self.mismatch()
            if why:
                self._stale(why)
                return None
            q = self.query_matrix(text)
            top = self.vectors.top(q, n, FLOOR)
            sims = self.vectors.similarity([i for i in also], q)
            sims.update(top)
            # A text of almost no words sits near every short query: its similarity is
            # scaled by how much of it is words (:mod:`ihmt.semantic.wordiness`).
            sims = {i: s * self.wordiness(i) for i, s in sims.items()}
            top = sorted(((i, sims[i]) for i, _ in top if sims[i] >= FLOOR),
                         key=lambda x: -x[1])
            return top, sims
        except Exception as exc:  # noqa: BLE001
            self._fail("search", exc)
            return None

    def wordiness(self, leaf_id: str) -> float:
        """The weight of a leaf's similarity (1 for ordinary text; 1 too when the leaf
        cannot be read: then it is not judged)."""
        w = self._wordiness.get(leaf_id)
        if w is None:
            from .wordiness import wordiness

            try:
                w = wordiness(self.store.read_leaf(leaf_id).text)
            except Exception:  # noqa: BLE001 - a missing leaf is skipped by the caller
                w = 1.0
            if len(self._wordiness) > 200_000:
                self._wordiness.clear()
            self._wordiness[leaf_id] = w
        return w

    # ------------------------------------------------------------------ health
    def health(self, leaf_ids: dict[str, str] | None = None) -> dict[str, Any]:
        """On/off, vector count, damaged files, domains whose routing tree is missing or
        behind, and (given every leaf id -> domain) how many leaves have no vector."""
        out: dict[str, Any] = {"on": self.active, "message": self.reason}
        self.deferred.wait(WAIT_S)
        self.vectors.refresh()
        out["vectors"] = self.vectors.count()
        out["rows"] = self.vectors.rows()
        out["damaged"] = self.vectors.damaged()
        out["old_layout"] = self.vectors.outdated_layout()
        out["model"] = self.spec.name if self.spec is not None else None
        out["mismatch"] = self.mismatch() if self.spec is not None else None
        unrouted: dict[str, int] = {}
        for dom, d in self.vectors.domains.items():
            if d.bad_header or d.n < _vectors.ROUTE_MIN:
                continue
            tree = Tree(self.vectors.dir, dom)
            try:
                meta = tree.load_meta()
                ok = meta is not None and meta["gen"] == str(d.gen)
                if ok:
                    tree._check(meta)
                behind = d.n - int(meta["indexed"]) if ok and meta else d.n
            except Exception:  # noqa: BLE001
                behind = d.n
            if behind > 0:
                unrouted[dom] = behind
        out["unrouted"] = unrouted
        if leaf_ids is not None:
            lacking = {i for i in leaf_ids if not self.vectors.has(i)}
            busy = self.deferred.in_flight() & lacking if lacking else set()
            out["missing"] = len(lacking) - len(busy)
            out["in_flight"] = len(busy)  # saved moments ago: their vectors are coming
        return out

    def rebuild(self, leaves: list[Any], *, everything: bool = True,
                progress: Callable[[int, int], None] | None = None,
                batch: int = 512) -> dict[str, int]:
        """Rewrite every domain's vector file and routing tree from ``leaves`` (caller
        holds the lock).

        Without ``everything`` the valid vectors already on disk are kept and only the
        missing ones computed (the repair after damage or a load without the extra); the
        routing trees are rebuilt either way.
        """
        if not self.active:
            raise RuntimeError(self.reason)
        import numpy as np

        self.vectors.refresh()
        if self.mismatch():
            everything = True  # vectors of another model are never kept
        self._mark(complete=False)  # until the files are rewritten, nobody uses them
        old: dict[str, Any] = {}
        if not everything:
            for dom, d in self.vectors.domains.items():
                if d.rec != REC:
                    continue
                for leaf_id, j in d.pos.items():
                    if leaf_id in d.whole_only:
                        continue  # first layout, no units: encode it again
                    a, k = d.rows(j)
                    k = max(1, min(k, d.n - a))
                    if k == 1 or bool(d.unit[a + 1:a + k].all()):
                        old[leaf_id] = self.vectors.block_rows(
                            dom, np.arange(a, a + k), exact=True).astype(np.float16)
        todo = [lf for lf in leaves if lf.id not in old]
        fresh: dict[str, Any] = {}
        done = 0
        for start in range(0, len(todo), batch):
            part = todo[start:start + batch]
            for lf, block in zip(part, self._blocks([lf.text for lf in part], bulk=True)):
                # Held as float16, the precision of the file: every vector of the store
                # waits here until the files are rewritten (half the memory of float32).
                fresh[lf.id] = block.astype(np.float16)
            done += len(part)
            if progress:
                progress(done, len(todo))
        by_dom: dict[str, list[Any]] = {}
        for lf in leaves:
            by_dom.setdefault(lf.domain, []).append(lf)
        for dom, items in by_dom.items():
            ids = [lf.id for lf in items]
            blocks = [fresh[i] if i in fresh else old[i] for i in ids]
            gen = self.vectors.rewrite(dom, ids, blocks)
            known = dict(enumerate(v for b in blocks for v in b))  # views, not a copy
            name = files_name(dom)
            remove_tree(self.vectors.dir, name)
            self._trees.pop(name, None)
            self._route(name, gen, len(known), known, limit=None)
        self.vectors.remove_stale({files_name(d) for d in by_dom})
        self._mark(complete=True)
        self.vectors.refresh()
        return {"vectors": len(leaves), "computed": len(todo), "kept": len(leaves) - len(todo)}

    def rebuild_routing(self) -> dict[str, int]:
        """Rebuild the routing tree of every domain from the vectors on disk (no encoding):
        the repair of a damaged or missing tree. Caller holds the lock."""
        self.vectors.refresh()
        out: dict[str, int] = {}
        for dom, d in self.vectors.domains.items():
            if d.bad_header or d.rec != REC:
                continue
            remove_tree(self.vectors.dir, dom)
            self._trees.pop(dom, None)
            known = dict(enumerate(d.vectors(slice(0, d.n))))
            self._route(dom, d.gen, d.n, known, limit=None)
            out[dom] = d.n
        return out


def files_name(dom: str) -> str:
    from ..store import files

    return files.safe_name(dom, "domain")
