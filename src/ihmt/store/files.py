"""Atomic, permission-safe file writes and names that cannot escape the store folder."""

from __future__ import annotations

import json
import os
import re
import stat
import threading
import time
from pathlib import Path
from typing import Any

from ..errors import InputError

DIR_MODE = 0o700
FILE_MODE = 0o600
# A file of at least this size is given its blocks before it is written. On ext4 a file
# renamed over another has its delayed allocation forced at the rename, at about 0.7 ms per
# MB (measured: replacing a 4 MB branch file took 3.4 ms, 0.9 ms with the blocks given
# first); a forget replaces the large branch files at the top of the tree.
PREALLOCATE_BYTES = 64 * 1024
_fallocate = getattr(os, "posix_fallocate", None)

_SAFE = re.compile(r"[^a-z0-9._-]+")


def safe_name(value: str, what: str = "name", max_len: int = 64) -> str:
    """A domain or tag usable as one path component: lower-case [a-z0-9._-], no dots-only.

    Names that would climb out of the store ('..', '/etc', 'a/../../b') are not silently
    rewritten into something else: they are refused with a message.
    """
    if not isinstance(value, str):
        raise InputError(f"{what} must be text, not {type(value).__name__}")
    raw = value.strip()
    if not raw:
        raise InputError(f"{what} is empty")
    if "/" in raw or "\\" in raw or raw.strip(".") == "" or "\x00" in raw:
        raise InputError(f"{what} {value!r} is not allowed: use letters, digits, '.', '_', '-'")
    name = re.sub(r"\.{2,}", ".", _SAFE.sub("-", raw.lower())).strip("-.")
    if not name:
        raise InputError(f"{what} {value!r} has no usable characters: use letters or digits")
    return name[:max_len]


def digest(*parts: str, length: int = 12) -> str:
    import hashlib  # here: its OpenSSL start costs a read-only hook a few ms

    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode("utf-8", "surrogatepass"))
        h.update(b"\x1f")
    return h.hexdigest()[:length]


def ensure_dir(path: Path) -> Path:
    """Create ``path`` and each missing parent with the store's private mode (``mkdir``'s
    ``parents=True`` would give the parents the default mode, readable by other users)."""
    missing = []
    p = path
    while not p.exists() and p != p.parent:
        missing.append(p)
        p = p.parent
    for d in reversed(missing):
        try:
            d.mkdir(mode=DIR_MODE)
        except FileExistsError:
            pass
    if not path.is_dir():
        path.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)  # says clearly what is wrong
    return path


def atomic_write(path: Path, data: str | bytes | bytearray, *, durable: bool = False,
                 sync_dir: bool | None = None, mode: int = FILE_MODE) -> None:
    """Write ``data`` to ``path`` so that readers see the old or the new file, never half.

    ``durable`` adds fsync of the file and its folder: used for leaves (the source of
    truth), skipped for derived files, which can always be rebuilt. ``sync_dir=False``
    syncs the data but not the folder: for rewriting a file that already exists, where
    losing the rename in a power cut just leaves the previous complete version.
    ``mode`` is the permission the file is created with, less the umask (as ``open``
    does): private by default, as store files are.
    """
    payload = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    tmp = path.parent / f".{path.name}.{os.getpid()}.{threading.get_ident()}.part"
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(tmp, flags, mode)
    except FileNotFoundError:
        ensure_dir(path.parent)
        fd = os.open(tmp, flags, mode)
    try:
        if len(payload) >= PREALLOCATE_BYTES and _fallocate is not None:
            try:
                _fallocate(fd, 0, len(payload))
            except OSError:  # a file system without it: written the plain way
                pass
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        try:
            os.replace(tmp, path)
        except FileNotFoundError:
            if not path.parent.is_dir():
                raise
            # Our temporary file vanished (removed by a clean-up that took it for a
            # left-over): write it once more rather than fail the caller.
            _write_new(tmp, flags, mode, payload, durable)
            os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    if durable and (sync_dir is None or sync_dir):
        fsync_dir(path.parent)


