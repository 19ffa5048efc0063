"""The project tools stay inside their roots (issue 23, item 5).

The allowed roots are the folder a face was started in (unless it is the file-system root
or the home folder), ``$IHMT_PROJECT`` when it names a folder, the folders of
``$IHMT_ROOTS``, ``--root`` options and, for the MCP server, the client's declared
workspace roots. A path outside every root is refused before anything is indexed or
written; the walk of a project and every file read never follow a link out of it, even
when the file is swapped for a link while it is being opened.

Each face is exercised for real: the library, ``ihmt project`` as a subprocess, and
``python -m ihmt.faces.mcp`` through the SDK's stdio client; all three give the same line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from ihmt.errors import InputError, NotFoundError
from ihmt.project import SessionFiles, find_code, project_map, sync_project

from .mcp_client import running_server

SECRET = "the launch code is 0451"
OUTSIDE_CODE = f'def launch_rocket():\n    """{SECRET}"""\n    return 451\n'
INSIDE_CODE = 'def add_numbers(a, b):\n    """Sum of two numbers."""\n    return a + b\n'
REFUSED = "outside the allowed folders"


@dataclass
class Layout:
    base: Path
    project: Path
    outside: Path
    projects: Path  # $IHMT_PROJECTS_DIR of the library calls


@pytest.fixture()
def layout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Layout:
    base = tmp_path.resolve()
    project = base / "proj"
    (project / "pkg").mkdir(parents=True)
    (project / "pkg" / "calc.py").write_text(INSIDE_CODE, encoding="utf-8")
    (project / "notes.txt").write_text("inside notes\n", encoding="utf-8")
    outside = base / "outside"
    outside.mkdir()
    (outside / "rocket.py").write_text(OUTSIDE_CODE, encoding="utf-8")
    (outside / "secret.txt").write_text(SECRET + "\n", encoding="utf-8")
    projects = base / "indexes"
    monkeypatch.setenv("IHMT_PROJECTS_DIR", str(projects))
    for name in ("IHMT_ROOTS", "IHMT_PROJECT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(project)
    return Layout(base, project, outside, projects)


def _indexes(layout: Layout) -> list[str]:
    return sorted(p.name for p in layout.projects.iterdir()) if layout.projects.exists() \
        else []


def _outside_indexed(layout: Layout) -> bool:
    return any(not name.startswith("proj-") for name in _indexes(layout))


# ---------------------------------------------------------------------- the library
@pytest.mark.parametrize("spelled", ["absolute", "../outside", "pkg/../../outside"])
def test_a_path_outside_the_project_is_refused_and_nothing_is_indexed(
        layout: Layout, spelled: str) -> None:
    path = str(layout.outside) if spelled == "absolute" else spelled
    calls = [lambda: project_map(path), lambda: project_map(path, "symbols"),
             lambda: find_code("launch rocket", path), lambda: sync_project(path)]
    for call in calls:
        with pytest.raises(InputError, match=REFUSED) as caught:
            call()
        message = str(caught.value)
        assert "\n" not in message
        assert str(layout.project) in message  # names the allowed root
        assert "IHMT_ROOTS" in message and "--root" in message  # and how to add one
        assert SECRET not in message
    assert not _outside_indexed(layout)
    assert not list(layout.outside.glob("ihmt*"))


def test_etc_is_refused(layout: Layout) -> None:
    with pytest.raises(InputError, match=REFUSED):
        project_map("/etc")
    assert _indexes(layout) == []


def test_a_symlinked_folder_leading_outside_is_refused(layout: Layout) -> None:
    (layout.project / "vendor_link").symlink_to(layout.outside, target_is_directory=True)
    for call in (lambda: project_map("vendor_link"),
                 lambda: find_code("launch rocket", "vendor_link"),
                 lambda: project_map(str(layout.project / "vendor_link"))):
        with pytest.raises(InputError, match="symlink"):
            call()
    assert not _outside_indexed(layout)


def test_the_walk_never_follows_a_link_out_of_the_project(layout: Layout) -> None:
    (layout.project / "vendor_link").symlink_to(layout.outside, target_is_directory=True)
    (layout.project / "pkg" / "rocket.py").symlink_to(layout.outside / "rocket.py")
    (layout.project / "pkg" / "same.py").symlink_to(layout.project / "pkg" / "calc.py")
    listed = project_map(".", "symbols")
    assert "pkg/calc.py" in listed and "add_numbers" in listed
    assert "pkg/same.py" in listed  # a link that stays inside is fine
    assert "rocket" not in listed and "launch" not in listed
    assert SECRET not in find_code("launch code rocket", ".", scope="all")


def test_a_file_turned_into_a_link_after_listing_is_not_indexed(
        layout: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    """The index's own check-then-open race, made deterministic: the listing saw a plain
    file, which is a link to an outside file by the time its bytes are read."""
    from ihmt.project import index as index_module

    real_listing = index_module.list_source_files

    def listing_then_swap(root: Path) -> list[str]:
        listed = real_listing(root)
        target = root / "pkg" / "calc.py"
        target.unlink()
        target.symlink_to(layout.outside / "rocket.py")
        return listed

    monkeypatch.setattr(index_module, "list_source_files", listing_then_swap)
    listed = project_map(".", "symbols")
    assert "launch_rocket" not in listed
    answer = find_code("launch rocket code", ".", scope="all")
    assert SECRET not in answer and "return 451" not in answer


def test_configured_roots_let_another_folder_in(layout: Layout,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    other = layout.base / "other"
    (other / "lib").mkdir(parents=True)
    (other / "lib" / "greet.py").write_text("def greet_user():\n    return 'hi'\n",
                                            encoding="utf-8")
    with pytest.raises(InputError, match=REFUSED):
        project_map(str(other))
    monkeypatch.setenv("IHMT_ROOTS", os.pathsep.join([str(other), str(layout.base / "nope")]))
    assert "lib/greet.py" in project_map(str(other))
    assert find_code("greet user", str(other)).startswith("lib/greet.py:1-2")
    # Only that folder: its neighbour stays out.
    with pytest.raises(InputError, match=REFUSED):
        project_map(str(layout.outside))


def test_a_broad_working_folder_is_not_a_root(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path.resolve() / "home"
    (home / "code").mkdir(parents=True)
    (home / "code" / "a.py").write_text(INSIDE_CODE, encoding="utf-8")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("IHMT_PROJECTS_DIR", str(tmp_path / "indexes"))
    for name in ("IHMT_ROOTS", "IHMT_PROJECT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(home)
    with pytest.raises(InputError, match="no folder is allowed"):
        project_map("code")
    monkeypatch.setenv("IHMT_PROJECT", str(home / "code"))
    assert "a.py" in project_map(str(home / "code"))


# ---------------------------------------------------------------------- the read race
def _swapper(target: Path, inside: bytes, link_to: Path, stop: threading.Event,
             swaps: list[int]) -> None:
    """Swap ``target`` between a plain file and a link to ``link_to``, atomically, nonstop."""
    tmp_file = target.with_name(target.name + ".f")
    tmp_link = target.with_name(target.name + ".l")
    is_dir = link_to.is_dir()
    while not stop.is_set():
        if is_dir:
            tmp_file.mkdir(exist_ok=True)
            (tmp_file / "secret.txt").write_bytes(inside)
        else:
            tmp_file.write_bytes(inside)
        try:
            os.replace(tmp_file, target)
        except OSError:  # a folder over a link: remove the link first
            target.unlink(missing_ok=True)
            os.replace(tmp_file, target)
        time.sleep(0.0002)  # each state lasts a moment, so reads see both
        if tmp_link.is_symlink() or tmp_link.exists():
            tmp_link.unlink()
        tmp_link.symlink_to(link_to, target_is_directory=is_dir)
        if is_dir:
            # A link cannot replace a folder atomically: move the folder away first.
            gone = target.with_name(target.name + ".old")
            os.replace(target, gone)
            os.replace(tmp_link, target)
            (gone / "secret.txt").unlink()
            gone.rmdir()
        else:
            os.replace(tmp_link, target)
        swaps[0] += 1
        time.sleep(0.0002)


def _race(layout: Layout, reader: SessionFiles, rel: str, swap: Path, link_to: Path,
          inside: bytes, reads: int = 1500) -> tuple[int, int, int]:
    stop = threading.Event()
    swaps = [0]
    thread = threading.Thread(target=_swapper, args=(swap, inside, link_to, stop, swaps),
                              daemon=True)
    leaked = handed = refused = 0
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # switch threads often: the swap lands inside a read
    thread.start()
    try:
        done = 0
        # At least ``reads`` reads, and on until the swapper has swapped 200 times.
        while done < reads or (swaps[0] < 200 and done < reads * 20):
            done += 1
            try:
                text = reader.read_file(rel, force=True)
            except (InputError, NotFoundError) as exc:  # a refusal, or caught mid-swap
                assert SECRET not in str(exc)
                refused += 1
                continue
            if SECRET in text:
                leaked += 1
            elif inside.decode() in text:
                handed += 1
    finally:
        stop.set()
        thread.join(10)
        sys.setswitchinterval(old)
    print(json.dumps({"race": rel, "reads": done, "swaps": swaps[0], "leaked": leaked,
                      "handed_inside": handed, "refused": refused}))  # seen with -s
    assert swaps[0] >= 200, "the swapper barely ran: the race was not tried"
    return leaked, handed, refused


def test_a_file_swapped_for_a_link_while_read_never_hands_out_the_outside(
        layout: Layout) -> None:
    reader = SessionFiles([layout.project])
    leaked, handed, refused = _race(layout, reader, "swap.txt", layout.project / "swap.txt",
                                    layout.outside / "secret.txt", b"inside text\n")
    assert leaked == 0, f"{leaked} reads returned the outside file"
    assert handed > 0  # the race was real: reads also got the inside file


def test_a_folder_swapped_for_a_link_while_read_never_hands_out_the_outside(
        layout: Layout) -> None:
    reader = SessionFiles([layout.project])
    leaked, handed, refused = _race(layout, reader, "box/secret.txt", layout.project / "box",
                                    layout.outside, b"inside box\n")
    assert leaked == 0, f"{leaked} reads returned the outside file"
    assert handed > 0


def test_the_race_is_held_without_o_nofollow(layout: Layout,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the platform has no O_NOFOLLOW and no dir_fd (Windows), the opened file is
    compared with the resolved path after the open: the race still returns nothing."""
    from ihmt.project import roots as roots_module

    monkeypatch.setattr(roots_module, "O_NOFOLLOW", 0)
    monkeypatch.setattr(roots_module, "WALK_BY_FD", False)
    reader = SessionFiles([layout.project])
    leaked, handed, refused = _race(layout, reader, "swap.txt", layout.project / "swap.txt",
                                    layout.outside / "secret.txt", b"inside text\n")
    assert leaked == 0
    assert handed > 0


