"""The ``ihmt`` command: each subcommand is one call into :class:`ihmt.Memory`.

``--path`` (the store) and ``--json`` (machine-readable output) work before or after the
subcommand. Without ``--path`` the store is ``$IHMT_HOME/ihmt_memory`` (``~/.ihmt``).

This module is the entry point and stays light: it reads the global options and hands the
commands whose faces parse their own arguments (``hook``, ``install``, ``mcp``, ...) to
them before anything heavy is imported; an agent hook is a fresh process on every prompt,
so what it imports is paid each time. The other commands live in
:mod:`ihmt.faces.cli_commands`.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from ..errors import IHMTError, from_os_error


def split_globals(argv: Sequence[str]) -> tuple[list[str], str | None, bool, str | None]:
    """Pull --path/--json/--project out of argv wherever they stand."""
    rest: list[str] = []
    valued: dict[str, str | None] = {"--path": None, "--project": None}
    as_json = False
    i = 0
    while i < len(argv):
        a = argv[i]
        name, eq, value = a.partition("=")
        if a == "--json":
            as_json = True
        elif name in valued and eq:
            valued[name] = value
        elif a in valued:
            if i + 1 >= len(argv):
                raise SystemExit(f"ihmt: {a} needs a folder")
            valued[a] = argv[i + 1]
            i += 1
        elif a == "--":
            rest.extend(argv[i:])
            break
        else:
            rest.append(a)
        i += 1
    return rest, valued["--path"], as_json, valued["--project"]


def passthrough(name: str, rest: list[str], path: str | None, as_json: bool) -> int | None:
    """Commands whose faces parse their own arguments (install, doctor, mcp, gui, project)."""
    flags = (["--json"] if as_json else [])
    if name == "hook":
        from .hook import main_hook  # light: no MCP SDK, no rich

        return main_hook(rest, path)
    if name in ("install", "uninstall", "print-config", "doctor"):
        from . import install as inst

        if name == "doctor":
            return inst.main_doctor(rest + flags + (["--path", path] if path else []))
        if name == "print-config":
            return inst.main_print_config(rest + (["--home", path] if path else []))
        fn = inst.main_install if name == "install" else inst.main_uninstall
        if name == "install" and path and "--home" not in rest:
            rest = rest + ["--home", path]
        return fn(rest + flags)
    if name == "mcp":
        from .mcp.server import main as mcp_main

        if path:
            os.environ["IHMT_HOME"] = str(Path(path).expanduser().absolute())
        return mcp_main(rest)
    if name == "gui":
        import argparse

        g = argparse.ArgumentParser(prog="ihmt gui")
        g.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0: a free one)")
        g.add_argument("--no-browser", action="store_true", help="print the address only")
        ga = g.parse_args(rest)
        from .gui import serve  # lazy: other commands never load starlette/uvicorn

        serve(Path(path).expanduser() if path else None, ga.port, not ga.no_browser)
        return 0
    if name == "project":
        from .project_cli import main_project

        return main_project(flags + rest)
    return None


PASSTHROUGH = {
    "install": "register the MCP server with an agent (claude-code, codex, opencode)",
    "uninstall": "remove it from an agent (the memory is kept)",
    "print-config": "print the config snippet for other agents (cursor, windsurf, ...)",
    "doctor": "check the store, the server and the registrations",
    "hook": "run as an agent hook (session-start, prompt-submit): memory worth adding, or "
            "nothing",
    "mcp": "run the stdio MCP server (store: $IHMT_HOME/ihmt_memory)",
    "gui": "open the local web interface",
    "project": "code-aware project tools: map, find, sync",
}


def main(argv: Sequence[str] | None = None) -> int:
    try:
        code = _main(argv)
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        # The reader left (``ihmt tree | head -1``): stop quietly, as Unix tools do. Python
        # flushes stdout again at exit; point it at /dev/null so that flush cannot fail.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, what a shell reports for a tool the pipe stopped


def _main(argv: Sequence[str] | None = None) -> int:
    logging.basicConfig(level=logging.WARNING, format="ihmt: %(message)s", stream=sys.stderr)
    rest, path, as_json, project = split_globals(list(sys.argv[1:] if argv is None else argv))
    if rest and rest[0] in PASSTHROUGH:
        if project and rest[0] in ("mcp", "project"):  # ihmt.scope.PROJECT_ENV: the
            # server's project, and a root of the project tools (ihmt.project.roots)
            os.environ["IHMT_PROJECT"] = str(Path(project).expanduser().absolute())
        try:
            code = passthrough(rest[0], rest[1:], path, as_json)
        except (IHMTError, OSError) as exc:
            if isinstance(exc, BrokenPipeError):
                raise
            if isinstance(exc, OSError):
                exc = from_os_error(exc, f"'ihmt {rest[0]}'")
            print(f"ihmt: {exc}", file=sys.stderr)
            return 2
        return 0 if code is None else code
    from .cli_commands import COMMANDS, build_parser

    args = build_parser(PASSTHROUGH).parse_args(rest)
    args.path, args.json, args.project = path, as_json, project
    try:
        return COMMANDS[args.command](args)
    except (IHMTError, OSError) as exc:
        if isinstance(exc, OSError) and not isinstance(exc, BrokenPipeError):
            # Outside the library's own checks (a file the command reads, a path too long):
            # one line that says what the system refused, never a traceback.
            exc = from_os_error(exc, f"'ihmt {args.command}'")
        elif isinstance(exc, BrokenPipeError):
            raise
        if as_json:
            print(json.dumps({"error": str(exc), "kind": type(exc).__name__}))
        print(f"ihmt: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
