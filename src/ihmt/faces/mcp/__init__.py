"""The MCP face of IHMT: ``build_server()`` for tests and embedding, ``run()`` for stdio."""

from .server import SERVER_NAME, build_server, run

__all__ = ["SERVER_NAME", "build_server", "run"]
