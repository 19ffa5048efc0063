"""Confined file reading that remembers what it already handed out in this session.

An agent re-reads the same files again and again inside one session; each re-read costs the
whole file in tokens although the agent still holds the earlier copy in its context. A
:class:`SessionFiles` lives as long as the server process (one agent session) and answers a
repeated read with ``UNCHANGED`` or with only the unified diff against the copy it handed
out. It never claims ``UNCHANGED`` unless the bytes on disk are the bytes it sent.

Reading is confined to the allowed roots (:mod:`ihmt.project.roots`: the working folder,
the configured ones, the folders the client declares): a path outside them, a ``..`` that
climbs out, or a symlink that resolves outside is refused, and the file is opened without
following links, so a swap between the check and the open cannot hand out another file.
Files over a size cap and binary files are refused too. A tool that reads files on behalf
of a model must not become a way to read ``~/.ssh``.
"""

from __future__ import annotations

import difflib
import logging
import os
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError
from ..errors import shown as clipped
from ..text import count_tokens
from .roots import Roots, read_confined

log = logging.getLogger(__name__)

DEFAULT_MAX_BYTES = 1_000_000
BINARY_PROBE = 8192


@dataclass
class _Handed:
    """What one path's reader has seen: the text it was based on and which lines it got."""

    text: str
    at: str  # HH:MM:SS of the hand-out, shown in UNCHANGED answers
    whole: bool = False
    ranges: list[tuple[int, int]] = field(default_factory=list)

    def covers(self, first: int, last: int) -> bool:
        return self.whole or any(a <= first and last <= b for a, b in self.ranges)


def read_text(path: Path, max_bytes: int = DEFAULT_MAX_BYTES, root: Path | None = None) -> str:
    """The UTF-8 text of the resolved path ``path``, or InputError saying why it is not
    handed out. It is opened below ``root`` (default: its own folder) without following a
    link (:func:`~ihmt.project.roots.open_confined`), so it is the file that was checked.

    Binary means a NUL byte in the first 8 KB or bytes that are not UTF-8: a model gains
    nothing from either, and decoding them lossily would hide that the content is not text.
    """
    try:
        raw, st = read_confined(root if root is not None else path.parent, path, max_bytes)
    except PermissionError as exc:
        raise InputError(f"{clipped(path)}: cannot be read (permission denied)") from exc
    except OSError as exc:
        raise InputError(f"{clipped(path)}: cannot be read ({exc.strerror})") from exc
    if st.st_size > max_bytes or len(raw) > max_bytes:  # (or it grew while being read)
        raise InputError(
            f"{clipped(path)}: {max(st.st_size, len(raw)):,} bytes, over the {max_bytes:,}-byte "
            "read limit; read a line range (start_line/end_line), or use find_code for one "
            "symbol"
        )
    if b"\x00" in raw[:BINARY_PROBE]:
        raise InputError(f"{clipped(path)}: binary file (NUL bytes); not handed out as text")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{clipped(path)}: not valid UTF-8 (byte {exc.start}); treated as binary, not "
            "handed out"
        ) from exc


