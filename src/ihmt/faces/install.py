"""Registering the IHMT MCP server with coding agents, and checking an installation.

``ihmt install claude-code|codex|opencode`` writes the agent's own configuration so that
it launches ``<this python> -m ihmt.faces.mcp`` with ``IHMT_HOME`` pointing at the memory
folder, and appends the usage instructions to the agent's instructions file. For Claude
Code and Codex it also registers the session-start and prompt-submit hooks
(:mod:`ihmt.faces.install_hooks`; ``--no-hooks`` to skip). ``--portable`` writes instead a
form that names no path of this machine, for project files that are committed: ``ihmt
mcp`` found through PATH, the memory folder in the agent's own variable syntax
(:data:`ihmt.faces.install_agents.PORTABLE_HOME`). For agents
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

This module is the command line (``ihmt install|uninstall|print-config|doctor``) and the
installer's public names; the work is in modules that import one way, each from those
below it: :mod:`.install_doctor` (the checks) -> :mod:`.install_plan` (install, uninstall:
plan and apply) -> :mod:`.install_formats` (JSON, JSONC, TOML), :mod:`.install_blocks` (the
instructions block), :mod:`.install_hooks` (the hooks) -> :mod:`.install_agents` (what IHMT
knows of each agent).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import IHMTError
from ..text import count
from .install_agents import (
    ALIASES,
    ALL_AGENTS,
    BACKUP_SUFFIX,
    DEFAULT_MEMORY_DIR,
    MODULE,
    SCOPES,
    SERVER_NAME,
    SNIPPET_AGENTS,
    WRITABLE_AGENTS,
    InstallError,
    config_path,
    instructions_path,
    server_entry,
)
from .install_blocks import MARK_BEGIN, MARK_END, instructions_block
from .install_doctor import (
    EXPECTED_TOOLS,
    check_server_starts,
    doctor,
    doctor_lines,
    doctor_target,
)
from .install_plan import (
    Change,
    InstallResult,
    Registration,
    Snippet,
    find_memory_home,
    install,
    print_config,
    print_hooks,
    registered,
    uninstall,
)

__all__ = [
    "ALIASES", "ALL_AGENTS", "BACKUP_SUFFIX", "DEFAULT_MEMORY_DIR", "EXPECTED_TOOLS", "MARK_BEGIN",
    "MARK_END", "MODULE", "SCOPES", "SERVER_NAME", "SNIPPET_AGENTS", "WRITABLE_AGENTS", "Change",
    "InstallError", "InstallResult", "Registration", "Snippet", "check_server_starts",
    "config_path", "doctor", "doctor_lines", "doctor_target", "find_memory_home", "install",
    "instructions_block", "instructions_path", "main_doctor", "main_install", "main_print_config",
    "main_uninstall", "print_config", "print_hooks", "registered", "server_entry", "uninstall",
]


# ---------------------------------------------------------------------- command line
def _parser(prog: str, *, agent_help: str, install: bool) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=prog)
    p.add_argument("agent", help=agent_help)
    p.add_argument("--scope", choices=SCOPES, default="user",
                   help="user: your own config files (default); project: the project's "
                        "files (.mcp.json, opencode.json, .codex/config.toml), often "
                        "committed: see --portable")
    if install:
        p.add_argument("--home", help="memory folder (default: the one already registered, "
                                      "else ~/.ihmt)")
        p.add_argument("--no-hooks", action="store_true", help="do not register the "
                       "session-start and prompt-submit hooks (removes earlier ones)")
        p.add_argument("--portable", action="store_true", help="write no path of this "
                       "machine, for project files that are committed: the server is 'ihmt' "
                       "found through PATH, the memory each machine's $IHMT_HOME, else "
                       "~/.ihmt (unless --home)")
    p.add_argument("--project", help="project folder for --scope project (default: here)")
    p.add_argument("--dry-run", action="store_true", help="show what would change, write nothing")
    p.add_argument("--no-cli", action="store_true", help="edit config files even if the "
                                                         "agent's CLI is available")
    p.add_argument("--diff", action="store_true", help="print the diff of each file")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
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
    return _run_and_print(install, args, memory_home=args.home, hooks=not args.no_hooks,
                          portable=args.portable)


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
    p.add_argument("--portable", action="store_true", help="no path of this machine: 'ihmt' "
                   "found through PATH, and no memory folder unless --home")
    args = p.parse_args(argv)
    try:
        show = print_hooks if args.hooks else print_config
        snippet = show(args.agent, memory_home=args.home, portable=args.portable)
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
    p.add_argument("--json", action="store_true", help="print the report as JSON")
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


