"""Exceptions raised by IHMT. Every message says what went wrong and what to do about it."""

from __future__ import annotations

import errno


class IHMTError(Exception):
    """Base class of every error IHMT raises on purpose.

    A message longer than :data:`MAX_MESSAGE` (one that quotes a path or a value of
    megabytes) is clipped in the middle: an error never echoes a huge input back."""

    def __init__(self, *args: object) -> None:
        if args and isinstance(args[0], str) and len(args[0]) > MAX_MESSAGE:
            args = (shown(args[0], MAX_MESSAGE), *args[1:])
        super().__init__(*args)


class StoreError(IHMTError):
    """The memory folder is missing, unwritable or not an IHMT store."""


class UnusableFileError(StoreError):
    """A file of the store is in a shape that cannot be read (a folder at its path, a
    file that cannot be opened). A derived one is set aside and rebuilt by the caller."""

    def __init__(self, message: str, path: object = None) -> None:
        super().__init__(message)
        self.path = path


class InputError(IHMTError, ValueError):
    """Something handed to IHMT cannot be stored or searched as given (empty, binary, too big)."""


class DamagedFileError(IHMTError):
    """A file of the store could not be parsed; derived files are rebuilt, leaves quarantined."""


class UnreadableFileError(DamagedFileError):
    """A file of the store exists but could not be read (permission denied, I/O error):
    nothing says it is damaged, so it is reported and left where it is, never quarantined."""


class NotFoundError(IHMTError, KeyError):
    """An id, path or project that was asked for does not exist."""

    def __str__(self) -> str:  # KeyError quotes its argument; we want the plain message
        return str(self.args[0]) if self.args else ""


class SecretError(InputError):
    """The content looks like it holds a secret (a key, a token, a password)."""


MAX_MESSAGE = 2_000  # characters of an error message at most
_NO_SPACE = {errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)}
MAX_SHOWN = 200  # characters of a file name an error message shows at most


def shown(value: object, limit: int = MAX_SHOWN) -> str:
    """``value`` as an error message shows it: a 5 MB path is clipped, not echoed back."""
    text = str(value)
    if len(text) <= limit:
        return text
    note = f" [{len(text):,} characters]"
    return f"{text[:max(limit - 33 - len(note), 10)]}...{text[-30:]}{note}"


class SystemFailure(StoreError, OSError):
    """An OSError (a full disk, a name too long ...) said in one line. Still an OSError,
    with the same ``errno``, for callers that caught OSError before."""

    def __str__(self) -> str:  # OSError would print "[Errno N] ..." instead of ours
        return str(self.args[0]) if self.args else ""


def from_os_error(exc: OSError, doing: str, after: str = "") -> StoreError:
    """The StoreError for an OSError met while ``doing`` something: one line that says
    what the system refused and what to do (``after`` adds what became of the store).
    One already said this way is returned as it is."""
    if isinstance(exc, IHMTError):
        return exc  # type: ignore[return-value]
    name = f" ({shown(exc.filename)})" if exc.filename else ""
    if exc.errno in _NO_SPACE:
        what, fix = "the disk is full", "free some space, then try again"
    elif exc.errno == errno.ENAMETOOLONG:
        what, fix = "a file name is too long", "choose a shorter path or name"
    elif exc.errno == errno.EROFS:
        what, fix = "the file system is read-only", "choose a folder that can be written"
    elif exc.errno in (errno.EACCES, errno.EPERM):
        what, fix = "permission denied", "check the folder's permissions"
    else:
        what = exc.strerror or str(exc) or type(exc).__name__
        fix = "check the disk and the folder's permissions, then try again"
    err = SystemFailure(f"{doing} failed: {what}{name}; {fix}{after}")
    err.errno = exc.errno
    return err
