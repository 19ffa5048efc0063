"""The session-start digest kept for a store that has not changed since it was made.

Every session starts a fresh hook process, and most start on a store no write has touched
since the last one: the digest (two searches, masking) would come out the same. It is
kept in ``state/cache/digest.json``, one entry per project and working folder (at most
:data:`MAX_ENTRIES`), under a stamp of everything it depends on: the trunk
(``root.json``, rewritten by every save, forget, move and rebuild), the fact log (what is
corrected), the store's config (the secrets policy), the project and the folder's name, and
the code's version. A different stamp is a miss, and the digest is made again.

Derived and disposable: a missing, damaged or foreign file is a miss, never an error, and is
replaced after the answer; deleting it costs one slower session start.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

VERSION = 1  # bumped when the digest's making changes
MAX_ENTRIES = 8


def _path(store: Path) -> Path:
    return store / "state" / "cache" / "digest.json"


def stamp(store: Path, project: str | None, folder: str) -> str:
    """What a digest of ``store`` for ``project`` and ``folder`` depends on, as one string."""
    from .. import __version__

    parts = [str(VERSION), __version__]
    for p in (store / "root.json", store / "state" / "facts.jsonl", store / "ihmt.config.json"):
        try:
            st = os.stat(p)
            parts.append(f"{st.st_mtime_ns}:{st.st_size}:{st.st_ino}")
        except OSError:
            parts.append("-")
    return "|".join([*parts, project or "", folder])


def _entries(store: Path) -> dict:
    try:
        data = json.loads(_path(store).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def read(store: Path, key: str) -> str | None:
    """The digest kept under ``key`` (already masked for a reader), or None."""
    entry = _entries(store).get(key)
    text = entry.get("text") if isinstance(entry, dict) else None
    return text if isinstance(text, str) else None


def write(store: Path, key: str, text: str) -> None:
    """Keep ``text`` under ``key``, the newest last, dropping the oldest past MAX_ENTRIES.
    Written whole to a temporary file and renamed over the old one; a failure is ignored."""
    path = _path(store)
    data = {k: v for k, v in _entries(store).items() if k != key}
    data[key] = {"text": text}
    for old in list(data)[:-MAX_ENTRIES]:
        del data[old]
    tmp = path.with_name(f".digest.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        try:
            tmp.unlink()
        except OSError:
            pass
