"""Editing one member of a JSONC file in place (opencode's config): the result parses to
the intended data, and every comment of the user's is still there."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ihmt.faces.install_formats import _jsonc_to_json
from ihmt.faces.install_jsonc import JSONCEditError, remove_member, set_member

OURS = {"type": "local", "command": ["ihmt", "mcp"], "enabled": True}


def parsed(text: str) -> dict:
    return json.loads(_jsonc_to_json(text))


def comments(text: str) -> list[str]:
    """The comments, in order (strings blanked first: "a//b" is no comment)."""
    bare = re.sub(r'"(?:[^"\\]|\\.)*"', '""', text)
    return re.findall(r"//[^\n]*|/\*.*?\*/", bare, re.S)


CASES = [
    '{\n  // theme\n  "theme": "dark",\n  "mcp": {\n  },\n}\n',
    '{\n  "theme": "dark" // after the last member\n}\n',
    '{\n  "mcp": {\n    "gh": {"type": "local", "command": ["gh"]}, // gh\n  },\n}\n',
    '{"a": 1}',
    '{"a": 1,}',
    "{}",
    '{\n\t"mcp": {\n\t\t"x": {"command": ["x"]}\n\t}\n}\n',
    '{\n  /* block\n     over lines */\n  "mcp": {"x": {"command": ["x"]}}\n}\n',
    '{\n  "url": "http://example.com/a//b", "s": "a /* not a comment */ b"\n}\n',
]


@pytest.mark.parametrize("text", CASES)
def test_set_then_remove(text: str) -> None:
    before = parsed(text)
    added = set_member(text, "mcp", "ihmt-memory", OURS)
    want = {**before, "mcp": {**before.get("mcp", {}), "ihmt-memory": OURS}}
    assert parsed(added) == want, added
    assert comments(added) == comments(text)
    changed = set_member(added, "mcp", "ihmt-memory", {**OURS, "enabled": False})
    assert parsed(changed)["mcp"]["ihmt-memory"]["enabled"] is False
    assert comments(changed) == comments(text)
    removed = remove_member(added, "mcp", "ihmt-memory")
    expect = dict(before)
    if not before.get("mcp") and "mcp" in before and not comments(
            text[text.find('"mcp"'):]):
        expect.pop("mcp")  # an object left empty by the removal goes with it
    assert parsed(removed) == expect, removed
    assert comments(removed) == comments(text)


@pytest.mark.parametrize("text", ['[1, 2]', '{"mcp": [1]}', '{"a": 1', '{"a" 1}',
                                  '{"a": 1} trailing', '{/* open'])
def test_what_it_cannot_edit_is_refused(text: str) -> None:
    with pytest.raises(JSONCEditError):
        set_member(text, "mcp", "ihmt-memory", OURS)


_keys = st.text(alphabet="abcdef", min_size=1, max_size=4)
_scalars = st.one_of(st.integers(-99, 99), st.booleans(), st.none(),
                     st.text(alphabet='ab/*" \\', max_size=6))
_values = st.recursive(_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(_keys, inner, max_size=3)), max_leaves=8)


def _render(value, indent: str, rng: st.DrawFn) -> str:
    """JSON text with comments and trailing commas sprinkled in, as a user writes JSONC."""
    if isinstance(value, dict):
        if not value:
            return "{}"
        inner = indent + "  "
        parts = []
        for k, v in value.items():
            note = rng(st.sampled_from(["", " // note", " /* c */"]))
            parts.append(f"{inner}{json.dumps(k)}: {_render(v, inner, rng)},{note}")
        if not rng(st.booleans()):  # no trailing comma after the last member
            last = parts[-1]
            cut = last.rfind(",")
            parts[-1] = last[:cut] + last[cut + 1:]
        return "{\n" + "\n".join(parts) + "\n" + indent + "}"
    return json.dumps(value)


@settings(max_examples=60, deadline=None)
@given(data=st.dictionaries(_keys, _values, max_size=4), draw=st.data(),
       with_mcp=st.booleans())
def test_any_jsonc_object_keeps_its_data_and_comments(data: dict, draw, with_mcp: bool) -> None:
    if with_mcp:
        data = {**data, "mcp": {"other": {"command": ["x"]}}}
    text = _render(data, "", draw.draw)
    assert parsed(text) == data
    added = set_member(text, "mcp", "ihmt-memory", OURS)
    assert parsed(added) == {**data, "mcp": {**data.get("mcp", {}), "ihmt-memory": OURS}}
    assert comments(added) == comments(text)
    removed = remove_member(added, "mcp", "ihmt-memory")
    assert parsed(removed) == data
    assert comments(removed) == comments(text)
