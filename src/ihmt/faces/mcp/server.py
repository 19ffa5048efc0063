"""The IHMT MCP server: the library's memory offered to an agent over stdio.

Every agent starts its own server process, often several on one memory folder; the store's
cross-process lock keeps them consistent, and each process opens the store once and keeps
it (branch files are cached, the trunk is re-read only when another process changed it),
so a call costs a search, not a reload.

stdout is the protocol: nothing here prints, logs go to stderr (level from
``IHMT_LOG_LEVEL``, default WARNING).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer

from ... import __version__
from ...memory import default_home
from ...project.roots import ROOTS_ENV
from .tools import FAMILIES, ServerState

SERVER_NAME = "ihmt-memory"

INSTRUCTIONS = (
    "Long-term memory shared across the user's sessions and agents. Call search_memory "
    "before answering anything that may depend on an earlier session; save durable facts "
    "(decisions and reasons, setup, preferences, corrections) with save_memory. Never guess "
    "on AMBIGUOUS, always relay OUTDATED notices, never save secrets."
)


def build_server(home: Path | None = None) -> MCPServer:
    """A server on the memory under ``home`` (default ``$IHMT_HOME``, else ``~/.ihmt``).

    The store (``<home>/ihmt_memory``) is created and opened on the first tool call, not
    here: a server on a folder it cannot write still starts and lists its tools, and each
    call then says what is wrong.
    """
    state = ServerState(Path(home).expanduser() if home is not None else default_home())
    server = MCPServer(SERVER_NAME, instructions=INSTRUCTIONS, version=__version__,
                       log_level=_log_level())
    for register in FAMILIES:
        register(server, state)
    return server


def main(argv: list[str] | None = None) -> int:
    """``ihmt mcp [--root DIR]...`` and ``python -m ihmt.faces.mcp [--root DIR]...``."""
    m = argparse.ArgumentParser(
        prog="ihmt mcp", description="Run the stdio MCP server: JSON-RPC on stdin and "
        "stdout, until the agent closes it. Agents start it themselves once registered "
        "with 'ihmt install'; the store is $IHMT_HOME/ihmt_memory, or --path.")
    m.add_argument("--root", action="append", default=[], metavar="DIR",
                   help="a folder the project tools may open besides the working folder "
                        "(repeatable; added to IHMT_ROOTS)")
    args = m.parse_args(sys.argv[1:] if argv is None else argv)
    if args.root:
        roots = [os.environ.get(ROOTS_ENV, "")] + [
            os.path.abspath(os.path.expanduser(r)) for r in args.root]
        os.environ[ROOTS_ENV] = os.pathsep.join(r for r in roots if r)
    run()
    return 0


def run() -> None:
    """Serve on stdin/stdout until the agent closes the connection (``ihmt mcp``)."""
    logging.basicConfig(stream=sys.stderr, level=_log_level(),
                        format="%(asctime)s ihmt-mcp %(levelname)s %(name)s: %(message)s")
    try:
        build_server().run("stdio")
    except BaseException as exc:  # only a gone agent is swallowed: see _agent_gone
        if not _agent_gone(exc):
            raise
        # The agent closed its end of stdout: nobody is left to answer, so stop quietly,
        # and point stdout at /dev/null so the flush at exit cannot fail again.
        logging.getLogger(__name__).info("the agent closed the connection")
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def _agent_gone(exc: BaseException) -> bool:
    """A broken pipe, alone or inside the exception groups the SDK's task groups raise."""
    if isinstance(exc, BrokenPipeError):
        return True
    inner = getattr(exc, "exceptions", None)
    return bool(inner) and all(_agent_gone(e) for e in inner)


def _log_level() -> str:
    level = os.environ.get("IHMT_LOG_LEVEL", "WARNING").upper()
    return level if level in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL") else "WARNING"
