"""Registering the IHMT MCP server with coding agents, and checking an installation.

``ihmt install claude-code|codex|opencode`` writes the agent's own configuration so that
it launches ``<this python> -m ihmt.faces.mcp`` with ``IHMT_HOME`` pointing at the memory
folder, and appends the usage instructions to the agent's instructions file. For Claude
Code and Codex it also registers the session-start and prompt-submit hooks
(:mod:`ihmt.faces.install_hooks`; ``--no-hooks`` to skip). For agents
we do not write to (Cursor, Windsurf, Gemini CLI, Claude Desktop, VS Code / Copilot),
:func:`print_config` returns the snippet to paste.

Rules every function here keeps, because these are the user's files:

* Plan, then apply. Every change is computed first (the exact command, or the complete new
  text of each file with its diff), and nothing is written if any part cannot be planned.
  ``dry_run=True`` returns that plan and writes nothing, so a preview shows exactly what
  a real run would do.
* Backups: before IHMT first changes a file it copies it to ``<file>.bak-ihmt``. Later
  runs keep that first copy, never overwrite it: it is the state before IHMT.
* Idempotent: a second run finds everything in place and changes nothing.
* Other content is preserved: an edit touches only the ``ihmt-memory`` entry and the
  instructions block between its marker lines, and TOML edits are verified by parsing the
  result and comparing everything else with the original.
* One memory for every agent: without ``memory_home``, the folder already registered with
  this or another agent is reused. The memory folder itself is never deleted or
  overwritten (uninstall leaves it alone).

All paths derive from ``home`` (default ``Path.home()``) and ``project`` (default the
current folder), so tests run against temporary folders.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from ..doctor import check_store
from ..errors import IHMTError
from ..memory import Memory
from ..store.files import atomic_write
from ..store.store import resolve_store_path
from ..text import count
from .install_hooks import dump_json

try:  # Python 3.11+
    import tomllib as _toml
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    try:
        import tomli as _toml  # type: ignore[no-redef]
    except ModuleNotFoundError:
        _toml = None  # type: ignore[assignment]

SERVER_NAME = "ihmt-memory"
MODULE = "ihmt.faces.mcp"
BACKUP_SUFFIX = ".bak-ihmt"
MARK_BEGIN = "<!-- ihmt-memory:begin"
MARK_END = "<!-- ihmt-memory:end -->"
DEFAULT_MEMORY_DIR = ".ihmt"

WRITABLE_AGENTS = ("claude-code", "codex", "opencode")
SNIPPET_AGENTS = ("cursor", "windsurf", "gemini-cli", "claude-desktop", "vscode")
ALL_AGENTS = WRITABLE_AGENTS + SNIPPET_AGENTS
ALIASES = {"claude": "claude-code", "copilot": "vscode", "gemini": "gemini-cli",
           "github-copilot": "vscode"}
SCOPES = ("user", "project")

# The tools a complete server lists (memory tools, then the project tools).
EXPECTED_TOOLS = ("search_memory", "save_memory", "mark_outdated", "find_code", "project_map",
                  "read_file", "note", "recall", "digest_output")


class InstallError(IHMTError):
    """A configuration cannot be changed safely; the message says what to fix."""


# ---------------------------------------------------------------------- results
@dataclass
class Change:
    """One planned or applied change.

    ``action`` is ``create``, ``update``, ``delete``, ``run`` or ``unchanged``; with
    ``InstallResult.dry_run`` it is what would happen.
    """

    what: str  # "memory folder" | "mcp entry" | "instructions" | "hooks"
    action: str
    path: str | None = None
    diff: str = ""
    command: list[str] | None = None
    backup: str | None = None
    note: str = ""


@dataclass
class InstallResult:
    """What an install or uninstall did (or, with ``dry_run``, would do)."""

    agent: str
    scope: str
    operation: str  # install | uninstall
    dry_run: bool
    memory_home: str | None = None
    memory_source: str = ""  # where the memory folder choice came from
    changes: list[Change] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return any(c.action != "unchanged" for c in self.changes)

    @property
    def backups(self) -> list[str]:
        return [c.backup for c in self.changes if c.backup]

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "changed": self.changed, "backups": self.backups}

    def lines(self) -> list[str]:
        """A compact report for the terminal (and for the agent to relay)."""
        verb = {"create": "created", "update": "updated", "delete": "deleted", "run": "ran",
                "unchanged": "unchanged"}
        would = {"create": "would create", "update": "would update", "delete": "would delete",
                 "run": "would run", "unchanged": "unchanged"}
        words = would if self.dry_run else verb
        head = f"IHMT {self.operation} for {self.agent} ({self.scope} scope)"
        if self.memory_home:
            head += f", memory {self.memory_home}"
            if self.memory_source:
                head += f" ({self.memory_source})"
        out = [head]
        for c in self.changes:
            target = shlex.join(c.command) if c.command else (c.path or "")
            extra = f" (backup {c.backup})" if c.backup else ""
            note = f" - {c.note}" if c.note else ""
            out.append(f"  {words.get(c.action, c.action):<13} {c.what}: {target}{extra}{note}")
        out += [f"  note: {n}" for n in self.notes]
        if not self.changed:
            out.append("Nothing to change: already " +
                       ("installed." if self.operation == "install" else "removed."))
        elif self.dry_run:
            out.append("Dry run: nothing was written.")
        return out


@dataclass
class Registration:
    """An ``ihmt-memory`` entry found in an agent's configuration."""

    agent: str
    scope: str  # user | project | local (Claude Code's per-project entries in ~/.claude.json)
    config: str
    memory_home: str | None = None  # IHMT_HOME, or the server's default when unset
    command: list[str] = field(default_factory=list)
    this_install: bool = False  # launches this installation's Python
    problem: str | None = None  # the config file could not be read


