"""The ``ihmt`` commands whose faces parse their own arguments: install, uninstall,
print-config, doctor, hook, mcp, gui, project. Each is imported only when it runs, so the
other commands never load the MCP SDK, starlette or the project index."""

from __future__ import annotations

import argparse
import os
from pathlib import Path


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
