"""The folders the project tools may open, and opening a file so that what was checked is
what is read.

A model asks the project tools for paths; those tools must not become a way to read
``~/.ssh`` or to index ``/etc``. Every path is therefore checked against a short list of
allowed roots before anything is opened, indexed or written:

* the working folder of the process (the project an agent starts the server in), unless
  it is the file-system root or the home folder, which would open the whole disk;
* ``$IHMT_PROJECT`` when it names a folder (the project the server was configured for);
* every folder of ``$IHMT_ROOTS`` (separated by ``os.pathsep``, ``:`` on POSIX) and of the
  faces' ``--root`` options, which the user configures explicitly;
* for the MCP server, the workspace roots the client declares.

A check and an open are two system calls, and a file can be swapped for a symlink between
them. :func:`open_confined` closes that window: the path is resolved, checked, then opened
one component at a time from the root's own descriptor with ``O_NOFOLLOW`` (``openat``),
so a component that became a link fails to open instead of leading elsewhere. Where the
platform has neither (Windows), the file is opened by its resolved path and then compared
with it: the descriptor's device and inode must be those of an ``lstat`` of the resolved
path, which must still resolve inside the root.
"""

from __future__ import annotations

import errno
import logging
import os
import stat
from collections.abc import Iterable
from pathlib import Path

from ..errors import InputError, NotFoundError, shown
from ..scope import PROJECT_ENV  # the server's project folder (or a project id)

log = logging.getLogger(__name__)

ROOTS_ENV = "IHMT_ROOTS"
HOW_TO_ADD = (f"to allow another folder, add it to {ROOTS_ENV} (folders separated by "
              f"'{os.pathsep}') or pass --root DIR to 'ihmt project' or 'ihmt mcp'")

O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # a FIFO must not block the open
_O_BINARY = getattr(os, "O_BINARY", 0)
# openat with O_NOFOLLOW on each component: Linux, macOS, the BSDs.
WALK_BY_FD = bool(O_NOFOLLOW and _O_DIRECTORY) and os.open in os.supports_dir_fd
_LINK_ERRNOS = {errno.ELOOP, errno.ENOTDIR, getattr(errno, "EMLINK", errno.ELOOP),
                getattr(errno, "EFTYPE", errno.ELOOP)}


