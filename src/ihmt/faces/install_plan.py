"""Installing and uninstalling: plan every change, then apply it (see
:mod:`ihmt.faces.install` for the rules the plans keep)."""

from __future__ import annotations

import difflib
import json
import os
import shlex
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..memory import Memory
from ..store.store import resolve_store_path
from ..text import count
from .install_agents import (
    _CONTAINER,
    ALL_AGENTS,
    DEFAULT_MEMORY_DIR,
    SERVER_NAME,
    WRITABLE_AGENTS,
    InstallError,
    _argv,
    _check_agent,
    _check_scope,
    _config_candidates,
    _entry_home,
    _home,
    _launches,
    _project,
    _python,
    _restart_hint,
    _same_entry,
    config_path,
    ihmt_on_path,
    instructions_path,
    is_portable,
    server_entry,
)
from .install_apply import _atomic_write, _backup, _run
from .install_blocks import _with_block, _without_block, instructions_block
from .install_formats import (
    _json_loads,
    _read_entry,
    _read_text,
    _toml_block,
    _toml_with_entry,
    _toml_without_entry,
    json_with_entry,
)


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
    problem: str | None = None  # the config file could not be read, or cannot start
    portable: bool = False  # launches ``ihmt mcp`` through PATH (``--portable``)


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
            hooks: bool = True, portable: bool = False) -> InstallResult:
    """Register the server with ``agent`` and add the usage instructions.

    ``hooks`` (Claude Code, Codex): also register the session-start and prompt-submit
    hooks (:mod:`ihmt.faces.install_hooks`); ``False`` removes hooks an earlier install
    registered.

    ``memory_home`` is the folder holding ``ihmt_memory/`` (``--home``); without it the
    folder already registered with any agent is reused, else ``~/.ihmt``. ``use_cli``
    (Claude Code only): run ``claude mcp add`` instead of editing ``~/.claude.json``;
    ``None`` decides by whether ``claude`` is on PATH (``IHMT_INSTALL_NO_CLI=1`` forces
    file editing).

    ``portable``: the files name no path of this machine: the server and the hooks are
    ``ihmt`` found through PATH, and the memory folder is the agent's ``$IHMT_HOME`` (else
    ``~/.ihmt``) unless ``memory_home`` is given. For project files that are committed.
    """
    agent, scope = _check_agent(agent, writable=True), _check_scope(scope)
    home, project = _home(home), _project(project)
    python = python or _python()
    other: str | None = None  # portable: another agent's memory, to mention
    if memory_home is not None:
        mem_home, source = Path(memory_home).expanduser().absolute(), "given with --home"
    elif portable:
        mem_home, source, other = _portable_home(agent, scope, home, project)
    else:
        mem_home, source = find_memory_home(agent, scope, home=home, project=project)
    result = InstallResult(agent, scope, "install", dry_run, str(mem_home), source)
    if other:
        result.notes.append(other)
    written_home = str(mem_home) if memory_home is not None or not portable else None

    memory_change = _plan_memory(mem_home)
    entry = server_entry(agent, python, written_home, portable=portable)
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
    edits += _plan_hooks(agent, scope, home, project, None if portable else python,
                         written_home, install=hooks)
    result.changes = [c for c, _ in edits]
    result.notes += _path_notes(agent, scope, result.changes, python, written_home, portable)

    if not dry_run:
        _apply(edits, mem_home, project if scope == "project" else None)
    if result.changed and not dry_run:
        result.notes.append(_restart_hint(agent, scope))
    return result


def _portable_home(agent: str, scope: str, home: Path,
                   project: Path) -> tuple[Path, str, str | None]:
    """The memory a portable entry opens here (the agent passes on ``$IHMT_HOME``, else the
    server uses ~/.ihmt), and a note when another agent was registered with another one."""
    env = os.environ.get("IHMT_HOME")
    mem_home = Path(env or home / DEFAULT_MEMORY_DIR).expanduser().absolute()
    source = "portable: $IHMT_HOME" if env else "portable: $IHMT_HOME is unset, so ~/.ihmt"
    try:
        other, why = find_memory_home(agent, scope, home=home, project=project)
    except InstallError:
        return mem_home, source, None
    if not why.startswith("reused from ") or resolve_store_path(other) == \
            resolve_store_path(mem_home):
        return mem_home, source, None
    who = why[len("reused from "):].split(":")[0]
    return mem_home, source, (f"{who} uses another memory, {other}: set IHMT_HOME to it where "
                              f"the agent starts, or pass --home {other} (written as is)")


