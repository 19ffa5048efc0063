"""What IHMT knows about each agent: names, scopes, where its files are, the entry that
launches the server in its format, and how to read an entry back.

The lowest of the installer's modules: it imports none of the others
(:mod:`ihmt.faces.install` describes the whole installer).
"""

from __future__ import annotations

import os
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


def server_entry(agent: str, python: str, memory_home: str) -> dict[str, Any]:
    """The entry that launches this installation's server, in ``agent``'s format."""
    args = ["-m", MODULE]
    env = {"IHMT_HOME": memory_home}
    if agent == "opencode":
        return {"type": "local", "command": [python, *args], "environment": env,
                "enabled": True}
    if agent == "codex":
        # Approval inside the server table, so Codex runs the memory tools without asking.
        return {"command": python, "args": args, "default_tools_approval_mode": "approve",
                "env": env}
    if agent in ("claude-code", "vscode"):
        return {"type": "stdio", "command": python, "args": args, "env": env}
    return {"command": python, "args": args, "env": env}


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


def _entry_home(entry: dict[str, Any], home: Path) -> str:
    value = _env(entry).get("IHMT_HOME")
    if isinstance(value, str) and value.strip():
        return str(Path(value.replace("$HOME", str(home))).expanduser())
    return str(home / DEFAULT_MEMORY_DIR)  # what the server falls back to


def _launches(entry: dict[str, Any], python: str) -> bool:
    return _argv(entry)[:1] == [python] and MODULE in _argv(entry)


def _same_entry(agent: str, existing: dict[str, Any], desired: dict[str, Any]) -> bool:
    """Equal where it matters (how it launches, approval, enabled); extra keys the user
    added to our entry are left alone."""
    keys = {"codex": ("default_tools_approval_mode",), "opencode": ("enabled", "type")}
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

