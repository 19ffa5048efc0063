"""The write side of one memory (summarizer, consolidator, writer, repairs, forgetting),
built on first use.

A search never needs it unless it finds damage to repair, and importing it costs more than
a search of a small store (the fact extraction and supersession rules, the chunkers, git
sync): an agent hook, a fresh process on every prompt, would pay it on each call. So
:class:`ihmt.Memory` asks for these parts here, and they are imported and built together,
once, the first time a save, a repair or a forget needs one of them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .forgetting import Forgetter
    from .recover import Recovery
    from .semantic.index import SemanticIndex
    from .store.store import Store
    from .timeline.facts import FactTimeline
    from .tree.consolidate import Consolidator
    from .tree.summarize import SummarizerBackend
    from .upkeep import Upkeep
    from .writing import Writer


@dataclass
class Parts:
    summarizer: SummarizerBackend
    consolidator: Consolidator
    writer: Writer
    upkeep: Upkeep
    forgetter: Forgetter
    recovery: Recovery


class WriteSide:
    """Builds :class:`Parts` for one memory when first asked (thread-safe).

    The callables are the memory's own: ``writing`` (the write-lock context), the recovery
    of an interrupted write, the trunk check and the full rebuild (lock held).
    """

    def __init__(self, store: Store, timeline: FactTimeline, semantic: SemanticIndex,
                 mutex: threading.RLock, writing: Callable[[str], Any],
                 recover: Callable[[], None], ensure_root: Callable[[], Any],
                 rebuild_locked: Callable[[], dict[str, Any]]) -> None:
        self._args = (store, timeline, semantic, mutex, writing, recover, ensure_root,
                      rebuild_locked)
        self._parts: Parts | None = None
        self._lock = threading.Lock()

    @property
    def built(self) -> bool:
        return self._parts is not None

    def parts(self) -> Parts:
        parts = self._parts
        if parts is None:
            with self._lock:
                if self._parts is None:
                    self._parts = _build(*self._args)
                parts = self._parts
        return parts


def _build(store: Store, timeline: FactTimeline, semantic: SemanticIndex,
           mutex: threading.RLock, writing: Callable[[str], Any], recover: Callable[[], None],
           ensure_root: Callable[[], Any],
           rebuild_locked: Callable[[], dict[str, Any]]) -> Parts:
    from .forgetting import Forgetter
    from .recover import Recovery
    from .tree.consolidate import Consolidator
    from .tree.summarize import make_summarizer
    from .upkeep import Upkeep
    from .writing import Writer

    cfg = store.config
    summarizer = make_summarizer(cfg.summarizer_backend, cfg.summarizer_model)
    consolidator = Consolidator(store, summarizer)
    writer = Writer(store, consolidator, timeline, semantic, mutex, writing, recover,
                    ensure_root)
    upkeep = Upkeep(store, consolidator, timeline, writer, mutex, semantic)
    forgetter = Forgetter(store, consolidator, timeline, semantic, writing,
                          writer.link_versions, rebuild_locked)
    recovery = Recovery(store, consolidator, timeline, writer, forgetter, rebuild_locked)
    return Parts(summarizer, consolidator, writer, upkeep, forgetter, recovery)