def _path_notes(agent: str, scope: str, changes: list[Change], python: str,
                written_home: str | None, portable: bool) -> list[str]:
    """What the user must know about paths: a project file that is often committed gets
    this machine's absolute paths (and how to avoid it), or the portable form needs an
    ``ihmt`` on PATH."""
    notes = []
    if scope == "project":
        files = [str(Path(c.path)) for c in changes if c.what in ("mcp entry", "hooks")
                 and c.path and c.action in ("create", "update", "run")]
        if files and not portable:
            notes.append(f"{' and '.join(files)} now hold{'s' if len(files) == 1 else ''} "
                         f"absolute paths of this machine ({python}, {written_home}); such "
                         "files are often committed, and would not work elsewhere: "
                         f"'ihmt install {agent} --scope project --portable' writes them "
                         "without (the server found through PATH)")
        elif files and written_home is not None:
            notes.append(f"the memory folder given with --home is written as is: "
                         f"{written_home} (leave --home out to use each machine's "
                         "$IHMT_HOME, else ~/.ihmt)")
    if portable:
        found, ours = ihmt_on_path(python)
        bindir = Path(python).parent
        if found is None:
            notes.append(f"'ihmt' is not on PATH here, so the agent will not find the server: "
                         f"add {bindir} to PATH (or install IHMT with pipx)")
        elif not ours:
            notes.append(f"'ihmt' on PATH is {found}, not this installation's ({bindir}): "
                         "the agent will start that one")
    return notes


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
                 home: Path | None = None, python: str | None = None,
                 portable: bool = False) -> Snippet:
    """The configuration snippet for ``agent``, with the top-level key it expects
    (``portable``: ``ihmt mcp`` through PATH, no memory path unless ``memory_home``)."""
    agent = _check_agent(agent, writable=False)
    home = _home(home)
    if memory_home is not None:
        mem_home: str | None = str(Path(memory_home).expanduser().absolute())
    elif portable:
        mem_home = None
    else:
        mem_home = str(find_memory_home(agent, "user", home=home, project=Path.cwd())[0])
    entry = server_entry(agent, python or _python(), mem_home, portable=portable)
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
                home: Path | None = None, python: str | None = None,
                portable: bool = False) -> Snippet:
    """The hooks snippet (issue 20) for an agent whose hooks use Claude Code's layout."""
    from . import install_hooks as ih

    agent = _check_agent(agent, writable=False)
    where = {"claude-code": "~/.claude/settings.json or <project>/.claude/settings.json",
             "codex": "~/.codex/hooks.json or <project>/.codex/hooks.json"}.get(agent)
    if where is None:
        raise InstallError(f"IHMT knows no command hooks for {agent}: there, the agent "
                           "calls search_memory itself (see README, 'the hooks')")
    if memory_home is not None:
        mem_home: str | None = str(Path(memory_home).expanduser().absolute())
    elif portable:
        mem_home = None
    else:
        mem_home = str(find_memory_home(agent, "user", home=_home(home), project=Path.cwd())[0])
    return Snippet(agent, where, "json",
                   ih.snippet(None if portable else python or _python(), mem_home))


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
                    found.append(_registration(agent, scope, str(path), entry, home, python))
                if agent == "claude-code" and scope == "user":
                    found += _claude_local_entries(path, home, python)
    return found


def _registration(agent: str, scope: str, config: str, entry: dict[str, Any], home: Path,
                  python: str) -> Registration:
    portable = is_portable(entry)
    reg = Registration(agent, scope, config, _entry_home(entry, home), _argv(entry),
                       _launches(entry, python), portable=portable)
    if portable and ihmt_on_path(python)[0] is None:
        reg.problem = (f"it starts 'ihmt' through PATH, and there is none here: add "
                       f"{Path(python).parent} to PATH, or install without --portable")
    return reg


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
    return _Edit(path, old, json_with_entry(agent, path, old, entry))


def _without_entry(agent: str, path: Path, old: str | None) -> str | None:
    if old is None:
        return None
    if agent == "codex":
        new = _toml_without_entry(old, path)
        return new if new.strip() else None
    return json_with_entry(agent, path, old, None)


def _plan_hooks(agent: str, scope: str, home: Path, project: Path, python: str | None,
                memory_home: str | None, *, install: bool) -> list[tuple[Change, _Edit | None]]:
    """The hooks file edit (issue 20): add IHMT's hooks, or with ``install=False`` remove
    them. Agents without command hooks (opencode) get no edit. ``python`` None: the
    portable command (``ihmt`` through PATH); ``memory_home`` None: no ``--path``."""
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