@dataclass
class Snippet:
    """Configuration to paste into an agent we do not edit ourselves."""

    agent: str
    where: str
    format: str  # json | toml
    text: str


# ---------------------------------------------------------------------- public API
def install(agent: str, scope: str = "user", *, memory_home: str | os.PathLike[str] | None = None,
            home: Path | None = None, project: Path | None = None, dry_run: bool = False,
            use_cli: bool | None = None, python: str | None = None,
            hooks: bool = True) -> InstallResult:
    """Register the server with ``agent`` and add the usage instructions.

    ``hooks`` (Claude Code, Codex): also register the session-start and prompt-submit
    hooks (:mod:`ihmt.faces.install_hooks`); ``False`` removes hooks an earlier install
    registered.

    ``memory_home`` is the folder holding ``ihmt_memory/`` (``--home``); without it the
    folder already registered with any agent is reused, else ``~/.ihmt``. ``use_cli``
    (Claude Code only): run ``claude mcp add`` instead of editing ``~/.claude.json``;
    ``None`` decides by whether ``claude`` is on PATH (``IHMT_INSTALL_NO_CLI=1`` forces
    file editing).
    """
    agent, scope = _check_agent(agent, writable=True), _check_scope(scope)
    home, project = _home(home), _project(project)
    python = python or _python()
    if memory_home is not None:
        mem_home, source = Path(memory_home).expanduser().absolute(), "given with --home"
    else:
        mem_home, source = find_memory_home(agent, scope, home=home, project=project)
    result = InstallResult(agent, scope, "install", dry_run, str(mem_home), source)

    memory_change = _plan_memory(mem_home)
    entry = server_entry(agent, python, str(mem_home))
    cfg_path = config_path(agent, scope, home, project)
    edits: list[tuple[Change, _Edit | None]] = [(memory_change, None)]
    existing = _read_entry(agent, cfg_path)
    if existing is not None and not _launches(existing, python):
        result.notes.append("replaced an earlier ihmt-memory entry that launched "
                            + shlex.join(_argv(existing)))
    if agent == "claude-code" and _use_claude_cli(use_cli, home):
        edits += [(c, None) for c in _claude_cli_install(scope, cfg_path, entry, existing)]
    else:
        edit = _plan_entry(agent, cfg_path, entry, existing)
        edits.append((edit.change("mcp entry"), edit))
    instr = instructions_path(agent, scope, home, project)
    iedit = _Edit(instr, _read_text(instr), None)
    iedit.new = _with_block(iedit.old, instructions_block())
    edits.append((iedit.change("instructions"), iedit))
    edits += _plan_hooks(agent, scope, home, project, python, str(mem_home), install=hooks)
    result.changes = [c for c, _ in edits]

    if not dry_run:
        _apply(edits, mem_home, project if scope == "project" else None)
    if result.changed and not dry_run:
        result.notes.append(_restart_hint(agent, scope))
    return result


def uninstall(agent: str, scope: str = "user", *, home: Path | None = None,
              project: Path | None = None, dry_run: bool = False, use_cli: bool | None = None
              ) -> InstallResult:
    """Remove the server entry and the instructions block. The memory folder is kept."""
    agent, scope = _check_agent(agent, writable=True), _check_scope(scope)
    home, project = _home(home), _project(project)
    result = InstallResult(agent, scope, "uninstall", dry_run)
    cfg_path = config_path(agent, scope, home, project)
    existing = _read_entry(agent, cfg_path)
    if existing is not None:
        result.memory_home = _entry_home(existing, home)
        result.memory_source = "kept: uninstall never touches the memory"
    edits: list[tuple[Change, _Edit | None]] = []
    if agent == "claude-code" and existing is not None and _use_claude_cli(use_cli, home):
        cmd = ["claude", "mcp", "remove", SERVER_NAME, "--scope", scope]
        edits.append((Change("mcp entry", "run", str(cfg_path), command=cmd), None))
    else:
        edit = _Edit(cfg_path, _read_text(cfg_path), None)
        edit.new = _without_entry(agent, cfg_path, edit.old) if existing is not None else edit.old
        edits.append((edit.change("mcp entry"), edit))
    instr = instructions_path(agent, scope, home, project)
    iedit = _Edit(instr, _read_text(instr), None)
    sharing = _sharing_instructions(agent, scope, home, project)
    iedit.new = iedit.old if sharing else _without_block(iedit.old)
    ichange = iedit.change("instructions")
    if sharing:
        ichange.note = f"kept: {', '.join(sharing)} ({scope}) still reads it"
    edits.append((ichange, iedit))
    edits += _plan_hooks(agent, scope, home, project, "", "", install=False)
    result.changes = [c for c, _ in edits]
    if not dry_run:
        _apply(edits, None, project if scope == "project" else None)
    return result


def _sharing_instructions(agent: str, scope: str, home: Path, project: Path) -> list[str]:
    """The other agents installed in ``scope`` whose instructions file is ``agent``'s (in a
    project, Codex and opencode both read AGENTS.md): its block stays while they need it. An
    agent whose configuration cannot be read counts as installed: nothing is lost."""
    mine = instructions_path(agent, scope, home, project)
    out = []
    for other in WRITABLE_AGENTS:
        if other == agent or instructions_path(other, scope, home, project) != mine:
            continue
        try:
            installed = _read_entry(other, config_path(other, scope, home, project)) is not None
        except InstallError:
            installed = True
        if installed:
            out.append(other)
    return out


