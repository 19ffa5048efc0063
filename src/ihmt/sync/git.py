"""Running git in the memory folder: the command itself (no prompts, no pager), a git
still running or killed there (its lock files), and committing."""

from __future__ import annotations

import logging
import os
import re
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

from ..errors import IHMTError

log = logging.getLogger(__name__)

IDENTITY = ("IHMT memory", "ihmt@localhost")  # only when the user has none configured
STALE_LOCK_S = 10.0  # a git lock file older than this, with no git running, is left over
LOCK_WAIT_S = 5.0  # how long a sync waits for a git still running in the folder


class SyncError(IHMTError):
    """git is missing, the folder is not a repository yet, or a remote cannot be used."""


# ---------------------------------------------------------------------- running git
def git_exe() -> str:
    exe = shutil.which("git")
    if not exe:
        raise SyncError("git is not installed (or not on PATH): install git to use "
                        "'ihmt sync' and 'ihmt history'")
    return exe


def _env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE")}
    env.update(GIT_TERMINAL_PROMPT="0", LC_ALL="C", GIT_EDITOR=":", GIT_MERGE_AUTOEDIT="no")
    if extra:
        env.update(extra)
    return env


def git(path: Path, *args: str, check: bool = True, data: bytes | None = None,
        env: dict[str, str] | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    """Run ``git -C path args``; SyncError with git's own message when it fails."""
    cmd = [git_exe(), "-C", str(path), *args]
    try:
        cp = subprocess.run(cmd, input=data, stdin=None if data is not None else
                            subprocess.DEVNULL, capture_output=True, env=_env(env),
                            timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        raise SyncError(f"git {args[0]} did not finish within {timeout:.0f} s") from exc
    except OSError as exc:
        raise SyncError(f"cannot run git: {exc}") from exc
    if check and cp.returncode != 0:
        held = _held_lock(cp.stderr)
        if held:
            raise _busy(path, held)
        raise SyncError(f"git {args[0]} failed: {_tail(cp)}")
    return cp


def _busy(path: Path, lock: str) -> SyncError:
    return SyncError(f"git is busy in {path} ({lock} exists): if no git command is running "
                     "there, delete that file and try again")


def _held_lock(stderr: bytes) -> str:
    """The lock file named by git's "another git holds it" failure, or ''."""
    text = stderr.decode("utf-8", "replace")
    if "File exists" not in text:
        return ""
    m = re.search(r"Unable to create '([^']+\.lock)'", text) or \
        re.search(r"could not lock config file (\S+?):", text)
    if not m:
        return ""
    name = m.group(1)
    return name if name.endswith(".lock") else name + ".lock"


def _out(path: Path, *args: str, **kw: Any) -> str:
    return git(path, *args, **kw).stdout.decode("utf-8", "surrogateescape").strip()


def _tail(cp: subprocess.CompletedProcess) -> str:
    text = (cp.stderr or b"").decode("utf-8", "replace").strip() or \
        (cp.stdout or b"").decode("utf-8", "replace").strip()
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.startswith("hint:")]
    key = [ln for ln in lines if ln.startswith(("fatal:", "error:"))]
    return " / ".join(key[:2] or lines[-3:]) or f"exit status {cp.returncode}"


def is_repo(path: Path) -> bool:
    return (Path(path) / ".git").is_dir()


def _require_repo(path: Path) -> None:
    git_exe()
    if not is_repo(path):
        raise SyncError(f"{path} is not under git yet: run 'ihmt sync init' "
                        "(add --remote URL to sync with another machine)")


def _rev(path: Path, ref: str) -> str | None:
    cp = git(path, "rev-parse", "--verify", "-q", ref + "^{commit}", check=False)
    if cp.returncode != 0:
        return None
    return cp.stdout.decode().strip() or None


def _is_ancestor(path: Path, a: str, b: str) -> bool:
    return git(path, "merge-base", "--is-ancestor", a, b, check=False).returncode == 0


def _read_blobs(path: Path, shas: list[str]) -> dict[str, bytes]:
    """Contents of many blobs with one ``git cat-file --batch``."""
    want = list(dict.fromkeys(s for s in shas if s and set(s) != {"0"}))
    if not want:
        return {}
    raw = git(path, "cat-file", "--batch", data="".join(s + "\n" for s in want).encode()).stdout
    out: dict[str, bytes] = {}
    pos = 0
    for sha in want:
        nl = raw.index(b"\n", pos)
        head = raw[pos:nl].split()
        if len(head) < 3 or head[1] != b"blob":
            pos = nl + 1
            continue
        size = int(head[2])
        out[sha] = raw[nl + 1 : nl + 1 + size]
        pos = nl + 1 + size + 1
    return out


def _configure(path: Path) -> None:
    """Repository settings IHMT relies on (idempotent; nothing global is read or set).

    One read of the repository's own config; git writes it (under ``.git/config.lock``)
    only for a setting that is missing or different, so an ordinary sync writes nothing.
    """
    cp = git(path, "config", "--local", "--list", "-z", check=False)
    have: dict[str, str] = {}
    for rec in cp.stdout.split(b"\0"):
        key, _, value = rec.decode("utf-8", "surrogateescape").partition("\n")
        if key:
            have.setdefault(key.lower(), value)
    for key, value in (("merge.renames", "false"), ("diff.renames", "false"),
                       ("core.quotepath", "false")):
        if have.get(key) != value:
            git(path, "config", key, value)
    for key, value in zip(("user.name", "user.email"), IDENTITY):
        if key not in have and git(path, "config", "--get", key, check=False).returncode != 0:
            git(path, "config", key, value)


# ---------------------------------------------------------------------- git still running
def _lock_files(gdir: Path) -> list[Path]:
    """The lock files git leaves in ``.git`` while it writes: the index, config, HEAD and
    every ref (loose refs are a handful of small folders), and IHMT's merge index."""
    found = [gdir / n for n in ("index.lock", "config.lock", "HEAD.lock", "ORIG_HEAD.lock",
                                "FETCH_HEAD.lock", "packed-refs.lock", "shallow.lock",
                                "ihmt-merge.index.lock") if (gdir / n).exists()]
    for folder, _dirs, names in os.walk(gdir / "refs"):
        found += [Path(folder) / n for n in names if n.endswith(".lock")]
    return found


def _gits_running_in(path: Path) -> list[int]:
    """Process ids of git commands working in ``path`` (Linux; elsewhere always empty).

    A sync killed half way leaves its git child running: it finishes on its own and
    releases its lock a moment later. Seen through ``/proc/PID/cwd`` (``git -C`` moves
    into the folder); processes of other users cannot be read and are not counted.
    """
    proc = Path("/proc")
    if not proc.is_dir():
        return []
    try:
        top = path.resolve()
    except OSError:
        return []
    pids = []
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if not (entry / "comm").read_text().startswith("git"):
                continue
            cwd = Path(os.readlink(entry / "cwd"))
        except OSError:
            continue
        if cwd == top or top in cwd.parents:
            pids.append(int(entry.name))
    return pids


def _settle_git(path: Path, wait_s: float | None = None) -> list[str]:
    """Before a sync touches git: wait for a git still running in the folder to finish
    (for at most ``wait_s``), then remove lock files no git holds any more.

    Called with the write lock held, so no IHMT process starts a git meanwhile. A lock
    file is left over when no git runs in the folder (as far as this system can tell)
    and it is older than :data:`STALE_LOCK_S`; a younger one, or one while a git still
    runs, may be a git the user is running by hand: SyncError names it and says what to
    do.
    """
    gdir = path / ".git"
    notes: list[str] = []
    deadline = time.monotonic() + (LOCK_WAIT_S if wait_s is None else wait_s)
    while True:
        running = _gits_running_in(path)
        locks = _lock_files(gdir)
        if not running:
            now = time.time()
            for lock in locks:
                try:
                    old = now - lock.stat().st_mtime > STALE_LOCK_S
                except OSError:
                    continue
                if old:
                    lock.unlink(missing_ok=True)
                    notes.append(f"removed a stale .git/{lock.relative_to(gdir).as_posix()}")
            locks = [lock for lock in locks if lock.exists()]
        if not locks and not running:
            return notes
        if time.monotonic() >= deadline:
            if not locks:
                return notes  # a git that holds no lock (a log, a diff): it cannot hurt
            raise _busy(path, f".git/{locks[0].relative_to(gdir).as_posix()}")
        time.sleep(0.05)


# ---------------------------------------------------------------------- committing
def _commit_staged(path: Path, message: str) -> str | None:
    """Commit the index; None when there was nothing to commit."""
    for attempt in range(5):
        cp = git(path, "commit", "-q", "--no-verify", "-m", message, check=False)
        if cp.returncode == 0:
            return _rev(path, "HEAD")
        text = _tail(cp)
        if "nothing to commit" in text or "nothing added" in text or \
                "no changes added" in text:
            return None
        if "index.lock" in text and attempt < 4:
            time.sleep(0.05 * (attempt + 1))  # a git run by hand beside us
            continue
        raise SyncError(f"git commit failed: {text}")
    return None