class SessionFiles:
    """Reads files inside the allowed roots and remembers what each read handed out.

    One instance per server process: the memory of what was sent is exactly as long-lived
    as the agent context that received it (a context compaction keeps the process alive;
    a new session starts a new process and therefore reads everything afresh).
    """

    def __init__(self, roots: Roots | Iterable[str | os.PathLike[str]] | None = None, *,
                 max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.max_bytes = max_bytes
        self.allowed = roots if isinstance(roots, Roots) else Roots(
            roots if roots is not None else [Path.cwd()])
        self._seen: dict[Path, _Handed] = {}
        self._mutex = threading.Lock()

    # ------------------------------------------------------------------ roots
    @property
    def roots(self) -> list[Path]:
        return self.allowed.folders

    def add_root(self, path: str | os.PathLike[str]) -> Path:
        """Allow reading below ``path`` (a folder the client declared as its workspace)."""
        return self.allowed.add(path)

    def resolve(self, path: str | os.PathLike[str]) -> Path:
        """The real path of ``path`` if it is inside an allowed root; InputError otherwise."""
        return self.allowed.resolve(path)

    # ------------------------------------------------------------------ reading
    def read_file(self, path: str | os.PathLike[str], force: bool = False, start_line: int = 0,
                  end_line: int = 0) -> str:
        """The file (or lines ``start_line``-``end_line``, 1-based inclusive, 0 = open end),
        or ``UNCHANGED`` / a unified diff when this session already holds a copy.

        ``force`` re-sends the content even if it was handed out before.
        """
        for name, value in (("start_line", start_line), ("end_line", end_line)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise InputError(f"{name} must be a whole number >= 0 (0 = from start/to end)")
        real = self.resolve(path)
        shown = self.allowed.display(real)
        text = read_text(real, self.max_bytes, self.allowed.root_of(real))
        lines = text.splitlines(keepends=True)
        n = len(lines)
        now = time.strftime("%H:%M:%S")
        with self._mutex:
            prior = self._seen.get(real)
            if start_line == 0 and end_line == 0:
                return self._whole(real, shown, text, n, prior, force, now)
            return self._range(real, shown, text, lines, start_line, end_line, prior, force,
                               now)

    def _whole(self, real: Path, shown: str, text: str, n: int, prior: _Handed | None,
               force: bool, now: str) -> str:
        if prior is not None and prior.whole and not force:
            if prior.text == text:
                return f"UNCHANGED: {shown} ({n} lines, same as read at {prior.at})"
            diff = "".join(difflib.unified_diff(
                prior.text.splitlines(keepends=True), text.splitlines(keepends=True),
                fromfile=f"{shown} (read at {prior.at})", tofile=f"{shown} (now)"))
            if not diff.endswith("\n"):
                diff += "\n"
            self._seen[real] = _Handed(text=text, at=now, whole=True)
            if count_tokens(diff) < count_tokens(text):
                return (f"CHANGED: {shown} ({n} lines, {count_tokens(text)} tok) since read at "
                        f"{prior.at}; unified diff against that copy:\n{diff}")
            return self._content(shown, text, n, note=f", changed since {prior.at}")
        self._seen[real] = _Handed(text=text, at=now, whole=True)
        return self._content(shown, text, n)

    def _range(self, real: Path, shown: str, text: str, lines: list[str], start: int, end: int,
               prior: _Handed | None, force: bool, now: str) -> str:
        n = len(lines)
        first = start or 1
        last = min(end or n, n)
        if n == 0 or first > n:
            raise InputError(f"{shown} has {n} lines; start_line {first} is past the end")
        if end and end < first:
            raise InputError(f"end_line {end} is before start_line {first}")
        if prior is not None and prior.text == text and not force:
            if prior.covers(first, last):
                return (f"UNCHANGED: {shown}:{first}-{last} ({n} lines, same as read at "
                        f"{prior.at})")
            prior.ranges.append((first, last))
        else:
            note = (f"; file changed since read at {prior.at}"
                    if prior is not None and prior.text != text else "")
            self._seen[real] = _Handed(text=text, at=now, ranges=[(first, last)])
            if note:
                log.debug("%s changed since it was handed out", shown)
            body = "".join(lines[first - 1:last])
            return self._slice(shown, body, first, last, n, note)
        body = "".join(lines[first - 1:last])
        return self._slice(shown, body, first, last, n, "")

    @staticmethod
    def _content(shown: str, text: str, n: int, note: str = "") -> str:
        head = f"{shown} ({n} lines, {count_tokens(text)} tok{note})"
        return head + "\n" + text

    @staticmethod
    def _slice(shown: str, body: str, first: int, last: int, n: int, note: str) -> str:
        return f"{shown}:{first}-{last} (of {n} lines, {count_tokens(body)} tok{note})\n{body}"

    def forget(self, path: str | os.PathLike[str] | None = None) -> None:
        """Drop the memory of hand-outs (all, or one path): the next read sends content."""
        with self._mutex:
            if path is None:
                self._seen.clear()
            else:
                self._seen.pop(self.resolve(path), None)

