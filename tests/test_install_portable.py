"""``ihmt install AGENT --scope project --portable``: project files that can be committed.

The project scope writes into files teams commit (``.mcp.json``, ``opencode.json``,
``.codex/config.toml``, the hooks' ``.claude/settings.json`` and ``.codex/hooks.json``).
The portable form names no path of this machine; these tests read what it wrote, start the
server from it the way each agent documents (its placeholders expanded, the command looked
up on PATH), and do a real save-then-search round trip through the MCP SDK's stdio client.
Everything runs as the CLI, in a throwaway HOME and project.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")

from ihmt import Memory
from ihmt.faces.install_formats import _jsonc_to_json

BIN = Path(sys.executable).parent  # the venv's bin, where the 'ihmt' console script is
AGENTS = ("claude-code", "codex", "opencode")
CONFIG = {"claude-code": ".mcp.json", "codex": ".codex/config.toml", "opencode": "opencode.json"}
HOOKS = {"claude-code": ".claude/settings.json", "codex": ".codex/hooks.json"}

pytestmark = pytest.mark.skipif(not (BIN / "ihmt").exists(),
                                reason=f"no 'ihmt' console script in {BIN} (pip install -e .)")


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    return home, project


def _env(home: Path, *, with_bin: bool = True, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("IHMT_HOME", "PATH")}
    env.update(HOME=str(home), USERPROFILE=str(home), IHMT_INSTALL_NO_CLI="1",
               PATH=os.pathsep.join(([str(BIN)] if with_bin else []) + ["/usr/bin", "/bin"]))
    env.update(extra)
    return env


def _cli(home: Path, cwd: Path, *args: str, with_bin: bool = True, **extra: str):
    return subprocess.run([sys.executable, "-m", "ihmt.faces.cli", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120,
                          env=_env(home, with_bin=with_bin, **extra))


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [k, *_strings(v)]]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _load(path: Path) -> dict[str, Any]:
    text = path.read_text()
    if path.suffix == ".toml":
        return tomllib.loads(text)
    return json.loads(_jsonc_to_json(text))


def _entry(agent: str, project: Path, name: str | None = None) -> dict[str, Any]:
    data = _load(project / (name or CONFIG[agent]))
    return data[{"claude-code": "mcpServers", "codex": "mcp_servers", "opencode": "mcp"}[agent]][
        "ihmt-memory"]


# ---------------------------------------------------------------------- no absolute path
@pytest.mark.parametrize("agent", AGENTS)
def test_portable_project_files_name_no_path_of_this_machine(agent: str, dirs) -> None:
    home, project = dirs
    r = _cli(home, project, "install", agent, "--scope", "project", "--portable")
    assert r.returncode == 0, r.stderr
    written = [project / CONFIG[agent]] + ([project / HOOKS[agent]] if agent in HOOKS else [])
    for path in written:
        text = path.read_text()
        for machine in (str(home), str(project), str(BIN), sys.prefix):
            assert machine not in text, (path, text)
        words = [w for s in _strings(_load(path)) for w in shlex.split(s)]
        assert not [w for w in words if os.path.isabs(os.path.expanduser(w))
                    and not w.startswith("~")], (path, words)
    assert "absolute" not in r.stdout and "not on PATH" not in r.stdout, r.stdout


@pytest.mark.parametrize("agent", AGENTS)
def test_the_absolute_form_says_so_and_how_to_get_the_portable_one(agent: str, dirs) -> None:
    home, project = dirs
    r = _cli(home, project, "install", agent, "--scope", "project")
    assert r.returncode == 0, r.stderr
    assert sys.executable in (project / CONFIG[agent]).read_text()  # the default form
    note = next(ln for ln in r.stdout.splitlines() if "absolute paths" in ln)
    assert str(project / CONFIG[agent]) in note and "often committed" in note
    assert f"ihmt install {agent} --scope project --portable" in note
    user = _cli(home, project, "install", agent)  # user files are not shared: no such note
    assert user.returncode == 0 and "absolute paths" not in user.stdout, user.stdout


def test_portable_without_ihmt_on_path_says_how_to_fix_it(dirs) -> None:
    home, project = dirs
    r = _cli(home, project, "install", "claude-code", "--scope", "project", "--portable",
             with_bin=False)
    assert r.returncode == 0, r.stderr
    assert "'ihmt' is not on PATH here" in r.stdout and str(BIN) in r.stdout, r.stdout
    d = _cli(home, project, "doctor", "--no-server", with_bin=False)
    assert "claude-code (project): PROBLEM" in d.stdout and d.returncode == 1, d.stdout


# ---------------------------------------------------------------------- it really starts
_SHELL_VAR = re.compile(r"\$\{(\w+)(?::-([^}]*))?\}")


def _claude_expand(value: str, env: dict[str, str]) -> str:
    """Claude Code's .mcp.json expansion: ${VAR}, and ${VAR:-default} when VAR is unset."""
    return _SHELL_VAR.sub(lambda m: env.get(m.group(1)) or (m.group(2) or ""), value)


