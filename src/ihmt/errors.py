"""Exceptions raised by IHMT. Every message says what went wrong and what to do about it."""

from __future__ import annotations


class IHMTError(Exception):
    """Base class of every error IHMT raises on purpose."""


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
