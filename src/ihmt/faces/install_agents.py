"""What IHMT knows about each agent: names, scopes, where its files are, the entry that
launches the server in its format, and how to read an entry back.

The lowest of the installer's modules: it imports none of the others
(:mod:`ihmt.faces.install` describes the whole installer).
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path
from typing import Any

from ..errors import IHMTError

SERVER_NAME = "ihmt-memory"
MODULE = "ihmt.faces.mcp"
BACKUP_SUFFIX = ".bak-ihmt"
DEFAULT_MEMORY_DIR = ".ihmt"

WRITABLE_AGENTS = ("claude-code", "codex", "opencode")
SNIPPET_AGENTS = ("cursor", "windsurf", "gemini-cli", "claude-desktop", "vscode")
ALL_AGENTS = WRITABLE_AGENTS + SNIPPET_AGENTS
ALIASES = {"claude": "claude-code", "copilot": "vscode", "gemini": "gemini-cli",
           "github-copilot": "vscode"}
SCOPES = ("user", "project")


class InstallError(IHMTError):
    """A configuration cannot be changed safely; the message says what to fix."""


# The portable form (``--portable``): the server found through PATH and no machine-specific
# path. How the memory folder reaches the server without one, in each agent's own syntax:
# Claude Code expands ${VAR:-default} in command, args and env of .mcp.json; opencode
# substitutes {env:VAR} (empty when unset, which the server reads as unset); Codex forwards
# the variables named in env_vars. Unset, the server uses ~/.ihmt.
PORTABLE_ARGV = ("ihmt", "mcp")
PORTABLE_HOME = {"claude-code": "${IHMT_HOME:-~/.ihmt}", "opencode": "{env:IHMT_HOME}"}


def server_entry(agent: str, python: str, memory_home: str | None, *,
                 portable: bool = False) -> dict[str, Any]:
    """The entry that launches this installation's server, in ``agent``'s format.

    ``portable``: launch ``ihmt mcp`` through PATH instead of this Python, and pass the
    memory folder only when ``memory_home`` is given (else the agent's own ``$IHMT_HOME``,
    else ``~/.ihmt``), so the entry holds nothing specific to this machine.
    """
    command, args = (PORTABLE_ARGV[0], list(PORTABLE_ARGV[1:])) if portable else (
        python, ["-m", MODULE])
    if memory_home is None and not portable:
        raise ValueError("an entry that is not portable names its memory folder")
    home = memory_home if memory_home is not None else PORTABLE_HOME.get(agent)
    env = {"IHMT_HOME": home} if home is not None else {}
    if agent == "opencode":
        return {"type": "local", "command": [command, *args], "environment": env,
                "enabled": True}
    if agent == "codex":
        # Approval inside the server table, so Codex runs the memory tools without asking.
        entry: dict[str, Any] = {"command": command, "args": args,
                                 "default_tools_approval_mode": "approve"}
        if env:
            entry["env"] = env
        else:
            entry["env_vars"] = ["IHMT_HOME"]
        return entry
    base = {"type": "stdio"} if agent in ("claude-code", "vscode") else {}
    return {**base, "command": command, "args": args, **({"env": env} if env else {})}


def config_path(agent: str, scope: str, home: Path, project: Path) -> Path:
    """The file holding ``agent``'s MCP servers: the first that exists, else the usual one."""
    candidates = _config_candidates(agent, scope, home, project)
    if not candidates:
        raise InstallError(f"{agent} has no {scope}-scope configuration file we know of")
    return next((p for p in candidates if p.is_file()), candidates[0])


def instructions_path(agent: str, scope: str, home: Path, project: Path) -> Path:
    """Where the agent reads standing instructions: global for user scope, the project's
    own file for project scope (the memory is only wired there)."""
    if scope == "project":
        return project / ("CLAUDE.md" if agent == "claude-code" else "AGENTS.md")
    return {
        "claude-code": home / ".claude" / "CLAUDE.md",
        "codex": home / ".codex" / "AGENTS.md",
        "opencode": home / ".config" / "opencode" / "AGENTS.md",
    }[agent]


# ---------------------------------------------------------------------- agents and files
_CONTAINER = {"claude-code": "mcpServers", "codex": "mcp_servers", "opencode": "mcp",
              "cursor": "mcpServers", "windsurf": "mcpServers", "gemini-cli": "mcpServers",
              "claude-desktop": "mcpServers", "vscode": "servers"}


def _config_candidates(agent: str, scope: str, home: Path, project: Path) -> list[Path]:
    if scope == "project":
        rel = {"claude-code": [".mcp.json"], "codex": [".codex/config.toml"],
               "opencode": ["opencode.json", "opencode.jsonc"],
               "cursor": [".cursor/mcp.json"], "gemini-cli": [".gemini/settings.json"],
               "vscode": [".vscode/mcp.json"]}.get(agent, [])
        return [project / r for r in rel]
    rel = {
        "claude-code": [".claude.json"],
        "codex": [".codex/config.toml"],
        "opencode": [".config/opencode/opencode.json", ".config/opencode/opencode.jsonc"],
        "cursor": [".cursor/mcp.json"],
        "windsurf": [".codeium/windsurf/mcp_config.json"],
        "gemini-cli": [".gemini/settings.json"],
        "claude-desktop": ["Library/Application Support/Claude/claude_desktop_config.json",
                           ".config/Claude/claude_desktop_config.json",
                           "AppData/Roaming/Claude/claude_desktop_config.json"],
        "vscode": [".config/Code/User/mcp.json", "Library/Application Support/Code/User/mcp.json",
                   "AppData/Roaming/Code/User/mcp.json"],
    }[agent]
    return [home / r for r in rel]