# ---------------------------------------------------------------------- the faces
def _cli(*args: str, cwd: Path, env: dict[str, str] | None = None
         ) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if k not in ("IHMT_ROOTS", "IHMT_PROJECT")}
    return subprocess.run([sys.executable, "-m", "ihmt.faces.cli", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120,
                          env={**full, **(env or {})})


def test_cli_refuses_outside_paths_in_one_line(layout: Layout) -> None:
    env = {"IHMT_HOME": str(layout.base / "home"), "IHMT_PROJECTS_DIR": str(layout.projects)}
    for args in (["project", "map", str(layout.outside)],
                 ["project", "map", "../outside", "--symbols"],
                 ["project", "find", "launch rocket", "../outside"],
                 ["project", "sync", str(layout.outside)],
                 ["project", "map", "/etc"]):
        r = _cli(*args, cwd=layout.project, env=env)
        assert r.returncode == 2, (args, r.stdout, r.stderr)
        assert r.stdout == "" and SECRET not in r.stderr
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and REFUSED in lines[0] and str(layout.project) in lines[0], \
            r.stderr
    assert not _outside_indexed(layout)
    # Inside works, and --root (or IHMT_ROOTS) lets another folder in.
    assert "pkg/calc.py" in _cli("project", "map", ".", cwd=layout.project, env=env).stdout
    r = _cli("project", "map", str(layout.outside), "--root", str(layout.outside),
             cwd=layout.project, env=env)
    assert r.returncode == 0 and "rocket.py" in r.stdout, r.stderr
    r = _cli("project", "find", "launch rocket", str(layout.outside), cwd=layout.project,
             env={**env, "IHMT_ROOTS": str(layout.outside)})
    assert r.returncode == 0 and r.stdout.startswith("rocket.py:1-3"), r.stderr
    # The configured project (ihmt --project, IHMT_PROJECT) is a root too.
    r = _cli("--project", str(layout.outside), "project", "map", str(layout.outside),
             cwd=layout.project, env=env)
    assert r.returncode == 0 and "rocket.py" in r.stdout, r.stderr


def test_cli_in_the_home_folder_reads_dot_as_the_home_folder(layout: Layout) -> None:
    home = layout.base / "home_dir"
    (home / "code").mkdir(parents=True)
    (home / "code" / "a.py").write_text(INSIDE_CODE, encoding="utf-8")
    env = {"HOME": str(home), "IHMT_HOME": str(layout.base / "home"),
           "IHMT_PROJECTS_DIR": str(layout.projects), "IHMT_ROOTS": str(layout.outside)}
    r = _cli("project", "map", ".", cwd=home, env=env)
    assert r.returncode == 2 and REFUSED in r.stderr and "rocket" not in r.stdout, r.stdout
    assert str(home) in r.stderr  # the folder the user meant, not the configured root
    r = _cli("project", "map", "code", "--root", "code", cwd=home, env=env)
    assert r.returncode == 0 and "a.py" in r.stdout, r.stderr


def test_ihmt_mcp_root_adds_to_the_servers_roots(layout: Layout,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from ihmt.faces import cli
    from ihmt.faces.mcp import server

    seen: list[str] = []
    monkeypatch.setattr(server, "run", lambda: seen.append(os.environ["IHMT_ROOTS"]))
    monkeypatch.setenv("IHMT_ROOTS", str(layout.base))
    assert cli.passthrough("mcp", ["--root", "../outside"], None, False) == 0
    assert seen == [os.pathsep.join([str(layout.base), str(layout.outside)])]


def _said(tool_error: str) -> str:
    """A tool error's message without the SDK's "Error executing tool NAME: " prefix."""
    prefix = "Error executing tool "
    return tool_error.split(": ", 1)[1] if tool_error.startswith(prefix) else tool_error


@pytest.fixture()
def server_log(layout: Layout) -> Path:
    return layout.base / "server.log"


def test_mcp_refuses_outside_paths_with_the_same_line_as_the_cli(
        layout: Layout, server_log: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("IHMT_ROOTS", "IHMT_PROJECT")}
    env["IHMT_PROJECTS_DIR"] = str(layout.projects)
    home = layout.base / "home"
    (layout.project / "leak.py").symlink_to(layout.outside / "rocket.py")
    cli_env = {"IHMT_HOME": str(home), "IHMT_PROJECTS_DIR": str(layout.projects)}
    with running_server(home, server_log, cwd=layout.project, env=env) as agent:
        for spelled in (str(layout.outside), "../outside"):
            mcp_map = agent.error("project_map", path=spelled)
            mcp_find = agent.error("find_code", query="launch rocket", path=spelled)
            cli = _cli("project", "map", spelled, cwd=layout.project, env=cli_env)
            assert REFUSED in mcp_map and SECRET not in mcp_map
            assert _said(mcp_find) == _said(mcp_map)
            assert cli.stderr.strip() == f"ihmt: {_said(mcp_map)}"
        read = agent.error("read_file", path=str(layout.outside / "secret.txt"))
        assert REFUSED in read and SECRET not in read
        assert "symlink" in agent.error("read_file", path="leak.py")
        assert "symlink" in agent.error("project_map", path="leak.py") or \
            "not a folder" in agent.error("project_map", path="leak.py")
        listed = agent.text("project_map", path=".", detail="symbols")
        assert "add_numbers" in listed and "launch" not in listed
        assert SECRET not in agent.text("find_code", query="launch rocket code", path=".")
    assert not _outside_indexed(layout)
    assert "Traceback" not in server_log.read_text()


def test_mcp_roots_from_the_environment_and_the_root_option(layout: Layout,
                                                             server_log: Path) -> None:
    other = layout.base / "other"
    other.mkdir()
    (other / "greet.py").write_text("def greet_user():\n    return 'hi'\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("IHMT_ROOTS", "IHMT_PROJECT")}
    env.update(IHMT_PROJECTS_DIR=str(layout.projects), IHMT_ROOTS=str(layout.outside))
    with running_server(layout.base / "home", server_log, cwd=layout.project, env=env,
                        args=["--root", "../other"]) as agent:
        assert "rocket.py" in agent.text("project_map", path=str(layout.outside))
        assert SECRET in agent.text("read_file", path=str(layout.outside / "secret.txt"))
        assert "calc.py" in agent.text("project_map", path=".")
        assert agent.text("find_code", query="greet user", path="../other").startswith(
            "greet.py:1-2")
        assert REFUSED in agent.error("project_map", path=str(layout.base))


def test_reads_that_fail_say_why(layout: Layout) -> None:
    reader = SessionFiles([layout.project])
    with pytest.raises(NotFoundError, match="not a folder"):
        reader.read_file("notes.txt/inner.txt")
    with pytest.raises(InputError, match="not a regular file"):
        reader.read_file("pkg")
    if hasattr(os, "mkfifo"):
        os.mkfifo(layout.project / "pipe.txt")  # must not block the open
        with pytest.raises(InputError, match="not a regular file"):
            reader.read_file("pipe.txt")
    assert reader.read_file("notes.txt").endswith("inside notes\n")