def print_config(agent: str, *, memory_home: str | os.PathLike[str] | None = None,
                 home: Path | None = None, python: str | None = None) -> Snippet:
    """The configuration snippet for ``agent``, with the top-level key it expects."""
    agent = _check_agent(agent, writable=False)
    home = _home(home)
    if memory_home is None:
        mem_home, _ = find_memory_home(agent, "user", home=home, project=Path.cwd())
    else:
        mem_home = Path(memory_home).expanduser().absolute()
    entry = server_entry(agent, python or _python(), str(mem_home))
    where = {
        "claude-code": "~/.claude.json (user) or <project>/.mcp.json",
        "codex": "~/.codex/config.toml (or <project>/.codex/config.toml in a trusted project)",
        "opencode": "~/.config/opencode/opencode.json or <project>/opencode.json",
        "cursor": "~/.cursor/mcp.json or <project>/.cursor/mcp.json",
        "windsurf": "~/.codeium/windsurf/mcp_config.json",
        "gemini-cli": "~/.gemini/settings.json or <project>/.gemini/settings.json",
        "claude-desktop": "claude_desktop_config.json (Settings > Developer > Edit Config)",
        "vscode": "<project>/.vscode/mcp.json, or the user mcp.json "
                  "(command 'MCP: Open User Configuration')",
    }[agent]
    if agent == "codex":
        return Snippet(agent, where, "toml", _toml_block(entry))
    text = json.dumps({_CONTAINER[agent]: {SERVER_NAME: entry}}, indent=2, ensure_ascii=False)
    return Snippet(agent, where, "json", text + "\n")


def print_hooks(agent: str, *, memory_home: str | os.PathLike[str] | None = None,
                home: Path | None = None, python: str | None = None) -> Snippet:
    """The hooks snippet (issue 20) for an agent whose hooks use Claude Code's layout."""
    from . import install_hooks as ih

    agent = _check_agent(agent, writable=False)
    where = {"claude-code": "~/.claude/settings.json or <project>/.claude/settings.json",
             "codex": "~/.codex/hooks.json or <project>/.codex/hooks.json"}.get(agent)
    if where is None:
        raise InstallError(f"IHMT knows no command hooks for {agent}: there, the agent "
                           "calls search_memory itself (see README, 'the hooks')")
    if memory_home is None:
        mem_home, _ = find_memory_home(agent, "user", home=_home(home), project=Path.cwd())
    else:
        mem_home = Path(memory_home).expanduser().absolute()
    return Snippet(agent, where, "json", ih.snippet(python or _python(), str(mem_home)))


def registered(home: Path | None = None, project: Path | None = None) -> list[Registration]:
    """Every ``ihmt-memory`` entry in the configurations of the agents we know."""
    home = _home(home)
    python = _python()
    found: list[Registration] = []
    for agent in ALL_AGENTS:
        scopes = ["user"] + (["project"] if project is not None else [])
        for scope in scopes:
            for path in _config_candidates(agent, scope, home, project or Path.cwd()):
                if not path.is_file():
                    continue
                try:
                    entry = _read_entry(agent, path)
                except InstallError as exc:
                    found.append(Registration(agent, scope, str(path), problem=str(exc)))
                    continue
                if entry is not None:
                    found.append(Registration(agent, scope, str(path), _entry_home(entry, home),
                                              _argv(entry), _launches(entry, python)))
                if agent == "claude-code" and scope == "user":
                    found += _claude_local_entries(path, home, python)
    return found


def find_memory_home(agent: str, scope: str = "user", *, home: Path | None = None,
                     project: Path | None = None) -> tuple[Path, str]:
    """The memory folder to use, and why: this agent's own entry, else another agent's
    (preferring one whose store exists), else ``~/.ihmt``."""
    home = _home(home)
    regs = [r for r in registered(home, project) if r.memory_home]
    own = [r for r in regs if r.agent == agent and r.scope == scope]
    others = [r for r in regs if r not in own]
    others.sort(key=lambda r: not _store_exists(Path(r.memory_home or "")))
    if own or others:
        r = (own + others)[0]
        return Path(r.memory_home or ""), f"reused from {r.agent}: {r.config}"
    default = home / DEFAULT_MEMORY_DIR
    return default, ("existing default" if _store_exists(default) else "default")


def doctor(memory_path: str | os.PathLike[str] | None = None, *, home: Path | None = None,
           timeout: float = 30.0, check_server: bool = True) -> dict[str, Any]:
    """Check the store, that the server starts and lists its tools, and who registered it."""
    home = _home(home)
    if memory_path is None:
        memory_path = doctor_target(home)
    store = check_store(memory_path)
    report: dict[str, Any] = {"memory": str(memory_path), "store": store}
    if check_server:
        report["server"] = check_server_starts(memory_path, timeout=timeout)
    spath = resolve_store_path(memory_path)
    regs = registered(home, Path.cwd())
    report["agents"] = [
        {**asdict(r), "same_memory": bool(r.memory_home)
         and resolve_store_path(r.memory_home or "") == spath}
        for r in regs
    ]
    report["hooks"] = _doctor_hooks(memory_path, home, check_server)
    report["ok"] = (bool(store.get("ok")) and (not check_server or report["server"]["ok"])
                    and not any(a["problem"] for a in report["agents"]))
    return report


def _doctor_hooks(memory_path: str | os.PathLike[str], home: Path,
                  dry_call: bool) -> dict[str, Any]:
    """Which agents have IHMT's hooks, and one dry prompt-submit call with its latency."""
    from . import install_hooks as ih

    found = ih.installed(home, Path.cwd())
    out: dict[str, Any] = {"installed": found}
    if dry_call:
        out["call"] = ih.dry_call(memory_path)
    return out


def doctor_target(home: Path | None = None) -> Path:
    """The memory ``doctor`` checks without --path: $IHMT_HOME, as every other command and
    the server use, else the one the agents were registered with, else ~/.ihmt."""
    env = os.environ.get("IHMT_HOME")
    if env:
        return Path(env).expanduser().absolute()
    return find_memory_home("claude-code", home=_home(home))[0]


