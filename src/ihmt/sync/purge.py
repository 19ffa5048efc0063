"""Rewriting the memory folder's own git history so forgotten memories are gone from it.

A forget is a commit that deletes the leaf file; the earlier commits still hold the file,
the fact-log lines that named it and, in their messages, the first words of its text.
:func:`purge_history` streams the whole history through ``git fast-export``, drops every
version of the forgotten leaves, the fact-log lines naming them and the text in commit
messages, and loads it back with ``git fast-import`` over the same branches. The reflog is
then expired and unreachable objects pruned, so no object of this repository holds the
text any more.

What it cannot reach is said in the report: a remote and every other clone still have the
old history until they are overwritten (``git push --force``) or cloned again; until then
the next ``ihmt sync`` would bring the old commits back.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import IO, Any

from .git import SyncError, _require_repo, _settle_git, git, git_exe
from .git import _env as git_env

_ID = re.compile(rb"L-[A-Za-z0-9_.-]+-[0-9a-f]{8,}")


def _history_ids(path: Path, ids: list[str]) -> list[str]:
    """The ids of ``ids`` that some commit of the history holds a file of."""
    found = []
    for leaf_id in ids:
        cp = git(path, "log", "--all", "--format=%H", "-1", "--", f"layer_0/*/{leaf_id}.txt",
                 check=False)
        if cp.stdout.strip():
            found.append(leaf_id)
    return found


def _clean_log(data: bytes, ids: set[bytes]) -> bytes:
    out = []
    for line in data.split(b"\n"):
        if any(i in line for i in ids):
            try:
                ev = json.loads(line)
            except ValueError:
                ev = None
            if isinstance(ev, dict) and any(
                    isinstance(ev.get(k), str) and ev[k].encode() in ids
                    for k in ("source", "old", "new")):
                continue
        out.append(line)
    return b"\n".join(out)


def _is_forgotten_leaf(data: bytes, ids: set[bytes]) -> bool:
    head = data[:600]
    return any(b'"leaf_id": "' + i + b'"' in head or b'"leaf_id":"' + i + b'"' in head
               for i in ids)


def _message(data: bytes, ids: set[bytes]) -> bytes:
    """A commit message naming a forgotten memory keeps its ids, not the text after them."""
    if not any(i in data for i in ids) or data.startswith(b"forget:"):
        return data
    first, _, rest = data.partition(b"\n")
    m = _ID.search(first)
    if m is not None:
        first = first[:m.end()] + (b" (+ others)" if b"(+" in first[m.end():] else b"")
        first += b" [text removed: forgotten]"
    return first + (b"\n" + rest if rest else b"")


def _filter(src: IO[bytes], dst: IO[bytes], ids: set[bytes], leaf_paths: set[bytes]
            ) -> dict[str, int]:
    """Copy a fast-export stream, dropping what names the forgotten memories."""
    stats = {"blobs_blanked": 0, "paths_dropped": 0, "messages": 0}
    kind = b""
    while True:
        line = src.readline()
        if not line:
            break
        if line.startswith(b"data "):
            n = int(line[5:].strip())
            body = src.read(n)
            if any(i in body for i in ids):
                if kind == b"blob":
                    if _is_forgotten_leaf(body, ids):
                        body = b""
                        stats["blobs_blanked"] += 1
                    else:
                        body = _clean_log(body, ids)
                else:
                    body = _message(body, ids)
                    stats["messages"] += 1
            dst.write(b"data %d\n" % len(body) + body)
            continue
        if line.startswith((b"M ", b"D ")):
            p = line.rstrip(b"\n").rsplit(b" ", 1)[-1] if line.startswith(b"M ") \
                else line[2:].rstrip(b"\n")
            if p.strip(b'"') in leaf_paths or any(p.endswith(b"/" + i + b".txt") for i in ids):
                stats["paths_dropped"] += 1
                continue
        if line.strip() in (b"blob", b"commit") or line.startswith((b"commit ", b"tag ")):
            kind = b"blob" if line.strip() == b"blob" else b"commit"
        dst.write(line)
    return stats


def purge_history(path: Path, ids: list[str]) -> dict[str, Any]:
    """Rewrite the history of the memory folder at ``path`` without the memories ``ids``
    (the caller holds the store's write lock and has forgotten them already)."""
    _require_repo(path)
    _settle_git(path)
    if git(path, "status", "--porcelain", "--", "layer_0", "state", check=False).stdout.strip():
        git(path, "add", "-A", "--", "layer_0")
        git(path, "commit", "-q", "-m", "forget: commit before purging history", check=False)
    wanted = _history_ids(path, ids)
    remotes = git(path, "remote", check=False).stdout.decode().split()
    report: dict[str, Any] = {"ids": wanted, "rewritten": False, "remotes": remotes,
                              "not_reached": []}
    if not wanted:
        return report
    raw = {i.encode("ascii") for i in wanted}
    paths = {ln.encode() for i in wanted for ln in git(
        path, "log", "--all", "--format=", "--name-only", "--", f"layer_0/*/{i}.txt"
    ).stdout.decode().split()}
    exe = git_exe()
    env = git_env()
    exp = subprocess.Popen([exe, "-C", str(path), "fast-export", "--all", "--signed-tags=strip",
                            "--tag-of-filtered-object=drop", "--reencode=yes"],
                           stdout=subprocess.PIPE, env=env)
    imp = subprocess.Popen([exe, "-C", str(path), "fast-import", "--force", "--quiet"],
                           stdin=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert exp.stdout is not None and imp.stdin is not None
    try:
        report.update(_filter(exp.stdout, imp.stdin, raw, paths))
    finally:
        imp.stdin.close()
    err = imp.stderr.read() if imp.stderr else b""
    if exp.wait() != 0 or imp.wait() != 0:
        raise SyncError("rewriting the history failed: "
                        f"{err.decode('utf-8', 'replace').strip()[:300]}; nothing was lost, "
                        "the memory folder is as it was")
    git(path, "reset", "-q")  # the index follows the rewritten HEAD; the files are as they are
    git(path, "reflog", "expire", "--expire=now", "--all")
    git(path, "gc", "-q", "--prune=now")
    report["rewritten"] = True
    report["not_reached"] = [
        f"remote '{r}' still has the old history: overwrite it with "
        f"'git -C {path} push --force {r} HEAD' before the next 'ihmt sync' (which would "
        "bring it back), and clone it again on every other machine" for r in remotes]
    return report
