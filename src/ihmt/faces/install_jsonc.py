"""Editing one member of a JSONC file (opencode's ``opencode.json[c]``) in place, so that the
user's comments, trailing commas and layout stay as they were.

Only the text of the member IHMT owns changes: its value is replaced, or the member is
inserted after the object's last member, or it is cut out with its comma. The caller checks
the result by parsing it (:func:`ihmt.faces.install_formats._jsonc_to_json`); anything this
module does not understand raises :class:`JSONCEditError` and the caller falls back to
telling the user the exact edit to make.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any


class JSONCEditError(ValueError):
    """The text is not JSONC this module can edit safely."""


@dataclass
class _Member:
    key: str
    start: int  # the key's opening quote
    value_start: int
    value_end: int
    value: _Object | None = None  # set when the value is an object


@dataclass
class _Object:
    open: int  # index of "{"
    close: int  # index of "}"
    members: list[_Member] = field(default_factory=list)


_SPACE = re.compile(r"(?:\s+|//[^\n]*|/\*.*?\*/)*", re.S)
_SCALAR = re.compile(r"-?[0-9][0-9.eE+-]*|true|false|null")


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0

    def skip(self) -> None:
        m = _SPACE.match(self.text, self.i)
        self.i = m.end() if m else self.i
        if self.text.startswith("/*", self.i):
            raise JSONCEditError("an unclosed /* comment")

    def peek(self) -> str:
        self.skip()
        return self.text[self.i] if self.i < len(self.text) else ""

    def string(self) -> str:
        j = self.i + 1
        while j < len(self.text) and self.text[j] != '"':
            j += 2 if self.text[j] == "\\" else 1
        if j >= len(self.text):
            raise JSONCEditError("an unclosed string")
        raw = self.text[self.i:j + 1]
        self.i = j + 1
        try:
            return json.loads(raw)
        except ValueError as exc:
            raise JSONCEditError(f"a bad string {raw[:40]!r}") from exc

    def value(self) -> _Object | None:
        c = self.peek()
        if c == "{":
            return self.obj()
        if c == "[":
            self.array()
        elif c == '"':
            self.string()
        else:
            m = _SCALAR.match(self.text, self.i)
            if not m:
                raise JSONCEditError(f"unexpected text at character {self.i}")
            self.i = m.end()
        return None

    def array(self) -> None:
        self.i += 1
        while self.peek() != "]":
            if not self.peek():
                raise JSONCEditError("an unclosed array")
            self.value()
            if self.peek() == ",":
                self.i += 1
            elif self.peek() != "]":
                raise JSONCEditError(f"expected ',' or ']' at character {self.i}")
        self.i += 1

    def obj(self) -> _Object:
        o = _Object(self.i, -1)
        self.i += 1
        while self.peek() != "}":
            if self.peek() != '"':
                raise JSONCEditError(f"expected a key at character {self.i}")
            start = self.i
            key = self.string()
            if self.peek() != ":":
                raise JSONCEditError(f"expected ':' at character {self.i}")
            self.i += 1
            self.skip()
            vstart = self.i
            sub = self.value()
            o.members.append(_Member(key, start, vstart, self.i, sub))
            if self.peek() == ",":
                self.i += 1
            elif self.peek() != "}":
                raise JSONCEditError(f"expected ',' or '}}' at character {self.i}")
        o.close = self.i
        self.i += 1
        return o


def _top(text: str) -> _Object:
    p = _Parser(text)
    if p.peek() != "{":
        raise JSONCEditError("the file does not hold an object")
    top = p.obj()
    if p.peek():
        raise JSONCEditError("text after the top-level object")
    return top


def _indent_at(text: str, pos: int) -> str:
    line_start = text.rfind("\n", 0, pos) + 1
    m = re.match(r"[ \t]*", text[line_start:pos])
    return m.group(0) if m else ""


def _unit(text: str) -> str:
    m = re.search(r"\n([ \t]+)\S", text)
    return m.group(1) if m else "  "


def _dump(value: Any, indent: str, unit: str) -> str:
    text = json.dumps(value, indent=len(unit) if "\t" not in unit else "\t", ensure_ascii=False)
    return text.replace("\n", "\n" + indent)


def _comma_after(text: str, member: _Member, obj: _Object) -> int | None:
    """Where the comma after ``member``'s value stands (None: it is the last, no comma)."""
    p = _Parser(text)
    p.i = member.value_end
    return p.i if p.peek() == "," and p.i < obj.close else None


