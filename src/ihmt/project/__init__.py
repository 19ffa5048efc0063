"""Tools that save tokens inside one session: a per-project code index, confined file reads
that answer UNCHANGED or a diff, and scratch notes that outlive a context compaction.

The plain functions below are what the CLI (``ihmt project map|find|sync``) and the MCP
server call; they keep one :class:`ProjectIndex` per project for the life of the process so
that a long session does not re-read the manifest on every call.

Each of them is confined to its ``roots`` (:class:`~ihmt.project.roots.Roots`; by default
the working folder, ``$IHMT_PROJECT`` and ``$IHMT_ROOTS``): a project outside every root is
refused before an index is created for it. :class:`ProjectIndex` itself is the engine a
program opens on a folder it chose; it never follows a link out of that folder.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .files import SessionFiles, read_text
from .index import (
    CodeAnswer,
    CodeHit,
    ProjectIndex,
    SyncReport,
    default_projects_dir,
    is_test_path,
    list_source_files,
    render_answer,
)
from .roots import ROOTS_ENV, Roots, as_roots
from .session import SessionMemory, digest

__all__ = [
    "ROOTS_ENV", "CodeAnswer", "CodeHit", "ProjectIndex", "Roots", "SessionFiles",
    "SessionMemory", "SyncReport", "default_projects_dir", "digest", "find_code", "is_test_path", "list_source_files",
    "open_project", "project_map", "read_text", "render_answer", "sync_project",
]

# The process-wide cache: (resolved project root, projects dir) -> its open index.
_INDEXES: dict[tuple[str, str], ProjectIndex] = {}
_INDEXES_LOCK = threading.Lock()


AllowedRoots = Roots | Iterable[str | os.PathLike[str]] | None


def open_project(path: str | os.PathLike[str],
                 projects_dir: str | os.PathLike[str] | None = None, *,
                 roots: AllowedRoots = None) -> ProjectIndex:
    """The index of the project at ``path`` (created on first use, cached per process).

    ``path`` must be a folder inside ``roots`` (default: :meth:`Roots.from_environment`);
    anything else is refused with InputError before any index is created.
    """
    root = as_roots(roots).folder(path)
    base = Path(projects_dir).expanduser() if projects_dir else default_projects_dir()
    key = (str(root), str(base.absolute()))
    with _INDEXES_LOCK:
        ix = _INDEXES.get(key)
        if ix is None:
            ix = _INDEXES[key] = ProjectIndex(root, base)
        return ix


def sync_project(path: str | os.PathLike[str], *,
                 projects_dir: str | os.PathLike[str] | None = None,
                 roots: AllowedRoots = None) -> dict[str, Any]:
    """Bring the project's index up to date; returns what was done (counts and seconds)."""
    ix = open_project(path, projects_dir, roots=roots)
    out = ix.sync().to_dict()
    out["root"] = str(ix.root)
    out["index"] = str(ix.path)
    return out


def project_map(path: str | os.PathLike[str], detail: str = "files", subpath: str = "", *,
                projects_dir: str | os.PathLike[str] | None = None,
                roots: AllowedRoots = None) -> str:
    """Compact map of a codebase: files with their tokens (and symbols with line spans)."""
    return open_project(path, projects_dir, roots=roots).project_map(detail, subpath)


def find_code(query: str, path: str | os.PathLike[str], scope: str = "main",
              subpath: str = "", clue: str | None = None, max_tokens: int = 1500, *,
              projects_dir: str | os.PathLike[str] | None = None,
              roots: AllowedRoots = None) -> str:
    """Only the symbol that answers ``query``, as ``file:first-last`` plus its code."""
    return open_project(path, projects_dir, roots=roots).find_code(query, scope, subpath,
                                                                   clue, max_tokens)
