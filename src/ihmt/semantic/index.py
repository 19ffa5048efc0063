"""What a :class:`ihmt.Memory` uses: encode at save, append under the lock, query, rebuild.

Every method is safe to call with the extra absent or switched off (it does nothing), and
no failure here stops a save or a search: it is logged and reported as a notice.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any

from . import status
from .vectors import VectorStore

log = logging.getLogger(__name__)

FLOOR = 0.2  # below this similarity a memory is not a semantic candidate at all


class SemanticIndex:
    def __init__(self, store: Any) -> None:
        self.store = store
        self.active, self.reason = status(getattr(store.config, "semantic", "auto"))
        self.vectors = VectorStore(store.state_dir)
        self._warned: set[str] = set()

    def _encoder(self) -> Any:
        from .encoder import get_encoder

        return get_encoder()

    def _fail(self, what: str, exc: BaseException) -> None:
        msg = f"semantic search unavailable ({what}: {exc}); using the lexical ranking"
        log.warning(msg)
        if what not in self._warned:
            self._warned.add(what)
            self.store.problems.append(msg)

    # ------------------------------------------------------------------ saving
    def encode(self, leaves: Iterable[Any]) -> dict[str, tuple[list[str], Any]] | None:
        """Vectors of the new leaves among ``leaves``, grouped by domain (computed before
        the lock is taken; a leaf whose file exists already has its vector)."""
        if not self.active:
            return None
        items = list({lf.id: lf for lf in leaves
                      if not self.store.leaf_exists(lf.id, lf.domain)}.values())
        if not items:
            return None
        try:
            vecs = self._encoder().encode([lf.text for lf in items])
        except Exception as exc:  # noqa: BLE001 - a derived file never stops a save
            self._fail("encoding", exc)
            return None
        out: dict[str, tuple[list[str], list[Any]]] = {}
        for lf, v in zip(items, vecs):
            ids, rows = out.setdefault(lf.domain, ([], []))
            ids.append(lf.id)
            rows.append(v)
        return {d: (ids, rows) for d, (ids, rows) in out.items()}

    def append(self, encoded: dict[str, tuple[list[str], Any]] | None) -> None:
        """Append vectors from :meth:`encode` (caller holds the write lock). The file is not
        read: a save costs the same whatever the store's size."""
        if not encoded:
            return
        try:
            self.vectors.append(encoded)
        except Exception as exc:  # noqa: BLE001
            self._fail("writing vectors", exc)

    # ------------------------------------------------------------------ searching
    def query(self, text: str, n: int, also: list[str] = ()
              ) -> tuple[list[tuple[str, float]], dict[str, float]] | None:
        """The ``n`` leaves closest in meaning to ``text`` (similarity at least
        :data:`FLOOR`), and the similarity of every leaf of ``also`` that has a vector.
        None when semantic search is off or unavailable."""
        if not self.active:
            return None
        try:
            self.vectors.refresh()
            if not self.vectors.count():
                return None
            q = self._encoder().encode([text])[0]
            top = self.vectors.top(q, n, FLOOR)
            sims = self.vectors.similarity([i for i in also], q)
            sims.update(top)
            return top, sims
        except Exception as exc:  # noqa: BLE001
            self._fail("search", exc)
            return None

    # ------------------------------------------------------------------ health
    def health(self, leaf_ids: dict[str, str] | None = None) -> dict[str, Any]:
        """On/off, vector count, damaged files and (given every leaf id -> domain) how many
        leaves have no vector."""
        out: dict[str, Any] = {"on": self.active, "message": self.reason}
        self.vectors.refresh()
        out["vectors"] = self.vectors.count()
        out["damaged"] = self.vectors.damaged()
        if leaf_ids is not None:
            out["missing"] = sum(1 for i in leaf_ids if not self.vectors.has(i))
        return out

    def rebuild(self, leaves: list[Any], *, everything: bool = True,
                progress: Callable[[int, int], None] | None = None,
                batch: int = 256) -> dict[str, int]:
        """Rewrite every domain's vector file from ``leaves`` (caller holds the lock).

        Without ``everything`` the valid vectors already on disk are kept and only the
        missing ones computed (the repair after damage or a load without the extra).
        """
        if not self.active:
            raise RuntimeError(self.reason)
        import numpy as np

        self.vectors.refresh()
        old: dict[str, Any] = {}
        if not everything:
            for d in self.vectors.domains.values():
                m = d.view()
                for i, leaf_id in enumerate(d.ids):
                    old[leaf_id] = m[i]
        todo = [lf for lf in leaves if lf.id not in old]
        enc = self._encoder()
        fresh: dict[str, Any] = {}
        done = 0
        for start in range(0, len(todo), batch):
            part = todo[start:start + batch]
            vecs = enc.encode([lf.text for lf in part])
            for lf, v in zip(part, vecs):
                fresh[lf.id] = v
            done += len(part)
            if progress:
                progress(done, len(todo))
        by_dom: dict[str, list[Any]] = {}
        for lf in leaves:
            by_dom.setdefault(lf.domain, []).append(lf)
        for dom, items in by_dom.items():
            ids = [lf.id for lf in items]
            mat = np.stack([fresh[i] if i in fresh else old[i] for i in ids])
            self.vectors.rewrite(dom, ids, mat)
        self.vectors.remove_stale(set(by_dom))
        self.vectors.refresh()
        return {"vectors": len(leaves), "computed": len(todo), "kept": len(leaves) - len(todo)}