def check_server_starts(memory_path: str | os.PathLike[str], *, timeout: float = 30.0,
                        python: str | None = None) -> dict[str, Any]:
    """Spawn ``python -m ihmt.faces.mcp`` as an agent would and list its tools."""
    import tempfile

    import anyio

    out: dict[str, Any] = {"ok": False, "tools": [], "missing": [], "seconds": None,
                           "error": None}

    async def probe() -> None:
        from mcp import ClientSession, StdioServerParameters
        from mcp.client.stdio import stdio_client

        params = StdioServerParameters(command=python or _python(), args=["-m", MODULE],
                                       env={"IHMT_HOME": str(memory_path)})
        with anyio.fail_after(timeout):
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    listed = await session.list_tools()
        out["tools"] = [t.name for t in listed.tools]

    start = time.monotonic()
    # The server's stderr is kept aside: on failure its last lines say why.
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errlog:
        try:
            anyio.run(probe)
        except TimeoutError:
            out["error"] = f"the server did not answer within {timeout:.0f} s"
        except Exception as exc:  # noqa: BLE001 - any failure to start is the finding itself
            out["error"] = f"the server could not be started: {exc}"
        if out["error"]:
            errlog.seek(0)
            tail = errlog.read()[-600:].strip()
            if tail:
                out["error"] += f"; its last output: {tail}"
    out["seconds"] = round(time.monotonic() - start, 2)
    out["missing"] = [t for t in EXPECTED_TOOLS if t not in out["tools"]]
    out["ok"] = out["error"] is None and not out["missing"]
    return out


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


def instructions_block() -> str:
    """The usage instructions, between their marker lines (package data)."""
    text = (resources.files("ihmt") / "templates" / "memory-instructions.md").read_text("utf-8")
    return text if text.endswith("\n") else text + "\n"


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


def _read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise InstallError(f"{path} cannot be read ({exc}); fix it or edit it by hand") from exc


def _read_entry(agent: str, path: Path) -> dict[str, Any] | None:
    text = _read_text(path)
    if text is None or not text.strip():
        return None
    if agent == "codex":
        data = _toml_loads(text, path)
    else:
        data = _json_loads(text, path, jsonc=True)
    servers = data.get(_CONTAINER[agent])
    entry = servers.get(SERVER_NAME) if isinstance(servers, dict) else None
    return entry if isinstance(entry, dict) else None


def _claude_local_entries(path: Path, home: Path, python: str) -> list[Registration]:
    """Claude Code's local scope: entries kept per project folder inside ~/.claude.json."""
    try:
        data = _json_loads(_read_text(path) or "{}", path)
    except InstallError:
        return []
    out = []
    projects = data.get("projects")
    for folder, pdata in (projects.items() if isinstance(projects, dict) else []):
        servers = pdata.get("mcpServers") if isinstance(pdata, dict) else None
        entry = servers.get(SERVER_NAME) if isinstance(servers, dict) else None
        if isinstance(entry, dict):
            out.append(Registration("claude-code", "local", f"{path} ({folder})",
                                    _entry_home(entry, home), _argv(entry),
                                    _launches(entry, python)))
    return out


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


def _store_exists(mem_home: Path) -> bool:
    try:
        spath = resolve_store_path(mem_home)
        return (spath / "root.json").exists() or (spath / "layer_0").exists()
    except OSError:
        return False


# ---------------------------------------------------------------------- planning
@dataclass
class _Edit:
    """A file's current text and the text it should have (None: absent / to delete)."""

    path: Path
    old: str | None
    new: str | None

    def change(self, what: str) -> Change:
        if self.old == self.new:
            return Change(what, "unchanged", str(self.path))
        action = "create" if self.old is None else "delete" if self.new is None else "update"
        diff = "".join(difflib.unified_diff(
            (self.old or "").splitlines(keepends=True), (self.new or "").splitlines(keepends=True),
            fromfile=str(self.path) if self.old is not None else "/dev/null",
            tofile=str(self.path) if self.new is not None else "/dev/null"))
        return Change(what, action, str(self.path), diff=diff)


def _plan_memory(mem_home: Path) -> Change:
    spath = resolve_store_path(mem_home)
    if _store_exists(mem_home):
        note = ""
        try:
            n = int(json.loads((spath / 'root.json').read_text('utf-8'))['n_leaves'])
            note = count(n, "memory", "memories")
        except (OSError, ValueError, KeyError, TypeError):
            pass
        return Change("memory folder", "unchanged", str(spath), note=note or "existing")
    if mem_home.exists() and not mem_home.is_dir():
        raise InstallError(f"{mem_home} exists and is not a folder: choose another with --home")
    return Change("memory folder", "create", str(spath))


def _plan_entry(agent: str, path: Path, entry: dict[str, Any],
                existing: dict[str, Any] | None) -> _Edit:
    old = _read_text(path)
    if existing is not None and _same_entry(agent, existing, entry):
        return _Edit(path, old, old)
    if agent == "codex":
        return _Edit(path, old, _toml_with_entry(old, entry, path))
    snippet = json.dumps({SERVER_NAME: entry}, indent=2, ensure_ascii=False)
    by_hand = f"Add this inside its {_CONTAINER[agent]!r} object by hand:\n{snippet[2:-2]}\n"
    data = _json_loads(old, path, by_hand=by_hand) if old and old.strip() else {}
    servers = data.get(_CONTAINER[agent])
    if servers is None:
        servers = data[_CONTAINER[agent]] = {}
    if not isinstance(servers, dict):
        raise InstallError(f"{path}: {_CONTAINER[agent]!r} is not an object; fix it by hand")
    servers[SERVER_NAME] = entry
    return _Edit(path, old, dump_json(data, old))


