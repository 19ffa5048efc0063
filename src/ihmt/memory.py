"""The facade: one object per memory folder, used by the CLI, the MCP server, the GUI and
the tests alike.

    from ihmt import Memory
    mem = Memory.open("~/.ihmt", create=True)
    mem.save("We chose Postgres for billing because we need transactions.")
    print(mem.search("why postgres for billing").best.text)
"""

from __future__ import annotations

import logging
import os
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date as _date
from pathlib import Path
from typing import Any

from .config import Config
from .errors import DamagedFileError, InputError, NotFoundError, SecretError, StoreError
from .ingest.dates import find_date, parse_date_arg, query_time_range, strip_time_words
from .ingest.detect import detect
from .ingest.languages import language_for
from .ingest.split import split
from .model import DATA_TYPES, Fact, Hit, Leaf, SearchResult
from .search.answer import annotate, corrections_first, fact_hits, finish, rerank
from .search.descent import descend
from .search.hybrid import blend, lexical_coverage
from .search.intent import asks_for_current, fact_intent
from .semantic.index import SemanticIndex
from .store import files
from .store.leaves import checksum
from .store.store import Store, resolve_store_path, utcnow
from .sync.gitsync import after_write
from .text import clip, term_counts, tokenize
from .timeline.extract import extract_facts
from .timeline.facts import FactTimeline
from .timeline.supersede import implicit_links, statement_facts, versions_together
from .tree.consolidate import Consolidator, leaf_entry
from .tree.order import similarity_order
from .tree.rebuild import rebuild as _rebuild
from .tree.summarize import make_summarizer

log = logging.getLogger(__name__)

UNDATED_TYPES = ("CODE", "PROCESS")
BULK_CACHE_LIMIT = 200_000  # branch-cache entries kept while a bulk load runs
BULK_BATCH = 8192  # saves grouped by similarity and committed together inside bulk()


@dataclass
class SaveReport:
    """How a save or an ingest was filed."""

    ids: list[str] = field(default_factory=list)  # every leaf of the input, new or not
    new: int = 0
    duplicates: int = 0
    domain: str = ""
    data_type: str = ""
    date: str | None = None
    events: int = 0  # Summarization Events fired
    notices: list[str] = field(default_factory=list)  # contradictions to relay
    warnings: list[str] = field(default_factory=list)
    outdated: list[str] = field(default_factory=list)  # ids flagged by `replaces`
    candidates: list[str] = field(default_factory=list)  # `replaces` was unclear: choose


@dataclass
class IngestItem:
    """One file of a directory ingest: filed, or skipped with its reason."""

    path: str
    report: SaveReport | None = None
    skipped: str | None = None


