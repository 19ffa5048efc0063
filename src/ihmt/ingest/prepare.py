"""From what a user hands over to leaves ready to store: checked, screened, classified, cut.

Everything here is a pure function of its arguments and the store's settings, so the
facade (:mod:`ihmt.memory`) only decides *when* to write, never how a text becomes leaves.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from ..config import Config
from ..errors import InputError, SecretError, shown
from ..model import DATA_TYPES, Leaf
from ..scope import GLOBAL, SCOPE_KEY
from ..store import files
from ..store.leaves import checksum
from ..text import count, memory_terms
from .dates import parse_date_arg
from .detect import detect
from .split import split

UNDATED_TYPES = ("CODE", "PROCESS")  # not events: a save does not date them
SKIP_DIRS = {".git", ".hg", ".svn", "node_modules", ".venv", "venv", "__pycache__", "build",
             "dist", ".tox", ".mypy_cache", ".pytest_cache", ".ruff_cache", "ihmt_memory"}


def read_text_file(path: Path, max_bytes: int) -> str:
    """A UTF-8 text file's content, or InputError saying why it cannot be ingested."""
    name = shown(path)  # a path of megabytes is clipped in the message, not echoed back
    try:
        if not path.exists():
            raise InputError(f"{name}: no such file")
        if not path.is_file():
            raise InputError(f"{name}: not a regular file")
        size = path.stat().st_size
        if size > max_bytes:
            raise InputError(f"{name}: {size:,} bytes, over the {max_bytes:,}-byte limit")
        raw = path.read_bytes()
    except PermissionError as exc:
        raise InputError(f"{name}: cannot be read (permission denied)") from exc
    except OSError as exc:  # a name too long, an I/O error ...
        raise InputError(f"{name}: cannot be read ({exc.strerror or exc})") from exc
    return decode_text(raw, f"{name}: binary file", name)


def decode_text(raw: bytes, binary: str, where: str) -> str:
    """Bytes handed over (a file, stdin) as text, or InputError: ``binary`` if they hold
    NUL bytes, a hint to convert them if they are not UTF-8."""
    if b"\x00" in raw:
        raise InputError(binary)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{where}: not valid UTF-8 (byte {exc.start}); convert it first") from exc


def expand_paths(paths: Iterable[str | os.PathLike[str] | tuple[Path, str]]
                 ) -> Iterator[Path | tuple[Path, str]]:
    """Files to ingest, folders walked recursively (hidden and tool folders skipped); a
    path that does not exist, or a link out of a folder walked, comes back as ``(path,
    reason)`` (and passes through again as it is: the CLI expands first to count)."""
    for raw in paths:
        if isinstance(raw, tuple):
            yield raw
            continue
        p = Path(raw).expanduser()
        try:
            p.exists()
        except OSError as exc:  # a name too long ...: skipped with the reason, clipped
            yield (Path(shown(p)), f"cannot be read ({exc.strerror or exc})")
            continue
        if not p.exists():
            yield (p, "no such file or folder")
        elif p.is_dir():
            yield from sorted(_walk(p), key=lambda x: x[0] if isinstance(x, tuple) else x)
        else:
            yield p


def _walk(folder: Path) -> Iterator[Path | tuple[Path, str]]:
    """The files under ``folder``, never through a link that leads out of it: a link to
    a file outside (``notes/passwd -> /etc/passwd``) or to a folder outside is reported
    as skipped, not read. Links to folders are not walked (what they hold inside the
    folder is walked anyway)."""
    root = folder.resolve()
    for dirpath, dirnames, filenames in os.walk(folder):  # followlinks=False
        here = Path(dirpath)
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        for name in [*dirnames, *filenames]:
            sub = here / name
            if name.startswith(".") or not sub.is_symlink():
                if name in filenames and not name.startswith(".") and sub.is_file():
                    yield sub
                continue
            if not files.inside(root, sub):
                yield (sub, "a link to a file or folder outside the folder given; not followed")
            elif name in filenames and sub.is_file():
                yield sub


def parse_date(value: Any) -> str:
    if not isinstance(value, str):
        raise InputError(f"a date must be text like 2026-02-03, not {type(value).__name__}")
    return parse_date_arg(value)


def clean_tags(tags: Any) -> list[str]:
    """A list of labels; one label may be given as a plain string."""
    if tags is None:
        return []
    if isinstance(tags, str):
        tags = [tags]
    if not isinstance(tags, (list, tuple, set, frozenset)):
        raise InputError(f"tags must be a list of text labels, not {type(tags).__name__}")
    return [_clean_tag(t) for t in tags]


def check_optional_text(value: Any, what: str) -> None:
    if value is not None and not isinstance(value, str):
        raise InputError(f"{what} must be text, not {type(value).__name__}")


def _clean_tag(tag: Any) -> str:
    if not isinstance(tag, str) or not tag.strip():
        raise InputError("a tag must be non-empty text")
    tag = "".join(c for c in tag.strip() if c.isprintable()).strip()
    if not tag:  # "\x00", "\t\x1b": nothing a reader could see would be stored
        raise InputError("a tag must hold visible characters (letters, digits, ...), not only "
                         "control characters")
    if len(tag) > 100:
        raise InputError("a tag is limited to 100 characters")
    return tag


