"""Errors the system raises (a full disk, a name too long, a reader that went away) are one
clear line in every face, and lose nothing (issue 23, item 8).

A full disk is simulated: the write path raises OSError(ENOSPC), in a subprocess for the
CLI (a small driver patches the library, then runs ``ihmt``).
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ihmt import Memory
from ihmt.errors import StoreError
from ihmt.store import files

LONG = "a" * 300  # one path component longer than any file system allows (255)

# Runs ``ihmt`` with a disk that is full for the files FULL names: "all" (every write),
# "root" (the trunk only: the leaf of a save is written, the save fails after it).
DRIVER = textwrap.dedent("""
    import errno, os, sys
    from ihmt.store import files
    mode = os.environ["FULL"]
    real_atomic, real_write_all = files.atomic_write, files.write_all

    def full(*a, **k):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def atomic(path, *a, **k):
        if mode == "all" or path.name == "root.json":
            full()
        return real_atomic(path, *a, **k)

    files.atomic_write = atomic
    if mode == "all":
        files.write_all = full
    from ihmt.faces.cli import main
    sys.exit(main(sys.argv[1:]))
""")


def _cli(store: Path, *args: str, full: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ}
    cmd = [sys.executable, "-m", "ihmt.faces.cli"]
    if full:
        env["FULL"] = full
        cmd = [sys.executable, "-c", DRIVER]
    return subprocess.run([*cmd, "--path", str(store), *args], capture_output=True, text=True,
                          timeout=120, env=env)


def _one_line(r: subprocess.CompletedProcess[str], codes: tuple[int, ...] = (2,)) -> str:
    assert r.returncode in codes, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    return lines[0]


@pytest.fixture
def store(tmp_path: Path) -> Path:
    mem = Memory.open(tmp_path / "s", create=True)
    mem.save("The backup job runs nightly at 02:00 on the NAS.")
    path = mem.path
    mem.close()
    return path


def test_a_full_disk_is_one_line_and_leaves_the_store_as_it_was(store: Path) -> None:
    line = _one_line(_cli(store, "save", "The router's admin page moved to port 8081.",
                          full="all"))
    assert "the disk is full" in line and "free some space" in line, line
    mem = Memory.open(store)
    assert not mem.store.interrupted()  # nothing was changed: nothing to repair
    assert len(list(mem.store.iter_leaf_paths())) == 1
    assert "02:00" in mem.search("backup job nightly").best.text
    mem.close()
    r = _cli(store, "save", "The router's admin page moved to port 8081.")  # space again
    assert r.returncode == 0, r.stderr
    mem = Memory.open(store)
    assert "8081" in mem.search("router admin page port").best.text
    mem.close()


def test_a_disk_full_part_way_is_one_line_and_the_next_write_repairs(store: Path) -> None:
    line = _one_line(_cli(store, "save", "The printer on floor 3 needs toner.", full="root"))
    assert "the disk is full" in line and "next write repairs" in line, line
    r = _cli(store, "save", "The coffee machine is descaled on Fridays.")
    assert r.returncode == 0, r.stderr
    mem = Memory.open(store)
    assert not mem.store.interrupted()
    assert "02:00" in mem.search("backup job nightly").best.text
    assert "Fridays" in mem.search("coffee machine descaled").best.text
    mem.close()


def test_a_full_disk_in_the_library_is_a_store_error(store: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    mem = Memory.open(store)

    def full(*a, **k):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), "layer_0/general/L-x.txt")

    monkeypatch.setattr(files, "atomic_write", full)
    with pytest.raises(StoreError, match="the save failed: the disk is full"):
        mem.save("The office wifi password rotates monthly.")
    with pytest.raises(StoreError, match="the disk is full"):
        with mem.bulk():
            mem.save("A bulk note about the parking garage.")
    monkeypatch.undo()
    assert not mem.store.interrupted()
    assert mem.save("The parking garage closes at 22:00.").new == 1
    mem.close()


def test_a_path_component_too_long_is_one_line_in_the_cli(tmp_path: Path, store: Path) -> None:
    for args in (["--path", str(tmp_path / LONG), "search", "x"],
                 ["ingest", str(tmp_path / LONG)],
                 ["export", "--out", str(tmp_path / LONG)]):
        r = subprocess.run([sys.executable, "-m", "ihmt.faces.cli",
                            *(["--path", str(store)] if args[0] != "--path" else []), *args],
                           capture_output=True, text=True, timeout=120)
        line = _one_line(r, (1, 2) if args[0] == "ingest" else (2,))  # ingest: skipped
        assert "too long" in line and len(line) < 400, line  # the name is clipped


def test_a_path_component_too_long_is_a_400_in_the_gui(tmp_path: Path, store: Path) -> None:
    from starlette.testclient import TestClient

    from ihmt.faces.gui import build_app

    token = "test-token-" + "x" * 24
    client = TestClient(build_app(store.parent, token, home=tmp_path),
                        base_url="http://127.0.0.1:8765")
    auth = {"X-IHMT-Token": token}
    r = client.get("/api/fs", params={"dir": str(tmp_path / LONG)}, headers=auth)
    assert r.status_code == 400 and "too long" in r.json()["message"], r.text
    r = client.post("/api/store/preview", json={"path": str(tmp_path / LONG)}, headers=auth)
    assert r.status_code in (400, 409) and "too long" in r.json()["message"], r.text


def test_an_agent_closing_the_mcp_pipe_leaves_no_traceback(store: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "ihmt.faces.cli", "--path", str(store.parent),
                             "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdout is not None
    proc.stdout.close()  # the agent went away before reading the answer
    hello = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
             "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                        "clientInfo": {"name": "t", "version": "1"}}}
    _, err = proc.communicate((json.dumps(hello) + "\n").encode(), timeout=120)
    assert b"Traceback" not in err and b"BrokenPipe" not in err, err.decode()[-800:]
    assert proc.returncode == 0