class Memory:
    """A memory folder opened for reading and writing (safe across threads and processes)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.config = store.config
        self.summarizer = make_summarizer(self.config.summarizer_backend,
                                          self.config.summarizer_model)
        self.consolidator = Consolidator(store, self.summarizer)
        self.timeline = FactTimeline(store.state_dir)
        self.semantic = SemanticIndex(store)  # optional vectors; inactive without the extra
        self._facts_damage = 0
        self._bulk_depth = 0
        self._bulk_root: dict[str, Any] | None = None
        self._bulk_catalog: list[dict[str, Any]] = []
        self._bulk_batch: list[tuple[list[tuple[Leaf, Counter[str]]], SaveReport]] = []
        self._bulk_count = 0
        self._mutex = threading.RLock()
        self._catalog_buf: list[dict[str, Any]] = []
        self._cache_limit = store.branch_cache_limit

    # ------------------------------------------------------------------ opening
    @classmethod
    def open(cls, path: str | os.PathLike[str] | None = None, *, create: bool = False,
             config: dict[str, Any] | None = None) -> Memory:
        """Open the store at ``path`` (a store folder, or a folder holding ``ihmt_memory/``).

        Without ``path``: ``$IHMT_HOME/ihmt_memory``, default ``~/.ihmt/ihmt_memory``.
        ``config`` values apply when the store is created.
        """
        spath = resolve_store_path(path if path is not None else default_home())
        if not (spath / "root.json").exists() and not (spath / "layer_0").exists():
            if not create:
                raise StoreError(f"no memory at {spath}: run 'ihmt init' first")
            cfg = Config.from_dict(config or {})
            store = Store.create(spath, cfg)
        else:
            store = Store.open(spath)
        mem = cls(store)
        if store.interrupted():
            try:
                with mem._writing("open"):
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
    def _writing(self, what: str) -> Iterator[None]:
        """Hold the write lock, finish any write a crashed process left half done, and
        mark this one as under way until it completes."""
        with self._mutex, self.store.lock.hold():
            self._recover_interrupted()
            self.store.begin_write(what)
            yield
            self.store.end_write()

    def _recover_interrupted(self) -> None:
        """Called with the lock held: a leftover intent means a writer died mid-write."""
        if not self.store.interrupted():
            return
        msg = "a previous write was interrupted; the tree was rebuilt from the leaves"
        log.warning(msg)
        self.store.problems.append(msg)
        self.store.remove_partial_files()
        self.store.clear_cache()
        self._rebuild_locked()
        self.store.end_write()

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
            self._rebuild_locked()

    # ------------------------------------------------------------------ writing
    def save(self, content: str, *, date: str | None = None, domain: str | None = None,
             content_type: str = "auto", tags: Iterable[str] = (), source: str | None = None,
             replaces: str | None = None) -> SaveReport:
        """Store one memory (split only if it is long) and keep the tree consolidated.

        Without ``date``, a statement is dated the day it is saved (it was true then), but
        code and procedures stay undated: they are not events. ``replaces`` describes an
        earlier memory this one corrects.
        """
        text, warnings = clean_text(content, self.config.max_input_bytes)
        text = self._screen_secrets(text, warnings)
        prior = self._find_replaced(replaces) if replaces else None
        data_type, dom = self._classify(text, None, domain, content_type)
        when = _parse_date(date) if date else None
        if when is None and data_type not in UNDATED_TYPES:
            when = find_date(text) or _date.today().isoformat()
        report = self._store_text(text, data_type=data_type, domain=dom, date=when,
                                  tags=_clean_tags(tags), source=source, language=None)
        report.warnings = warnings + report.warnings
        if prior is not None:
            self._apply_replaces(report, prior)
        return report

    def ingest_text(self, text: str, *, source: str | None = None, domain: str | None = None,
                    data_type: str | None = None, tags: Iterable[str] = (),
                    date: str | None = None) -> SaveReport:
        """Store a document: detected, split into logical blocks, each block one leaf.

        Dates come from the text (or ``date``); undated content stays undated.
        """
        clean, warnings = clean_text(text, self.config.max_input_bytes)
        clean = self._screen_secrets(clean, warnings, where=source)
        dt, dom = self._classify(clean, source, domain, data_type or "auto")
        report = self._store_text(clean, data_type=dt, domain=dom,
                                  date=_parse_date(date) if date else None,
                                  tags=_clean_tags(tags), source=source,
                                  language=language_for(source))
        report.warnings = warnings + report.warnings
        return report

    def ingest_file(self, path: str | os.PathLike[str], *, domain: str | None = None,
                    data_type: str | None = None, tags: Iterable[str] = ()) -> SaveReport:
        p = Path(path).expanduser()
        text = read_text_file(p, self.config.max_input_bytes)
        return self.ingest_text(text, source=p.name, domain=domain, data_type=data_type,
                                tags=tags)

    def ingest_paths(self, paths: Iterable[str | os.PathLike[str]], *, domain: str | None = None,
                     data_type: str | None = None, tags: Iterable[str] = ()
                     ) -> Iterator[IngestItem]:
        """Ingest files and folders (recursively), yielding each result or skip reason."""
        tags = _clean_tags(tags)
        for target in expand_paths(paths):
            if isinstance(target, tuple):
                yield IngestItem(path=str(target[0]), skipped=target[1])
                continue
            try:
                rep = self.ingest_file(target, domain=domain, data_type=data_type, tags=tags)
                yield IngestItem(path=str(target), report=rep)
            except (InputError, OSError) as exc:
                yield IngestItem(path=str(target), skipped=str(exc))

    def _screen_secrets(self, text: str, warnings: list[str], where: str | None = None) -> str:
        """Apply the ``secrets`` policy: refuse (default), redact, or off."""
        policy = self.config.secrets
        if policy == "off":
            return text
        from .secrets import find_secrets, redact

        found = find_secrets(text)
        if not found:
            return text
        what = "; ".join(f"{f.kind.replace('_', ' ')} on line {f.line} ({f.preview})"
                         for f in found[:5])
        if policy == "redact":
            warnings.append(f"redacted {len(found)} likely secret(s): {what}")
            return redact(text)[0]
        place = f" in {where}" if where else ""
        raise SecretError(
            f"not saved: this looks like it holds a secret{place}: {what}. Remove it (or "
            "replace it with [REDACTED]) and save the rest; never store credentials in "
            "memory. To change this, set \"secrets\" to \"redact\" or \"off\" in "
            "ihmt.config.json.")

    def _classify(self, text: str, source: str | None, domain: str | None,
                  content_type: str | None) -> tuple[str, str]:
        _check_optional_text(content_type, "content_type")
        _check_optional_text(source, "source")
        ct = (content_type or "auto").upper()
        if ct != "AUTO" and ct not in DATA_TYPES:
            raise InputError(f"content_type {content_type!r} is not one of "
                             f"auto, {', '.join(t.lower() for t in DATA_TYPES)}")
        dt, dom = detect(text, source)
        if ct != "AUTO":
            dt = ct
        if domain:
            dom = domain
        return dt, files.safe_name(dom, "domain")

    def _store_text(self, text: str, *, data_type: str, domain: str, date: str | None,
                    tags: list[str], source: str | None, language: str | None) -> SaveReport:
        chunks = split(text, data_type, self.config, language=language)
        now = utcnow()
        prepared: list[tuple[Leaf, Counter[str]]] = []
        for pos, ch in enumerate(chunks):
            if not ch.text.strip():
                continue
            when = ch.date or date
            leaf_tags = list(dict.fromkeys(tags + [t for t in ch.tags if isinstance(t, str)]))
            extra = dict(ch.extra)
            if ch.oversized:
                extra["oversized"] = True
            if ch.name:
                extra.setdefault("name", ch.name)
            leaf_id = "L-" + domain + "-" + files.digest(
                domain, source or "save", str(pos), when or "", ch.text)
            leaf = Leaf(
                id=leaf_id, text=ch.text, domain=domain, data_type=data_type, date=when,
                saved_at=now, tags=leaf_tags, parent=None,
                span={"start_line": ch.start_line, "end_line": ch.end_line}
                if source else None,
                checksum=checksum(ch.text), source=source, extra=extra,
            )
            prepared.append((leaf, term_counts(ch.text, self.config.stemmer)))
        if not prepared:
            raise InputError("nothing to save: the content is empty or only whitespace")
        report = SaveReport(domain=domain, data_type=data_type, date=date,
                            ids=[leaf.id for leaf, _ in prepared])
        self._commit(prepared, report)
        return report

    def _commit(self, prepared: list[tuple[Leaf, Counter[str]]], report: SaveReport) -> None:
        with self._mutex:
            if self._bulk_depth:
                self._bulk_batch.append((prepared, report))
                self._bulk_count += len(prepared)
                if self._bulk_count >= BULK_BATCH:
                    self._bulk_commit(reopen=True)
                return
            self.store.check_writable()
            vectors = self.semantic.encode(leaf for leaf, _ in prepared)
            with self._writing("save"):
                root = self._ensure_root()
                root = _copy_root(root)
                self._add_leaves(root, prepared, report, durable=True)
                self.semantic.append(vectors)
                self.store.catalog_append(self._catalog_buf)
                self._catalog_buf = []
                root["facts_size"] = self._facts_size()
                self.store.write_root(root)
                # Old memories an implicit link annotated are committed with the save.
                after_write(self.store, "save", report.ids + report.outdated,
                            prepared[0][0].text)

    def _add_leaves(self, root: dict[str, Any], prepared: list[tuple[Leaf, Counter[str]]],
                    report: SaveReport, *, durable: bool) -> None:
        top_ids = {e["id"] for e in root["top"]}
        buf: list[dict[str, Any]] = []
        for leaf, tf in prepared:
            if (leaf.id in top_ids or leaf.id in self.consolidator.pending
                    or self.store.leaf_exists(leaf.id, leaf.domain)):
                report.duplicates += 1
                continue
            if durable:
                self.store.write_leaf(leaf, durable=True)
            else:
                self.consolidator.pending[leaf.id] = leaf
            entry = leaf_entry(leaf, tf)
            root["top"].append(entry)
            top_ids.add(leaf.id)
            root["n_leaves"] += 1
            root["total_len"] += entry["len"]
            dom = root["domains"].setdefault(leaf.domain, {"n_leaves": 0})
            dom["n_leaves"] += 1
            report.new += 1
            facts = _facts_of(leaf)
            if facts:
                report.notices.extend(str(n) for n in self.timeline.record_many(facts))
                self._link_versions(facts, report)
            buf.append({
                "id": leaf.id, "kind": "leaf",
                "path": f"layer_0/{leaf.domain}/{leaf.id}.txt", "domain": leaf.domain,
                "date": leaf.date, "saved_at": leaf.saved_at, "source": leaf.source,
            })
        report.events += len(self.consolidator.run(root))
        if self._bulk_depth:
            self._bulk_catalog.extend(buf)
        else:
            self._catalog_buf = buf

    def _link_versions(self, facts: list[Fact], report: SaveReport | None = None) -> None:
        """Record implicit supersessions (:mod:`ihmt.timeline.supersede`) exactly as a
        ``replaces`` correction: in the timeline and in the old leaf's own header."""
        for old, new, when in implicit_links(self.timeline, facts):
            self.timeline.mark_outdated(old, new, when or None, implicit=True)
            leaf = self.consolidator.pending.get(old)
            if leaf is None:
                try:
                    leaf = self.store.read_leaf(old)
                except (NotFoundError, DamagedFileError):
                    continue
                if leaf.extra.get("superseded_by") != new:
                    leaf.extra.update(superseded_by=new, superseded_implicitly=True)
                    self.store.write_leaf(leaf, durable=not self._bulk_depth, new=False)
            else:
                leaf.extra.update(superseded_by=new, superseded_implicitly=True)
            if report is not None and new in report.ids:
                report.outdated.append(old)

    @contextmanager
    def bulk(self) -> Iterator[Memory]:
        """Batch many saves: leaves are synced to disk together, the trunk written rarely.

        Saves are collected in batches of ``BULK_BATCH``; each batch is ordered so that
        similar memories share branches (:mod:`ihmt.tree.order`), consolidated, synced
        and committed, and the write lock is released between batches so other processes
        can write. A save's ids are known at once; the rest of its report (new,
        duplicates, notices) is filled when its batch commits, at the latest when the
        block exits, which is also when every save of the block is acknowledged.
        """
        with self._mutex:
            if self._bulk_depth == 0:
                self._bulk_begin()
                # Consolidation only re-reads the latest siblings: keep the cache small
                # while loading, so a bulk load's memory does not grow with the store.
                self._cache_limit = self.store.branch_cache_limit
                self.store.branch_cache_limit = min(self._cache_limit, BULK_CACHE_LIMIT)
                self.timeline.sync = False  # each batch ends with os.sync()
            self._bulk_depth += 1
        try:
            yield self
        finally:
            with self._mutex:
                self._bulk_depth -= 1
                if self._bulk_depth == 0:
                    self.store.branch_cache_limit = self._cache_limit
                    try:
                        self._bulk_commit(reopen=False)
                    finally:
                        self.timeline.sync = True

    def _bulk_begin(self) -> None:
        self.store.check_writable()
        self.store.lock.acquire()
        try:
            self._recover_interrupted()
            self.store.begin_write("bulk")
            self._bulk_root = _copy_root(self._ensure_root())
        except BaseException:
            self.store.lock.release()
            raise
        self._bulk_catalog = []
        self._bulk_batch = []
        self._bulk_count = 0

    def _bulk_commit(self, *, reopen: bool) -> None:
        root = self._bulk_root
        assert root is not None
        try:
            # Similar memories of the batch go into the same branches (tighter bounds).
            batch, self._bulk_batch = self._bulk_batch, []
            items = [(leaf, tf, rep) for prepared, rep in batch for leaf, tf in prepared]
            self.semantic.append(self.semantic.encode((leaf for leaf, _, _ in items), bulk=True))
            for i in similarity_order([tf.keys() for _, tf, _ in items]):
                leaf, tf, rep = items[i]
                self._add_leaves(root, [(leaf, tf)], rep, durable=False)
            for leaf in list(self.consolidator.pending.values()):
                self.store.write_leaf(leaf, durable=False)
            self.consolidator.pending.clear()
            os.sync()
            self.store.catalog_append(self._bulk_catalog)
            self._bulk_catalog = []
            root["facts_size"] = self._facts_size()
            self.store.write_root(root)
            self.store.end_write()
            after_write(self.store, "bulk", [lf.id for lf, _, _ in items]
                        + [old for _, rep in batch for old in rep.outdated])
        finally:
            self.store.lock.release()
            self._bulk_root = None
        if reopen:
            self._bulk_begin()

    def consolidate(self, force: bool = False) -> list[str]:
        """Run due Summarization Events; ``force`` also closes partial groups (flush)."""
        with self._writing("consolidate"):
            root = _copy_root(self._ensure_root())
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
        if not self.semantic.active:
            raise InputError(self.semantic.reason)
        with self._mutex, self.store.lock.hold():
            leaves = []
            for path in self.store.iter_leaf_paths():
                try:
                    leaves.append(self.store.read_leaf(path.stem, path.parent.name))
                except (DamagedFileError, NotFoundError):
                    continue
            return self.semantic.rebuild(leaves, everything=everything, progress=progress)

    def rebuild_routing(self) -> dict[str, int]:
        """Rebuild the semantic routing trees from the vectors on disk (no encoding): the
        repair of a missing or damaged tree. Returns the rows indexed per domain."""
        if not self.semantic.active:
            raise InputError(self.semantic.reason)
        with self._mutex, self.store.lock.hold():
            return self.semantic.rebuild_routing()

    def _rebuild_locked(self) -> dict[str, Any]:
        facts: list[Fact] = []
        marks: list[tuple[str, str, str]] = []

        rep = _rebuild(self.store, self.consolidator, force_close=True,
                       on_leaf=lambda leaf: _leaf_facts(leaf, facts, marks))
        rep["facts"] = self._reset_timeline(facts, marks)
        return rep

    def _reset_timeline(self, facts: list[Fact], marks: list[tuple[str, str, str]]) -> int:
        """Rewrite the timeline from what the leaves say (lock held)."""
        facts.sort(key=lambda f: (f.date, f.source or ""))
        n = self.timeline.rebuild(facts)
        known = self.timeline.outdated_map()
        sync, self.timeline.sync = self.timeline.sync, False  # one fsync for every mark
        try:
            for old, new, when in marks:
                if known.get(old) != new:
                    self.timeline.mark_outdated(old, new, when or None)
            self._link_versions(facts)
        finally:
            self.timeline.sync = sync
        self.timeline.fsync()
        root = _copy_root(self.store.root())
        root["facts_size"] = self._facts_size()
        self.store.write_root(root)
        self._facts_damage = self.timeline.damaged_lines
        return n

    def _facts_size(self) -> int:
        try:
            return self.timeline.path.stat().st_size
        except OSError:
            return 0

    def _check_timeline(self) -> None:
        """A fact log shorter than the trunk says, or with damaged lines, is rebuilt from
        the leaves (it is derived from them), and the repair is reported once."""
        self.timeline.refresh()
        shrunk = self._facts_size() < int(self.store.root().get("facts_size", 0))
        damaged = self.timeline.damaged_lines > self._facts_damage
        if not (shrunk or damaged):
            return
        with self._mutex, self.store.lock.hold():
            facts: list[Fact] = []
            marks: list[tuple[str, str, str]] = []
            for path in self.store.iter_leaf_paths():
                try:
                    leaf = self.store.read_leaf(path.stem, path.parent.name)
                except (DamagedFileError, NotFoundError):
                    continue
                _leaf_facts(leaf, facts, marks)
            self._reset_timeline(facts, marks)
        msg = ("the fact timeline (state/facts.jsonl) was damaged or truncated; it was rebuilt "
               "from the memories")
        log.warning(msg)
        self.store.problems.append(msg)

    # ------------------------------------------------------------------ reading
    def search(self, query: str, top_k: int = 10, *, clue: str | None = None) -> SearchResult:
        """Answer ``query`` from the tree.

        The lexical ranking is exact (see :mod:`ihmt.search.descent`); on top of it current
        facts come before outdated ones, memories of a period the query names come first,
        and a ``clue`` boosts candidates that match both (see :mod:`ihmt.search.answer`).
        """
        if not isinstance(query, str) or not query.strip():
            raise InputError("the query is empty: say what to look for")
        if clue is not None and not isinstance(clue, str):
            raise InputError("the clue must be text")
        if not isinstance(top_k, int) or isinstance(top_k, bool) or top_k < 1:
            raise InputError("top_k must be a positive whole number")
        query, _ = clean_text(query, 20_000)
        top_k = min(top_k, 100)
        clue = clue.strip() if clue and clue.strip() else None
        today = _date.today().isoformat()
        current = asks_for_current(query)
        period = query_time_range(query, today)
        if period and current and period[1] >= today:
            period = None  # "today"/"now" asks for the current state, not for a date
        base = (strip_time_words(query) if period else query).strip() or query
        stem = self.config.stemmer
        words = tokenize(base + (" " + clue if clue else ""), stem)
        terms = words + (_absolute_time_terms(query, words, stem) if period else [])
        # A clue, a period or the semantic blend re-weights candidates, so look deeper than
        # the answer; a question about "now" only reorders versions, which the fact
        # timeline finds.
        fetch = max(top_k * 3, 30) if (clue or period or self.semantic.active) else top_k
        d = self._descend(terms, fetch)
        root = self.store.root()
        result = SearchResult(query=query, node_reads=d.node_reads, visited=d.visited,
                              total_nodes=int(root.get("n_branches", 0)),
                              total_leaves=int(root["n_leaves"]), capped=d.capped)
        loader = self._loader(result)
        hits = []
        for c in d.candidates:
            e = c.entry
            hits.append(Hit(id=e["id"], score=c.score, domain=e.get("domain", ""),
                            date=e.get("date_from"), path=c.path, title=e.get("title", ""),
                            excerpt=e.get("excerpt", ""), source=e.get("source"),
                            tags=list(e.get("tags") or []), matched=c.matched, _loader=loader))
        self._check_timeline()
        annotate(hits, self.timeline, self._excerpt)
        value = None
        intent = fact_intent(query)
        if intent:
            found, value = fact_hits(intent, self.timeline, period,
                                     lambda i: self._hit_for(i, result))
            annotate(found, self.timeline, self._excerpt)
            ids = {h.id for h in found}
            hits = found + [h for h in hits if h.id not in ids]
        if value is None:
            rerank(hits, query=base, clue=clue, period=period, stemmer=stem, current=current,
                   idf=d.idf)
            if not period:
                hits = corrections_first(hits, self.timeline,
                                         lambda i: self._hit_for(i, result))
            hits = versions_together(hits, self.timeline, lambda i: self._hit_for(i, result),
                                     query=base, period=period, stemmer=stem, current=current)
        result.hits = hits
        finish(result, terms=terms, idf=d.idf, n_leaves=d.n_leaves, cfg=self.config,
               top_k=top_k, answer_value=value)
        found = self.semantic.query(base, max(top_k * 3, 30), [h.id for h in hits]) \
            if value is None and self.semantic.active else None
        if found:
            blend(result, hits, *found, lambda i: self._hit_for(i, result),
                  lambda new: annotate(new, self.timeline, self._excerpt), top_k, current,
                  lexical_coverage(hits, words, d.idf, d.n_leaves))
        if self.store.problems:
            result.notices.extend(self.store.problems)
            self.store.problems.clear()
        return result

    def ask(self, query: str, *, clue: str | None = None, top_k: int = 5,
            clue_provider: Callable[[SearchResult], str | None] | None = None,
            max_rounds: int | None = None) -> SearchResult:
        """Search, and while the answer is AMBIGUOUS ask ``clue_provider`` for a clue.

        The provider gets the ambiguous result and returns a clue, or None / "" to stop.
        Clues accumulate; each round cross-references query and clues. It never turns an
        ambiguous query into a confident answer on its own: only a clue can.
        """
        clues = [clue] if clue else []
        res = self.search(query, top_k, clue=" ".join(clues) or None)
        rounds = self.config.max_clue_rounds if max_rounds is None else max_rounds
        while res.status == "AMBIGUOUS" and clue_provider is not None and rounds > 0:
            nxt = clue_provider(res)
            if not nxt or not nxt.strip():
                break
            clues.append(nxt.strip())
            rounds -= 1
            res = self.search(query, top_k, clue=" ".join(clues))
        return res

    def _descend(self, terms: list[str], k: int):
        for attempt in (0, 1, 2):
            try:
                return descend(self.store, terms, k,
                               max_files=self.config.max_files_per_search)
            except DamagedFileError as exc:
                if attempt == 2:
                    raise
                if attempt == 0:
                    # Another process may have just rebuilt the tree: look again first.
                    self.store.clear_cache()
                else:
                    self._repair(str(exc), force=True)
        raise AssertionError("unreachable")

    def _hit_for(self, leaf_id: str, result: SearchResult) -> Hit | None:
        try:
            leaf = self.store.read_leaf(leaf_id)
        except (NotFoundError, DamagedFileError):
            return None
        result.leaf_reads += 1
        path = ["root"] + ([leaf.parent] if leaf.parent else []) + [leaf.id]
        return Hit(id=leaf.id, score=0.0, domain=leaf.domain, date=leaf.date, path=path,
                   title=clip(leaf.text, 80), excerpt=clip(leaf.text, 160), source=leaf.source,
                   tags=leaf.tags, _text=leaf.text)

    def _excerpt(self, leaf_id: str) -> str:
        try:
            return clip(self.store.read_leaf(leaf_id).text, 100)
        except (NotFoundError, DamagedFileError):
            return "(not available)"

    def _loader(self, result: SearchResult):
        def load(hit: Hit) -> str:
            result.leaf_reads += 1
            try:
                return self.store.read_leaf(hit.id, hit.domain).text
            except DamagedFileError as exc:
                # The leaf went to quarantine: re-derive the tree so nothing points at it.
                self._repair(str(exc), force=True)
                # Shown on this result (if read after the text) and on the next one.
                result.notices.extend(self.store.problems)
                return f"[unavailable: {exc}]"
            except NotFoundError as exc:
                return f"[unavailable: {exc}]"
        return load

    def get(self, leaf_id: str) -> Leaf:
        return self.store.read_leaf(leaf_id)

    def stats(self) -> dict[str, Any]:
        root = self._ensure_root()
        layers: Counter[int] = Counter(int(e["layer"]) for e in root["top"])
        depth = max((int(e["layer"]) for e in root["top"]), default=0)
        return {
            "path": str(self.path),
            "leaves": root["n_leaves"],
            "branches": root.get("n_branches", 0),
            "depth": depth,
            "top_nodes": len(root["top"]),
            "top_by_layer": {str(k): v for k, v in sorted(layers.items())},
            "domains": {d: v["n_leaves"] for d, v in sorted(root["domains"].items())},
            "avg_leaf_terms": round(root["total_len"] / root["n_leaves"], 1)
            if root["n_leaves"] else 0,
            "config": self.config.to_dict(),
        }

    def tree(self, depth: int | None = None) -> dict[str, Any]:
        """The hierarchy from the trunk down (``depth`` levels of branches), as nested dicts."""
        root = self._ensure_root()

        def node(entry: dict[str, Any], level: int) -> dict[str, Any]:
            out = {k: entry.get(k) for k in ("id", "layer", "domain", "title", "n_leaves",
                                             "date_from", "date_to", "keywords")}
            if int(entry["layer"]) > 0 and (depth is None or level < depth):
                br, _ = self.store.branch(entry["id"], int(entry["layer"]))
                out["children"] = [node(c, level + 1) for c in br.children]
            return out

        return {"id": "root", "leaves": root["n_leaves"],
                "children": [node(e, 1) for e in root["top"]]}

    def walk(self) -> Iterator[tuple[list[str], dict[str, Any]]]:
        """Every leaf entry reachable from the trunk, with its path (root ... leaf id)."""
        root = self._ensure_root()
        stack: list[tuple[list[str], dict[str, Any]]] = [(["root"], e) for e in root["top"]]
        while stack:
            path, entry = stack.pop()
            if int(entry["layer"]) == 0:
                yield path + [entry["id"]], entry
                continue
            br, _ = self.store.branch(entry["id"], int(entry["layer"]))
            stack.extend((path + [br.id], c) for c in br.children)

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

    def mark_outdated(self, old_id: str, new_id: str) -> dict[str, Any]:
        """Flag memory ``old_id`` as corrected by ``new_id`` (both must exist).

        Recorded in the timeline and in the old leaf's own header, so the link survives
        the loss of every derived file. The old memory stays, as history.
        """
        if old_id == new_id:
            raise InputError("a memory cannot replace itself")
        old = self.store.read_leaf(old_id)
        new = self.store.read_leaf(new_id)
        with self._writing("mark_outdated"):
            self.timeline.mark_outdated(old_id, new_id, (new.date or utcnow())[:10])
            old = self.store.read_leaf(old_id)
            if old.extra.get("superseded_by") != new_id or "superseded_implicitly" in old.extra:
                old.extra["superseded_by"] = new_id
                old.extra.pop("superseded_implicitly", None)
                self.store.write_leaf(old, new=False)
            after_write(self.store, f"outdated by {new_id}", [old_id])
        return {"old": old_id, "new": new_id, "old_excerpt": clip(old.text, 100),
                "new_excerpt": clip(new.text, 100)}

    def record_fact(self, subject: str, attribute: str, value: str, date: str,
                    source: str | None = None) -> str | None:
        """Record a fact directly (the reliable path); returns a contradiction notice."""
        fact = Fact(subject=subject, attribute=attribute, value=value,
                    date=_parse_date(date), source=source)
        with self._writing("record_fact"):
            notice = self.timeline.record(fact)
            after_write(self.store, f"fact {subject} {attribute} = {value} ({fact.date})")
        return str(notice) if notice else None

    def facts(self, subject: str | None = None) -> list[Fact]:
        self.timeline.refresh()
        return self.timeline.facts(subject)

    def conflicts(self, subject: str | None = None) -> list[Any]:
        self.timeline.refresh()
        return self.timeline.conflicts(subject)

    def notices(self) -> list[str]:
        return [str(c) for c in self.conflicts()]

    def active_state(self) -> dict[str, Fact]:
        self.timeline.refresh()
        return self.timeline.active_state()

    def state_at(self, date: str) -> dict[str, Fact]:
        self.timeline.refresh()
        return self.timeline.state_at(_parse_date(date))


