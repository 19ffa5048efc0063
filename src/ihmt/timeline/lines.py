"""The fact log's line format: one JSON object a line, written readable (UTF-8, lone
surrogates escaped) and read back as ``json.loads`` would read it, only faster."""

from __future__ import annotations

import json
from typing import Any

_scan = json.JSONDecoder().scan_once  # what json.loads runs, for one value at an index


def encode_event(event: dict[str, Any]) -> bytes:
    """One event as a log line, newline included."""
    # ensure_ascii=False keeps the log readable; backslashreplace turns a lone surrogate into
    # a JSON \\uXXXX escape instead of failing the save.
    text = json.dumps(event, ensure_ascii=False, separators=(",", ":"))
    return (text + "\n").encode("utf-8", "backslashreplace")


def parse_line(line: bytes) -> dict[str, Any] | None:
    """One stripped line's event, or None. What ``json.loads(line)`` accepts, without its
    wrappers around the C scanner (a large log has tens of thousands of lines, and a hook
    reads all of them in each fresh process)."""
    try:
        if json.detect_encoding(line) != "utf-8":
            event = json.loads(line)  # a line that json reads as UTF-16/32
        else:
            text = line.decode("utf-8", "surrogatepass")
            event, end = _scan(text, 0)  # stripped: no JSON whitespace at either end
            if end != len(text):
                return None  # json.loads: "Extra data"
    except (ValueError, StopIteration):  # JSONDecodeError, UnicodeDecodeError, no value
        return None
    return event if isinstance(event, dict) else None