def screen_secrets(text: str, policy: str, warnings: list[str], where: str | None = None
                   ) -> str:
    """Apply the ``secrets`` policy: refuse (default), redact, or off."""
    if policy == "off":
        return text
    from ..secrets import find_secrets, redact

    found = find_secrets(text)
    if not found:
        return text
    what = "; ".join(f"{f.kind.replace('_', ' ')} on line {f.line} ({f.preview})"
                     for f in found[:5])
    if policy == "redact":
        warnings.append(f"redacted {count(len(found), 'likely secret', 'likely secrets')}: {what}")
        return redact(text)[0]
    place = f" in {where}" if where else ""
    raise SecretError(
        f"not saved: this looks like it holds a secret{place}: {what}. Remove it (or "
        "replace it with [REDACTED]) and save the rest; never store credentials in "
        "memory. To change this, set \"secrets\" to \"redact\" or \"off\" in "
        "ihmt.config.json.")


def screen_fields(policy: str, warnings: list[str], **fields: Any) -> dict[str, Any]:
    """The secrets policy applied to what a save stores beside its text: tags, domain,
    source name, the stated fact. Each is screened on its own (``tags=[...]`` one tag at a
    time); a refusal names the field, never the value."""
    if policy == "off":
        return fields
    from ..secrets import find_secrets, redact

    out: dict[str, Any] = {}
    for name, value in fields.items():
        items = value if isinstance(value, (list, tuple)) else [value]
        kept = []
        for item in items:
            found = find_secrets(item) if isinstance(item, str) else []
            if found and policy == "redact":
                warnings.append(f"redacted a likely secret in the {name}")
                item = redact(item)[0]
            elif found:
                what = "; ".join(f"{f.kind.replace('_', ' ')} ({f.preview})" for f in found[:3])
                raise SecretError(
                    f"not saved: the {name} looks like it holds a secret: {what}. Remove it "
                    "and save again; never store credentials in memory (say where they live "
                    "instead).")
            kept.append(item)
        out[name] = kept if isinstance(value, (list, tuple)) else kept[0]
    return out


def screen_fact(policy: str, subject: str, attribute: str, value: str) -> str:
    """A fact recorded directly, screened as ``subject :: attribute = value``; returns the
    value to record (redacted under ``redact``)."""
    stated = f"{subject} :: {attribute} = {value}"
    screened = screen_fields(policy, [], fact=stated)["fact"]
    return value if screened == stated else screened.split(" = ", 1)[-1]


def classify(text: str, source: str | None, domain: str | None, content_type: str | None
             ) -> tuple[str, str]:
    """``(data type, domain)``: detected from the text and its file name, unless given."""
    check_optional_text(content_type, "content_type")
    check_optional_text(source, "source")
    ct = (content_type or "auto").upper()
    if ct != "AUTO" and ct not in DATA_TYPES:
        raise InputError(f"content_type {content_type!r} is not one of "
                         f"auto, {', '.join(t.lower() for t in DATA_TYPES)}")
    dt, dom = detect(text, source)
    if ct != "AUTO":
        dt = ct
    if domain:
        dom = domain
    return dt, files.safe_name(dom, "domain")


def make_leaves(text: str, config: Config, *, data_type: str, domain: str, date: str | None,
                tags: list[str], source: str | None, language: str | None, now: str,
                scope: str | None = None) -> list[tuple[Leaf, Counter[str]]]:
    """The leaves of one text (one per logical block) with their term counts.

    A leaf's id is derived from its domain, source, position, date and text (and its
    project, for a project's memory), so saving the same text again in the same place
    gives the same ids (and is recognised as a duplicate). ``scope``: a project id, kept
    in the header as ``extra["scope"]``; None or "global" for a global memory.
    """
    project = scope if scope and scope != GLOBAL else None
    out: list[tuple[Leaf, Counter[str]]] = []
    for pos, ch in enumerate(split(text, data_type, config, language=language)):
        if not ch.text.strip():
            continue
        when = ch.date or date
        leaf_tags = list(dict.fromkeys(tags + [t for t in ch.tags if isinstance(t, str)]))
        extra = dict(ch.extra)
        if ch.oversized:
            extra["oversized"] = True
        if ch.name:
            extra.setdefault("name", ch.name)
        parts = (domain, source or "save", str(pos), when or "", ch.text)
        if project:
            extra[SCOPE_KEY] = project
            parts += (project,)
        leaf_id = "L-" + domain + "-" + files.digest(*parts)
        leaf = Leaf(
            id=leaf_id, text=ch.text, domain=domain, data_type=data_type, date=when,
            saved_at=now, tags=leaf_tags, parent=None,
            span={"start_line": ch.start_line, "end_line": ch.end_line} if source else None,
            checksum=checksum(ch.text), source=source, extra=extra,
        )
        out.append((leaf, memory_terms(ch.text, leaf_tags, config.stemmer)))
    if not out:
        raise InputError("nothing to save: the content is empty or only whitespace")
    return out