def _without_entry(agent: str, path: Path, old: str | None) -> str | None:
    if old is None:
        return None
    if agent == "codex":
        new = _toml_without_entry(old, path)
        return new if new.strip() else None
    container = _CONTAINER[agent]
    data = _json_loads(old, path, by_hand=f"Remove the {SERVER_NAME!r} entry from its "
                                          f"{container!r} object by hand.")
    servers = data.get(container)
    if isinstance(servers, dict):
        servers.pop(SERVER_NAME, None)
        if not servers:
            del data[container]
    return dump_json(data, old) if data else None


def _plan_hooks(agent: str, scope: str, home: Path, project: Path, python: str,
                memory_home: str, *, install: bool) -> list[tuple[Change, _Edit | None]]:
    """The hooks file edit (issue 20): add IHMT's hooks, or with ``install=False`` remove
    them. Agents without command hooks (opencode) get no edit."""
    from . import install_hooks as ih

    if agent not in ih.HOOK_AGENTS:
        return []
    path = ih.hooks_path(agent, scope, home, project)
    old = _read_text(path)
    if not install and old is None:
        return []
    new = (ih.with_hooks(old, path, python, memory_home) if install
           else ih.without_hooks(old, path))
    edit = _Edit(path, old, new)
    return [(edit.change("hooks"), edit)]


def _claude_cli_install(scope: str, cfg_path: Path, entry: dict[str, Any],
                        existing: dict[str, Any] | None) -> list[Change]:
    if existing is not None and _same_entry("claude-code", existing, entry):
        return [Change("mcp entry", "unchanged", str(cfg_path))]
    cmds = []
    if existing is not None:
        cmds.append(["claude", "mcp", "remove", SERVER_NAME, "--scope", scope])
    cmds.append(["claude", "mcp", "add", SERVER_NAME, "--scope", scope,
                 "-e", f"IHMT_HOME={entry['env']['IHMT_HOME']}", "--",
                 entry["command"], *entry["args"]])
    return [Change("mcp entry", "run", str(cfg_path), command=c) for c in cmds]


def _use_claude_cli(use_cli: bool | None, home: Path) -> bool:
    if use_cli is not None:
        return use_cli
    if os.environ.get("IHMT_INSTALL_NO_CLI") or shutil.which("claude") is None:
        return False
    # The CLI writes the real home's config: only use it when that is the target.
    return home.resolve() == Path.home().resolve()


# ---------------------------------------------------------------------- applying
def _apply(edits: list[tuple[Change, _Edit | None]], mem_home: Path | None,
           cwd: Path | None) -> None:
    for change, edit in edits:
        if change.action == "unchanged":
            continue
        if change.what == "memory folder" and mem_home is not None:
            Memory.open(mem_home, create=True).close()
        elif change.command:
            if change.path and not change.backup:
                change.backup = _backup(Path(change.path))
            _run(change.command, cwd)
        elif edit is not None:
            # A file emptied by removing our content loses nothing of the user's: no backup.
            if edit.new is not None:
                change.backup = _backup(edit.path)
            if edit.new is None:
                edit.path.unlink(missing_ok=True)
            else:
                _atomic_write(edit.path, edit.new)


def _backup(path: Path) -> str | None:
    """Copy ``path`` to ``<path>.bak-ihmt`` unless that first backup already exists."""
    if not path.is_file():
        return None
    backup = path.with_name(path.name + BACKUP_SUFFIX)
    if not backup.exists():
        shutil.copy2(path, backup)
    return str(backup)


def _atomic_write(path: Path, text: str) -> None:
    """Write via a temporary file and rename, keeping the file's mode; a symlinked config
    (dotfile managers) is written through to its target instead of being replaced."""
    target = path.resolve() if path.is_symlink() else path
    target.parent.mkdir(parents=True, exist_ok=True)
    mode = target.stat().st_mode & 0o777 if target.exists() else None
    try:
        # A new config gets open()'s usual 0o666 less the umask; an existing one is never
        # looser than before, even for the moment between the rename and the chmod.
        atomic_write(target, text, durable=True, sync_dir=False,
                     mode=0o666 if mode is None else mode)
        if mode is not None:
            os.chmod(target, mode)
    except OSError as exc:
        raise InstallError(f"cannot write {target}: {exc.strerror or exc}") from exc


def _run(cmd: list[str], cwd: Path | None) -> None:
    try:
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise InstallError(f"`{shlex.join(cmd)}` could not run ({exc}); run it by hand, or "
                           "set IHMT_INSTALL_NO_CLI=1 to edit the config file instead") from exc
    if proc.returncode != 0:
        msg = (proc.stderr or proc.stdout).strip()
        raise InstallError(f"`{shlex.join(cmd)}` failed: {msg}; set IHMT_INSTALL_NO_CLI=1 to "
                           "edit the config file instead")


def _restart_hint(agent: str, scope: str) -> str:
    name = {"claude-code": "Claude Code", "codex": "Codex", "opencode": "opencode"}[agent]
    hint = f"start a new {name} session to load the memory tools"
    if agent == "claude-code" and scope == "project":
        hint += " (Claude Code asks once to approve the project's server)"
    if agent == "codex" and scope == "project":
        hint += " (Codex reads .codex/config.toml only in trusted projects)"
    return hint


# ---------------------------------------------------------------------- instruction blocks
def _block_span(lines: list[str], where: str) -> tuple[int, int] | None:
    begin = next((i for i, ln in enumerate(lines) if ln.lstrip().startswith(MARK_BEGIN)), None)
    if begin is None:
        return None
    end = next((i for i in range(begin, len(lines)) if lines[i].strip() == MARK_END), None)
    if end is None:
        raise InstallError(f"{where}: the IHMT instructions block has a begin marker but no "
                           f"'{MARK_END}' line; fix it by hand")
    return begin, end