class Roots:
    """An ordered list of folders; relative paths are taken below the first one."""

    def __init__(self, folders: Iterable[str | os.PathLike[str]] = ()) -> None:
        self._real: list[Path] = []  # resolved
        self._spelled: list[Path] = []  # as given (normalised), for the lexical check
        for folder in folders:
            self.add(folder)

    @classmethod
    def from_environment(cls, extra: Iterable[str | os.PathLike[str]] = (), *,
                         cwd: str | os.PathLike[str] | None = None) -> Roots:
        """The roots of a face started in ``cwd`` (default: the working folder): that
        folder unless too broad, ``$IHMT_PROJECT``, ``$IHMT_ROOTS``, then ``extra``.

        A configured folder that does not exist is skipped with a warning: a stale entry
        must not stop the tools, and the refusal names the roots that are in force.
        """
        roots = cls()
        here = Path(cwd if cwd is not None else os.getcwd()).absolute()
        if _too_broad(here):
            log.info("working folder %s is too broad to allow the project tools below it; "
                     "only configured roots are allowed", here)
        else:
            roots._try_add(here, "the working folder")
        project = os.environ.get(PROJECT_ENV, "").strip()
        if project and Path(project).expanduser().is_dir():
            roots._try_add(project, PROJECT_ENV)
        for entry in os.environ.get(ROOTS_ENV, "").split(os.pathsep):
            if entry.strip():
                roots._try_add(entry.strip(), ROOTS_ENV)
        for entry in extra:
            roots._try_add(entry, "--root")
        return roots

    def _try_add(self, folder: str | os.PathLike[str], origin: str) -> None:
        try:
            self.add(folder)
        except (InputError, NotFoundError) as exc:
            log.warning("ignoring %s root: %s", origin, exc)

    # ------------------------------------------------------------------ the list
    @property
    def folders(self) -> list[Path]:
        return list(self._real)

    def __bool__(self) -> bool:
        return bool(self._real)

    def __repr__(self) -> str:
        return f"Roots({[str(r) for r in self._real]!r})"

    def add(self, path: str | os.PathLike[str]) -> Path:
        """Allow the tools below ``path`` (an existing folder); returns its real path."""
        p = Path(path).expanduser()
        if not p.is_absolute():
            p = Path.cwd() / p
        try:
            real = p.resolve(strict=True)
        except (OSError, RuntimeError) as exc:
            raise NotFoundError(f"allowed root {shown(p)} does not exist") from exc
        if not real.is_dir():
            raise InputError(f"allowed root {shown(p)} is not a folder")
        if real not in self._real:
            self._real.append(real)
        for form in (Path(os.path.normpath(p)), real):
            if form not in self._spelled:
                self._spelled.append(form)
        return real

    def root_of(self, real: Path) -> Path:
        """The allowed root that holds the resolved path ``real`` (the deepest one)."""
        holders = [r for r in self._real if is_within(real, r)]
        if not holders:
            raise self._outside(str(real))
        return max(holders, key=lambda r: len(r.parts))

    def display(self, real: Path) -> str:
        """``real`` relative to the first root when inside it, else absolute."""
        if self._real and is_within(real, self._real[0]):
            return str(real.relative_to(self._real[0]))
        return str(real)

    # ------------------------------------------------------------------ checks
    def resolve(self, path: str | os.PathLike[str]) -> Path:
        """The real path of ``path`` if it lies inside an allowed root, else InputError.

        Two checks, because each catches what the other misses: the path as written
        (``..`` collapsed without touching the disk) must stay inside a root, and so must
        the path with every symlink resolved. Nothing outside is touched beyond the
        resolution itself: no index, no file, no folder is created there.
        """
        if not self._real:
            raise InputError("refused: no folder is allowed for the project tools (the "
                             "working folder is the file-system root or the home folder); "
                             f"start in the project's folder, or {HOW_TO_ADD}")
        raw = os.fspath(path)
        if not isinstance(raw, str) or not raw.strip() or "\x00" in raw:
            raise InputError("the path is empty or contains a NUL character")
        p = Path(raw).expanduser()
        written = Path(os.path.normpath(p if p.is_absolute() else self._real[0] / p))
        if not any(is_within(written, r) for r in self._spelled):
            raise self._outside(raw)
        try:
            real = written.resolve(strict=False)
        except (OSError, RuntimeError) as exc:  # a symlink loop
            raise InputError(f"refused: {shown(raw)} cannot be resolved ({exc})") from exc
        if not any(is_within(real, r) for r in self._real):
            raise InputError(
                f"refused: {shown(raw)} is a symlink (or passes through one) that leads "
                f"outside the allowed folders ({self._listed()}), to {shown(real)}; "
                f"{HOW_TO_ADD}")
        return real

    def folder(self, path: str | os.PathLike[str]) -> Path:
        """The real path of an existing folder inside the roots (a project to index)."""
        real = self.resolve(path)
        if not real.exists():
            raise NotFoundError(f"project folder {shown(path)} does not exist")
        if not real.is_dir():
            raise InputError(f"{shown(path)} is not a folder: give the project's root folder")
        return real

    def _listed(self) -> str:
        return ", ".join(str(r) for r in self._real)

    def _outside(self, raw: str) -> InputError:
        return InputError(f"refused: {shown(raw)} is outside the allowed folders "
                          f"({self._listed()}); {HOW_TO_ADD}")


def as_roots(roots: Roots | Iterable[str | os.PathLike[str]] | None) -> Roots:
    """``roots`` as given, a list of folders made into Roots, or None: the environment's."""
    if isinstance(roots, Roots):
        return roots
    if roots is None:
        return Roots.from_environment()
    return Roots(roots)


def is_within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _too_broad(folder: Path) -> bool:
    try:
        real = folder.resolve()
        home = Path.home().resolve()
    except (OSError, RuntimeError):
        return True
    return real == Path(real.anchor) or real == home


# ---------------------------------------------------------------------- opening
class LinkSwapped(InputError):
    """The file or a folder on its way turned into a symlink while it was being opened."""


