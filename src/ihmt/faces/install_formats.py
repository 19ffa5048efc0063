"""Reading and editing the agents' configuration files: JSON, JSONC (opencode) and TOML
(Codex), each edit verified by parsing its result."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from .install_agents import _CONTAINER, SERVER_NAME, InstallError
from .install_hooks import dump_json
from .install_jsonc import JSONCEditError, remove_member, set_member

try:  # Python 3.11+
    import tomllib as _toml
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    try:
        import tomli as _toml  # type: ignore[no-redef]
    except ModuleNotFoundError:
        _toml = None  # type: ignore[assignment]


def _read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise InstallError(f"{path} cannot be read ({exc}); fix it or edit it by hand") from exc


def _read_entry(agent: str, path: Path) -> dict[str, Any] | None:
    text = _read_text(path)
    if text is None or not text.strip():
        return None
    if agent == "codex":
        data = _toml_loads(text, path)
    else:
        data = _json_loads(text, path, jsonc=True)
    servers = data.get(_CONTAINER[agent])
    entry = servers.get(SERVER_NAME) if isinstance(servers, dict) else None
    return entry if isinstance(entry, dict) else None


# ---------------------------------------------------------------------- JSON
def _json_loads(text: str, path: Path, *, jsonc: bool = False,
                by_hand: str | None = None) -> dict[str, Any]:
    """The JSON object in ``text``. ``jsonc``: comments and trailing commas (which opencode
    accepts) are read too. Otherwise such a file is refused with ``by_hand``, the exact edit
    to make, since rewriting it would lose the user's comments."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        try:
            data = json.loads(_jsonc_to_json(text))
        except ValueError:
            raise InstallError(f"{path} is not plain JSON ({exc}); fix it, or add the entry "
                               "by hand ('ihmt print-config')") from exc
        if not jsonc:
            raise InstallError(
                f"{path} has comments or trailing commas (JSONC); IHMT does not rewrite it, so "
                f"they are kept. {by_hand or 'Edit it by hand.'}\nThen run 'ihmt doctor'."
            ) from exc
    if not isinstance(data, dict):
        raise InstallError(f"{path} does not hold a JSON object; fix it by hand")
    return data


def _jsonc_to_json(text: str) -> str:
    """JSONC as plain JSON: ``//`` and ``/* */`` comments and trailing commas removed
    (outside strings)."""
    out: list[str] = []
    pending_comma = False  # a comma kept back until the next token shows it is not trailing
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
            continue
        if c.isspace():
            out.append(c)
            i += 1
            continue
        if pending_comma and c not in "}]":
            out.append(",")
        pending_comma = False
        if c == ",":
            pending_comma = True
            i += 1
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out) + ("," if pending_comma else "")


def json_with_entry(agent: str, path: Path, old: str | None,
                    entry: dict[str, Any] | None) -> str | None:
    """``old`` (the agent's JSON config, None when absent) with our entry set to ``entry``,
    or removed when ``entry`` is None (None: nothing is left, the file goes).

    Plain JSON is rewritten in the file's own indentation. opencode's JSONC (comments,
    trailing commas) is edited in place so that they stay, and the result is parsed to check
    that nothing else changed; other agents' files are not JSONC, and such a file is refused
    with the exact edit to make by hand."""
    container = _CONTAINER[agent]
    if entry is None:
        by_hand = f"Remove the {SERVER_NAME!r} entry from its {container!r} object by hand."
    else:
        snippet = json.dumps({SERVER_NAME: entry}, indent=2, ensure_ascii=False)
        by_hand = f"Add this inside its {container!r} object by hand:\n{snippet[2:-2]}\n"
    if entry is None and not (old and old.strip()):
        return None if old is None else old
    data = _json_loads(old, path, jsonc=agent == "opencode", by_hand=by_hand) if old and \
        old.strip() else {}
    servers = data.get(container)
    if servers is not None and not isinstance(servers, dict):
        raise InstallError(f"{path}: {container!r} is not an object; fix it by hand")
    servers = dict(servers or {})
    if entry is None:
        servers.pop(SERVER_NAME, None)
    else:
        servers[SERVER_NAME] = entry
    want = {**data, container: servers}
    if not servers and entry is None:
        want.pop(container)
    if old and old.strip() and _is_jsonc(old):
        return _jsonc_with(old, path, container, entry, want, by_hand)
    return dump_json(want, old) if want else None