def _with_block(text: str | None, block: str) -> str:
    if text is None or not text.strip():
        return block
    lines = text.splitlines(keepends=True)
    span = _block_span(lines, "instructions")
    if span is not None:  # already there: refresh it in place (a newer template)
        b, e = span
        return "".join(lines[:b]) + block + "".join(lines[e + 1:])
    return text.rstrip("\n") + "\n\n" + block


def _without_block(text: str | None) -> str | None:
    if text is None:
        return None
    lines = text.splitlines(keepends=True)
    span = _block_span(lines, "instructions")
    if span is None:
        return text
    b, e = span
    before, after = lines[:b], lines[e + 1:]
    if before and not before[-1].strip() and (not after or not after[0].strip()):
        before = before[:-1]  # the blank line install put in front of the block
    new = "".join(before + after)
    return new if new.strip() else None


# ---------------------------------------------------------------------- JSON
def _json_loads(text: str, path: Path, *, jsonc: bool = False,
                by_hand: str | None = None) -> dict[str, Any]:
    """The JSON object in ``text``. ``jsonc``: comments and trailing commas (which opencode
    accepts) are read too. Otherwise such a file is refused with ``by_hand``, the exact edit
    to make, since rewriting it would lose the user's comments."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        try:
            data = json.loads(_jsonc_to_json(text))
        except ValueError:
            raise InstallError(f"{path} is not plain JSON ({exc}); fix it, or add the entry "
                               "by hand ('ihmt print-config')") from exc
        if not jsonc:
            raise InstallError(
                f"{path} has comments or trailing commas (JSONC); IHMT does not rewrite it, so "
                f"they are kept. {by_hand or 'Edit it by hand.'}\nThen run 'ihmt doctor'."
            ) from exc
    if not isinstance(data, dict):
        raise InstallError(f"{path} does not hold a JSON object; fix it by hand")
    return data


def _jsonc_to_json(text: str) -> str:
    """JSONC as plain JSON: ``//`` and ``/* */`` comments and trailing commas removed
    (outside strings)."""
    out: list[str] = []
    pending_comma = False  # a comma kept back until the next token shows it is not trailing
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
            continue
        if c.isspace():
            out.append(c)
            i += 1
            continue
        if pending_comma and c not in "}]":
            out.append(",")
        pending_comma = False
        if c == ",":
            pending_comma = True
            i += 1
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out) + ("," if pending_comma else "")


# ---------------------------------------------------------------------- TOML
_HEADER = re.compile(r"^\s*\[(\[?)(?P<key>[^\[\]]*?)\]\]?\s*(?:#.*)?$")
_BARE = re.compile(r"[A-Za-z0-9_-]+")


def _toml_loads(text: str, path: Path) -> dict[str, Any]:
    if _toml is None:
        raise InstallError("reading TOML needs Python 3.11+ or the 'tomli' package "
                           "(pip install tomli)")
    try:
        return _toml.loads(text)
    except ValueError as exc:
        raise InstallError(f"{path} is not valid TOML ({exc}); fix it first") from exc


def _toml_str(value: str) -> str:
    out = ['"']
    for ch in value:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch in "\b\t\n\f\r":
            out.append({"\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return "".join(out) + '"'


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return _toml_str(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"no TOML form for {type(value).__name__}")


def _toml_block(entry: dict[str, Any]) -> str:
    """``[mcp_servers.ihmt-memory]`` with its scalars, then one sub-table per dict (env)."""
    head = f"[mcp_servers.{SERVER_NAME}]\n"
    lines = [head] + [f"{k} = {_toml_value(v)}\n" for k, v in entry.items()
                      if not isinstance(v, dict)]
    for k, sub in entry.items():
        if isinstance(sub, dict):
            lines.append(f"\n[mcp_servers.{SERVER_NAME}.{k}]\n")
            lines += [f"{_toml_key(sk)} = {_toml_value(sv)}\n" for sk, sv in sub.items()]
    return "".join(lines)


def _toml_key(key: str) -> str:
    return key if _BARE.fullmatch(key) else _toml_str(key)


def _toml_key_parts(raw: str) -> list[str] | None:
    """``a."b c".'d'`` -> ["a", "b c", "d"]; None when it is not a plain dotted key."""
    parts: list[str] = []
    i, n = 0, len(raw)
    while True:
        while i < n and raw[i] in " \t":
            i += 1
        if i >= n:
            return None
        if raw[i] == '"':
            j = i + 1
            while j < n and raw[j] != '"':
                j += 2 if raw[j] == "\\" else 1
            if j >= n:
                return None
            try:
                parts.append(json.loads(raw[i:j + 1]))
            except ValueError:
                parts.append(raw[i + 1:j])
            i = j + 1
        elif raw[i] == "'":
            j = raw.find("'", i + 1)
            if j < 0:
                return None
            parts.append(raw[i + 1:j])
            i = j + 1
        else:
            m = _BARE.match(raw, i)
            if not m:
                return None
            parts.append(m.group(0))
            i = m.end()
        while i < n and raw[i] in " \t":
            i += 1
        if i >= n:
            return parts
        if raw[i] != ".":
            return None
        i += 1


def _toml_headers(lines: list[str]) -> list[tuple[int, list[str] | None]]:
    """(line index, key parts) of every table header outside multi-line strings."""
    heads: list[tuple[int, list[str] | None]] = []
    in_string: str | None = None
    for idx, line in enumerate(lines):
        if in_string:
            if line.count(in_string) % 2 == 1:
                in_string = None
            continue
        m = _HEADER.match(line)
        if m:
            heads.append((idx, _toml_key_parts(m.group("key"))))
            continue
        for delim in ('"""', "'''"):
            if line.count(delim) % 2 == 1:
                in_string = delim
                break
    return heads