# ---------------------------------------------------------------------- helpers
def default_home() -> Path:
    return Path(os.environ.get("IHMT_HOME") or Path.home() / ".ihmt").expanduser()


def clean_text(content: Any, max_bytes: int) -> tuple[str, list[str]]:
    """Validate text for storage: a str, not empty, within the size cap, encodable.

    Lone surrogates (unencodable halves of a UTF-16 pair) become U+FFFD and NUL bytes are
    dropped, with a warning, instead of crashing the save.
    """
    if not isinstance(content, str):
        raise InputError(f"content must be text, not {type(content).__name__}")
    warnings: list[str] = []
    try:
        size = len(content.encode("utf-8"))
    except UnicodeEncodeError:
        content = "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in content)
        size = len(content.encode("utf-8"))
        warnings.append("lone surrogate characters were replaced by U+FFFD")
    if "\x00" in content:
        content = content.replace("\x00", "")
        warnings.append("NUL characters were removed")
    if size > max_bytes:
        raise InputError(
            f"content is {size:,} bytes, over the {max_bytes:,}-byte limit for one save; "
            "split it, or raise max_input_bytes in ihmt.config.json"
        )
    if not content.strip():
        raise InputError("nothing to save: the content is empty or only whitespace")
    return content, warnings


def read_text_file(path: Path, max_bytes: int) -> str:
    """A UTF-8 text file's content, or InputError saying why it cannot be ingested."""
    if not path.exists():
        raise InputError(f"{path}: no such file")
    if not path.is_file():
        raise InputError(f"{path}: not a regular file")
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise InputError(f"{path}: {size:,} bytes, over the {max_bytes:,}-byte limit")
        raw = path.read_bytes()
    except PermissionError as exc:
        raise InputError(f"{path}: cannot be read (permission denied)") from exc
    except OSError as exc:
        raise InputError(f"{path}: cannot be read ({exc.strerror})") from exc
    if b"\x00" in raw[:8192]:
        raise InputError(f"{path}: binary file, skipped")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not valid UTF-8 (byte {exc.start}); convert it first") from exc


