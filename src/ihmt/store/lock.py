"""The cross-process write lock: every agent runs its own server on the same store.

One lock file per store; writers hold it only for the few file operations of one save or
one Summarization Event. Readers never take it: every file they read is replaced
atomically, so they see a complete old or a complete new version.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from ..errors import StoreError


class WriteLock:
    """Re-entrant across threads of one process and exclusive across processes."""

    def __init__(self, path: Path, timeout: float = 60.0) -> None:
        self.path = path
        self.timeout = timeout
        self._file = FileLock(str(path), thread_local=False, mode=0o600)
        self._thread = threading.RLock()
        self._owner: int | None = None  # thread holding it, and how many times
        self._depth = 0

    def owned(self) -> bool:
        """Whether the calling thread holds the lock (a thread that does must not wait for
        another thread that needs it)."""
        return self._owner == threading.get_ident()

    def acquire(self) -> None:
        self._thread.acquire()
        try:
            self._file.acquire(timeout=self.timeout)
            self._owner = threading.get_ident()
            self._depth += 1
        except Timeout as exc:
            self._thread.release()
            raise StoreError(
                f"another process has held the store's write lock ({self.path}) for more "
                f"than {self.timeout:.0f} s; if no IHMT process is running, delete that file"
            ) from exc
        except BaseException:
            self._thread.release()
            raise

    def release(self) -> None:
        self._depth -= 1
        if not self._depth:
            self._owner = None
        try:
            self._file.release()
        finally:
            self._thread.release()

    @contextmanager
    def hold(self) -> Iterator[None]:
        self.acquire()
        try:
            yield
        finally:
            self.release()