def _toml_cut(text: str) -> tuple[list[str], int | None]:
    """The lines without our tables (``mcp_servers.ihmt-memory`` and its sub-tables), and
    the index where the first of them stood. Comments and blank lines that precede the next
    table stay with it; a blank line left doubled by the cut is dropped."""
    lines = text.splitlines(keepends=True)
    heads = _toml_headers(lines)
    ranges: list[tuple[int, int]] = []
    for j, (idx, key) in enumerate(heads):
        if not key or key[:2] != ["mcp_servers", SERVER_NAME]:
            continue
        end = heads[j + 1][0] if j + 1 < len(heads) else len(lines)
        while end > idx + 1 and (not lines[end - 1].strip()
                                 or lines[end - 1].lstrip().startswith("#")):
            end -= 1
        ranges.append((idx, end))
    kept: list[str] = []
    first: int | None = None
    pos = 0
    for start, end in ranges:
        kept.extend(lines[pos:start])
        pos = end
        next_blank = end >= len(lines) or not lines[end].strip()
        if kept and not kept[-1].strip() and next_blank:
            kept.pop()
        if first is None:
            first = len(kept)
    kept.extend(lines[pos:])
    return kept, first


def _toml_verify(old: str | None, new: str, path: Path, entry: dict[str, Any] | None) -> None:
    """Parse the edit and check it changed our entry and nothing else."""
    before = _toml_loads(old, path) if old and old.strip() else {}
    assert _toml is not None  # checked by _toml_loads above or by the caller
    try:
        after = _toml.loads(new)
    except ValueError as exc:
        raise InstallError(f"could not edit {path} safely (the result would not parse: {exc}); "
                           "add the entry by hand ('ihmt print-config codex')") from exc

    def others(data: dict[str, Any]) -> dict[str, Any]:
        data = json.loads(json.dumps(data, default=str))  # a deep copy
        servers = data.get("mcp_servers")
        if isinstance(servers, dict):
            servers.pop(SERVER_NAME, None)
            if not servers:
                data.pop("mcp_servers")
        return data

    ours = (after.get("mcp_servers") or {}).get(SERVER_NAME)
    if others(before) != others(after) or ours != entry:
        raise InstallError(_INLINE.format(path=path))


_INLINE = ("{path}: the ihmt-memory entry is not written as a [mcp_servers.ihmt-memory] table "
           "(inline or dotted keys?), so it cannot be edited safely; remove it by hand and run "
           "again")


def _toml_with_entry(old: str | None, entry: dict[str, Any], path: Path) -> str:
    if old:
        _toml_loads(old, path)  # refuse to edit a file that is already broken
    block = _toml_block(entry)
    lines, at = _toml_cut(old or "")
    if at is None and old and SERVER_NAME in (_toml_loads(old, path).get("mcp_servers") or {}):
        raise InstallError(_INLINE.format(path=path))
    if at is None:
        body = "".join(lines)
        new = (body.rstrip("\n") + "\n\n" + block) if body.strip() else block
    else:
        head, tail = lines[:at], lines[at:]
        before = "\n" if head and head[-1].strip() else ""
        after = "\n" if tail and tail[0].strip() else ""
        new = "".join(head) + before + block + after + "".join(tail)
    _toml_verify(old, new, path, entry)
    return new


def _toml_without_entry(old: str, path: Path) -> str:
    lines, _ = _toml_cut(old)
    new = "".join(lines)
    if new.strip() and not new.endswith("\n"):
        new += "\n"
    if old.strip():
        _toml_verify(old, new, path, None)
    return new


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


# ---------------------------------------------------------------------- command line
def _parser(prog: str, *, agent_help: str, install: bool) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=prog)
    p.add_argument("agent", help=agent_help)
    p.add_argument("--scope", choices=SCOPES, default="user")
    if install:
        p.add_argument("--home", help="memory folder (default: the one already registered, "
                                      "else ~/.ihmt)")
        p.add_argument("--no-hooks", action="store_true", help="do not register the "
                       "session-start and prompt-submit hooks (removes earlier ones)")
    p.add_argument("--project", help="project folder for --scope project (default: here)")
    p.add_argument("--dry-run", action="store_true", help="show what would change, write nothing")
    p.add_argument("--no-cli", action="store_true", help="edit config files even if the "
                                                         "agent's CLI is available")
    p.add_argument("--diff", action="store_true", help="print the diff of each file")
    p.add_argument("--json", action="store_true")
    return p


def _print_result(result: InstallResult, args: argparse.Namespace) -> None:
    if args.json:
        print(json.dumps(result.to_dict(), indent=2, ensure_ascii=False))
        return
    print("\n".join(result.lines()))
    if args.diff or args.dry_run:
        for c in result.changes:
            if c.diff:
                print(c.diff.rstrip("\n"))


def _run_and_print(action: Callable[..., InstallResult], args: argparse.Namespace,
                   **options: Any) -> int:
    """Run ``install`` or ``uninstall`` with the options both take from ``args``, plus
    ``options``; print the result (or the error on stderr) and return the exit code."""
    try:
        result = action(args.agent, args.scope, **options,
                        project=Path(args.project) if args.project else None,
                        dry_run=args.dry_run, use_cli=False if args.no_cli else None)
    except IHMTError as exc:
        print(f"ihmt: {exc}", file=sys.stderr)  # the style and status of every command
        return 2
    _print_result(result, args)
    return 0


def main_install(argv: list[str] | None = None) -> int:
    """``ihmt install AGENT [--scope user|project] [--home DIR] [--dry-run] ...``"""
    args = _parser("ihmt install", agent_help=", ".join(WRITABLE_AGENTS),
                   install=True).parse_args(argv)
    return _run_and_print(install, args, memory_home=args.home, hooks=not args.no_hooks)