SKIP_DIRS = {".git", ".hg", ".svn", "node_modules", ".venv", "venv", "__pycache__", "build",
             "dist", ".tox", ".mypy_cache", ".pytest_cache", ".ruff_cache", "ihmt_memory"}


def expand_paths(paths: Iterable[str | os.PathLike[str]]) -> Iterator[Path | tuple[Path, str]]:
    for raw in paths:
        p = Path(raw).expanduser()
        if not p.exists():
            yield (p, "no such file or folder")
        elif p.is_dir():
            for sub in sorted(p.rglob("*")):
                if any(part in SKIP_DIRS or part.startswith(".") for part in
                       sub.relative_to(p).parts):
                    continue
                if sub.is_file():
                    yield sub
        else:
            yield p


_YEAR = re.compile(r"(?:1[6-9]|2[0-9])[0-9]{2}")


def _absolute_time_terms(query: str, kept: list[str], stem: str) -> list[str]:
    """The words of an absolute time the query names ("summer 2021"), to match as words.

    The period itself becomes a preference, but a memory may *mention* it ("we went to
    Indiana in summer 2021", saved a year later), and then those words are the match.
    Relative times ("last May", "el verano pasado") stay out: their words would only
    match by accident.
    """
    have = set(kept)
    removed = [t for t in tokenize(query, stem) if t not in have]
    if not any(_YEAR.fullmatch(t) for t in removed):
        return []
    return list(dict.fromkeys(removed))


