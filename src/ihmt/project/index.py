"""A private, always-current index of one project's code: one leaf per symbol.

Why a separate store per project: code changes under the agent's feet, so the index is a
derived cache that must be brought up to date before every answer, and that must never mix
with the long-term memory (which is about decisions, not about the current text of files).

How it stays current cheaply (``sync``, run by every call):

* the project is listed (``git ls-files`` in a git work tree, else a walk that honours
  ``.gitignore``), vendored and generated folders skipped;
* a file whose size and mtime match the manifest is trusted without being opened; only a
  file whose size or mtime moved is hashed (SHA-256), and only a file whose hash moved is
  re-chunked. Like git, a file modified in the same clock tick as the last scan is hashed
  once more, so a quick edit that keeps size and mtime is still seen;
* leaves are written in path order and grouped into branches at *content-defined*
  boundaries (a leaf or branch ends a group when its id hash says so): an edit changes the
  ids of the edited file's leaves, which changes the few groups around them and their
  ancestors, while every other branch keeps its id and its file. Cost of a sync after one
  edit: that file's symbols, a handful of neighbouring leaves, O(log n) branches;
* the manifest (``state/project_manifest.json``) keeps, per file, size, mtime, hash and
  its symbols (name, kind, line span, tokens, leaf id), so the map of a project is
  answered without opening a leaf.

Reads rank every symbol by its described fields (:mod:`ihmt.project.rank`: name words,
docstrings, calls, owner, code, generic equivalences), add a share of
:meth:`ihmt.memory.Memory.search` (the exact BM25 descent over the leaves) and, with the
semantic extra, of a vector per symbol (:mod:`ihmt.project.vectors`), then apply the
code-aware boosts: the file a query names first, the symbol a query spells, tests only
when asked for, import blocks last.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from ..config import Config
from ..errors import DamagedFileError, InputError, NotFoundError, StoreError
from ..ingest.languages import code_domain, language_for
from ..ingest.split import split
from ..memory import Memory, default_home
from ..model import Chunk, Leaf
from ..store import files
from ..store.leaves import checksum
from ..store.store import Store, utcnow
from ..text import count_tokens, term_counts, tokenize, words
from . import vectors
from .listing import (  # noqa: F401 - re-exported: the listing's home used to be here
    SKIP_DIRS,
    TEST_DIRS,
    is_test_path,
    list_source_files,
    parse_gitignore,
)
from .rank import (  # noqa: F401 - re-exported for the faces and the benchmark
    TIE_MARGIN,
    CodeAnswer,
    CodeHit,
    Ranked,
    SymbolRanker,
    _boost,
    _file_stems,
    _named_files,
    _names_file,
    _norm_subpath,
    _under,
    render_answer,
    spelled_words,
    symbol_fields,
)
from .roots import is_within, read_confined
from .tree import BRANCH_DOMAIN, build_tree  # noqa: F401 - BRANCH_DOMAIN re-exported

log = logging.getLogger(__name__)

MANIFEST_NAME = "project_manifest.json"
MANIFEST_VERSION = 3  # 2: each symbol carries its described fields ('f'); 3: literal words
INDEX_CONFIG: dict[str, Any] = {"code_chunk_mode": "symbol", "branch_factor": 8}
DEFAULT_MAX_FILE_BYTES = 1_000_000
RACY_NS = 2_000_000_000  # files modified this close to a scan are hashed again next time
SCOPES = ("main", "test", "all")
CLOSER = 1.5  # how much better a symbol of the other scope must be to be mentioned
BM25_POOL = 40
BM25_SHARE = 0.3  # weight of plain BM25 beside the described fields (which weigh 1)
MIN_COVER = 0.2  # share of the query's weight the best symbol must hold to be an answer
# A best symbol whose name the query says this well (rank.SymbolRanker.name_match) is the
# answer despite close rivals whose names the query says at most half as well.
NAME_CLEAR = 0.5


def default_projects_dir() -> Path:
    """``$IHMT_PROJECTS_DIR``, else ``$IHMT_HOME/ihmt_projects`` (IHMT_HOME: ~/.ihmt)."""
    env = os.environ.get("IHMT_PROJECTS_DIR")
    return Path(env).expanduser() if env else default_home() / "ihmt_projects"


def store_name(root: Path) -> str:
    """Folder name of a project's index: readable (the folder name) and unique (a hash of
    the resolved root), so two checkouts named ``app`` never share an index."""
    h = hashlib.sha256(str(root).encode("utf-8", "surrogateescape")).hexdigest()[:12]
    try:
        name = files.safe_name(root.name or "root", "project name", max_len=40)
    except InputError:
        name = "project"
    return f"{name}-{h}"


# ---------------------------------------------------------------------- results
@dataclass
class SyncReport:
    """What one sync did; ``hashed`` counts files opened, ``reindexed`` files re-chunked."""

    files: int = 0
    unchanged: int = 0
    hashed: int = 0
    reindexed: int = 0
    added: int = 0
    removed: int = 0
    skipped: list[str] = field(default_factory=list)
    leaves_written: int = 0
    leaves_deleted: int = 0
    leaves_read: int = 0
    branches_written: int = 0
    branches_kept: int = 0
    branches_deleted: int = 0
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# ---------------------------------------------------------------------- the index
class ProjectIndex:
    """The per-project store plus its manifest. Safe across threads and processes."""

    def __init__(self, root: str | os.PathLike[str], projects_dir: str | os.PathLike[str]
                 | None = None, *, max_file_bytes: int = DEFAULT_MAX_FILE_BYTES) -> None:
        r = Path(root).expanduser()
        try:
            self.root = r.resolve(strict=True)
        except (OSError, RuntimeError) as exc:
            raise NotFoundError(f"project folder {r} does not exist") from exc
        if not self.root.is_dir():
            raise InputError(f"{r} is not a folder: give the project's root folder")
        base = Path(projects_dir).expanduser() if projects_dir else default_projects_dir()
        self.path = base.absolute() / store_name(self.root)
        self.max_file_bytes = max_file_bytes
        self._mutex = threading.RLock()
        self.store = self._open_store()
        self.mem = Memory(self.store)
        self.mem._ensure_root()
        self._manifest: dict[str, Any] = {}
        self._manifest_sig: tuple[int, int] | None = None
        self._by_leaf: dict[str, tuple[str, dict[str, Any]]] = {}
        self.last_sync: SyncReport | None = None
        self._ranker: tuple[tuple[int, int] | None, SymbolRanker] | None = None
        # With the semantic extra: a vector per symbol beside the lexical ranking.
        self.use_vectors = vectors.available()
        self._vectors: vectors.SymbolVectors | None = None

    def _open_store(self) -> Store:
        try:
            if (self.path / "root.json").exists():
                return Store.open(self.path)
            store = Store.create(self.path, Config.from_dict(INDEX_CONFIG))
        except OSError as exc:
            raise StoreError(f"cannot create the project index at {self.path}: {exc}") from exc
        files.write_json(store.state_dir / "project.json",
                         {"root": str(self.root), "created_at": utcnow()}, indent=2)
        return store

    @property
    def manifest_path(self) -> Path:
        return self.store.state_dir / MANIFEST_NAME

    # ------------------------------------------------------------------ manifest
    def _load_manifest(self) -> dict[str, Any]:
        """The manifest, re-read only when another process rewrote it."""
        try:
            st = os.stat(self.manifest_path)
            sig = (st.st_mtime_ns, st.st_size)
        except OSError:
            sig = None
        if sig is not None and sig == self._manifest_sig:
            return self._manifest
        data: dict[str, Any] = {}
        if sig is not None:
            try:
                data = files.read_json(self.manifest_path)
                old = data.get("version") if isinstance(data, dict) else None
                if isinstance(old, int) and 0 < old < MANIFEST_VERSION:
                    # Written by an older IHMT: not damage, just a format to rebuild.
                    log.info("project manifest %s is version %d; re-indexing for version %d",
                             self.manifest_path, old, MANIFEST_VERSION)
                    data = {}
                elif not isinstance(data, dict) or old != MANIFEST_VERSION \
                        or not isinstance(data.get("files"), dict):
                    raise ValueError("unexpected layout")
            except (OSError, ValueError) as exc:
                log.warning("project manifest %s is damaged (%s); re-indexing",
                            self.manifest_path, exc)
                data = {}
        if not data:
            data = {"version": MANIFEST_VERSION, "root": str(self.root), "files": {},
                    "scanned_at_ns": 0, "fresh": True}
        self._manifest, self._manifest_sig = data, sig
        self._by_leaf = {s["leaf"]: (p, s) for p, f in data["files"].items()
                         for s in f["symbols"]}
        return data

    def _save_manifest(self, data: dict[str, Any]) -> None:
        data.pop("fresh", None)
        files.write_json(self.manifest_path, data)
        st = os.stat(self.manifest_path)
        self._manifest, self._manifest_sig = data, (st.st_mtime_ns, st.st_size)
        self._by_leaf = {s["leaf"]: (p, s) for p, f in data["files"].items()
                         for s in f["symbols"]}

    # ------------------------------------------------------------------ sync
    def sync(self) -> SyncReport:
        """Bring the index in line with the files on disk; cheap when nothing moved."""
        t0 = time.perf_counter()
        rep = SyncReport()
        with self._mutex, self.store.lock.hold():
            man = self._load_manifest()
            full = bool(man.get("fresh"))
            old_files: dict[str, Any] = man["files"]
            prev_scan = int(man.get("scanned_at_ns", 0))
            scan_ns = time.time_ns()
            listed = list_source_files(self.root)
            rep.files = len(listed)
            new_files: dict[str, Any] = {}
            fresh: dict[str, tuple[Leaf, Counter[str]]] = {}
            dirty = full
            for rel in listed:
                rec = old_files.get(rel)
                out = self._check(rel, rec, prev_scan, rep, fresh)
                if out is None:
                    if rec is not None:
                        dirty = True
                    continue
                new_files[rel] = out
                if out is not rec:
                    dirty = True
            rep.removed = sum(1 for p in old_files if p not in new_files)
            if not dirty and rep.removed == 0:
                rep.seconds = round(time.perf_counter() - t0, 4)
                self.last_sync = rep
                return rep
            keep = {s["leaf"] for f in new_files.values() for s in f["symbols"]}
            stale = {s["leaf"] for f in old_files.values() for s in f["symbols"]} - keep
            for leaf_id in sorted(stale):
                self._delete_leaf(leaf_id, rep)
            if full:
                for p in list(self.store.iter_leaf_paths()):
                    if p.stem not in keep:
                        p.unlink(missing_ok=True)
                        rep.leaves_deleted += 1
            order = [s["leaf"] for rel in sorted(new_files) for s in new_files[rel]["symbols"]]
            build_tree(self.store, self.mem.consolidator, order, fresh, rep, full=full,
                       leaf_terms=_leaf_terms)
            self._save_manifest({"version": MANIFEST_VERSION, "root": str(self.root),
                                 "files": new_files, "scanned_at_ns": scan_ns})
        rep.seconds = round(time.perf_counter() - t0, 4)
        self.last_sync = rep
        log.info("synced %s: %s", self.root, rep.to_dict())
        return rep

    def _check(self, rel: str, rec: dict[str, Any] | None, prev_scan: int, rep: SyncReport,
               fresh: dict[str, tuple[Leaf, Counter[str]]]) -> dict[str, Any] | None:
        """The manifest record of ``rel`` (the old one when unchanged) or None to drop it."""
        path = self.root / rel
        try:
            st = path.stat()
        except OSError:
            return None
        if (rec is not None and rec["size"] == st.st_size and rec["mtime_ns"] == st.st_mtime_ns
                and st.st_mtime_ns < prev_scan - RACY_NS):
            rep.unchanged += 1
            return rec
        if st.st_size > self.max_file_bytes:
            rep.skipped.append(f"{rel}: {st.st_size:,} bytes, over the index limit")
            return None
        # The bytes indexed are those of the file checked inside the project: a file that
        # became a link to somewhere else since the listing is not opened through it.
        try:
            real = path.resolve(strict=True)
            if not is_within(real, self.root):
                rep.skipped.append(f"{rel}: a symlink leading outside the project")
                return None
            raw, st = read_confined(self.root, real, self.max_file_bytes)
        except (InputError, NotFoundError, OSError, RuntimeError) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            rep.skipped.append(f"{rel}: cannot be read ({why})")
            return None
        if st.st_size > self.max_file_bytes or len(raw) > self.max_file_bytes:
            rep.skipped.append(f"{rel}: {st.st_size:,} bytes, over the index limit")
            return None
        rep.hashed += 1
        sha = hashlib.sha256(raw).hexdigest()
        if rec is not None and rec["sha256"] == sha:
            rep.unchanged += 1
            return {**rec, "size": st.st_size, "mtime_ns": st.st_mtime_ns}
        if b"\x00" in raw[:8192]:
            rep.skipped.append(f"{rel}: binary")
            return None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            rep.skipped.append(f"{rel}: not UTF-8")
            return None
        rep.reindexed += 1
        if rec is None:
            rep.added += 1
        symbols = self._ingest(rel, text, rep, fresh)
        return {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": sha,
                "tokens": count_tokens(text), "lines": text.count("\n")
                + (0 if text.endswith("\n") or not text else 1),
                "symbols": symbols}

    def _ingest(self, rel: str, text: str, rep: SyncReport,
                fresh: dict[str, tuple[Leaf, Counter[str]]]) -> list[dict[str, Any]]:
        """Chunk one file into symbol leaves; write the ones not already on disk."""
        lang = language_for(rel)
        assert lang is not None
        domain = code_domain(lang)
        try:
            chunks = split(text, "CODE", self.store.config, language=lang, mode="symbol")
        except Exception as exc:  # noqa: BLE001 - one unparsable file must not stop the index
            log.warning("%s could not be split into symbols (%s); indexed whole", rel, exc)
            n = text.count("\n") + (0 if text.endswith("\n") else 1)
            chunks = [Chunk(text=text, start_line=1, end_line=max(1, n), kind="other")]
        now = utcnow()
        symbols: list[dict[str, Any]] = []
        for ch in chunks:
            if not ch.text.strip():
                continue
            leaf_id = f"L-{domain}-" + files.digest(domain, rel, str(ch.start_line), ch.text)
            extra = dict(ch.extra)
            extra["kind"] = ch.kind
            if ch.name:
                extra["name"] = ch.name
            if ch.oversized:
                extra["oversized"] = True
            tags = list(dict.fromkeys([*(t for t in ch.tags if isinstance(t, str)),
                                       f"file:{rel}"]))
            leaf = Leaf(id=leaf_id, text=ch.text, domain=domain, data_type="CODE", date=None,
                        saved_at=now, tags=tags, parent=None,
                        span={"start_line": ch.start_line, "end_line": ch.end_line},
                        checksum=checksum(ch.text), source=rel, extra=extra)
            if leaf_id not in fresh:
                fresh[leaf_id] = (leaf, _leaf_terms(leaf, self.store.config.stemmer))
                if not self.store.leaf_exists(leaf_id, domain):
                    self.store.write_leaf(leaf, durable=False)
                    rep.leaves_written += 1
            symbols.append({"name": ch.name or "", "kind": ch.kind, "start": ch.start_line,
                            "end": ch.end_line, "tokens": count_tokens(ch.text),
                            "leaf": leaf_id,
                            "f": symbol_fields(ch.text, ch.name or "", self.store.config.stemmer,
                                               rel)})
        return symbols

    def _delete_leaf(self, leaf_id: str, rep: SyncReport) -> None:
        try:
            self.store.leaf_path(leaf_id).unlink(missing_ok=True)
            rep.leaves_deleted += 1
        except (OSError, NotFoundError) as exc:
            log.warning("could not delete stale leaf %s: %s", leaf_id, exc)

    # ------------------------------------------------------------------ map
    def project_map(self, detail: str = "files", subpath: str = "") -> str:
        """One line per file with its size in tokens; with ``detail="symbols"`` each symbol
        indented with its kind and line span. Built from the manifest alone."""
        if detail not in ("files", "symbols"):
            raise InputError("detail must be 'files' or 'symbols'")
        prefix = _norm_subpath(subpath)
        self.sync()
        man = self._load_manifest()
        chosen = [(p, f) for p, f in sorted(man["files"].items()) if _under(p, prefix)]
        if not chosen:
            where = f" under {prefix!r}" if prefix else ""
            return f"NOT FOUND: no source files{where} in {self.root}."
        total = sum(int(f["tokens"]) for _, f in chosen)
        out = [f"{self.root.name}{'/' + prefix if prefix else ''}: {len(chosen)} files, "
               f"{total:,} tok"]
        for p, f in chosen:
            out.append(f"{p} ({f['tokens']:,} tok)")
            if detail == "symbols":
                for s in f["symbols"]:
                    if s["name"]:
                        out.append(f"  {s['name']} {s['kind']} {s['start']}-{s['end']}")
        return "\n".join(out)

    # ------------------------------------------------------------------ find
    def ranker(self) -> SymbolRanker:
        """The symbol ranker of the current manifest (rebuilt only when it changed)."""
        man = self._load_manifest()
        if self._ranker is None or self._ranker[0] != self._manifest_sig \
                or self._manifest_sig is None:
            self._ranker = (self._manifest_sig, SymbolRanker(man, self.store.config.stemmer))
        return self._ranker[1]

    def _similarities(self, text: str) -> dict[str, float]:
        """Cosine of ``text`` with every symbol (vectors brought up to date first)."""
        if self._vectors is None:
            self._vectors = vectors.SymbolVectors(self.store.state_dir)
        order = [s["leaf"] for f in self._manifest["files"].values() for s in f["symbols"]]

        def text_of(leaf_id: str) -> str:
            rel, sym = self._by_leaf[leaf_id]
            try:
                code = self.store.read_leaf(leaf_id).text
            except (NotFoundError, DamagedFileError):
                code = ""
            return vectors.described(sym["name"], rel, code)

        with self._mutex:
            self._vectors.update(order, text_of)
        return self._vectors.scores(text)

    def locate(self, query: str, scope: str = "main", subpath: str = "",
               clue: str | None = None, *, sync: bool = True) -> CodeAnswer:
        """Candidates for ``query`` ranked for code, with a FOUND/AMBIGUOUS/NOT_FOUND verdict."""
        if not isinstance(query, str) or not query.strip():
            raise InputError("the query is empty: name the function, class or behaviour")
        if scope not in SCOPES:
            raise InputError(f"scope must be one of {', '.join(SCOPES)}, not {scope!r}")
        prefix = _norm_subpath(subpath)
        if sync:
            self.sync()
        man = self._load_manifest()
        stem = self.store.config.stemmer
        named_files, plain = _named_files(query)
        q_terms = list(dict.fromkeys(tokenize(plain, stem)))
        ans = CodeAnswer(query=query, status="NOT_FOUND")
        if not q_terms and not named_files:
            ans.message = "the query has no searchable words; name a function, class or file"
            return ans
        ranker = self.ranker()
        text = plain if q_terms else " ".join(named_files)
        ranked = ranker.rank(text)
        q_words = {c.word for c in ranker.concepts(text)}
        c_words = {c.word for c in ranker.concepts(clue)} if clue else set()
        if clue:
            got = {(r.rel, r.sym["leaf"]): r for r in ranked}
            for r in ranker.rank(clue):
                have = got.setdefault((r.rel, r.sym["leaf"]),
                                      Ranked(r.rel, r.sym, 0.0, 0.0, set()))
                have.named = max(have.named, r.named)  # the clue may say the name
            ranked = list(got.values())
        # Plain BM25 over the whole symbol text adds a little: it is good at code words.
        res = self.mem.search(text, top_k=BM25_POOL)
        bm = {h.id: h.score for h in res.hits if h.id in self._by_leaf}
        top_r = max((r.score for r in ranked), default=0.0) or 1.0
        top_b = max(bm.values(), default=0.0) or 1.0
        have = {r.sym["leaf"] for r in ranked}
        for leaf_id in bm:
            if leaf_id not in have:
                rel, sym = self._by_leaf[leaf_id]
                ranked.append(Ranked(rel, sym, 0.0, 0.0, set()))
        for r in ranked:
            r.score = r.score / top_r + BM25_SHARE * bm.get(r.sym["leaf"], 0.0) / top_b
        if self.use_vectors:
            ranked = vectors.blend(ranked, self._similarities(text), self._by_leaf,
                                   lambda rel, sym: Ranked(rel, sym, 0.0, 0.0, set()))
        raw_words = {w.lower() for w in words(query)} | {w.lower() for w in words(clue or "")}
        stems = _file_stems(man)
        spelled = spelled_words(plain) | spelled_words(clue or "")
        clue_words = {w.lower() for w in words(clue or "")}
        in_clue = {(r.rel, r.sym["leaf"]) for r in ranker.rank(clue)} if clue else set()
        hits: list[CodeHit] = []
        excluded: list[CodeHit] = []
        covers: dict[str, float] = {}
        said: dict[str, float] = {}
        for r in ranked:
            rel, sym = r.rel, r.sym
            if not _under(rel, prefix):
                continue
            test = is_test_path(rel)
            score = r.score * _boost(rel, sym, named_files, raw_words, stems, spelled,
                                     r.named)
            if clue:
                # The clue may name a folder or file ('b', 'billing') rather than a word.
                path_words = {p.lower() for p in PurePosixPath(rel).with_suffix("").parts}
                in_q = bool(r.matched & q_words) or not q_words
                in_c = (rel, sym["leaf"]) in in_clue or bool(clue_words & path_words) \
                    or bool(r.matched & c_words)
                score = max(score, 1e-6) * (1.6 if (in_q and in_c) else 0.7)
            hit = CodeHit(path=rel, name=sym["name"], kind=sym["kind"],
                          start=int(sym["start"]), end=int(sym["end"]),
                          score=round(score, 4), leaf=sym["leaf"], tokens=int(sym["tokens"]),
                          is_test=test)
            covers[hit.leaf] = r.cover
            said[hit.leaf] = r.named
            if (scope == "main" and test) or (scope == "test" and not test):
                excluded.append(hit)
            else:
                hits.append(hit)
        hits.sort(key=lambda c: (-c.score, c.path, c.start))
        excluded.sort(key=lambda c: (-c.score, c.path, c.start))
        ans.hits = hits
        other = "test" if scope == "main" else "main"
        retry = "all" if scope == "main" else "main"
        if excluded and (not hits or excluded[0].score > hits[0].score * CLOSER):
            ans.message = (f"a {'closer ' if hits else ''}match is in {other} code: "
                           f"{excluded[0].line()}; call again with scope='{retry}' for it")
        best_any = max([*hits[:1], *excluded[:1]], key=lambda c: c.score, default=None)
        if not named_files and (best_any is None or covers[best_any.leaf] < MIN_COVER):
            # Too little of the query's weight is in any symbol (a word no code contains,
            # or only a common one matched): closest lines are shown, not an answer.
            ans.status = "NOT_FOUND"
            ans.message = (f"no code in {self.root.name} matches {query!r} (the best symbol "
                           "holds too little of the query's words)")
            return ans
        if not hits:
            where = f" under {prefix!r}" if prefix else ""
            hint = f"; {ans.message}" if ans.message else ""
            ans.message = (f"no {'test ' if scope == 'test' else ''}code{where} in "
                           f"{self.root.name} matches {query!r}{hint}")
            return ans
        best = hits[0]
        if named_files and not any(_names_file(c.path, named_files) for c in hits):
            ans.message = (f"no symbol in a file named {', '.join(named_files)} matches; "
                           "these are the closest elsewhere")
        note = ans.message
        rivals = [c for c in hits[1:] if c.score >= best.score * (1.0 - TIE_MARGIN)]
        if said[best.leaf] >= NAME_CLEAR and all(said[c.leaf] <= said[best.leaf] / 2
                                                 for c in rivals):
            rivals = []  # the question says the best one's name, not its rivals'

        if rivals:
            ans.status = "AMBIGUOUS"
            ans.message = (f"{1 + len(rivals)} symbols match {query!r} about equally well; "
                           "call again with clue='<file, class or words from the code>'"
                           + (f" ({note})" if note else ""))
            return ans
        ans.status = "FOUND"
        ans.code = self._code_of(best)
        return ans

    def _code_of(self, hit: CodeHit) -> str:
        """The symbol's text: its leaf (written by this sync from the current file)."""
        try:
            return self.store.read_leaf(hit.leaf).text
        except (NotFoundError, DamagedFileError):
            real = (self.root / hit.path).resolve()
            raw, _ = read_confined(self.root, real, self.max_file_bytes)  # refuses a link out
            lines = raw.decode("utf-8", errors="replace").splitlines(True)
            return "".join(lines[hit.start - 1:hit.end])

    def find_code(self, query: str, scope: str = "main", subpath: str = "",
                  clue: str | None = None, max_tokens: int = 1500) -> str:
        """Only the symbol that answers ``query``, as ``file:first-last`` and its code."""
        if not isinstance(max_tokens, int) or max_tokens < 50:
            raise InputError("max_tokens must be a whole number of at least 50")
        return render_answer(self.locate(query, scope, subpath, clue), max_tokens)


# ---------------------------------------------------------------------- helpers
def _leaf_terms(leaf: Leaf, stemmer: str) -> Counter[str]:
    """Index terms of a symbol leaf: its code plus its file's path words and its full name,
    so 'reserveStock in InventoryService' finds the method even when the class name is not
    inside the method's own text."""
    extra_words: list[str] = []
    if leaf.source:
        extra_words.extend(PurePosixPath(leaf.source).with_suffix("").parts)
    name = leaf.extra.get("name") if isinstance(leaf.extra, dict) else None
    if isinstance(name, str) and name:
        extra_words.append(name.replace(".", " "))
    tf = term_counts(leaf.text, stemmer)
    for t in set(tokenize(" ".join(extra_words), stemmer)):
        tf[t] += 1
    return tf
