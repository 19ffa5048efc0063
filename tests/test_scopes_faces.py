"""Scopes through the faces: the ``ihmt`` command as a subprocess and the MCP server over
stdio with the SDK's client, each run from inside real git repositories."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from .mcp_client import running_server
from .test_scopes import NPM, PNPM, QUESTION, TABS, git_repo


def ihmt(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "IHMT_PROJECT"}
    return subprocess.run([sys.executable, "-m", "ihmt.faces.cli", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120, env=env)


def ok(*args: str, cwd: Path) -> str:
    r = ihmt(*args, cwd=cwd)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_the_example_through_the_cli(tmp_path: Path) -> None:
    a = git_repo(tmp_path / "a", "https://github.com/Acme/A.git")
    b = git_repo(tmp_path / "b", "git@github.com:acme/b.git")
    home = tmp_path / "elsewhere"
    home.mkdir()
    store = str(tmp_path / "mem")
    assert "for project github.com/acme/a" in ok("--path", store, "save", PNPM, cwd=a)
    assert "for project github.com/acme/b" in ok("save", PNPM.replace("pnpm", "npm"),
                                                "--path", store, cwd=b)
    assert "for project" not in ok("--path", store, "save", TABS, cwd=home)
    assert ok("--path", store, "search", QUESTION, cwd=a).splitlines()[1] == PNPM
    assert ok("--path", store, "search", QUESTION, cwd=b).splitlines()[1] == NPM
    # --project names the repository from anywhere.
    assert ok("--path", store, "--project", str(b), "search", QUESTION,
              cwd=home).splitlines()[1] == NPM
    for where in (a, b):
        assert ok("--path", store, "search", "tabs", cwd=where).splitlines()[1] == TABS
    data = json.loads(ok("--path", store, "search", "we use", "--json", "--scope", "all",
                         cwd=a))
    labels = {h["excerpt"]: (h["scope"], h["other_project"]) for h in data["hits"]}
    assert labels[NPM] == ("github.com/acme/b", True)
    assert labels[PNPM] == ("github.com/acme/a", False)
    out = ok("--path", store, "search", "we use", "--scope", "all", cwd=a)
    assert "from project github.com/acme/b · we use npm" in out
    only = ok("--path", store, "search", "we use", "--scope", "project", "--json", cwd=b)
    assert [h["excerpt"] for h in json.loads(only)["hits"]] == [NPM]

    lines = ok("--path", store, "scopes", cwd=a).splitlines()
    assert lines == ["global  1 memory", "github.com/acme/a  1 memory  (this project)",
                     "github.com/acme/b  1 memory"]
    pnpm_id = json.loads(ok("--path", store, "--json", "search", QUESTION, cwd=a))["hits"][0]["id"]
    assert f"moved {pnpm_id} from github.com/acme/a to github.com/acme/b" in ok(
        "--path", store, "move", pnpm_id, "--scope", "github.com/acme/b", cwd=a)
    assert "github.com/acme/b  2 memories" in ok("--path", store, "scopes", cwd=home)
    r = ihmt("--path", store, "move", "L-general-000000000000", "--scope", "global", cwd=a)
    assert r.returncode == 2 and "no memory with id L-general-000000000000" in r.stderr
    r = ihmt("--path", store, "move", pnpm_id, "--scope", "project", cwd=home)
    assert r.returncode == 2 and "needs a project" in r.stderr
    r = ihmt("--path", store, "--project", str(home), "search", "tabs", cwd=a)
    assert r.returncode == 2 and "in no git repository" in r.stderr
    r = ihmt("--path", store, "search", "tabs", "--scope", "nowhere", cwd=a)
    assert r.returncode == 2 and "invalid choice" in r.stderr
    for name in ("scopes", "move"):
        assert ok(name, "--help", cwd=home).startswith(f"usage: ihmt {name}")


def test_the_example_through_the_mcp_server(tmp_path: Path) -> None:
    a = git_repo(tmp_path / "a", "git@github.com:acme/a.git")
    b = git_repo(tmp_path / "b")
    plain = tmp_path / "plain"
    plain.mkdir()
    home = tmp_path / "home"
    log = tmp_path / "server.log"
    with running_server(home, log, cwd=a) as agent:
        saved = agent.text("save_memory", content=PNPM)
        assert "project github.com/acme/a" in saved
        assert "global" in agent.text("save_memory", content=TABS, scope="global")
    with running_server(home, log, cwd=b) as agent:
        assert f"project {b.resolve()}" in agent.text("save_memory", content=NPM)
        res = agent.call("search_memory", query=QUESTION)
        assert res.structured_content["hits"][0]["text"] == NPM
        assert res.structured_content["hits"][0]["other_project"] is False
        assert NPM in agent.text("search_memory", query=QUESTION)
        assert PNPM not in agent.text("search_memory", query=QUESTION)
        assert TABS in agent.text("search_memory", query="tabs")
        every = agent.call("search_memory", query="we use", scope="all")
        hits = {h["text"]: h for h in every.structured_content["hits"]}
        assert hits[PNPM]["scope"] == "github.com/acme/a" and hits[PNPM]["other_project"]
        assert "from project github.com/acme/a" in agent.text("search_memory",
                                                               query="we use", scope="all")
        mine = agent.call("search_memory", query="we use", scope="project")
        assert [h["text"] for h in mine.structured_content["hits"]] == [NPM]
    with running_server(home, log, cwd=a) as agent:
        assert PNPM in agent.text("search_memory", query=QUESTION)
        assert NPM not in agent.text("search_memory", query=QUESTION)
        assert TABS in agent.text("search_memory", query="tabs")
    # Outside any repository: no project; IHMT_PROJECT names one.
    with running_server(home, log, cwd=plain) as agent:
        assert "needs a project" in agent.error("save_memory", content="x", scope="project")
    with running_server(home, log, cwd=plain, env={"IHMT_PROJECT": str(a)}) as agent:
        assert PNPM in agent.text("search_memory", query=QUESTION, scope="project")
