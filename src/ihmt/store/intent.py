"""The write intent log, ``state/intent.log``: one line when a write begins, one when it ends.

::

    B <pid> <what> <time> <record> <checksum>     a write began (synced before it changes
                                                  anything)
    E                                             it ended

A ``B`` line with no ``E`` after it is a write a dead process left. Its record (JSON, one
line, with a checksum of its own) names what the write was going to touch: the trunk it
started from (epoch and generation of ``root.json``), the new leaves, and the size and
identity of the two journals it appends to (``catalog.jsonl``, ``facts.jsonl``). With it
the next writer re-derives only that write (:mod:`ihmt.recover`); without one (an older
line, a line cut short, a checksum that does not match) it rebuilds everything from the
leaves, as before. The record costs nothing more to make durable: it is on the line that
was synced anyway.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import files

RECORD_VERSION = 1
TRUNCATE_AT = 65536  # the log is emptied after an 'E' once it is this long
_TAIL = 4096


def file_sig(path: Path) -> list[int] | None:
    """``[inode, size]`` of a journal, None when there is none: a writer only appends to
    it, so the bytes past ``size`` of that same inode are the write's own."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return [st.st_ino, st.st_size]


def last_line(path: Path) -> bytes:
    """The last non-empty line of ``path`` (b"" when empty), read from the end however long
    it is. Raises OSError (FileNotFoundError when there is no file)."""
    with open(path, "rb") as fh:
        end = fh.seek(0, os.SEEK_END)
        want = _TAIL
        while True:
            start = max(0, end - want)
            fh.seek(start)
            data = fh.read(end - start).rstrip(b"\r\n\t ")
            cut = data.rfind(b"\n")
            if cut >= 0 or start == 0:
                return data[cut + 1:]
            want *= 4


def encode_record(record: dict[str, Any]) -> str:
    body = json.dumps(record, ensure_ascii=True, separators=(",", ":"), sort_keys=True)
    return f"{body} {files.digest(body)}"


def decode_record(text: str) -> dict[str, Any] | None:
    """The record of a 'B' line's tail, or None when it is absent, cut short or altered."""
    body, _, check = text.rpartition(" ")
    if not body or files.digest(body) != check:
        return None
    try:
        record = json.loads(body)
    except ValueError:
        return None
    if not isinstance(record, dict) or record.get("v") != RECORD_VERSION:
        return None
    return record


class IntentLog:
    """The intent log of one store; ``set_aside`` moves a log the store cannot use."""

    def __init__(self, path: Path, set_aside: Callable[[Path, OSError | None], Any]) -> None:
        self.path = path
        self._set_aside = set_aside

    def begin(self, what: str, record: dict[str, Any] | None = None) -> None:
        """Record, durably, that a write is under way (lock held): one appended line and
        one fsync of an existing file (no new directory entry to sync)."""
        line = f"B {os.getpid()} {what} {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}"
        if record is not None:
            line += " " + encode_record({"v": RECORD_VERSION, **record})
        self._append(line, durable=True)

    def end(self) -> None:
        self._append("E")
        try:
            if self.path.stat().st_size > TRUNCATE_AT:
                os.truncate(self.path, 0)
        except OSError:
            pass

    def _append(self, line: str, *, durable: bool = False) -> None:
        try:
            files.append_line(self.path, line, durable=durable)
        except (IsADirectoryError, PermissionError) as exc:
            # The intent log is local bookkeeping: a folder or an unwritable file at its
            # path is set aside (lock held) and the log begun again.
            self._set_aside(self.path, exc)
            files.append_line(self.path, line, durable=durable)

    def settle(self) -> None:
        """Lock held, the store found interrupted: a log that cannot be read says nothing,
        so it is set aside (the caller rebuilds, as for any interrupted write)."""
        try:
            with open(self.path, "rb") as fh:
                fh.read(1)
        except FileNotFoundError:
            pass
        except OSError as exc:
            self._set_aside(self.path, exc)

    def interrupted(self) -> bool:
        try:
            return last_line(self.path).startswith(b"B ")
        except FileNotFoundError:
            return False
        except OSError:
            return True  # cannot tell (a folder, unreadable): repaired under the lock

    def open_record(self) -> tuple[str, dict[str, Any] | None]:
        """What the unfinished write was (``save``, ``bulk`` ...) and its record, None
        when the line has none that can be trusted."""
        try:
            line = last_line(self.path).decode("utf-8", "replace")
        except OSError:
            return "", None
        parts = line.split(" ", 4)
        if len(parts) < 5 or parts[0] != "B":
            return (parts[2] if len(parts) > 2 else ""), None
        return parts[2], decode_record(parts[4])