def _is_jsonc(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return True
    return False


def _jsonc_with(old: str, path: Path, container: str, entry: dict[str, Any] | None,
                want: dict[str, Any], by_hand: str) -> str | None:
    """The JSONC edit, checked: the result must parse to ``want``."""
    try:
        new = (remove_member(old, container, SERVER_NAME) if entry is None
               else set_member(old, container, SERVER_NAME, entry))
        got = json.loads(_jsonc_to_json(new))
    except (JSONCEditError, ValueError) as exc:
        got, new = None, ""
        reason = str(exc)
    else:
        reason = "the edit would change more than the ihmt-memory entry"
    if got != want:
        raise InstallError(f"{path} has comments or trailing commas (JSONC) that IHMT could not "
                           f"edit safely ({reason}); they are kept. {by_hand}\n"
                           "Then run 'ihmt doctor'.")
    return None if not want and re.sub(r"\s", "", new) == "{}" else new


# ---------------------------------------------------------------------- TOML
_HEADER = re.compile(r"^\s*\[(\[?)(?P<key>[^\[\]]*?)\]\]?\s*(?:#.*)?$")
_BARE = re.compile(r"[A-Za-z0-9_-]+")


def _toml_loads(text: str, path: Path) -> dict[str, Any]:
    if _toml is None:
        raise InstallError("reading TOML needs Python 3.11+ or the 'tomli' package "
                           "(pip install tomli)")
    try:
        return _toml.loads(text)
    except ValueError as exc:
        raise InstallError(f"{path} is not valid TOML ({exc}); fix it first") from exc


def _toml_str(value: str) -> str:
    out = ['"']
    for ch in value:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch in "\b\t\n\f\r":
            out.append({"\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return "".join(out) + '"'


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return _toml_str(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"no TOML form for {type(value).__name__}")


def _toml_block(entry: dict[str, Any]) -> str:
    """``[mcp_servers.ihmt-memory]`` with its scalars, then one sub-table per dict (env)."""
    head = f"[mcp_servers.{SERVER_NAME}]\n"
    lines = [head] + [f"{k} = {_toml_value(v)}\n" for k, v in entry.items()
                      if not isinstance(v, dict)]
    for k, sub in entry.items():
        if isinstance(sub, dict):
            lines.append(f"\n[mcp_servers.{SERVER_NAME}.{k}]\n")
            lines += [f"{_toml_key(sk)} = {_toml_value(sv)}\n" for sk, sv in sub.items()]
    return "".join(lines)


def _toml_key(key: str) -> str:
    return key if _BARE.fullmatch(key) else _toml_str(key)


def _toml_key_parts(raw: str) -> list[str] | None:
    """``a."b c".'d'`` -> ["a", "b c", "d"]; None when it is not a plain dotted key."""
    parts: list[str] = []
    i, n = 0, len(raw)
    while True:
        while i < n and raw[i] in " \t":
            i += 1
        if i >= n:
            return None
        if raw[i] == '"':
            j = i + 1
            while j < n and raw[j] != '"':
                j += 2 if raw[j] == "\\" else 1
            if j >= n:
                return None
            try:
                parts.append(json.loads(raw[i:j + 1]))
            except ValueError:
                parts.append(raw[i + 1:j])
            i = j + 1
        elif raw[i] == "'":
            j = raw.find("'", i + 1)
            if j < 0:
                return None
            parts.append(raw[i + 1:j])
            i = j + 1
        else:
            m = _BARE.match(raw, i)
            if not m:
                return None
            parts.append(m.group(0))
            i = m.end()
        while i < n and raw[i] in " \t":
            i += 1
        if i >= n:
            return parts
        if raw[i] != ".":
            return None
        i += 1


def _toml_headers(lines: list[str]) -> list[tuple[int, list[str] | None]]:
    """(line index, key parts) of every table header outside multi-line strings."""
    heads: list[tuple[int, list[str] | None]] = []
    in_string: str | None = None
    for idx, line in enumerate(lines):
        if in_string:
            if line.count(in_string) % 2 == 1:
                in_string = None
            continue
        m = _HEADER.match(line)
        if m:
            heads.append((idx, _toml_key_parts(m.group("key"))))
            continue
        for delim in ('"""', "'''"):
            if line.count(delim) % 2 == 1:
                in_string = delim
                break
    return heads


def _toml_cut(text: str) -> tuple[list[str], int | None]:
    """The lines without our tables (``mcp_servers.ihmt-memory`` and its sub-tables), and
    the index where the first of them stood. Comments and blank lines that precede the next
    table stay with it; a blank line left doubled by the cut is dropped."""
    lines = text.splitlines(keepends=True)
    heads = _toml_headers(lines)
    ranges: list[tuple[int, int]] = []
    for j, (idx, key) in enumerate(heads):
        if not key or key[:2] != ["mcp_servers", SERVER_NAME]:
            continue
        end = heads[j + 1][0] if j + 1 < len(heads) else len(lines)
        while end > idx + 1 and (not lines[end - 1].strip()
                                 or lines[end - 1].lstrip().startswith("#")):
            end -= 1
        ranges.append((idx, end))
    kept: list[str] = []
    first: int | None = None
    pos = 0
    for start, end in ranges:
        kept.extend(lines[pos:start])
        pos = end
        next_blank = end >= len(lines) or not lines[end].strip()
        if kept and not kept[-1].strip() and next_blank:
            kept.pop()
        if first is None:
            first = len(kept)
    kept.extend(lines[pos:])
    return kept, first


def _toml_verify(old: str | None, new: str, path: Path, entry: dict[str, Any] | None) -> None:
    """Parse the edit and check it changed our entry and nothing else."""
    before = _toml_loads(old, path) if old and old.strip() else {}
    assert _toml is not None  # checked by _toml_loads above or by the caller
    try:
        after = _toml.loads(new)
    except ValueError as exc:
        raise InstallError(f"could not edit {path} safely (the result would not parse: {exc}); "
                           "add the entry by hand ('ihmt print-config codex')") from exc

    def others(data: dict[str, Any]) -> dict[str, Any]:
        data = json.loads(json.dumps(data, default=str))  # a deep copy
        servers = data.get("mcp_servers")
        if isinstance(servers, dict):
            servers.pop(SERVER_NAME, None)
            if not servers:
                data.pop("mcp_servers")
        return data

    ours = (after.get("mcp_servers") or {}).get(SERVER_NAME)
    if others(before) != others(after) or ours != entry:
        raise InstallError(_INLINE.format(path=path))


_INLINE = ("{path}: the ihmt-memory entry is not written as a [mcp_servers.ihmt-memory] table "
           "(inline or dotted keys?), so it cannot be edited safely; remove it by hand and run "
           "again")


def _toml_with_entry(old: str | None, entry: dict[str, Any], path: Path) -> str:
    if old:
        _toml_loads(old, path)  # refuse to edit a file that is already broken
    block = _toml_block(entry)
    lines, at = _toml_cut(old or "")
    if at is None and old and SERVER_NAME in (_toml_loads(old, path).get("mcp_servers") or {}):
        raise InstallError(_INLINE.format(path=path))
    if at is None:
        body = "".join(lines)
        new = (body.rstrip("\n") + "\n\n" + block) if body.strip() else block
    else:
        head, tail = lines[:at], lines[at:]
        before = "\n" if head and head[-1].strip() else ""
        after = "\n" if tail and tail[0].strip() else ""
        new = "".join(head) + before + block + after + "".join(tail)
    _toml_verify(old, new, path, entry)
    return new


def _toml_without_entry(old: str, path: Path) -> str:
    lines, _ = _toml_cut(old)
    new = "".join(lines)
    if new.strip() and not new.endswith("\n"):
        new += "\n"
    if old.strip():
        _toml_verify(old, new, path, None)
    return new