def _parse_date(value: Any) -> str:
    if not isinstance(value, str):
        raise InputError(f"a date must be text like 2026-02-03, not {type(value).__name__}")
    return parse_date_arg(value)


def _facts_of(leaf: Leaf) -> list[Fact]:
    """The facts and statements a dated, non-code leaf states (code states none)."""
    if not leaf.date or leaf.data_type == "CODE":
        return []
    return (extract_facts(leaf.text, leaf.date, source=leaf.id)
            + statement_facts(leaf.text, leaf.date, leaf.id))


def _leaf_facts(leaf: Leaf, facts: list[Fact], marks: list[tuple[str, str, str]]) -> None:
    """What a leaf contributes to the timeline: its facts, and a correction it records."""
    facts.extend(_facts_of(leaf))
    newer = leaf.extra.get("superseded_by")
    if isinstance(newer, str) and not leaf.extra.get("superseded_implicitly"):
        # (an inferred link is derived again from the statements: _link_versions)
        marks.append((leaf.id, newer, (leaf.date or leaf.saved_at or "")[:10]))


def _clean_tags(tags: Any) -> list[str]:
    """A list of labels; one label may be given as a plain string."""
    if tags is None:
        return []
    if isinstance(tags, str):
        tags = [tags]
    if not isinstance(tags, (list, tuple, set, frozenset)):
        raise InputError(f"tags must be a list of text labels, not {type(tags).__name__}")
    return [_clean_tag(t) for t in tags]


def _check_optional_text(value: Any, what: str) -> None:
    if value is not None and not isinstance(value, str):
        raise InputError(f"{what} must be text, not {type(value).__name__}")


def _clean_tag(tag: Any) -> str:
    if not isinstance(tag, str) or not tag.strip():
        raise InputError("a tag must be non-empty text")
    tag = "".join(c for c in tag.strip() if c.isprintable())
    if len(tag) > 100:
        raise InputError("a tag is limited to 100 characters")
    return tag


def _copy_root(root: dict[str, Any]) -> dict[str, Any]:
    """A copy safe to mutate: readers in other threads keep the cached original."""
    out = dict(root)
    out["top"] = list(root["top"])
    out["domains"] = {k: dict(v) for k, v in root["domains"].items()}
    return out
