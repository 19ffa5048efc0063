"""One memory across machines: the memory folder as a git repository.

What is tracked is what cannot be re-derived: the leaves (``layer_0/``), the fact logs
(``state/facts.jsonl`` and ``state/facts.primary.jsonl``: facts recorded directly and
"outdated" marks live nowhere else),
``ihmt.config.json`` and ``quarantine/``. The trunk, the branches, the catalog, locks and
the intent log are derived or local: ``sync init`` writes a ``.gitignore`` for them and
every sync rebuilds them from the merged leaves.

Saves are committed as they happen (``sync_commit`` in ``ihmt.config.json``: ``save``,
one commit per save; ``window``, at most one per ``sync_window_s`` seconds; ``off``, only
``ihmt sync`` commits). A commit runs under the store's write lock, right after the save,
and a failing ``git`` only logs a warning: the save itself is already on disk.

A sync commits what is pending, fetches, merges, rebuilds what is derived and pushes. The
merge never runs ``git merge`` in the memory folder: it is computed in a temporary index
(``git read-tree -m``) with IHMT's own rules for the paths both machines changed, then the
changed files are written one by one with atomic renames, and only then is the branch
moved. A marker (``state/sync-merge.json``) written first lets the next sync finish one
that was killed half way. The rules:

* a leaf both machines wrote with the same text (a leaf id is a digest of its content,
  so two machines saving the same memory make the same file): one leaf, the earliest
  ``saved_at``, the union of tags and annotations;
* a leaf with two different texts: both are kept, the other machine's as a new leaf
  (``extra.conflict_of`` names the first) and the sync report says so;
* the fact logs: both sides' lines, de-duplicated, ordered by date, except the lines
  one side removed since the common version (a forget): they stay removed;
* a leaf one machine forgot (deleted) and the other kept unchanged, or only annotated:
  deleted on both, and its facts and vectors go too;
* anything else both sides changed: this machine's version (the other stays in history).

Only ``git`` is used, with ``GIT_TERMINAL_PROMPT=0``; nothing leaves the machine unless
the user configured a remote.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from filelock import FileLock, Timeout

from ..config import Config
from ..errors import IHMTError, InputError
from ..store import files
from ..store.store import utcnow
from .git import (
    SyncError,
    _commit_staged,
    _configure,
    _is_ancestor,
    _out,
    _read_blobs,
    _require_repo,
    _rev,
    _settle_git,
    _tail,
    git,
    git_exe,
    is_repo,
)
from .merge import CONFIG, FACTS, TRACKED_STATE, blob_sha, merge_facts, merge_logs, resolve

if TYPE_CHECKING:
    from ..memory import Memory
    from ..store.store import Store

log = logging.getLogger(__name__)

MARKER = "state/sync-merge.json"  # a sync's merge under way: {"old", "target"}
LAST = "state/sync.json"  # the outcome of the last sync (local, not tracked)
PENDING = "state/sync-pending.txt"  # paths saved but not committed yet
STAMP = "state/sync-committed"  # its mtime: the last commit after a save
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
BRANCH = "main"
COMMIT_MODES = ("save", "window", "off")

GITIGNORE = """\
# Written by 'ihmt sync init'. The leaves, the fact log and the config are the memory;
# what is below is derived from them (rebuilt after every merge) or local to this machine.
/root.json
/layers/
/state/*
!/state/facts.jsonl
!/state/facts.primary.jsonl
.*.part
"""

GITATTRIBUTES = """\
# Written by 'ihmt sync init'. Logs keep both sides' lines if merged by plain git;
# 'ihmt sync' then de-duplicates the fact log and orders it by date.
/state/facts.jsonl merge=union
/state/facts.primary.jsonl merge=union
/quarantine/REASONS.txt merge=union
* -text
"""


def commit_all(path: Path, message: str) -> str | None:
    """Stage every tracked change and new file (ignoring derived ones) and commit."""
    git(path, "add", "-A")
    sha = _commit_staged(path, message)
    _clear_pending(path)
    return sha


def after_write(store: Store, what: str, ids: list[str] | tuple[str, ...] = (),
                text: str = "", *, removed: list[str] | tuple[str, ...] = ()) -> None:
    """Commit what a save (or a bulk batch, a correction, a recorded fact) just wrote;
    ``removed``: leaf files a forget deleted (the commit deletes them too, and names only
    their ids, never their text).

    Called by :class:`ihmt.Memory` with the write lock held, after the write completed.
    Costs one ``stat`` when the folder is not a repository. Never raises: the memory is
    already saved, a failed commit is only a warning and the next commit includes it.
    """
    path = store.path
    if not (path / ".git").is_dir():
        return
    mode = getattr(store.config, "sync_commit", "save")
    if mode == "off":
        return
    rels = list(removed)
    for leaf_id in () if removed else ids:
        try:
            rels.append(str(store.leaf_path(leaf_id).relative_to(path)))
        except (IHMTError, ValueError):
            continue
    try:
        if (path / ".git" / "MERGE_HEAD").exists() or (path / MARKER).exists():
            _pend(path, rels)  # a sync is being finished: it commits everything
            return
        if mode == "window":
            window = max(1, int(getattr(store.config, "sync_window_s", 60)))
            try:
                last = os.stat(path / STAMP).st_mtime
            except OSError:
                last = 0.0
            if time.time() - last < window:
                _pend(path, rels)
                return
        waiting = [r for r in _pending(path) if r not in rels]
        todo = [r for r in dict.fromkeys(waiting + rels + _tracked_state(path))
                if (path / r).exists() or r in removed]
        if len(todo) > 500:  # a bulk batch: let git find them (one scan of layer_0)
            git(path, "add", "-A", "--", "layer_0", *[r for r in TRACKED_STATE if r in todo])
        elif todo:
            git(path, "add", "-A", "--", *todo)
        if _commit_staged(path, _message(what, ids, text, len(set(waiting)))):
            files.atomic_write(path / STAMP, b"")
        _clear_pending(path)
    except (IHMTError, OSError) as exc:
        log.warning("saved, but not committed to git (%s); 'ihmt sync' commits it later", exc)
        try:
            _pend(path, rels)
        except OSError:
            pass


def _tracked_state(path: Path) -> list[str]:
    """The files of state/ this repository tracks: a folder put under git by an older
    version ignores the primary fact log until a sync brings its .gitignore up to date."""
    try:
        ignore = (path / ".gitignore").read_text(encoding="utf-8", errors="replace")
    except OSError:
        ignore = ""
    return [r for r in TRACKED_STATE if r == FACTS or f"!/{r}" in ignore]


def _upgrade_ignore(path: Path) -> None:
    """Give a folder put under git by an older version today's .gitignore rules."""
    p = path / ".gitignore"
    try:
        cur = p.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return
    missing = [f"!/{r}" for r in TRACKED_STATE if f"!/{r}" not in cur]
    if missing and "/state/*" in cur:
        files.atomic_write(p, cur.rstrip("\n") + "\n" + "\n".join(missing) + "\n")


def _message(what: str, ids: list[str] | tuple[str, ...], text: str, waiting: int = 0) -> str:
    first = " ".join(text.split())[:72]
    others = len(ids) - 1 + waiting  # other leaves of the save, and earlier uncommitted ones
    more = f" (+{others})" if others > 0 else ""
    what = " ".join(what.split())[:120]
    head = f"{what}: {ids[0]}{more}" if ids else what
    return f"{head} {first}".strip() if first else head


def _pend(path: Path, rels: list[str]) -> None:
    if rels:
        files.append_line(path / PENDING, "\n".join(rels))


def _pending(path: Path) -> list[str]:
    try:
        text = (path / PENDING).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    return [ln.strip() for ln in text.splitlines()
            if ln.strip().startswith("layer_0/") and ".." not in ln]


def _clear_pending(path: Path) -> None:
    try:
        os.truncate(path / PENDING, 0)
    except OSError:
        pass


# ---------------------------------------------------------------------- init / status
def init(mem: Memory, remote: str | None = None, name: str = "origin") -> dict[str, Any]:
    """Make the memory folder a git repository with a first commit; with ``remote``,
    register it and sync (a second machine gets the first one's memories this way)."""
    path = mem.store.path
    git_exe()
    created = not is_repo(path)
    if created:
        git(path, "init", "-q", "--shared=0600")
        git(path, "symbolic-ref", "HEAD", f"refs/heads/{BRANCH}")
    for fname, body in ((".gitignore", GITIGNORE), (".gitattributes", GITATTRIBUTES)):
        if not (path / fname).exists():
            files.atomic_write(path / fname, body)
    with mem.store.lock.hold():
        if not created:  # an existing repository: a git may still be finishing there
            _settle_git(path)
        _configure(path)
        first = commit_all(path, "init: memory folder under version control" if created
                           else "sync init: commit pending changes")
    report: dict[str, Any] = {"path": str(path), "created": created,
                              "commit": (first or _rev(path, "HEAD") or "")[:7]}
    if remote:
        if not isinstance(remote, str) or not remote.strip() or remote.startswith("-"):
            raise SyncError(f"{remote!r} is not a remote git accepts (a path, ssh or https URL)")
        if name in _remotes(path):
            git(path, "remote", "set-url", name, remote)
        else:
            git(path, "remote", "add", name, remote)
        report["sync"] = sync(mem, name)
    report["status"] = status(path)
    return report


def _remotes(path: Path) -> list[str]:
    return [r for r in _out(path, "remote").splitlines() if r.strip()]


def _pick_remote(path: Path, remote: str | None) -> str:
    names = _remotes(path)
    if remote:
        if remote not in names:
            have = ", ".join(names) or "none"
            raise SyncError(f"no remote named {remote!r} (this memory has: {have}); add one "
                            "with 'ihmt sync init --remote URL'")
        return remote
    if not names:
        raise SyncError("no remote configured, so there is nothing to sync with (saves are "
                        "committed locally: 'ihmt history'); add one with "
                        "'ihmt sync init --remote URL'")
    if "origin" in names or len(names) == 1:
        return "origin" if "origin" in names else names[0]
    raise SyncError(f"several remotes ({', '.join(names)}): choose one with --remote NAME")


def _branch(path: Path) -> str:
    ref = git(path, "symbolic-ref", "-q", "--short", "HEAD", check=False)
    name = ref.stdout.decode().strip()
    if not name:
        raise SyncError("the memory folder's git HEAD is detached: check out a branch "
                        f"('git -C {path} checkout {BRANCH}') and sync again")
    return name


def status(path: Path) -> dict[str, Any]:
    """Where the repository stands, without any network access."""
    path = Path(path)
    out: dict[str, Any] = {"enabled": False, "path": str(path)}
    if not is_repo(path):
        return out
    out["enabled"] = True
    try:
        out["branch"] = _branch(path)
        head = _rev(path, "HEAD")
        out["head"] = head[:7] if head else None
        out["commits"] = int(_out(path, "rev-list", "--count", "HEAD")) if head else 0
        names = _remotes(path)
        name = "origin" if "origin" in names else (names[0] if names else None)
        out["remote"] = name
        out["url"] = _out(path, "remote", "get-url", name, check=False) if name else None
        tracking = _rev(path, f"refs/remotes/{name}/{out['branch']}") if name else None
        if head and tracking:
            counts = _out(path, "rev-list", "--left-right", "--count",
                          f"{head}...{tracking}").split()
            out["ahead"], out["behind"] = int(counts[0]), int(counts[1])
        else:
            out["ahead"] = out["commits"] if name else None
            out["behind"] = 0 if name else None
        porcelain = git(path, "status", "--porcelain", "-z").stdout
        out["uncommitted"] = sum(1 for rec in porcelain.split(b"\0") if rec.strip())
    except SyncError as exc:
        out["error"] = str(exc)
    try:
        out["last_sync"] = json.loads((path / LAST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        out["last_sync"] = None
    out["interrupted"] = (path / MARKER).exists() or (path / ".git" / "MERGE_HEAD").exists()
    return out


def history(path: Path, since: str | None = None, limit: int | None = 50) -> list[dict[str, Any]]:
    """The commits of the memory folder, newest first: date, short id, what changed.

    ``since`` is an ISO date; git's own date reading is lenient (far years wrap), so the
    rows are also checked here."""
    _require_repo(path)
    if limit is not None and (not isinstance(limit, int) or limit < 1):
        raise InputError(f"limit must be a positive whole number, not {limit!r}")
    if _rev(path, "HEAD") is None:
        return []
    args = ["log", "--no-color", "--date=iso-strict", "--pretty=format:%h%x1f%ad%x1f%s"]
    if since:
        args.append(f"--since={since}")
    if limit:
        args.append(f"-n{int(limit)}")
    rows = []
    for line in _out(path, *args).splitlines():
        parts = line.split("\x1f")
        if len(parts) == 3 and (not since or parts[1][:len(since)] >= since):
            rows.append({"commit": parts[0], "date": parts[1], "subject": parts[2]})
    return rows


# ---------------------------------------------------------------------- sync
def sync(mem: Memory, remote: str | None = None, *, push: bool = True) -> dict[str, Any]:
    """Commit, fetch, merge (IHMT's rules), rebuild what is derived, push."""
    store = mem.store
    path = store.path
    _require_repo(path)
    files.ensure_dir(store.state_dir)
    report: dict[str, Any] = {"remote": None, "branch": None, "recovered": [],
                              "committed": False, "merged": False, "fast_forward": False,
                              "new_memories": 0, "conflicts": [], "pushed": False}
    lock = FileLock(str(store.state_dir / "sync.lock"), mode=0o600)
    try:
        lock.acquire(timeout=120)
    except Timeout as exc:
        raise SyncError("another 'ihmt sync' has been running on this memory for 2 minutes; "
                        "try again when it ends") from exc
    try:
        with store.lock.hold():
            settled = _settle_git(path)
            _configure(path)
            _upgrade_ignore(path)
            branch = _branch(path)
            report["branch"] = branch
            report["recovered"] = settled + _recover(mem, report)
            report["committed"] = commit_all(path, "sync: commit pending changes") is not None
        name = _pick_remote(path, remote)
        report["remote"] = name
        url = _out(path, "remote", "get-url", name, check=False)
        # -u rewrites .git/config on every push: only a push with no upstream yet sets it
        upstream = _out(path, "config", "--get", f"branch.{branch}.remote", check=False)
        set_upstream = [] if upstream == name else ["-u"]
        for _attempt in range(3):
            cp = git(path, "fetch", "-q", "--no-tags", name, check=False, timeout=600)
            if cp.returncode != 0:
                raise SyncError(f"cannot reach remote '{name}' ({url}): {_tail(cp).rstrip('.')}. Your "
                                "memories are committed locally; sync again when it is back")
            theirs = _rev(path, f"refs/remotes/{name}/{branch}")
            if theirs:
                with store.lock.hold():
                    _merge(mem, theirs, f"{name}/{branch}", report)
            if not push:
                break
            cp = git(path, "push", "-q", *set_upstream, name, f"HEAD:refs/heads/{branch}",
                     check=False, timeout=600)
            if cp.returncode == 0:
                report["pushed"] = True
                break
            text = _tail(cp)
            if "rejected" not in text and "fetch first" not in text:
                raise SyncError(f"cannot push to remote '{name}' ({url}): {text}")
            # The remote moved while we merged: fetch and merge again.
        else:
            raise SyncError(f"remote '{name}' kept changing while we synced; run 'ihmt sync' "
                            "again")
        st = status(path)
        report["ahead"], report["behind"] = st.get("ahead"), st.get("behind")
        report["head"] = st.get("head")
        files.write_json(path / LAST, {"at": utcnow(), "remote": name, "url": url,
                                       "head": st.get("head"), "pushed": report["pushed"],
                                       "new_memories": report["new_memories"],
                                       "conflicts": len(report["conflicts"])}, indent=1)
    finally:
        lock.release()
    return report


def _merge(mem: Memory, theirs: str, label: str, report: dict[str, Any]) -> None:
    """Bring ``theirs`` into the working tree and HEAD (write lock held)."""
    path = mem.store.path
    head = _rev(path, "HEAD")
    if head == theirs or (head and _is_ancestor(path, theirs, head)):
        return
    if head and _is_ancestor(path, head, theirs):
        target = theirs
        report["fast_forward"] = True
    else:
        target = _merge_commit(mem, head, theirs, label, report)
    report["merged"] = True
    _apply(mem, head, target, report)


def _merge_commit(mem: Memory, head: str | None, theirs: str, label: str,
                  report: dict[str, Any]) -> str:
    """A merge commit of ``head`` and ``theirs`` built in a temporary index."""
    path = mem.store.path
    base = _out(path, "merge-base", head, theirs, check=False) if head else ""
    index = path / ".git" / "ihmt-merge.index"
    index.unlink(missing_ok=True)
    env = {"GIT_INDEX_FILE": str(index)}
    try:
        git(path, "read-tree", "-m", "-i", "--aggressive", base or EMPTY_TREE,
            head or EMPTY_TREE, theirs, env=env)
        stages: dict[str, dict[int, str]] = {}
        for rec in git(path, "ls-files", "-u", "-z", env=env).stdout.split(b"\0"):
            if not rec:
                continue
            meta, rel = rec.split(b"\t", 1)
            _mode, sha, stage = meta.decode().split()
            stages.setdefault(rel.decode("utf-8", "surrogateescape"), {})[int(stage)] = sha
        blobs = _read_blobs(path, [s for st in stages.values() for s in st.values()])
        no_leaves = not any(mem.store.iter_leaf_paths())
        resolved: dict[str, bytes | None] = {}
        for rel, st in sorted(stages.items()):
            base_b, ours, other = (blobs.get(st[k]) if k in st else None for k in (1, 2, 3))
            data, extra, note = resolve(rel, base_b, ours, other, prefer_theirs_config=no_leaves)
            resolved[rel] = data
            resolved.update(extra)
            if note:
                report["conflicts"].append(note)
        _stage(path, resolved, env)
        tree = _out(path, "write-tree", env=env)
    finally:
        index.unlink(missing_ok=True)
    parents = ["-p", head] if head else []
    msg = f"sync: merged {label}"
    return _out(path, "commit-tree", tree, *parents, "-p", theirs, "-m", msg)


def _stage(path: Path, resolved: dict[str, bytes | None], env: dict[str, str]) -> None:
    if not resolved:
        return
    tmp = path / ".git" / "ihmt-merge-tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(mode=0o700)
    try:
        order = [rel for rel, data in resolved.items() if data is not None]
        names = []
        for i, rel in enumerate(order):
            f = tmp / str(i)
            f.write_bytes(resolved[rel] or b"")
            names.append(str(f))
        shas = _out(path, "hash-object", "-w", "--no-filters", "--stdin-paths",
                    data="".join(n + "\n" for n in names).encode()).split() if names else []
        recs = []
        for rel in resolved:
            recs.append(f"0 {'0' * 40}\t{rel}".encode("utf-8", "surrogateescape"))
        for rel, sha in zip(order, shas):
            recs.append(f"100644 {sha}\t{rel}".encode("utf-8", "surrogateescape"))
        git(path, "update-index", "-z", "--index-info", data=b"\0".join(recs) + b"\0", env=env)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _apply(mem: Memory, old: str | None, target: str, report: dict[str, Any]) -> None:
    """Write ``target``'s changes into the folder, move HEAD, rebuild (write lock held)."""
    path = mem.store.path
    files.write_json(path / MARKER, {"old": old, "target": target, "at": utcnow()},
                     durable=True)
    _apply_files(mem, old, target, report)
    _finish(mem, report.get("forgotten", []))


def _apply_files(mem: Memory, old: str | None, target: str, report: dict[str, Any]) -> None:
    store = mem.store
    path = store.path
    store.begin_write("sync")
    raw = git(path, "diff-tree", "-r", "-z", "--no-renames", old or EMPTY_TREE, target).stdout
    parts = raw.split(b"\0")
    changes: list[tuple[str, str, str, str]] = []
    i = 0
    while i + 1 < len(parts):
        meta = parts[i].decode()
        if not meta.startswith(":"):
            i += 1
            continue
        _om, _nm, osha, nsha, st = meta[1:].split()
        changes.append((st[0], osha, nsha, parts[i + 1].decode("utf-8", "surrogateescape")))
        i += 2
    blobs = _read_blobs(path, [c[2] for c in changes if c[0] != "D"]
                        + [c[1] for c in changes if c[3] in TRACKED_STATE and c[0] == "M"])
    # Test hook: the process dies after writing that many files (a sync killed half way).
    crash_at = os.environ.get("IHMT_SYNC_CRASH_AFTER")
    for n, (st, osha, nsha, rel) in enumerate(changes):
        if crash_at and n == int(crash_at):
            os._exit(137)
        p = path / rel
        if rel.lower().startswith((".git/", "/")) or ".." in Path(rel).parts:
            continue
        try:
            cur = p.read_bytes() if p.is_file() else None
        except OSError:
            cur = None
        if st == "D":
            if cur is not None and blob_sha(cur) == osha:
                p.unlink()
                if rel.startswith("layer_0/") and rel.endswith(".txt"):
                    report.setdefault("forgotten", []).append(Path(rel).stem)
            continue
        data = blobs.get(nsha)
        if data is None:
            continue
        if rel in TRACKED_STATE:  # lines added here since, kept; lines forgotten, not
            data = merge_logs(blobs.get(osha), cur, data)
        elif cur is not None and blob_sha(cur) not in (osha, nsha):
            # Changed here after the merge was computed (a sync finished late): merge it.
            data, extra, note = resolve(rel, None, cur, data)
            for xrel, xdata in extra.items():
                if xdata is not None:
                    files.atomic_write(path / xrel, xdata)
            if note:
                report["conflicts"].append(note)
            if data is None:
                continue
        if st == "A" and rel.startswith("layer_0/") and cur is None:
            report["new_memories"] += 1
        files.atomic_write(p, data)
    getattr(os, "sync", lambda: None)()  # the written files reach the disk first
    git(path, "reset", "-q", target)
    if any(c[3] == CONFIG for c in changes):  # the other machine's settings now apply here
        store.config = mem.config = Config.load(path)
    store.end_write()


def _finish(mem: Memory, forgotten: list[str] | None = None) -> None:
    """After HEAD moved: rebuild the derived files (the semantic vectors of the memories
    that came in are computed just after, by this process's worker), carry through the
    forgets the other machine made (their facts and vectors go too), order the fact log,
    commit the result."""
    path = mem.store.path
    mem.rebuild()
    if forgotten:
        mem.forgetter.after_rebuild(list(forgotten))
    mem.queue_missing_vectors()  # memories from the other machine: vectors are local
    normalize_facts(mem)
    commit_all(path, "sync: tree rebuilt after merge")
    (path / MARKER).unlink(missing_ok=True)


def normalize_facts(mem: Memory) -> None:
    """The fact log as the sorted union of its lines (same on every machine)."""
    p = mem.store.path / FACTS
    try:
        cur = p.read_bytes()
    except OSError:
        return
    data = merge_facts([cur])
    if data != cur:
        files.atomic_write(p, data, durable=True)
        mem.timeline.refresh()
        root = dict(mem.store.root())
        root["facts_size"] = len(data)
        mem.store.write_root(root)


def _recover(mem: Memory, report: dict[str, Any]) -> list[str]:
    """Finish what a killed sync or a git command left (write lock held)."""
    path = mem.store.path
    notes: list[str] = []
    gdir = path / ".git"
    if (gdir / "ihmt-merge.index").exists():  # the lock files were settled before
        (gdir / "ihmt-merge.index").unlink(missing_ok=True)
        notes.append("removed a stale .git/ihmt-merge.index")
    if (gdir / "MERGE_HEAD").exists():
        theirs = (gdir / "MERGE_HEAD").read_text().split()[0]
        _undo_git_merge(path)
        commit_all(path, "sync: kept the files of an interrupted merge")
        _merge(mem, theirs, "an interrupted merge", report)
        notes.append("finished a merge that was interrupted (nothing was lost)")
    marker = path / MARKER
    if marker.exists():
        try:
            m = json.loads(marker.read_text(encoding="utf-8"))
            old, target = m.get("old"), str(m["target"])
        except (OSError, ValueError, KeyError, TypeError):
            old, target = None, ""
        head = _rev(path, "HEAD")
        if target and _rev(path, target) and head == old:
            _apply_files(mem, old, target, report)
            _finish(mem)
        elif target and head == target:
            _finish(mem)
        else:
            marker.unlink(missing_ok=True)
        notes.append("finished a sync that was interrupted (nothing was lost)")
    return notes


def _undo_git_merge(path: Path) -> None:
    """Leave a half-done ``git merge`` without losing a line: conflicted files go back to
    this machine's version (the fact log keeps both sides' lines); the merge is then
    redone by IHMT's rules."""
    unmerged = {rec.split(b"\t", 1)[1].decode("utf-8", "surrogateescape")
                for rec in git(path, "ls-files", "-u", "-z").stdout.split(b"\0") if b"\t" in rec}
    for rel in sorted(unmerged):
        p = path / rel
        if rel == FACTS:
            try:
                lines = p.read_bytes().split(b"\n")
            except OSError:
                lines = []
            keep = [ln for ln in lines if not ln.startswith((b"<<<<<<<", b"=======", b">>>>>>>",
                                                              b"|||||||"))]
            files.atomic_write(p, merge_facts([b"\n".join(keep)]))
            continue
        cp = git(path, "show", f"HEAD:{rel}", check=False)
        if cp.returncode == 0:
            files.atomic_write(p, cp.stdout)
    for name in ("MERGE_HEAD", "MERGE_MSG", "MERGE_MODE", "AUTO_MERGE"):
        (path / ".git" / name).unlink(missing_ok=True)
    git(path, "reset", "-q")