def open_confined(root: Path, real: Path) -> int:
    """A read-only descriptor of the regular file ``real`` (a resolved path inside the
    resolved folder ``root``), opened so that no symlink is followed on the way.

    Raises NotFoundError when it is gone, LinkSwapped when a component became a link
    (a race with whoever changes the folder), InputError for anything that is not a
    regular file, and OSError (permission denied ...) as the system said it.
    """
    try:
        rel = real.relative_to(root)
    except ValueError:
        raise InputError(f"refused: {shown(real)} is outside {shown(root)}") from None
    if not rel.parts:
        raise InputError(f"{shown(real)}: not a regular file")
    try:
        fd = _open_walk(root, rel.parts) if WALK_BY_FD else _open_then_verify(root, real)
    except FileNotFoundError as exc:
        raise NotFoundError(f"{shown(real)}: no such file") from exc
    except OSError as exc:
        if exc.errno in _LINK_ERRNOS:
            if _has_link(root, rel.parts) or exc.errno != errno.ENOTDIR:
                raise LinkSwapped(f"refused: {shown(real)} (or a folder on its way) is a "
                                  "symlink now; it changed while being opened") from exc
            raise NotFoundError(f"{shown(real)}: no such file (a part of the path is not a "
                                "folder)") from exc
        if exc.errno == errno.EISDIR:
            raise InputError(f"{shown(real)}: not a regular file") from exc
        if exc.errno == errno.ENXIO:  # a socket, or a FIFO without a writer
            raise InputError(f"{shown(real)}: not a regular file") from exc
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise InputError(f"{shown(real)}: not a regular file")
    except BaseException:
        os.close(fd)
        raise
    return fd


def _has_link(root: Path, parts: tuple[str, ...]) -> bool:
    """Whether a component of ``root/parts`` is a symlink now (to explain a failed open)."""
    here = root
    for part in parts:
        here = here / part
        try:
            if stat.S_ISLNK(os.lstat(here).st_mode):
                return True
        except OSError:
            return False
    return False


def _open_walk(root: Path, parts: tuple[str, ...]) -> int:
    """openat from ``root`` down ``parts``, never following a link (POSIX)."""
    fd = os.open(root, os.O_RDONLY | _O_DIRECTORY | _O_CLOEXEC)
    try:
        for part in parts[:-1]:
            nxt = os.open(part, os.O_RDONLY | _O_DIRECTORY | O_NOFOLLOW | _O_CLOEXEC,
                          dir_fd=fd)
            os.close(fd)
            fd = nxt
        return os.open(parts[-1], os.O_RDONLY | O_NOFOLLOW | _O_NONBLOCK | _O_CLOEXEC,
                       dir_fd=fd)
    finally:
        os.close(fd)


def _open_then_verify(root: Path, real: Path) -> int:
    """Open by path, then check that the opened file is the one resolved inside ``root``:
    the fallback where there is no openat (Windows) or no O_NOFOLLOW."""
    fd = os.open(real, os.O_RDONLY | O_NOFOLLOW | _O_NONBLOCK | _O_BINARY | _O_CLOEXEC)
    try:
        opened = os.fstat(fd)
        named = os.lstat(real)
        if stat.S_ISLNK(named.st_mode) or (opened.st_dev, opened.st_ino) != (
                named.st_dev, named.st_ino):
            raise OSError(errno.ELOOP, "the file changed while being opened", str(real))
        again = real.resolve(strict=True)
        if again != real or not is_within(again, root):
            raise OSError(errno.ELOOP, "a folder on the way changed while opening", str(real))
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_confined(root: Path, real: Path, max_bytes: int) -> tuple[bytes, os.stat_result]:
    """The bytes of ``real`` (at most ``max_bytes + 1`` of them, so a caller can tell a
    file over its limit) and the stat of the descriptor they were read from."""
    fd = open_confined(root, real)
    with os.fdopen(fd, "rb") as handle:
        st = os.fstat(handle.fileno())
        if st.st_size > max_bytes:
            return b"", st
        return handle.read(max_bytes + 1), st
