"""The server's tools, one module per family.

A family is a module with ``register(server, state)`` that defines its tools with
:func:`ihmt.faces.mcp.tools._common.tool`. Adding a tool is one function in its family's
module; adding a family is one module plus one line in :data:`FAMILIES`.
"""

from __future__ import annotations

from collections.abc import Callable

from mcp.server.mcpserver import MCPServer

from . import memory_tools, project_tools
from ._common import ServerState

Register = Callable[[MCPServer, ServerState], None]

FAMILIES: tuple[Register, ...] = (
    memory_tools.register,
    project_tools.register,
)

__all__ = ["FAMILIES", "Register", "ServerState"]
