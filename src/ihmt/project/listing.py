"""Which files of a project are its source: ``git ls-files`` in a work tree, else a walk that
honours ``.gitignore`` (a practical subset); vendored and generated folders are skipped, and
test code is told apart by its folder or file name."""

from __future__ import annotations

import logging
import os
import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..ingest.languages import language_for
from ..store import files

log = logging.getLogger(__name__)

SKIP_DIRS = frozenset({
    ".git", ".hg", ".svn", "node_modules", ".venv", "venv", "build", "dist", "__pycache__",
    "target", ".tox", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".gradle", ".idea",
    ".eggs", "ihmt_memory", "ihmt_projects",
})
TEST_DIRS = frozenset({"test", "tests", "spec", "specs", "__tests__", "testing"})

def is_test_path(rel: str) -> bool:
    """True for test code: a test/tests/spec folder, or a test_/_test/Test/.spec./.test. name."""
    p = PurePosixPath(rel)
    if any(part.lower() in TEST_DIRS for part in p.parts[:-1]):
        return True
    name = p.name
    stem = name.split(".", 1)[0]
    if name == "conftest.py" or ".spec." in name or ".test." in name:
        return True
    if stem.startswith("test_") or stem.endswith("_test") or stem.endswith("_spec"):
        return True
    if stem.endswith(("Test", "Tests", "Spec", "IT")) and len(stem) > 4 and stem[0].isupper():
        return True
    return len(stem) > 4 and stem.startswith("Test") and stem[4].isupper()


@dataclass
class _Rule:
    base: str  # folder of the .gitignore, relative to the root ("" for the root)
    regex: re.Pattern[str]
    negate: bool
    dir_only: bool
    anchored: bool


def _glob_to_regex(pat: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(pat):
        c = pat[i]
        if pat.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pat.startswith("/**", i) and i + 3 == len(pat):
            out.append("(?:/.*)?")
            i += 3
        elif pat.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            j = pat.find("]", i + 1)
            if j < 0:
                out.append(re.escape(c))
                i += 1
            else:
                body = pat[i + 1:j].replace("\\", "\\\\")
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append(f"[{body}]")
                i = j + 1
        elif c == "\\" and i + 1 < len(pat):
            out.append(re.escape(pat[i + 1]))
            i += 2
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out)


def parse_gitignore(text: str, base: str = "") -> list[_Rule]:
    """The rules of one .gitignore (a practical subset: globs, ``**``, ``!``, trailing and
    leading ``/``); enough for the folders projects really ignore."""
    rules: list[_Rule] = []
    for raw in text.splitlines():
        line = raw.rstrip()
        if not line or line.startswith("#"):
            continue
        negate = line.startswith("!")
        if negate:
            line = line[1:]
        if line.startswith("\\"):
            line = line[1:]
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        anchored = "/" in line
        line = line.lstrip("/")
        try:
            rx = re.compile(_glob_to_regex(line) + r"\Z")
        except re.error:
            log.debug("ignoring unparsable .gitignore pattern %r", raw)
            continue
        rules.append(_Rule(base, rx, negate, dir_only, anchored))
    return rules


def _ignored(rules: list[_Rule], rel: str, is_dir: bool) -> bool:
    verdict = False
    for r in rules:
        if r.base:
            if not rel.startswith(r.base + "/"):
                continue
            sub = rel[len(r.base) + 1:]
        else:
            sub = rel
        if r.dir_only and not is_dir:
            continue
        target = sub if r.anchored else sub.rsplit("/", 1)[-1]
        if r.regex.match(target):
            verdict = not r.negate
    return verdict


def _skip_part(part: str) -> bool:
    return part in SKIP_DIRS or (part.startswith(".") and part not in (".", ".."))


def _walk(root: Path) -> Iterator[str]:
    """Every file below ``root`` that .gitignore and the skip list let through."""
    rules: list[_Rule] = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        rel_dir = os.path.relpath(dirpath, root).replace(os.sep, "/")
        rel_dir = "" if rel_dir == "." else rel_dir
        if ".gitignore" in filenames:
            try:
                text = (Path(dirpath) / ".gitignore").read_text(encoding="utf-8", errors="replace")
                rules.extend(parse_gitignore(text, rel_dir))
            except OSError:
                pass
        keep = []
        for d in sorted(dirnames):
            rel = f"{rel_dir}/{d}" if rel_dir else d
            if _skip_part(d) or _ignored(rules, rel, True):
                continue
            keep.append(d)
        dirnames[:] = keep
        for f in filenames:
            rel = f"{rel_dir}/{f}" if rel_dir else f
            if not _ignored(rules, rel, False):
                yield rel


def _git_files(root: Path) -> list[str] | None:
    """Tracked plus untracked-but-not-ignored files, or None when git cannot say."""
    if not (root / ".git").exists():
        return None
    try:
        out = subprocess.run(
            ["git", "-C", str(root), "ls-files", "-z", "--cached", "--others",
             "--exclude-standard"],
            capture_output=True, timeout=60, check=True)
    except (OSError, subprocess.SubprocessError) as exc:
        log.info("git ls-files failed in %s (%s); walking the folder instead", root, exc)
        return None
    return [p for p in out.stdout.decode("utf-8", "surrogateescape").split("\0") if p]


def list_source_files(root: Path) -> list[str]:
    """Relative POSIX paths of the project's source files, sorted (the index's order)."""
    listed = _git_files(root)
    candidates = listed if listed is not None else list(_walk(root))
    out: set[str] = set()
    for rel in candidates:
        parts = rel.split("/")
        if any(_skip_part(p) for p in parts[:-1]) or language_for(parts[-1]) is None:
            continue
        p = root / rel
        try:
            if p.is_symlink() and not files.inside(root, p):
                continue
            if not p.is_file():
                continue
        except OSError:
            continue
        out.add(rel)
    return sorted(out)
