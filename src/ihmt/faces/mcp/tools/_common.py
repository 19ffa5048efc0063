"""What every tool family shares: the lazily opened memory and the way errors reach the agent.

A tool is a thin call into the library plus a formatter. Two things would otherwise be
repeated in every tool and easy to get wrong:

* the store is opened once per process, on the first call that needs it, so a server
  pointed at an unwritable folder still starts and answers each call with the reason;
* an error the user can act on (our own :class:`~ihmt.errors.IHMTError`, a bad argument,
  a full disk) must come back as a tool error with its message, not as the SDK's generic
  "Error executing tool" that hides the cause and logs a traceback.
"""

from __future__ import annotations

import functools
import inspect
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations

from ....errors import IHMTError, shown
from ....memory import Memory
from ....render import data_for_reader, for_reader
from ....scope import project_from_env

log = logging.getLogger(__name__)

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")


class ServerState:
    """What the tools of one server process share: the memory folder and the one
    :class:`Memory` opened from it, created on first use.

    Opening can fail (a folder that cannot be created, a disk that is read-only); the
    failure is not remembered, so the next call tries again once the user has fixed it.
    Memory itself is thread-safe and tool calls run on worker threads, so the only locking
    needed here is around the first open. Other tool families keep their own
    once-per-process objects (a project index, the session scratch memory) through
    :meth:`lazy` instead of module globals.
    """

    def __init__(self, home: Path) -> None:
        self.home = home
        self._memory: Memory | None = None
        self._objects: dict[str, Any] = {}
        self._lock = threading.RLock()  # a factory may open the memory

    def memory(self) -> Memory:
        mem = self._memory
        if mem is not None:
            return mem
        with self._lock:
            if self._memory is None:
                # The project is the working folder's repository ($IHMT_PROJECT overrides).
                self._memory = Memory.open(self.home, create=True,
                                           project=project_from_env())
                log.info("memory opened at %s, project %s", self._memory.path,
                         self._memory.project or "none")
            return self._memory

    def lazy(self, name: str, factory: Callable[[], T]) -> T:
        """The object stored under ``name``, built by ``factory`` on first use."""
        if name in self._objects:
            return self._objects[name]
        with self._lock:
            if name not in self._objects:
                self._objects[name] = factory()
            return self._objects[name]

    @property
    def opened(self) -> bool:
        return self._memory is not None


def agent_errors(fn: F) -> F:
    """Turn the errors an agent can act on into tool errors that carry their message.

    Anything else is a bug: it is left to the SDK, which logs the traceback on stderr and
    tells the agent only that the tool failed.
    """

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except ToolError:
            raise
        except (IHMTError, ValueError, TypeError) as exc:
            raise ToolError(for_reader(str(exc)) or type(exc).__name__) from exc
        except OSError as exc:
            where = f" ({shown(exc.filename)})" if exc.filename else ""
            raise ToolError(f"file system error{where}: {exc.strerror or exc}") from exc

    return wrapper  # type: ignore[return-value]


def masked_output(fn: F) -> F:
    """Pass every tool's answer through the secrets mask (:func:`ihmt.render.for_reader`):
    memories, code, files and digested logs may hold a key; the agent sees
    ``[masked:<kind>]`` in its place and a last line saying how many were masked."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        result = fn(*args, **kwargs)
        if isinstance(result, str):
            return for_reader(result)
        if isinstance(result, CallToolResult):
            content = [c.model_copy(update={"text": for_reader(c.text)})
                       if isinstance(c, TextContent) else c for c in result.content]
            structured = result.structured_content
            if structured is not None:
                structured, _ = data_for_reader(structured)
            return result.model_copy(update={"content": content,
                                             "structured_content": structured})
        return result

    return wrapper  # type: ignore[return-value]


def tool(server: MCPServer, *, read_only: bool, idempotent: bool, destructive: bool = False,
         title: str | None = None, structured: bool = False) -> Callable[[F], F]:
    """Register a function as a tool: its docstring is what the agent reads.

    Every IHMT tool works on local files only (``openWorldHint=False``) and returns plain
    text, which is what agents show and reason over best. With ``structured`` the tool
    also publishes an output schema (its return annotation,
    ``Annotated[CallToolResult, Model]``) and returns structured content beside that text,
    for clients that read it.
    """

    def decorator(fn: F) -> F:
        server.add_tool(
            agent_errors(masked_output(fn)),
            name=fn.__name__,
            title=title,
            description=inspect.cleandoc(fn.__doc__ or ""),  # no source indentation to pay for
            annotations=ToolAnnotations(
                title=title,
                readOnlyHint=read_only,
                idempotentHint=idempotent,
                destructiveHint=destructive,
                openWorldHint=False,
            ),
            structured_output=True if structured else False,
        )
        return fn

    return decorator
