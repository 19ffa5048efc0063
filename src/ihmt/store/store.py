"""The plain-file layout of one memory folder and every read and write of it.

::

    ihmt_memory/
      root.json               the trunk: counters, domains, the unconsolidated top nodes
      layer_0/<domain>/*.txt  leaves (the source of truth)
      layers/<N>/*.json       branches: per-child summaries and routing statistics
                              (ihmt.store.branch_file; a store written before it has
                              files of the first format, read as they are until rewritten)
      state/catalog.jsonl     append-only journal: one line per leaf and branch written
                              (a forgotten one gets a tombstone line; rebuild compacts it)
      state/facts.jsonl       the fact timeline (see ihmt.timeline)
      state/aside/            derived files found in a shape the store cannot use (a
                              folder, an unreadable file), moved here and rebuilt
      quarantine/             leaves whose header could not be parsed, kept verbatim
      ihmt.config.json

Costs: a save writes its leaf, appends one catalog line and rewrites ``root.json``, whose
size depends on the number of unconsolidated nodes (at most ``branch_factor - 1`` per
layer and domain), not on the number of memories. Branch files change only when a
forget takes a memory out of them, and a forget gives the trunk a new ``epoch``: a
long-running process caches them, re-reads ``root.json`` only when its stat signature
changes, and drops its cached branches when the epoch is another
(:mod:`ihmt.store.branches`).
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..config import CONFIG_NAME, Config
from ..errors import (
    DamagedFileError,
    NotFoundError,
    StoreError,
    UnreadableFileError,
    from_os_error,
)
from ..model import Leaf
from . import branch_cache, files
from .branch import (  # noqa: F401 - re-exported: the tree and search build on them
    BAND_BASE,
    BAND_BITS,
    MASK_BITS,
    Branch,
    BranchBase,
    best_common,
    fold_mask,
    length_band,
    pack_masks,
)
from .branches import BranchFiles
from .intent import IntentLog
from .leaves import format_leaf, read_leaf
from .lock import WriteLock

log = logging.getLogger(__name__)

STORE_DIRNAME = "ihmt_memory"
ROOT_VERSION = 1


def utcnow() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def saved_stamp() -> str:
    """A leaf's ``saved_at``: UTC to the millisecond, so that two memories of one day
    saved in the same second are still told apart in order (the later version of a fact
    said twice in a row is the later save). Older leaves hold whole seconds; both sort
    as strings."""
    now = datetime.now(timezone.utc)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"


def resolve_store_path(path: str | os.PathLike[str]) -> Path:
    """The store folder for a user-given path: the path itself when it is (or is named like)
    a store, otherwise ``<path>/ihmt_memory``."""
    p = Path(path).expanduser()
    try:
        if p.name == STORE_DIRNAME or (p / "root.json").exists() or (p / CONFIG_NAME).exists():
            return p.absolute()
        spath = (p / STORE_DIRNAME).absolute()
        spath.exists()  # a name too long, a loop of links ...: said here, in one line
    except OSError as exc:
        raise from_os_error(exc, "opening the memory folder") from exc
    return spath


def empty_root() -> dict[str, Any]:
    return {
        "version": ROOT_VERSION,
        "epoch": utcnow(),  # changes on rebuild: cached branches of another epoch are dropped
        "generation": 0,  # bumped on every write of the root
        "n_leaves": 0,
        "total_len": 0,
        "n_branches": 0,
        "domains": {},
        "top": [],
        "updated_at": utcnow(),
    }


def copy_root(root: dict[str, Any]) -> dict[str, Any]:
    """A copy of the trunk safe to mutate: readers in other threads keep the cached one."""
    out = dict(root)
    out["top"] = list(root["top"])
    out["domains"] = {k: dict(v) for k, v in root["domains"].items()}
    return out


def _writer_alive(part_name: str) -> bool:
    """Whether the process named in a temporary file's name (``.NAME.PID.THREAD.part``)
    is still running: its file is not a left-over."""
    bits = part_name.split(".")
    try:
        pid = int(bits[-3])
    except (IndexError, ValueError):
        return False
    return files.pid_alive(pid)


class Store(BranchFiles):
    """One memory folder. Thread-safe for readers; writers go through :meth:`locked`."""

    def __init__(self, path: Path, config: Config) -> None:
        self.path = path
        self.config = config
        self.lock = WriteLock(path / "state" / "write.lock")
        self.intent = IntentLog(path / "state" / "intent.log", self.set_aside)
        self._root: dict[str, Any] | None = None
        self._root_sig: tuple[int, int, int] | None = None
        self._init_branches()
        self.problems: list[str] = []  # damage found and repaired, reported once
        self._domain_dirs: dict[str, Path] = {}  # domain -> its leaf folder (names checked)
        self.catalog_restarted = False  # the catalog was begun again: rewrite it whole
        self.changes = 0  # files of the store written or removed (a failed write with none
        #                   changed nothing: Memory closes its intent instead of a repair)

    # ------------------------------------------------------------------ layout
    @property
    def root_path(self) -> Path:
        return self.path / "root.json"

    @property
    def catalog_path(self) -> Path:
        return self.state_dir / "catalog.jsonl"

    @property
    def aside_dir(self) -> Path:
        return self.state_dir / "aside"

    def set_aside(self, path: Path, exc: OSError | None = None) -> Path:
        """Move a derived file the store cannot use (a folder at its path, a file that
        cannot be read or written) to ``state/aside/``, so that it can be written anew.
        Lock held. Raises StoreError, saying what to do, when it cannot be moved."""
        rel = path.relative_to(self.path) if path.is_relative_to(self.path) else path
        shape = ("is a folder, not a file" if path.is_dir()
                 else f"cannot be used ({exc.strerror or exc})" if exc is not None
                 else "is not a regular file")
        try:
            target = files.move_aside(path, self.aside_dir)
        except OSError as err:
            raise StoreError(
                f"{path} {shape}, and it cannot be moved aside ({err.strerror or err}): move "
                f"it out of the memory folder yourself; the store rebuilds it"
            ) from err
        msg = (f"{rel} {shape}: it was moved to {target.relative_to(self.path)} and written "
               f"anew")
        log.warning(msg)
        self.problems.append(msg)
        return target

    def leaf_path(self, leaf_id: str, domain: str | None = None) -> Path:
        if domain is None:
            domain = domain_of_id(leaf_id)
        folder = self._domain_dirs.get(domain)
        if folder is None:
            # safe_name refuses names that would leave the store; only accepted ones are kept.
            folder = self.path / "layer_0" / files.safe_name(domain, "domain")
            if len(self._domain_dirs) < 10_000:
                self._domain_dirs[domain] = folder
        if not files.valid_id(leaf_id):
            raise NotFoundError(f"{leaf_id!r} is not a leaf id")
        return folder / f"{leaf_id}.txt"

    # ------------------------------------------------------------------ create/open
    @classmethod
    def create(cls, path: Path, config: Config, *, force: bool = False) -> Store:
        if path.exists() and not path.is_dir():
            raise StoreError(f"{path} exists and is not a folder")
        existed = (path / "root.json").exists() or (path / "layer_0").exists()
        try:
            files.ensure_dir(path)
            for sub in ("layer_0", "layers", "state"):
                files.ensure_dir(path / sub)
            os.chmod(path, files.DIR_MODE)
        except OSError as exc:
            raise StoreError(f"cannot create the memory folder {path}: {exc.strerror}") from exc
        store = cls(path, config)
        if not existed or force or not (path / CONFIG_NAME).exists():
            files.write_json(path / CONFIG_NAME, config.to_dict(), indent=2)
        if force and existed:
            # Discard derived state only; leaves are never deleted.
            import shutil

            with store.lock.hold():
                shutil.rmtree(path / "layers", ignore_errors=True)
                files.ensure_dir(path / "layers")
                branch_cache.clear(store.state_dir)
        if not (path / "root.json").exists() or force:
            store.write_root(empty_root())
        return store

    @classmethod
    def open(cls, path: Path) -> Store:
        if not path.is_dir():
            raise StoreError(f"no memory folder at {path}: run 'ihmt init' or pass create=True")
        return cls(path, Config.load(path))

    def check_writable(self) -> None:
        probe = self.state_dir / f".probe-{os.getpid()}"
        try:
            files.ensure_dir(self.state_dir)
            probe.write_bytes(b"")
            probe.unlink()
        except OSError as exc:
            raise StoreError(
                f"the memory folder {self.path} cannot be written ({exc.strerror}); check its "
                "permissions or choose another folder with IHMT_HOME / --path"
            ) from exc

    # ------------------------------------------------------------------ root
    def _stat_sig(self) -> tuple[int, int, int] | None:
        try:
            st = os.stat(self.root_path)
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size, st.st_ino)

    def root(self) -> dict[str, Any]:
        """The trunk, re-read only when another write changed it. Raises DamagedFileError."""
        sig = self._stat_sig()
        if self._root is not None and sig == self._root_sig:
            return self._root
        if sig is None:
            raise DamagedFileError("root.json is missing")
        try:
            data = files.read_json(self.root_path)
        except OSError as exc:
            raise DamagedFileError(f"root.json cannot be read ({exc.strerror or exc})") from exc
        except ValueError as exc:
            raise DamagedFileError(f"root.json cannot be parsed ({exc})") from exc
        if not isinstance(data, dict) or not isinstance(data.get("top"), list):
            raise DamagedFileError("root.json has no 'top' list")
        for key in ("n_leaves", "total_len", "n_branches", "generation"):
            if not isinstance(data.get(key), int):
                raise DamagedFileError(f"root.json has no valid {key!r}")
        if self._root is not None and data.get("epoch") != self._root.get("epoch"):
            self.clear_cache()
        self._root, self._root_sig = data, sig
        return data

    def write_root(self, data: dict[str, Any]) -> None:
        data["generation"] = int(data.get("generation", 0)) + 1
        data["updated_at"] = utcnow()
        try:
            files.write_json(self.root_path, data)
        except IsADirectoryError as exc:  # a folder at its path: derived, set it aside
            self.set_aside(self.root_path, exc)
            files.write_json(self.root_path, data)
        self.changes += 1
        self._root, self._root_sig = data, self._stat_sig()

    # ------------------------------------------------------------------ write intent
    @property
    def intent_path(self) -> Path:
        return self.intent.path

    def begin_write(self, what: str, record: dict[str, Any] | None = None) -> None:
        """Record, durably, that a write is under way (lock held), and with ``record``
        what it is going to touch (:mod:`ihmt.store.intent`). If the writer dies, the next
        writer (or the next open) sees a 'B' line with no 'E' after it and repairs."""
        self.intent.begin(what, record)

    def end_write(self) -> None:
        self.intent.end()

    def settle_intent(self) -> None:
        """See :meth:`ihmt.store.intent.IntentLog.settle`."""
        self.intent.settle()

    def remove_partial_files(self) -> int:
        """Delete temporary files a killed writer left behind (lock held: no live writer
        owns one). Their content was never acknowledged."""
        n = 0
        for sub in ("layer_0", "layers", "state", "/".join(("state", *branch_cache.FOLDER)), ""):
            base = self.path / sub if sub else self.path
            pattern = "*/.*.part" if sub in ("layer_0", "layers") else ".*.part"
            for p in base.glob(pattern):
                if _writer_alive(p.name):
                    continue  # a live process (a reader's derived file, say) is writing it
                try:
                    p.unlink()
                    n += 1
                except OSError:
                    pass
        return n

    def interrupted(self) -> bool:
        return self.intent.interrupted()

    # ------------------------------------------------------------------ leaves
    def write_leaf(self, leaf: Leaf, *, durable: bool = True, new: bool = True) -> Path:
        """Write a leaf; ``new=False`` (a header update of an existing leaf) syncs the data
        but not the folder entry."""
        path = self.leaf_path(leaf.id, leaf.domain)
        files.atomic_write(path, format_leaf(leaf), durable=durable, sync_dir=new)
        self.changes += 1
        return path

    def read_leaf(self, leaf_id: str, domain: str | None = None) -> Leaf:
        path = self.leaf_path(leaf_id, domain)
        if not path.exists():
            raise NotFoundError(f"no memory with id {leaf_id}")
        try:
            return read_leaf(path)
        except UnreadableFileError as exc:
            log.warning("%s", exc)
            self.problems.append(str(exc))
            raise
        except DamagedFileError as exc:
            self.quarantine(path, str(exc))
            raise

    def leaf_exists(self, leaf_id: str, domain: str | None = None) -> bool:
        try:
            return self.leaf_path(leaf_id, domain).exists()
        except (NotFoundError, ValueError):
            return False

    def delete_leaf(self, leaf_id: str, domain: str | None = None) -> bool:
        """Remove a leaf file for good (a forget; lock held), synced. False if absent."""
        path = self.leaf_path(leaf_id, domain)
        try:
            path.unlink()
        except FileNotFoundError:
            return False
        except OSError as exc:
            raise StoreError(f"cannot remove {path}: {exc.strerror}") from exc
        self.changes += 1
        files.fsync_dir(path.parent)
        return True

    def iter_leaf_paths(self) -> Iterator[Path]:
        base = self.path / "layer_0"
        if not base.is_dir():
            return
        for dom in sorted(base.iterdir()):
            if dom.is_dir() and not dom.is_symlink():
                for p in sorted(dom.glob("L-*.txt")):
                    if not p.is_symlink():
                        yield p

    def quarantine(self, path: Path, reason: str) -> Path:
        """Move a leaf whose header is broken out of the tree, keeping its bytes."""
        qdir = files.ensure_dir(self.path / "quarantine")
        target = qdir / path.name
        n = 1
        while target.exists():
            target = qdir / f"{path.stem}.{n}{path.suffix}"
            n += 1
        try:
            os.replace(path, target)
        except OSError as exc:
            log.error("could not quarantine %s: %s", path, exc)
            return path
        files.append_line(qdir / "REASONS.txt", f"{utcnow()} {path.name}: {reason}")
        msg = f"leaf {path.name} has a damaged header and was moved to quarantine/ ({reason})"
        log.warning(msg)
        self.problems.append(msg)
        return target

    def clear_cache(self) -> None:
        self._drop_branches()
        self._root = None
        self._root_sig = None

    # ------------------------------------------------------------------ catalog
    def catalog_append(self, entries: list[dict[str, Any]]) -> None:
        """Journal ``entries`` (lock held). A catalog that is a folder or cannot be written
        is set aside and begun again, and :attr:`catalog_restarted` says that the writer
        must rewrite it whole (:func:`ihmt.tree.rebuild.rewrite_catalog`) before it ends."""
        if not entries:
            return
        text = "\n".join(json.dumps(e, ensure_ascii=False) for e in entries)
        self.changes += 1  # before: a torn append counts
        try:
            files.append_line(self.catalog_path, text)
        except (IsADirectoryError, PermissionError) as exc:
            self.set_aside(self.catalog_path, exc)
            files.append_line(self.catalog_path, text)
            self.catalog_restarted = True

    def write_catalog(self, text: str) -> None:
        """Replace the catalog whole (a rebuild; lock held), whatever is at its path."""
        self.changes += 1
        try:
            files.atomic_write(self.catalog_path, text)
        except IsADirectoryError as exc:
            self.set_aside(self.catalog_path, exc)
            files.atomic_write(self.catalog_path, text)
        self.catalog_restarted = False

    def catalog(self) -> dict[str, dict[str, Any]]:
        """id -> latest catalog entry. Reads the whole journal: for tools, never for search."""
        out: dict[str, dict[str, Any]] = {}
        try:
            fh = open(self.catalog_path, encoding="utf-8", errors="replace")
        except OSError:
            return out
        bad = 0
        with fh:
            for line in fh:
                try:
                    e = json.loads(line)
                    if e.get("forgotten"):
                        out.pop(e["id"], None)  # a forget's tombstone: the entry is gone
                        continue
                    out.setdefault(e["id"], {}).update(e)
                except (ValueError, KeyError, TypeError, AttributeError):
                    bad += 1
        if bad:
            log.warning("catalog: skipped %d damaged line(s); 'ihmt rebuild' rewrites it", bad)
        return out


def domain_of_id(node_id: str) -> str:
    """Ids look like ``L-<domain>-<hash>`` / ``N<layer>-<domain>-<hash>``."""
    parts = node_id.split("-")
    if len(parts) < 3:
        raise NotFoundError(f"{node_id!r} is not an IHMT id")
    return "-".join(parts[1:-1])
