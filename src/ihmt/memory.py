"""The facade: one object per memory folder, used by the CLI, the MCP server, the GUI and
the tests alike.

    from ihmt import Memory
    mem = Memory.open("~/.ihmt", create=True)
    mem.save("We chose Postgres for billing because we need transactions.")
    print(mem.search("why postgres for billing").best.text)

Each method checks its arguments and calls into the library: :mod:`ihmt.ingest.prepare`
turns input into leaves, :mod:`ihmt.writing` puts them into the tree, :mod:`ihmt.search.query`
answers a query, :mod:`ihmt.tree.rebuild` re-derives everything from the leaves.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from datetime import date as _date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .config import Config
from .errors import DamagedFileError, InputError, StoreError, UnusableFileError, from_os_error
from .ingest.clean import clean_query, clean_text
from .memory_facts import FactMethods
from .model import ForgetReport, IngestItem, Leaf, SaveReport, SearchResult
from .recall import GATE as RECALL_GATE
from .recall import Injection
from .recall import prompt_recall as _prompt_recall
from .recall import session_digest as _session_digest
from .scope import GLOBAL, ScopeView, check_project_id, default_scope, resolve
from .search.query import Searcher
from .semantic.index import SemanticIndex
from .store.store import Store, copy_root, resolve_store_path, saved_stamp
from .timeline.facts import FactTimeline
from .tree import outline, refile
from .write_side import WriteSide

if TYPE_CHECKING:
    from .export import Export
    from .forgetting import Forgetter
    from .tree.consolidate import Consolidator
    from .tree.summarize import SummarizerBackend
    from .upkeep import Upkeep
    from .writing import Writer

# Saving, ingesting, exporting and forgetting import their modules when first called (see
# ihmt.write_side): a search, the agent hooks' every call, does not load them.

log = logging.getLogger(__name__)
CLOSE_WAIT_S = 120.0  # longest close() waits for vectors still being computed

__all__ = ["IngestItem", "Memory", "SaveReport", "clean_text", "default_home"]


class Memory(FactMethods):
    """A memory folder opened for reading and writing (safe across threads and processes)."""

    def __init__(self, store: Store, project: str | None = None) -> None:
        self.store = store
        # The project this memory is used from (ihmt.scope.project_of): saves default to
        # it, searches rank it with global memories first. None: outside any project.
        self.project = check_project_id(project) if project is not None else None
        self.config = store.config
        self.timeline = FactTimeline(store.state_dir)
        self.semantic = SemanticIndex(store)  # optional vectors; inactive without the extra
        self._mutex = threading.RLock()
        self._write_side = WriteSide(store, self.timeline, self.semantic, self._mutex,
                                     self._writing, self._recover_interrupted,
                                     self._ensure_root, self._rebuild_locked)
        self.searcher = Searcher(store, self.config, self.timeline, self.semantic,
                                 lambda reason: self._repair(reason, force=True),
                                 self._check_timeline)

    # The write side, built on first use (ihmt.write_side).
    @property
    def summarizer(self) -> SummarizerBackend:
        return self._write_side.parts().summarizer

    @property
    def consolidator(self) -> Consolidator:
        return self._write_side.parts().consolidator

    @property
    def writer(self) -> Writer:
        return self._write_side.parts().writer

    @property
    def upkeep(self) -> Upkeep:
        return self._write_side.parts().upkeep

    @property
    def forgetter(self) -> Forgetter:
        return self._write_side.parts().forgetter

    def _check_timeline(self) -> None:
        """Before a search reads the fact log: repair it when it is not sound
        (:meth:`ihmt.upkeep.Upkeep.check_timeline`). A sound log, the common case, is found
        so without building the write side."""
        if not self._write_side.built:
            try:
                if not self.timeline.needs_rebuild(
                        int(self.store.root().get("facts_size", 0)), 0)[0]:
                    return
            except UnusableFileError:  # set aside and rebuilt, or reported: the write side's
                pass
        self.upkeep.check_timeline()

    # ------------------------------------------------------------------ opening
    @classmethod
    def open(cls, path: str | os.PathLike[str] | None = None, *, create: bool = False,
             config: dict[str, Any] | None = None, project: str | None = None) -> Memory:
        """Open the store at ``path`` (a store folder, or a folder holding ``ihmt_memory/``).

        Without ``path``: ``$IHMT_HOME/ihmt_memory``, default ``~/.ihmt/ihmt_memory``.
        ``config`` values apply when the store is created. ``project``: the project id it
        is used from (``ihmt.scope.project_of(folder)``), None outside any project.
        """
        spath = resolve_store_path(path if path is not None else default_home())
        if not (spath / "root.json").exists() and not (spath / "layer_0").exists():
            if not create:
                raise StoreError(f"no memory at {spath}: run 'ihmt init' first")
            cfg = Config.from_dict(config or {})
            store = Store.create(spath, cfg)
        else:
            store = Store.open(spath)
        mem = cls(store, project)
        if store.interrupted():
            try:
                with mem._writing("open", lambda: _nothing(store)):
                    pass
            except StoreError as exc:
                log.warning("could not finish an interrupted write yet: %s", exc)
        mem._ensure_root()
        return mem

    @classmethod
    def initialize(cls, path: str | os.PathLike[str], *, force: bool = False,
                   **config: Any) -> Memory:
        """Create (or with ``force`` reset the derived state of) a store. Leaves are kept."""
        spath = resolve_store_path(path)
        base = Config.load(spath) if spath.exists() else Config()
        cfg = Config.from_dict({**base.to_dict(), **config})
        store = Store.create(spath, cfg, force=force)
        mem = cls(store)
        if force:
            mem.rebuild()
        return mem

    def close(self) -> None:
        """Finish the vectors of this process's last saves (semantic search), drop caches."""
        if not self.semantic.wait(timeout=CLOSE_WAIT_S):
            log.warning("closing before the vectors of the last saves were written; the "
                        "next process using this store encodes them")
        self.store.clear_cache()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def path(self) -> Path:
        return self.store.path

    def _ensure_root(self) -> dict[str, Any]:
        try:
            return self.store.root()
        except DamagedFileError as exc:
            self._repair(str(exc))
            return self.store.root()

    @contextmanager
    def _writing(self, what: str, record: Callable[[], dict[str, Any] | None] | None = None
                 ) -> Iterator[None]:
        """Hold the write lock, finish any write a crashed process left half done, and
        mark this one as under way until it completes; ``record`` says what it is going
        to touch (:mod:`ihmt.recover`), computed once the lock is held."""
        with self._mutex, self.store.lock.hold():
            try:
                self._recover_interrupted()
                self.store.begin_write(what, record() if record is not None else None)
            except OSError as exc:
                if isinstance(exc, StoreError):
                    raise  # said in one line already
                raise from_os_error(exc, f"the {what}", "; nothing was changed") from exc
            before = self.store.changes
            try:
                yield
                if self.store.catalog_restarted:  # set aside: journal every leaf again
                    from .tree.rebuild import rewrite_catalog

                    rewrite_catalog(self.store)
                self.store.end_write()
            except BaseException as exc:
                err = self.writer.failed(exc, what, self.store.changes == before)
                if err is None:
                    raise
                raise err from exc

    def _recover_interrupted(self) -> None:
        """Called with the lock held: a leftover intent means a writer died mid-write
        (:mod:`ihmt.recover` finishes what it touched, or rebuilds when unsure)."""
        self.upkeep.settle_timeline()  # a fact log that cannot be read: set aside, rebuilt
        if self.store.interrupted():
            self._write_side.parts().recovery.run()

    def _repair(self, reason: str, *, force: bool = False) -> None:
        """Rebuild the derived files. Without ``force`` (a damaged trunk), first look
        whether another process already rebuilt it while we waited for the lock."""
        with self._mutex, self.store.lock.hold():
            self.store.clear_cache()
            if not force:
                try:
                    self.store.root()
                    return
                except DamagedFileError:
                    pass
            msg = f"{reason}; derived files rebuilt from the leaves"
            log.warning(msg)
            self.store.problems.append(msg)
            try:
                self._rebuild_locked()
            except OSError as exc:
                if isinstance(exc, StoreError):
                    raise  # said in one line already
                from .writing import REPAIR_LATER

                raise from_os_error(exc, "the repair of the store", REPAIR_LATER) from exc

    # ------------------------------------------------------------------ writing
    def save(self, content: str, *, date: str | None = None, domain: str | None = None,
             content_type: str = "auto", tags: Iterable[str] = (), source: str | None = None,
             replaces: str | None = None, states: str | None = None,
             scope: str | None = None) -> SaveReport:
        """Store one memory (split only if it is long) and keep the tree consolidated.

        ``scope``: ``"project"`` (the current one), ``"global"``, a project id, or None /
        ``"auto"``: chosen from the content (:func:`ihmt.scope.default_scope`).

        Without ``date``, a statement is dated the day it is saved (it was true then), but
        code and procedures stay undated: they are not events. ``replaces`` describes an
        earlier memory this one corrects. ``states`` names the fact the memory states, as
        ``"subject :: attribute = value"`` (``"user :: employer = Initech"``): it is kept in
        the leaf's header and recorded in the timeline like an extracted fact.
        """
        from .ingest.dates import find_date
        from .ingest.prepare import (
            UNDATED_TYPES,
            classify,
            clean_tags,
            parse_date,
            screen_fields,
            screen_secrets,
        )
        from .writing import parse_states

        where = resolve(scope or "auto", self.project, allow_auto=True)
        text, warnings = clean_text(content, self.config.max_input_bytes)
        text = screen_secrets(text, self.config.secrets, warnings)
        tags, domain, source, states = screen_fields(
            self.config.secrets, warnings, tags=clean_tags(tags), domain=domain, source=source,
            stated_fact=states).values()
        stated = parse_states(states) if states else None
        prior = self._find_replaced(replaces) if replaces else None
        data_type, dom = classify(text, None, domain, content_type)
        when = parse_date(date) if date else None
        if when is None and data_type not in UNDATED_TYPES:
            when = find_date(text) or _date.today().isoformat()
        if where == "auto":
            where = default_scope(text, data_type, self.project)
        report = self._store_text(text, data_type=data_type, domain=dom, date=when,
                                  tags=clean_tags(tags), source=source, language=None,
                                  stated=stated, scope=where)
        report.warnings = warnings + report.warnings
        if prior is not None:
            self._apply_replaces(report, prior)
        return report

    def ingest_text(self, text: str, *, source: str | None = None, domain: str | None = None,
                    data_type: str | None = None, tags: Iterable[str] = (),
                    date: str | None = None, scope: str | None = None) -> SaveReport:
        """Store a document: detected, split into logical blocks, each block one leaf.

        Dates come from the text (or ``date``); undated content stays undated. ``scope``
        as in :meth:`save`, except that without it a document is global. An ``ihmt
        export`` JSONL text is restored instead (see :meth:`export`).
        """
        from .ingest.languages import language_for
        from .ingest.prepare import classify, clean_tags, parse_date, screen_fields, screen_secrets
        from .ingest.restore import looks_like_export

        if isinstance(text, str) and looks_like_export(text):
            return self._restore(text.splitlines(keepends=True), source or "text")
        where = resolve(scope or GLOBAL, self.project, allow_auto=True)
        clean, warnings = clean_text(text, self.config.max_input_bytes)
        clean = screen_secrets(clean, self.config.secrets, warnings, where=source)
        tags, domain, source = screen_fields(self.config.secrets, warnings,
                                             tags=clean_tags(tags), domain=domain,
                                             source=source).values()
        dt, dom = classify(clean, source, domain, data_type or "auto")
        report = self._store_text(clean, data_type=dt, domain=dom,
                                  date=parse_date(date) if date else None,
                                  tags=clean_tags(tags), source=source,
                                  language=language_for(source),
                                  scope=default_scope(clean, dt, self.project)
                                  if where == "auto" else where)
        report.warnings = warnings + report.warnings
        return report

    def ingest_file(self, path: str | os.PathLike[str], *, domain: str | None = None,
                    data_type: str | None = None, tags: Iterable[str] = (),
                    scope: str | None = None) -> SaveReport:
        """Ingest one file; an ``ihmt export`` JSONL file is restored, read line by line."""
        from .ingest.prepare import read_text_file
        from .ingest.restore import is_export, open_lines

        p = Path(path).expanduser()
        if is_export(p):
            return self._restore(open_lines(p), str(p))
        text = read_text_file(p, self.config.max_input_bytes)
        return self.ingest_text(text, source=p.name, domain=domain, data_type=data_type,
                                tags=tags, scope=scope)

    def ingest_paths(self, paths: Iterable[Any], *, domain: str | None = None,
                     data_type: str | None = None, tags: Iterable[str] = (),
                     scope: str | None = None) -> Iterator[IngestItem]:
        """Ingest files and folders (recursively), yielding each result or skip reason."""
        from .ingest.prepare import clean_tags, expand_paths

        tags = clean_tags(tags)
        for target in expand_paths(paths):
            if isinstance(target, tuple):
                yield IngestItem(path=str(target[0]), skipped=target[1])
                continue
            try:
                rep = self.ingest_file(target, domain=domain, data_type=data_type, tags=tags,
                                       scope=scope)
                yield IngestItem(path=str(target), report=rep)
            except (InputError, OSError) as exc:
                yield IngestItem(path=str(target), skipped=str(exc))

    def _restore(self, lines: Iterable[str], where: str) -> SaveReport:
        from .export import restore

        cfg = self.config
        return restore(lines, where, writer=self.writer, timeline=self.timeline,
                       store=self.store, secrets=cfg.secrets, max_bytes=cfg.max_input_bytes,
                       stemmer=cfg.stemmer, mutex=self._mutex)

    def export(self, scope: str | None = None, fmt: str = "jsonl") -> Export:
        """Every memory of ``scope`` (``all``/None, ``global`` or a project id) as lines of
        ``fmt``, read one leaf at a time: ``jsonl`` is restored by :meth:`ingest_file`
        with the same search answers, ``markdown`` is for reading (:mod:`ihmt.export`)."""
        from .export import Export

        return Export(self.store, self.timeline, scope=scope, fmt=fmt)

    def _store_text(self, text: str, *, data_type: str, domain: str, date: str | None,
                    tags: list[str], source: str | None, language: str | None,
                    stated: list[str] | None = None, scope: str = GLOBAL) -> SaveReport:
        from .ingest.prepare import make_leaves
        from .writing import STATED_KEY

        prepared = make_leaves(text, self.config, data_type=data_type, domain=domain,
                               date=date, tags=tags, source=source, language=language,
                               now=saved_stamp(), scope=scope)
        if stated and prepared:
            prepared[0][0].extra[STATED_KEY] = [stated]
        report = SaveReport(domain=domain, data_type=data_type, date=date, scope=scope,
                            ids=[leaf.id for leaf, _ in prepared])
        self.writer.commit(prepared, report)
        return report

    @contextmanager
    def bulk(self) -> Iterator[Memory]:
        """Batch many saves: leaves are synced to disk together, the trunk written rarely.

        Saves are collected in batches (:data:`ihmt.writing.BULK_BATCH`); each batch is
        ordered so that similar memories share branches (:mod:`ihmt.tree.order`),
        consolidated, synced and committed, and the write lock is released between batches
        so other processes can write. A save's ids are known at once; the rest of its
        report (new, duplicates, notices) is filled when its batch commits, at the latest
        when the block exits, which is also when every save of the block is acknowledged.
        """
        with self.writer.bulk():
            yield self

    def consolidate(self, force: bool = False) -> list[str]:
        """Run due Summarization Events; ``force`` also closes partial groups (flush)."""
        with self._writing("consolidate"):
            root = copy_root(self._ensure_root())
            created = self.consolidator.run(root, force=force)
            if created:
                self.store.write_root(root)
            return created

    def flush(self) -> list[str]:
        """Close the tree completely: one top node per domain."""
        return self.consolidate(force=True)

    def rebuild(self) -> dict[str, Any]:
        """Recreate catalog, branches, trunk and the fact timeline from the leaves."""
        with self._mutex, self.store.lock.hold():
            self.store.begin_write("rebuild")
            rep = self._rebuild_locked()
            self.store.end_write()
        return rep

    def rebuild_embeddings(self, *, everything: bool = True,
                           progress: Callable[[int, int], None] | None = None
                           ) -> dict[str, int]:
        """Recompute the semantic vectors from the leaves (``ihmt rebuild --embeddings``).

        Without ``everything`` only leaves with no valid vector are encoded. Raises
        InputError when semantic search is off (the message says how to turn it on).
        """
        return self.upkeep.rebuild_embeddings(everything, progress)

    def semantic_model(self, target: str | None = None, *, download: bool = False,
                       progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
        """The sentence model in use and the one the vectors were made with; given
        ``target`` (a model folder, ``"default"``, or with ``download`` a name to fetch
        once), switch the store to it and recompute every vector (InputError naming the
        fix when it cannot be used)."""
        if target is None:
            return self.semantic.model_info()
        return self.upkeep.switch_model(target, download, progress)

    def queue_missing_vectors(self) -> int:
        """Queue every memory without a semantic vector for the worker thread (after a sync
        brought memories saved on another machine: vector files are not synced). Returns
        how many were queued; 0 when semantic search is off."""
        return self.upkeep.queue_missing_vectors()

    def rebuild_routing(self) -> dict[str, int]:
        """Rebuild the semantic routing trees from the vectors on disk (no encoding): the
        repair of a missing or damaged tree. Returns the rows indexed per domain."""
        return self.upkeep.rebuild_routing()

    def _rebuild_locked(self) -> dict[str, Any]:
        return self.upkeep.rebuild_locked()

    # ------------------------------------------------------------------ reading
    def search(self, query: str, top_k: int = 10, *, clue: str | None = None,
               scope: str | None = None) -> SearchResult:
        """Answer ``query`` from the tree.

        The lexical ranking is exact (see :mod:`ihmt.search.descent`); on top of it current
        facts come before outdated ones, memories of a period the query names come first,
        and a ``clue`` boosts candidates that match both (see :mod:`ihmt.search.query`).
        ``scope``: None / ``"auto"`` (this project's memories and global ones; another
        project's only when it matches much better, labelled), ``"all"``, ``"project"``
        or ``"global"`` (:class:`ihmt.scope.ScopeView`).
        """
        view = ScopeView.make(self.project, scope)
        if not isinstance(query, str) or not query.strip():
            raise InputError("the query is empty: say what to look for")
        if clue is not None and not isinstance(clue, str):
            raise InputError("the clue must be text")
        if not isinstance(top_k, int) or isinstance(top_k, bool) or top_k < 1:
            raise InputError("top_k must be a positive whole number")
        query = clean_query(query)
        clue = clean_query(clue.strip(), "clue") if clue and clue.strip() else None
        return self.searcher.search(query, min(top_k, 100), clue, view)

    def ask(self, query: str, *, clue: str | None = None, top_k: int = 5,
            clue_provider: Callable[[SearchResult], str | None] | None = None,
            max_rounds: int | None = None, scope: str | None = None) -> SearchResult:
        """Search, and while the answer is AMBIGUOUS ask ``clue_provider`` for a clue.

        The provider gets the ambiguous result and returns a clue, or None / "" to stop.
        Clues accumulate; each round cross-references query and clues. It never turns an
        ambiguous query into a confident answer on its own: only a clue can.
        """
        clues = [clue] if clue else []
        res = self.search(query, top_k, clue=" ".join(clues) or None, scope=scope)
        rounds = self.config.max_clue_rounds if max_rounds is None else max_rounds
        while res.status == "AMBIGUOUS" and clue_provider is not None and rounds > 0:
            nxt = clue_provider(res)
            if not nxt or not nxt.strip():
                break
            clues.append(nxt.strip())
            rounds -= 1
            res = self.search(query, top_k, clue=" ".join(clues), scope=scope)
        return res

    def recall_for_prompt(self, prompt: str, *, gate: float | None = None,
                          max_tokens: int = 300) -> Injection:
        """What a prompt-submit hook injects for ``prompt``: a FOUND answer at or above the
        confidence ``gate`` (default :data:`ihmt.recall.GATE`), or nothing. See
        :mod:`ihmt.recall`."""
        return _prompt_recall(self, prompt, gate=RECALL_GATE if gate is None else gate,
                              max_tokens=max_tokens)

    def session_digest(self, *, cwd: str | None = None, max_tokens: int = 300) -> str:
        """The session-start digest: decisions, conventions and preferences on record,
        the project of ``cwd`` first; "" for an empty store or when none qualifies."""
        n = int(self._ensure_root().get("n_leaves", 0))
        return _session_digest(self, cwd=cwd, n_leaves=n, max_tokens=max_tokens)

    def get(self, leaf_id: str) -> Leaf:
        return self.store.read_leaf(leaf_id)

    def stats(self) -> dict[str, Any]:
        return outline.stats(self._ensure_root(), self.path, self.config)

    def tree(self, depth: int | None = None) -> dict[str, Any]:
        """The hierarchy from the trunk down (``depth`` levels of branches), as nested dicts."""
        return outline.tree(self.store, self._ensure_root(), depth)

    def walk(self) -> Iterator[tuple[list[str], dict[str, Any]]]:
        """Every leaf entry reachable from the trunk, with its path (root ... leaf id)."""
        return outline.walk(self.store, self._ensure_root())

    def _find_replaced(self, replaces: str) -> SearchResult:
        if not isinstance(replaces, str):
            raise InputError("replaces must be a few words describing the earlier memory")
        return self.search(replaces, top_k=5)

    def _apply_replaces(self, report: SaveReport, prior: SearchResult) -> None:
        new_id = report.ids[0]
        others = [h for h in prior.hits if h.id not in report.ids]
        if prior.status == "FOUND" and others and others[0].id == prior.hits[0].id:
            self.mark_outdated(others[0].id, new_id)
            report.outdated.append(others[0].id)
        elif prior.status == "AMBIGUOUS" and others:
            report.candidates = [h.id for h in others[:5]]
        else:
            report.warnings.append("no earlier memory matched 'replaces'; nothing was flagged")

    def forget(self, ids: str | Iterable[str]) -> ForgetReport:
        """Remove memories for good: the leaf files and everything derived from them
        (branches, catalog, vectors, the facts they stated; see :mod:`ihmt.forgetting`).
        Every id must exist, else nothing is removed. Git history keeps what it had
        committed; ``ihmt forget --purge-history`` rewrites it."""
        with self._mutex:
            return self.forgetter.forget(ids)

    def mark_outdated(self, old_id: str, new_id: str) -> dict[str, Any]:
        """Flag memory ``old_id`` as corrected by ``new_id`` (both must exist).

        Recorded in the timeline and in the old leaf's own header, so the link survives
        the loss of every derived file. The old memory stays, as history.
        """
        return self.writer.mark_outdated(old_id, new_id)

    def move(self, leaf_id: str, scope: str) -> dict[str, str]:
        """Re-file memory ``leaf_id`` to ``scope`` (``"project"``, ``"global"`` or a
        project id): its header first, then the trunk (:func:`ihmt.tree.refile.move`).
        Facts it states are filed under the new scope at the next ``rebuild``."""
        return refile.move_memory(self.store, self._writing, leaf_id,
                                  resolve(scope, self.project))

    def scopes(self) -> dict[str, int]:
        """Memories per scope: ``global`` first, then each project, largest first."""
        return refile.counts(self._ensure_root())


# ---------------------------------------------------------------------- helpers
def default_home() -> Path:
    return Path(os.environ.get("IHMT_HOME") or Path.home() / ".ihmt").expanduser()


def _nothing(store: Store) -> dict[str, Any] | None:
    """The intent record of a write that adds nothing (an open finishing another's)."""
    from .recover import record_for

    return record_for(store, [])
