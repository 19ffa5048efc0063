"""The cross-process write lock: every agent runs its own server on the same store.

One lock per store; writers hold it only for the few file operations of one save or one
Summarization Event. Readers never take it: every file they read is replaced atomically,
so they see a complete old or a complete new version.

On POSIX the lock is an ``flock`` on the store's ``state/`` folder itself, not on a file
in it: a lock file can be deleted or replaced while a writer holds it, and the next writer
would then lock the new file and get in too. The folder cannot be swapped while it holds
the store's state, and after acquiring the lock the holder checks that the folder it
locked is still the one at that path (and tries again if not). The kernel frees the lock
when its process ends, so a crashed writer never leaves a lock behind. Elsewhere the lock
falls back to :mod:`filelock` on ``write.lock``, checked the same way.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import StoreError

try:  # POSIX
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

_POLL_S = 0.005
_POLL_MAX_S = 0.05


class WriteLock:
    """Re-entrant across threads of one process and exclusive across processes."""

    def __init__(self, path: Path, timeout: float = 60.0) -> None:
        self.path = path  # the lock's name in messages; POSIX locks its folder
        self.timeout = timeout
        self._thread = threading.RLock()
        self._owner: int | None = None
        self._depth = 0
        self._fd: int | None = None
        self._fallback = None
        if fcntl is None:  # pragma: no cover - Windows
            from filelock import FileLock

            self._fallback = FileLock(str(path), thread_local=False, mode=0o600)

    def owned(self) -> bool:
        """Whether the calling thread holds the lock (a thread that does must not wait for
        another thread that needs it)."""
        return self._owner == threading.get_ident()

    def acquire(self) -> None:
        self._thread.acquire()
        try:
            if not self._depth:
                self._acquire_os()
            self._owner = threading.get_ident()
            self._depth += 1
        except BaseException:
            self._thread.release()
            raise

    def release(self) -> None:
        self._depth -= 1
        try:
            if not self._depth:
                self._owner = None
                self._release_os()
        finally:
            self._thread.release()

    @contextmanager
    def hold(self) -> Iterator[None]:
        self.acquire()
        try:
            yield
        finally:
            self.release()

    # ------------------------------------------------------------------ the OS lock
    def _timeout_error(self) -> StoreError:
        return StoreError(
            f"another IHMT process has held the store's write lock for more than "
            f"{self.timeout:.0f} s ({self.path.parent}); wait for it to finish or stop that "
            f"process (the lock is freed when its process ends)"
        )

    def _acquire_os(self) -> None:
        deadline = time.monotonic() + self.timeout
        if self._fallback is not None:  # pragma: no cover - Windows
            from filelock import Timeout

            try:
                self._fallback.acquire(timeout=self.timeout)
            except Timeout as exc:
                raise self._timeout_error() from exc
            return
        folder = self.path.parent
        pause = _POLL_S
        while True:
            fd = self._open_folder(folder)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                if time.monotonic() >= deadline:
                    raise self._timeout_error() from None
                time.sleep(pause)
                pause = min(pause * 1.5, _POLL_MAX_S)
                continue
            except OSError as exc:
                os.close(fd)
                raise StoreError(f"cannot lock the store ({folder}): {exc.strerror}") from exc
            if self._still_there(fd, folder):
                self._fd = fd
                return
            os.close(fd)  # the folder was replaced between open and lock: lock the new one

    @staticmethod
    def _open_folder(folder: Path) -> int:
        flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)
        try:
            return os.open(folder, flags)
        except FileNotFoundError:
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            return os.open(folder, flags)
        except NotADirectoryError as exc:
            raise StoreError(
                f"{folder} is a file, not a folder: move it away so the store can keep its "
                f"state there"
            ) from exc
        except OSError as exc:
            raise StoreError(f"cannot open the store's state folder {folder}: "
                             f"{exc.strerror}") from exc

    @staticmethod
    def _still_there(fd: int, folder: Path) -> bool:
        held = os.fstat(fd)
        try:
            now = os.stat(folder)
        except OSError:
            return False
        return (held.st_dev, held.st_ino) == (now.st_dev, now.st_ino)

    def _release_os(self) -> None:
        if self._fallback is not None:  # pragma: no cover - Windows
            self._fallback.release()
            return
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)  # closing the only descriptor frees the flock