def _launch_params(agent: str, entry: dict[str, Any], agent_env: dict[str, str]):
    """Command, args and environment of the server as ``agent`` starts it (its docs)."""
    if agent == "claude-code":
        command = _claude_expand(entry["command"], agent_env)
        args = [_claude_expand(a, agent_env) for a in entry.get("args", [])]
        env = {**agent_env, **{k: _claude_expand(v, agent_env)
                               for k, v in entry.get("env", {}).items()}}
    elif agent == "opencode":  # {env:VAR}, empty when unset
        sub = [re.sub(r"\{env:(\w+)\}", lambda m: agent_env.get(m.group(1), ""), s)
               for s in entry["command"]]
        command, args = sub[0], sub[1:]
        env = {**agent_env, **{k: re.sub(r"\{env:(\w+)\}",
                                         lambda m: agent_env.get(m.group(1), ""), v)
                               for k, v in entry.get("environment", {}).items()}}
    else:  # Codex: no expansion; a core environment, env, and the env_vars it forwards
        command, args = entry["command"], list(entry.get("args", []))
        env = {k: agent_env[k] for k in ("HOME", "PATH", "USER", "LANG") if k in agent_env}
        env.update({k: agent_env[k] for k in entry.get("env_vars", []) if k in agent_env})
        env.update(entry.get("env", {}))
    resolved = shutil.which(command, path=agent_env["PATH"])
    assert resolved, f"{command!r} is not on the agent's PATH {agent_env['PATH']}"
    env["IHMT_SEMANTIC"] = os.environ.get("IHMT_SEMANTIC", "off")
    return resolved, args, env


def _round_trip(command: str, args: list[str], env: dict[str, str], cwd: Path,
                log: Path) -> tuple[str, str]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    out: dict[str, str] = {}

    async def go() -> None:
        params = StdioServerParameters(command=command, args=args, env=env, cwd=str(cwd))
        with open(log, "w") as errlog, anyio.fail_after(90):
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    saved = await session.call_tool("save_memory", {
                        "content": "We chose Postgres for billing because invoices need "
                                   "transactions."})
                    found = await session.call_tool("search_memory",
                                                    {"query": "postgres billing decision"})
        out["saved"] = "\n".join(getattr(c, "text", "") for c in saved.content)
        out["found"] = "\n".join(getattr(c, "text", "") for c in found.content)

    anyio.run(go)
    return out["saved"], out["found"]


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize("ihmt_home", [True, False], ids=["IHMT_HOME", "unset"])
def test_the_portable_entry_starts_the_server_as_the_agent_would(agent: str, ihmt_home: bool,
                                                                 dirs, tmp_path: Path) -> None:
    home, project = dirs
    r = _cli(home, project, "install", agent, "--scope", "project", "--portable", "--no-hooks")
    assert r.returncode == 0, r.stderr
    mem = tmp_path / "team-memory"
    agent_env = _env(home, **({"IHMT_HOME": str(mem)} if ihmt_home else {}))
    command, args, env = _launch_params(agent, _entry(agent, project), agent_env)
    assert Path(command).parent == BIN
    saved, found = _round_trip(command, args, env, project, tmp_path / "server.log")
    assert saved.startswith("Saved 1 memory"), saved
    assert found.startswith("FOUND") and "invoices need transactions" in found, found
    store = (mem if ihmt_home else home / ".ihmt") / "ihmt_memory"
    with Memory.open(store) as m:  # the memory landed where the agent's environment said
        assert m.stats()["leaves"] == 1


