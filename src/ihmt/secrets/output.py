"""What leaves the library with a secret in it: redacted for storage, masked for display,
and the message a refused save carries."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .model import KINDS, Finding
from .scan import find_secrets

# Keys whose string values name what a sibling ``value`` is ("password", "api token"): a
# fact is screened as ``attribute = value``, not as a bare value with no context.
_NAME_KEYS = ("attribute", "name", "key")
_VALUE_KEYS = ("value", "old_value", "new_value", "superseded_by")


def _replace(text: str, findings: list[Finding], marker: str) -> str:
    parts: list[str] = []
    pos = 0
    for f in findings:
        parts.append(text[pos: f.start])
        parts.append(marker.format(kind=f.kind))
        pos = f.end
    parts.append(text[pos:])
    return "".join(parts)


def redact(text: str) -> tuple[str, list[Finding]]:
    """``text`` with each secret replaced by ``[REDACTED:<kind>]``, and what was replaced.

    What the ``redact`` policy stores. Offsets in the findings refer to the original text.
    """
    findings = find_secrets(text)
    if not findings:
        return text, []
    return _replace(text, findings, "[REDACTED:{kind}]"), findings


@dataclass(frozen=True)
class Masked:
    """Text fit to show, and how many values were masked in it."""

    text: str
    count: int = 0


def mask(text: str) -> Masked:
    """``text`` with each value the detector flags replaced by ``[masked:<kind>]``.

    For display: the stored memory keeps the value (a store with ``"secrets": "off"``, or
    one saved before the detector knew that kind), but no face prints it.
    """
    if not isinstance(text, str) or not text:
        return Masked(text)
    findings = find_secrets(text)
    if not findings:
        return Masked(text)
    return Masked(_replace(text, findings, "[masked:{kind}]"), len(findings))


def mask_value(value: str, name: str = "") -> Masked:
    """``value`` masked as a whole when it, or ``name = value``, holds a secret: a fact's
    value ("hunter2") is only recognisable beside its attribute ("wifi password")."""
    if not isinstance(value, str) or not value:
        return Masked(value)
    alone = mask(value)
    if alone.count:
        return alone
    if name:
        joined = f"{name} = {value}"
        found = find_secrets(joined)
        offset = len(joined) - len(value)
        hit = [f for f in found if f.end > offset]
        if hit:
            return Masked(f"[masked:{hit[0].kind}]", 1)
    return Masked(value)


def mask_data(data: Any) -> tuple[Any, int]:
    """A JSON-like structure (dicts, lists, strings) with every string masked, and the
    number of values masked. Returned as a copy; ``data`` is not changed."""
    total = 0

    def walk(obj: Any) -> Any:
        nonlocal total
        if isinstance(obj, str):
            m = mask(obj)
            total += m.count
            return m.text
        if isinstance(obj, Mapping):
            name = next((obj[k] for k in _NAME_KEYS if isinstance(obj.get(k), str)), "")
            out = {}
            for k, v in obj.items():
                if name and k in _VALUE_KEYS and isinstance(v, str):
                    m = mask_value(v, name)
                    total += m.count
                    out[k] = m.text
                else:
                    out[k] = walk(v)
            return out
        if isinstance(obj, (list, tuple)):
            if 2 <= len(obj) <= 3 and all(isinstance(v, str) for v in obj):
                # a record such as a stated fact, [subject, attribute, value]: the value is
                # judged beside the names before it
                *names, last = obj
                m = mask_value(last, " ".join(names))
                total += m.count
                return [walk(v) for v in names] + [m.text]
            return [walk(v) for v in obj]
        return obj

    return walk(data), total


def masked_note(count: int) -> str:
    """The line that says values were masked, or "" when none were."""
    if not count:
        return ""
    what = "1 secret" if count == 1 else f"{count} secrets"
    return f"[{what} masked]"


def describe(findings: list[Finding], *, limit: int = 5) -> str:
    """The message a refused save carries: what looked secret, where, and what to do.

    Written for the person (or agent) who tried to save: it names each value by its kind,
    line and a masked preview, then says how to save the rest.
    """
    if not findings:
        return ""
    n = len(findings)
    items = [f"{KINDS.get(f.kind, f.kind)} on line {f.line} ({f.preview})"
             for f in findings[:limit]]
    if n > limit:
        items.append(f"and {n - limit} more")
    what = "a secret" if n == 1 else f"{n} secrets"
    return (
        f"Not saved: the content looks like it contains {what}: {'; '.join(items)}. "
        "Memories are plain files that later sessions read back, so keys, tokens and "
        "passwords must not go in them. Save it again without the value: remove it or say "
        "where it lives instead (for example 'the deploy token is in 1Password, item CI' or "
        "'read from $GITHUB_TOKEN'). To keep the text with each value replaced by "
        "[REDACTED:<kind>], set \"secrets\": \"redact\" in ihmt.config.json; if this is not a "
        "secret (a test fixture, a public example), set \"secrets\": \"off\" for that store."
    )