def _insert(text: str, obj: _Object, key: str, value: Any) -> str:
    """``obj`` with the member ``key: value`` added after its last member."""
    unit = _unit(text)
    if "\n" not in text[obj.open:obj.close + 1]:  # all on one line: {"a": 1}
        member = f"{json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}"
        if not obj.members:
            return text[:obj.open + 1] + member + text[obj.close:]
        last = obj.members[-1]
        if _comma_after(text, last, obj) is not None:
            return text[:obj.close].rstrip(" ") + " " + member + text[obj.close:]
        return text[:last.value_end] + ", " + member + text[last.value_end:]
    indent = (_indent_at(text, obj.members[0].start) if obj.members
              else _indent_at(text, obj.open) + unit)
    body = f"{indent}{json.dumps(key)}: {_dump(value, indent, unit)}"
    if not obj.members:
        close_line = text.rfind("\n", 0, obj.close) + 1
        if not text[close_line:obj.close].strip():  # "}" alone on its line
            return text[:close_line] + body + "\n" + text[close_line:]
        return (text[:obj.close] + "\n" + body + "\n" + _indent_at(text, obj.open)
                + text[obj.close:])
    last = obj.members[-1]
    comma = _comma_after(text, last, obj)
    # After the line of the last member, so that a comment ending that line stays with it.
    anchor = comma + 1 if comma is not None else last.value_end
    line_end = text.find("\n", anchor)
    at = anchor if line_end < 0 or line_end > obj.close else line_end
    new = text[:at] + "\n" + body + ("," if comma is not None else "") + text[at:]
    if comma is None:
        new = new[:last.value_end] + "," + new[last.value_end:]
    return new


def set_member(text: str, container: str, key: str, value: Any) -> str:
    """``text`` with ``{container: {key: value}}`` in its top-level object."""
    top = _top(text)
    outer = next((m for m in top.members if m.key == container), None)
    if outer is None:
        return _insert(text, top, container, {key: value})
    if outer.value is None:
        raise JSONCEditError(f"{container!r} is not an object")
    mine = next((m for m in outer.value.members if m.key == key), None)
    if mine is None:
        return _insert(text, outer.value, key, value)
    unit = _unit(text)
    indent = _indent_at(text, mine.start)
    return text[:mine.value_start] + _dump(value, indent, unit) + text[mine.value_end:]


def remove_member(text: str, container: str, key: str) -> str:
    """``text`` without ``container.key``; an object left empty (and without comments) goes
    too."""
    top = _top(text)
    outer = next((m for m in top.members if m.key == container), None)
    if outer is None or outer.value is None:
        return text
    mine = next((m for m in outer.value.members if m.key == key), None)
    if mine is None:
        return text
    if len(outer.value.members) == 1 and not text[outer.value.open + 1:outer.value.close] \
            .replace(text[mine.start:mine.value_end], "").strip(" \t\n,"):
        return _cut(text, top, outer)
    return _cut(text, outer.value, mine)


def _cut(text: str, obj: _Object, member: _Member) -> str:
    """Remove ``member`` from ``obj`` with one comma, and its line when it held only it."""
    start, end = member.start, member.value_end
    comma = _comma_after(text, member, obj)
    idx = obj.members.index(member)
    drop = None  # a comma before, to drop when the member was the last without one
    if comma is not None:
        end = comma + 1
    elif idx > 0:
        drop = _comma_after(text, obj.members[idx - 1], obj)
        if drop is not None and not text[drop + 1:start].strip():
            start, drop = drop, None  # only blanks between: cut from that comma on
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    if not text[line_start:start].strip() and not text[end:line_end].strip():
        start, end = line_start, min(line_end + 1, len(text))
    new = text[:start] + text[end:]
    return new if drop is None else new[:drop] + new[drop + 1:]