# ---------------------------------------------------------------------- JSONC, doctor, uninstall
def test_portable_into_an_opencode_jsonc_keeps_its_comments(dirs) -> None:
    home, project = dirs
    cfg = project / "opencode.jsonc"
    original = ('{\n  "$schema": "https://opencode.ai/config.json",\n'
                '  // the team\'s model, keep this comment\n  "model": "anthropic/x",\n'
                '  "mcp": {\n    /* docs server */\n    "docs": {"type": "local", '
                '"command": ["docs-mcp"]},\n  },\n}\n')
    cfg.write_text(original)
    r = _cli(home, project, "install", "opencode", "--scope", "project", "--portable")
    assert r.returncode == 0, r.stderr
    assert not (project / "opencode.json").exists()  # the file that was there is edited
    text = cfg.read_text()
    for kept in ("// the team's model, keep this comment", "/* docs server */", '"docs-mcp"'):
        assert kept in text, text
    assert _entry("opencode", project, "opencode.jsonc")["command"] == ["ihmt", "mcp"]
    d = _cli(home, project, "doctor", "--no-server")
    assert "opencode (project): same memory; portable ('ihmt' through PATH)" in d.stdout, d.stdout
    assert d.returncode == 0, d.stdout
    u = _cli(home, project, "uninstall", "opencode", "--scope", "project")
    assert u.returncode == 0, u.stderr
    assert cfg.read_text() == original


def test_doctor_and_uninstall_know_the_portable_form_as_ihmts_own(dirs) -> None:
    home, project = dirs
    for agent in AGENTS:
        r = _cli(home, project, "install", agent, "--scope", "project", "--portable")
        assert r.returncode == 0, r.stderr
    d = _cli(home, project, "doctor", "--no-server")
    assert d.returncode == 0, d.stdout
    for agent in AGENTS:
        assert f"agent   {agent} (project): same memory; portable" in d.stdout, d.stdout
    for agent in HOOKS:
        assert f"hooks   {agent} (project): SessionStart, UserPromptSubmit" in d.stdout
    assert "another installation" not in d.stdout and "PROBLEM" not in d.stdout
    for agent in AGENTS:
        u = _cli(home, project, "uninstall", agent, "--scope", "project")
        assert u.returncode == 0, u.stderr
    left = [p for p in project.rglob("*") if p.is_file() and ".bak-ihmt" not in p.name]
    assert left == [], left  # every file install created is gone again
    d = _cli(home, project, "doctor", "--no-server")
    assert "agents  none has ihmt-memory registered" in d.stdout, d.stdout


def test_reinstalling_switches_between_the_two_forms_in_place(dirs) -> None:
    home, project = dirs
    assert _cli(home, project, "install", "codex", "--scope", "project").returncode == 0
    r = _cli(home, project, "install", "codex", "--scope", "project", "--portable")
    assert r.returncode == 0 and "updated       mcp entry" in r.stdout, r.stdout
    text = (project / ".codex" / "config.toml").read_text()
    assert text.count("[mcp_servers.ihmt-memory]") == 1 and sys.executable not in text
    again = _cli(home, project, "install", "codex", "--scope", "project", "--portable")
    assert "Nothing to change" in again.stdout, again.stdout


def test_a_given_home_is_written_and_said(dirs, tmp_path: Path) -> None:
    home, project = dirs
    mem = tmp_path / "shared"
    r = _cli(home, project, "install", "claude-code", "--scope", "project", "--portable",
             "--home", str(mem))
    assert r.returncode == 0, r.stderr
    assert _entry("claude-code", project)["env"] == {"IHMT_HOME": str(mem)}
    assert f"given with --home is written as is: {mem}" in r.stdout, r.stdout
    hooks = (project / HOOKS["claude-code"]).read_text()
    assert f"ihmt --path {mem} hook session-start" in hooks


