"""A real MCP client for the stdio server tests, callable from synchronous tests.

``running_server`` starts ``python -m ihmt.faces.mcp`` and connects the SDK's
``mcp.client.stdio.stdio_client`` and ``mcp.ClientSession`` to it, so the tests exercise the
server exactly as Claude Code or Codex would. Shared by ``test_mcp_server.py`` and
``test_mcp_project.py``.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import ClientSession, StdioServerParameters
from mcp.client.session import ClientRequestContext
from mcp.client.stdio import stdio_client
from mcp.types import CallToolResult, ErrorData, ListRootsResult

RootsCallback = Callable[[ClientRequestContext], Awaitable[ListRootsResult | ErrorData]]


class Agent:
    """A connected client, callable from synchronous tests."""

    def __init__(self, portal: BlockingPortal, session: ClientSession) -> None:
        self.portal = portal
        self.session = session

    def call(self, tool: str, **arguments: Any) -> CallToolResult:
        return self.portal.call(functools.partial(self.session.call_tool, tool, arguments))

    def text(self, tool: str, **arguments: Any) -> str:
        """The text of a call that must succeed."""
        result = self.call(tool, **arguments)
        body = text_of(result)
        assert not result.is_error, body
        return body

    def error(self, tool: str, **arguments: Any) -> str:
        """The message of a call that must fail as a tool error (not a protocol error)."""
        result = self.call(tool, **arguments)
        body = text_of(result)
        assert result.is_error, body
        return body

    def tools(self) -> dict[str, Any]:
        listed = self.portal.call(self.session.list_tools)
        return {t.name: t for t in listed.tools}


def text_of(result: CallToolResult) -> str:
    """The text of a tool result, whether it succeeded or failed."""
    return "\n".join(getattr(c, "text", "") for c in result.content)


@asynccontextmanager
async def _session(params: StdioServerParameters, errlog: Any,
                   list_roots: RootsCallback | None) -> AsyncIterator[ClientSession]:
    async with stdio_client(params, errlog=errlog) as (read, write):
        async with ClientSession(read, write, read_timeout_seconds=60,
                                 list_roots_callback=list_roots) as session:
            await session.initialize()
            yield session


@contextmanager
def running_server(ihmt_home: Path, log: Path, *, cwd: Path | None = None,
                   list_roots: RootsCallback | None = None,
                   env: dict[str, str] | None = None,
                   args: list[str] | None = None) -> Iterator[Agent]:
    """``python -m ihmt.faces.mcp`` with IHMT_HOME=ihmt_home, its stderr kept in ``log``.

    ``env`` is the rest of the server's environment (by default only what the SDK passes on
    by itself); ``cwd`` its working folder (by default this process's). ``list_roots`` is the
    client's roots/list handler; without it the client does not advertise the roots
    capability at all. ``args`` are the server's own options (``--root DIR``).
    """
    # The suite's semantic switch (tests/conftest.py) reaches the server too.
    switch = {k: os.environ[k] for k in ("IHMT_SEMANTIC",) if k in os.environ}
    params = StdioServerParameters(command=sys.executable, args=["-m", "ihmt.faces.mcp", *(args or [])],
                                   env={**switch, **(env or {}), "IHMT_HOME": str(ihmt_home)},
                                   cwd=None if cwd is None else str(cwd))
    with open(log, "w") as errlog, start_blocking_portal() as portal:
        with portal.wrap_async_context_manager(_session(params, errlog, list_roots)) as session:
            yield Agent(portal, session)