def _write_new(tmp: Path, flags: int, mode: int, payload: bytes, durable: bool) -> None:
    fd = os.open(tmp, flags, mode)
    with os.fdopen(fd, "wb") as fh:
        fh.write(payload)
        if durable:
            fh.flush()
            os.fsync(fh.fileno())


def fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def fast_json() -> Any:
    """``orjson``, a fast JSON parser and encoder (a dependency; None without it), imported
    on first use: loading its extension (and the ``uuid`` and ``platform`` it imports)
    costs a fresh process about 58 M instructions (15 ms), which a process that parses no
    branch and writes no JSON (``--help``, a session start whose digest is kept) saves."""
    try:
        import orjson
    except ImportError:  # pragma: no cover - installed with IHMT
        return None
    return orjson


def write_json(path: Path, obj: Any, *, durable: bool = False, indent: int | None = None) -> None:
    _orjson = fast_json() if indent is None else None
    if _orjson is not None:
        try:
            atomic_write(path, _orjson.dumps(obj) + b"\n", durable=durable)
            return
        except TypeError:  # what orjson refuses (ints past 64 bits, ...): the stdlib below
            pass
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":") if indent is None else None,
                      indent=indent)
    atomic_write(path, text + "\n", durable=durable)


def read_json(path: Path) -> Any:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def write_all(fd: int, data: bytes | bytearray) -> None:
    """Write every byte of ``data`` at the descriptor's position: ``os.write`` may write
    less than it was given (a full disk, a signal, a huge buffer), and the rest must not
    be dropped silently. Raises OSError when nothing more can be written."""
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        if n <= 0:
            raise OSError(f"wrote 0 of the last {len(view)} bytes")
        view = view[n:]


def append_line(path: Path, line: str, *, durable: bool = False) -> None:
    """Append one line (or several, newline-separated); a reader tolerates a torn last
    line, so no temp file is needed."""
    ensure_dir(path.parent)
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT
    fd = os.open(path, flags, FILE_MODE)
    try:
        write_all(fd, (line.rstrip("\n") + "\n").encode("utf-8", "surrogatepass"))
        if durable:
            os.fsync(fd)
    finally:
        os.close(fd)


def move_aside(path: Path, folder: Path) -> Path:
    """Move ``path`` (a file or a folder, whatever it holds) into ``folder`` under a name
    no other moved path has, and return where it went. Nothing is deleted: a derived file
    in a shape the store cannot use (a folder, an unreadable file) is set aside this way
    and rebuilt, and its owner can still look at what it held. Raises OSError."""
    ensure_dir(folder)
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
    target = folder / f"{path.name}.{stamp}"
    n = 1
    while os.path.lexists(target):
        target = folder / f"{path.name}.{stamp}.{n}"
        n += 1
    os.rename(path, target)
    fsync_dir(path.parent)
    return target


def not_a_file(path: Path) -> bool:
    """Whether something that is not a regular file (a folder, a socket ...) sits at
    ``path``: a symlink counts as what it points to; nothing there is False."""
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except FileNotFoundError:
        return False
    except OSError:
        return True


def inside(root: Path, candidate: Path) -> bool:
    """True when ``candidate`` (symlinks resolved) lies inside ``root``."""
    try:
        candidate.resolve().relative_to(root.resolve())
    except (ValueError, OSError):
        return False
    return True


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` is running (this one included; one owned by another user
    counts as running): its temporary files and queued work are not left-overs."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, owned by someone else
        return True
    return True


def valid_id(node_id: str) -> bool:
    """A leaf or branch id usable as a file name (``L-...`` / ``N<layer>-...``)."""
    return (
        isinstance(node_id, str)
        and 0 < len(node_id) < 200
        and "/" not in node_id
        and "\\" not in node_id
        and ".." not in node_id
        and "\x00" not in node_id
        and node_id[0] in "LN"
    )