# ---------------------------------------------------------------------- Claude Code's own CLI
def _claude(what: str) -> str:
    """The real Claude Code CLI, or a skip that says what goes unchecked without it."""
    claude = shutil.which("claude")
    if claude is None:
        pytest.skip(f"the 'claude' CLI is not installed here (npm i -g @anthropic-ai/"
                    f"claude-code), so Claude Code's own reading of {what} is unchecked")
    return claude


def test_claude_code_reads_the_portable_mcp_json(dirs) -> None:
    claude = _claude(".mcp.json")
    home, project = dirs
    r = _cli(home, project, "install", "claude-code", "--scope", "project", "--portable")
    assert r.returncode == 0, r.stderr
    env = _env(home)
    env["PATH"] = os.pathsep.join([str(BIN), str(Path(claude).parent), "/usr/bin", "/bin"])
    got = subprocess.run([claude, "mcp", "get", "ihmt-memory"], cwd=project, env=env,
                         capture_output=True, text=True, timeout=120)
    assert got.returncode == 0 and "ihmt" in got.stdout and "mcp" in got.stdout, got
    listed = subprocess.run([claude, "mcp", "list"], cwd=project, env=env,
                            capture_output=True, text=True, timeout=180)
    assert "ihmt-memory" in listed.stdout, listed


def test_claude_code_connects_to_the_user_scope_install(dirs) -> None:
    # The default install (user scope, absolute paths): Claude Code's own CLI finds the
    # server in ~/.claude.json and starts it (its health check says Connected).
    claude = _claude("~/.claude.json")
    home, project = dirs
    r = _cli(home, project, "install", "claude-code")
    assert r.returncode == 0, r.stderr
    env = _env(home)
    env["PATH"] = os.pathsep.join([str(Path(claude).parent), "/usr/bin", "/bin"])
    got = subprocess.run([claude, "mcp", "get", "ihmt-memory"], cwd=project, env=env,
                         capture_output=True, text=True, timeout=180)
    assert got.returncode == 0 and "Connected" in got.stdout, got
    assert "User config" in got.stdout
    removed = _cli(home, project, "uninstall", "claude-code")
    assert removed.returncode == 0, removed.stderr
    gone = subprocess.run([claude, "mcp", "get", "ihmt-memory"], cwd=project, env=env,
                          capture_output=True, text=True, timeout=180)
    assert gone.returncode != 0 or "ihmt-memory" not in gone.stdout, gone


# ---------------------------------------------------------------------- help and errors
@pytest.mark.parametrize("command", ["install", "uninstall", "print-config", "doctor"])
def test_every_installer_command_answers_help(command: str, dirs) -> None:
    home, project = dirs
    r = _cli(home, project, command, "--help")
    assert r.returncode == 0 and r.stdout.startswith(f"usage: ihmt {command}"), r
    lines = r.stdout.splitlines()
    bare = []
    for i, line in enumerate(lines):
        m = re.match(r"^  (--[\w-]+)( [A-Z_]+| \{[\w,]+\})?(.*)$", line)
        if m and not m.group(3).strip() and not (
                i + 1 < len(lines) and lines[i + 1].startswith(" " * 10)):
            bare.append(m.group(1))
    assert not bare, f"options without a description: {bare}"


@pytest.mark.parametrize("args", [["install", "nosuch"], ["uninstall", "cursor"],
                                  ["print-config", "nosuch"], ["print-config", "cursor",
                                                               "--hooks"]])
def test_installer_errors_use_the_cli_style(args: list[str], dirs) -> None:
    home, project = dirs
    r = _cli(home, project, *args)
    assert r.returncode == 2 and r.stderr.startswith("ihmt: "), r
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


def test_portable_says_when_another_agent_uses_another_memory(dirs, tmp_path: Path) -> None:
    home, project = dirs
    data = tmp_path / "data"
    assert _cli(home, project, "install", "claude-code", "--home", str(data)).returncode == 0
    r = _cli(home, project, "install", "opencode", "--scope", "project", "--portable")
    assert r.returncode == 0, r.stderr
    note = next(ln for ln in r.stdout.splitlines() if "another memory" in ln)
    assert f"claude-code uses another memory, {data}" in note and f"--home {data}" in note
    assert str(data) not in (project / "opencode.json").read_text()