def _argv(entry: dict[str, Any]) -> list[str]:
    cmd = entry.get("command")
    argv = [str(c) for c in cmd] if isinstance(cmd, list) else [str(cmd)] if cmd else []
    args = entry.get("args")
    return argv + ([str(a) for a in args] if isinstance(args, list) else [])


def _env(entry: dict[str, Any]) -> dict[str, Any]:
    env = entry.get("env", entry.get("environment"))
    return env if isinstance(env, dict) else {}


_PLACEHOLDER = re.compile(r"\$\{(\w+)(?::-([^}]*))?\}|\{env:(\w+)\}")


def _expand(value: str, environ: dict[str, str] | os._Environ[str]) -> str:
    """``${VAR}``, ``${VAR:-default}`` (Claude Code) and ``{env:VAR}`` (opencode) replaced
    as the agents replace them."""
    def one(m: re.Match[str]) -> str:
        name = m.group(1) or m.group(3)
        got = environ.get(name, "")
        return got if got or m.group(2) is None else m.group(2)

    return _PLACEHOLDER.sub(one, value)


def _entry_home(entry: dict[str, Any], home: Path) -> str:
    """The memory folder the entry's server opens: its IHMT_HOME as the agent expands it, or
    the variable the agent forwards (Codex's env_vars), else the server's default."""
    value = _env(entry).get("IHMT_HOME")
    if value is None and "IHMT_HOME" in (entry.get("env_vars") or []):
        value = os.environ.get("IHMT_HOME")
    if isinstance(value, str):
        value = _expand(value, os.environ)
    if isinstance(value, str) and value.strip():
        return str(Path(value.replace("$HOME", str(home))).expanduser())
    return str(home / DEFAULT_MEMORY_DIR)  # what the server falls back to


def is_portable(entry: dict[str, Any]) -> bool:
    """The entry launches ``ihmt mcp`` through PATH (``--portable``)."""
    return tuple(_argv(entry)) == PORTABLE_ARGV


def ihmt_on_path(python: str) -> tuple[str | None, bool]:
    """The ``ihmt`` a portable entry starts here (None: not on PATH), and whether it is this
    installation's: the script beside ``python``, or one whose first line names it."""
    found = shutil.which(PORTABLE_ARGV[0])
    if found is None:
        return None, False
    real = Path(found).resolve()
    if real.parent == Path(python).parent or Path(found).parent == Path(python).parent:
        return found, True
    try:
        with open(real, "rb") as f:
            first = f.readline(4096).decode("utf-8", "replace")
    except OSError:
        return found, False
    return found, first.startswith("#!") and first[2:].strip().split(" ")[0] == python


def _launches(entry: dict[str, Any], python: str) -> bool:
    """The entry starts this installation's server (either form)."""
    if is_portable(entry):
        return ihmt_on_path(python)[1]
    return _argv(entry)[:1] == [python] and MODULE in _argv(entry)


def _same_entry(agent: str, existing: dict[str, Any], desired: dict[str, Any]) -> bool:
    """Equal where it matters (how it launches, approval, enabled); extra keys the user
    added to our entry are left alone."""
    keys = {"codex": ("default_tools_approval_mode", "env_vars"),
            "opencode": ("enabled", "type")}
    return (_argv(existing) == _argv(desired)
            and _env(existing).get("IHMT_HOME") == _env(desired).get("IHMT_HOME")
            and all(existing.get(k) == desired.get(k) for k in keys.get(agent, ())))


def _restart_hint(agent: str, scope: str) -> str:
    name = {"claude-code": "Claude Code", "codex": "Codex", "opencode": "opencode"}[agent]
    hint = f"start a new {name} session to load the memory tools"
    if agent == "claude-code" and scope == "project":
        hint += " (Claude Code asks once to approve the project's server)"
    if agent == "codex" and scope == "project":
        hint += " (Codex reads .codex/config.toml only in trusted projects)"
    return hint


# ---------------------------------------------------------------------- helpers
def _python() -> str:
    # Not resolved: a venv's python is a symlink, and resolving it would leave the venv.
    return os.path.abspath(sys.executable)


def _home(home: Path | None) -> Path:
    return Path(home).expanduser().absolute() if home is not None else Path.home()


def _project(project: Path | None) -> Path:
    return Path(project).expanduser().absolute() if project is not None else Path.cwd()


def _check_agent(agent: str, *, writable: bool) -> str:
    name = ALIASES.get(agent.strip().lower(), agent.strip().lower())
    allowed = WRITABLE_AGENTS if writable else ALL_AGENTS
    if name not in allowed:
        hint = "" if name not in ALL_AGENTS else "; use 'ihmt print-config' for it"
        raise InstallError(f"unknown agent {agent!r}: choose one of {', '.join(allowed)}{hint}")
    return name


def _check_scope(scope: str) -> str:
    if scope not in SCOPES:
        raise InstallError(f"scope must be 'user' or 'project', not {scope!r}")
    return scope