def main_uninstall(argv: list[str] | None = None) -> int:
    """``ihmt uninstall AGENT [--scope user|project] [--dry-run]`` (the memory is kept)."""
    args = _parser("ihmt uninstall", agent_help=", ".join(WRITABLE_AGENTS),
                   install=False).parse_args(argv)
    return _run_and_print(uninstall, args)


def main_print_config(argv: list[str] | None = None) -> int:
    """``ihmt print-config AGENT [--home DIR]``: the snippet to paste, on stdout."""
    p = argparse.ArgumentParser(prog="ihmt print-config")
    p.add_argument("agent", help=", ".join(ALL_AGENTS))
    p.add_argument("--home", help="memory folder (default: the one already registered)")
    p.add_argument("--hooks", action="store_true", help="print the session-start and "
                   "prompt-submit hooks instead of the server entry")
    args = p.parse_args(argv)
    try:
        snippet = (print_hooks(args.agent, memory_home=args.home) if args.hooks
                   else print_config(args.agent, memory_home=args.home))
    except IHMTError as exc:
        print(f"ihmt: {exc}", file=sys.stderr)  # the style and status of every command
        return 2
    print(f"# {snippet.agent}: add to {snippet.where}", file=sys.stderr)
    print(snippet.text, end="")
    return 0


def main_doctor(argv: list[str] | None = None) -> int:
    """``ihmt doctor [--path MEMORY] [--json]``: exit status 0 when everything is fine."""
    p = argparse.ArgumentParser(prog="ihmt doctor")
    p.add_argument("--path", help="memory folder (default: $IHMT_HOME, else the registered "
                                  "one, else ~/.ihmt)")
    p.add_argument("--no-server", action="store_true", help="skip starting the server")
    p.add_argument("--repair", action="store_true",
                   help="rebuild derived files from the leaves and fix permissions first")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    repaired = None
    if args.repair:
        from ..doctor import repair_store

        target = args.path or doctor_target()
        repaired = repair_store(target)
        if not args.json:
            r = repaired["rebuilt"]
            print(f"repaired: rebuilt {r['leaves']} leaves into {r['branches']} branches, "
                  f"{len(r['quarantined'])} quarantined, {r['facts']} facts, "
                  f"{count(repaired['permissions_fixed'], 'permission', 'permissions')} fixed")
            if repaired.get("embeddings"):
                emb = repaired["embeddings"]
                print(f"repaired: {count(emb['computed'], 'semantic vector', 'semantic vectors')} "
                      "recomputed"
                      + (f", routing rebuilt for {count(len(emb['routed']), 'domain', 'domains')}"
                         if emb.get("routed") else ""))
    report = doctor(args.path, check_server=not args.no_server)
    if repaired is not None:
        report["repaired"] = repaired
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        print("\n".join(doctor_lines(report)))
    return 0 if report["ok"] else 1


def _hook_lines(hooks: dict[str, Any]) -> list[str]:
    out = []
    for h in hooks.get("installed", []):
        state = h["problem"] or ", ".join(h["events"])
        out.append(f"hooks   {h['agent']} ({h['scope']}): {state} [{h['config']}]")
    if not hooks.get("installed"):
        out.append("hooks   none installed ('ihmt install claude-code' adds them)")
    call = hooks.get("call")
    if call:
        if call["error"]:
            out.append(f"hooks   dry call FAILED: {call['error']}")
        else:
            r = call["result"] or {}
            said = "would inject" if r.get("injected") else f"silent ({r.get('reason')})"
            out.append(f"hooks   dry call answers in {call['seconds']} s: {said}")
    return out


def doctor_lines(report: dict[str, Any]) -> list[str]:
    """A short human reading of :func:`doctor`'s report."""
    store = report["store"]
    stats = store.get("stats", {})
    out = [f"memory  {store['path']}: " + ("ok" if store.get("ok") else "PROBLEMS")
           + (f" ({count(stats.get('leaves', 0), 'memory', 'memories')}, "
              f"{count(stats.get('branches', 0), 'branch', 'branches')}, "
              f"depth {stats.get('depth', 0)})" if "leaves" in stats else "")]
    out += [f"  - {p}" for p in store.get("problems", [])]
    if store.get("interrupted_write"):
        out.append("  - a write is under way or was interrupted; the next save completes it")
    if store.get("sync"):
        from ..sync.report import status_lines

        out.extend(ln for i, ln in enumerate(status_lines(store["sync"]))
                   if i < 2 or ln.startswith("  - "))
    sem = store.get("semantic")
    if sem:
        extra = (f" ({sem.get('vectors', 0)} vectors)" if sem.get("on") else "")
        out.append(f"search  {sem['message']}{extra}")
        out += [f"  - {n}" for n in sem.get("notes", [])]
    server = report.get("server")
    if server:
        if server["error"]:
            out.append(f"server  FAILED: {server['error']}")
        else:
            out.append(f"server  starts in {server['seconds']} s, {len(server['tools'])} tools"
                       + (f"; missing: {', '.join(server['missing'])}" if server["missing"]
                          else ""))
    out += _hook_lines(report.get("hooks") or {})
    agents = report.get("agents", [])
    if not agents:
        out.append("agents  none has ihmt-memory registered: run 'ihmt install <agent>'")
    for a in agents:
        state = f"PROBLEM: {a['problem']}" if a["problem"] else ("same memory" if a["same_memory"] else
                                 f"other memory {a['memory_home']}")
        other = "" if a["this_install"] or a["problem"] else "; launches another installation"
        out.append(f"agent   {a['agent']} ({a['scope']}): {state}{other} [{a['config']}]")
    return out
