"""Confined file reading that remembers what it already handed out in this session.

An agent re-reads the same files again and again inside one session; each re-read costs the
whole file in tokens although the agent still holds the earlier copy in its context. A
:class:`SessionFiles` lives as long as the server process (one agent session) and answers a
repeated read with ``UNCHANGED`` or with only the unified diff against the copy it handed
out. It never claims ``UNCHANGED`` unless the bytes on disk are the bytes it sent.

Reading is confined to a list of allowed roots (the server's working folder plus folders the
client declares): a path outside them, a ``..`` that climbs out, or a symlink that resolves
outside is refused, as are files over a size cap and binary files. A tool that reads files
on behalf of a model must not become a way to read ``~/.ssh``.
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

from ..errors import InputError, NotFoundError
from ..text import count_tokens

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


def read_text(path: Path, max_bytes: int = DEFAULT_MAX_BYTES) -> str:
    """The UTF-8 text of ``path``, or InputError saying why it is not handed out.

    Binary means a NUL byte in the first 8 KB or bytes that are not UTF-8: a model gains
    nothing from either, and decoding them lossily would hide that the content is not text.
    """
    try:
        size = path.stat().st_size
    except FileNotFoundError as exc:
        raise NotFoundError(f"{path}: no such file") from exc
    except OSError as exc:
        raise InputError(f"{path}: cannot be read ({exc.strerror})") from exc
    if not path.is_file():
        raise InputError(f"{path}: not a regular file")
    if size > max_bytes:
        raise InputError(
            f"{path}: {size:,} bytes, over the {max_bytes:,}-byte read limit; read a line "
            "range (start_line/end_line), or use find_code for one symbol"
        )
    try:
        raw = path.read_bytes()
    except PermissionError as exc:
        raise InputError(f"{path}: cannot be read (permission denied)") from exc
    except OSError as exc:
        raise InputError(f"{path}: cannot be read ({exc.strerror})") from exc
    if len(raw) > max_bytes:  # grew between stat and read
        raise InputError(f"{path}: over the {max_bytes:,}-byte read limit")
    if b"\x00" in raw[:BINARY_PROBE]:
        raise InputError(f"{path}: binary file (NUL bytes); not handed out as text")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{path}: not valid UTF-8 (byte {exc.start}); treated as binary, not handed out"
        ) from exc


class SessionFiles:
    """Reads files inside the allowed roots and remembers what each read handed out.

    One instance per server process: the memory of what was sent is exactly as long-lived
    as the agent context that received it (a context compaction keeps the process alive;
    a new session starts a new process and therefore reads everything afresh).
    """

    def __init__(self, roots: Iterable[str | os.PathLike[str]] | None = None, *,
                 max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.max_bytes = max_bytes
        self._roots: list[Path] = []  # resolved
        self._spelled: list[Path] = []  # as given (normalised), for the lexical check
        self._seen: dict[Path, _Handed] = {}
        self._mutex = threading.Lock()
        for r in (roots if roots is not None else [Path.cwd()]):
            self.add_root(r)

    # ------------------------------------------------------------------ roots
    @property
    def roots(self) -> list[Path]:
        return list(self._roots)

    def add_root(self, path: str | os.PathLike[str]) -> Path:
        """Allow reading below ``path`` (a folder the client declared as its workspace)."""
        p = Path(path).expanduser()
        if not p.is_absolute():
            p = Path.cwd() / p
        try:
            real = p.resolve(strict=True)
        except (OSError, RuntimeError) as exc:
            raise NotFoundError(f"allowed root {p} does not exist") from exc
        if not real.is_dir():
            raise InputError(f"allowed root {p} is not a folder")
        if real not in self._roots:
            self._roots.append(real)
        for form in (Path(os.path.normpath(p)), real):
            if form not in self._spelled:
                self._spelled.append(form)
        return real

    def resolve(self, path: str | os.PathLike[str]) -> Path:
        """The real path of ``path`` if it is inside an allowed root; InputError otherwise.

        Two checks, because each catches what the other misses: the path as written
        (``..`` collapsed without touching the disk) must stay inside a root, and so must
        the path with every symlink resolved.
        """
        if not self._roots:
            raise InputError("no folder is allowed for reading: declare a root first")
        raw = os.fspath(path)
        if not isinstance(raw, str) or not raw.strip() or "\x00" in raw:
            raise InputError("the path is empty or contains a NUL character")
        p = Path(raw).expanduser()
        base = self._roots[0]
        written = Path(os.path.normpath(p if p.is_absolute() else base / p))
        if not any(_is_within(written, r) for r in self._spelled):
            raise InputError(
                f"refused: {raw} is outside the allowed folders "
                f"({', '.join(str(r) for r in self._roots)}); declare its folder as a root "
                "if the agent should read it"
            )
        try:
            real = written.resolve(strict=False)
        except (OSError, RuntimeError) as exc:  # symlink loop
            raise InputError(f"refused: {raw} cannot be resolved ({exc})") from exc
        if not any(_is_within(real, r) for r in self._roots):
            raise InputError(
                f"refused: {raw} is a symlink (or passes through one) that leads outside the "
                f"allowed folders, to {real}"
            )
        return real

    def _display(self, real: Path) -> str:
        for r in self._roots:
            if _is_within(real, r):
                rel = real.relative_to(r)
                return str(rel) if r == self._roots[0] else str(real)
        return str(real)

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
        shown = self._display(real)
        text = read_text(real, self.max_bytes)
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


def _is_within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents
