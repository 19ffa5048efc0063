"""With the semantic extra: one sentence vector per symbol, for questions worded unlike the
code. The vector is of the symbol's described form (its owner, its name in words, its first
line, its docstring, the start of its body), stored beside the index
(``state/project_vectors.npz``, keyed by leaf id, so an edit re-encodes only the symbols it
changed). Without the extra nothing here is imported and find_code stays lexical."""

from __future__ import annotations

import io
import logging
import os
import re
from pathlib import Path
from typing import Any

from ..semantic import missing_packages, wanted
from ..store import files
from .rank import _DOC_RX

log = logging.getLogger(__name__)

VECTORS_NAME = "project_vectors.npz"
BODY_CHARS = 400


def available() -> bool:
    """True when asked for (``IHMT_CODE_VECTORS=on``), the extra is installed and not
    switched off (``IHMT_SEMANTIC=off``). Opt-in: the first ``find_code`` of a project
    encodes every symbol, 16-88 s on two cores for 700-2,000 symbols (BENCHMARKS.md),
    longer than an agent waits for a tool call."""
    if os.environ.get("IHMT_CODE_VECTORS", "off").strip().lower() != "on":
        return False
    return wanted(None) and not missing_packages()


def described(name: str, rel: str, text: str) -> str:
    """What the vector is made of: 'utils: format eta. def format_eta(self) -> str: ...'."""
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|[_.]", " ", name).strip().lower()
    docs = " ".join(next(g for g in m.groups() if g is not None).strip()
                    for m in _DOC_RX.finditer(text))[:600]
    body = " ".join(_DOC_RX.sub(" ", text).split())[:BODY_CHARS]
    owner = Path(rel).stem
    return f"{owner}: {words}. {docs} {body}".strip()


class SymbolVectors:
    """Vectors of the current symbols, encoded on first use and after edits."""

    def __init__(self, state_dir: Path) -> None:
        self.path = state_dir / VECTORS_NAME
        self.ids: list[str] = []
        self.matrix: Any = None
        self._loaded = False

    def _load(self) -> None:
        import numpy as np

        self._loaded = True
        try:
            with np.load(self.path, allow_pickle=False) as z:
                self.ids = [str(x) for x in z["ids"]]
                self.matrix = z["vectors"].astype(np.float32)
        except (OSError, KeyError, ValueError) as exc:
            if self.path.exists():
                log.warning("symbol vectors %s unreadable (%s); re-encoding", self.path, exc)
            self.ids, self.matrix = [], None

    def update(self, wanted_ids: list[str], text_of: Any) -> None:
        """Make the vectors match ``wanted_ids`` (encoding the new ones, dropping the gone)."""
        import numpy as np

        from ..semantic.encoder import DIM, get_encoder

        if not self._loaded:
            self._load()
        have = {i: n for n, i in enumerate(self.ids)}
        if self.matrix is not None and len(have) == len(wanted_ids) \
                and all(i in have for i in wanted_ids):
            return
        todo = [i for i in wanted_ids if i not in have]
        new = get_encoder(bulk=len(todo) > 64).encode([text_of(i) for i in todo]) if todo \
            else np.zeros((0, DIM), dtype=np.float32)
        at_new = {i: n for n, i in enumerate(todo)}
        rows = [self.matrix[have[i]] if i in have else new[at_new[i]] for i in wanted_ids]
        self.ids = list(wanted_ids)
        self.matrix = np.stack(rows).astype(np.float32) if rows \
            else np.zeros((0, DIM), dtype=np.float32)
        buf = io.BytesIO()
        np.savez(buf, ids=np.array(self.ids), vectors=self.matrix.astype(np.float16))
        files.atomic_write(self.path, buf.getvalue())

    def scores(self, query: str) -> dict[str, float]:
        """Cosine similarity of ``query`` with every symbol, by leaf id."""
        from ..semantic.encoder import get_encoder

        if self.matrix is None or not len(self.ids):
            return {}
        q = get_encoder().encode([query])[0]
        sims = self.matrix @ q
        return {i: float(s) for i, s in zip(self.ids, sims)}


SEM_WEIGHT = 2.0  # the semantic share beside the lexical ranking (normalised, weight 1)
SEM_POOL = 30  # the symbols closest in meaning that join the candidates


def blend(ranked: list[Any], sims: dict[str, float], by_leaf: dict[str, Any],
          make: Any) -> list[Any]:
    """Add up to ``SEM_WEIGHT`` to each candidate's score, by how far its cosine rises above
    that of the ``SEM_POOL``-th closest symbol towards the closest one; the closest in
    meaning join the candidates (made by ``make(rel, sym)``). A close vector also counts
    as covering the question, for the NOT_FOUND verdict."""
    if not sims:
        return ranked
    top = max(sims.values())
    if top <= 0:
        return ranked
    have = {r.sym["leaf"] for r in ranked}
    closest = sorted(sims, key=lambda i: -sims[i])[:SEM_POOL]
    floor = sims[closest[-1]] if len(closest) == SEM_POOL else 0.0
    for leaf_id in closest:
        if leaf_id not in have and leaf_id in by_leaf:
            ranked.append(make(*by_leaf[leaf_id]))
    span = max(top - floor, 1e-6)
    for r in ranked:
        s = sims.get(r.sym["leaf"], 0.0)
        r.score += SEM_WEIGHT * max(0.0, s - floor) / span
        r.cover = max(r.cover, s)
    return ranked
