"""The CLI's part of scopes: ``--project``, ``--scope``, ``ihmt scopes`` and ``ihmt move``.

Each command is one call into :class:`ihmt.Memory` (:meth:`~ihmt.Memory.scopes`,
:meth:`~ihmt.Memory.move`); :mod:`ihmt.faces.cli` registers them and asks this module for
the project a command runs in.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from ..errors import InputError
from ..memory import Memory
from ..scope import MODES, SAVE_SCOPES, project_of
from ..text import count

Handler = Callable[[argparse.Namespace], int]
Opener = Callable[..., Memory]
Printer = Callable[[argparse.Namespace, Any, "str | None"], None]

PROJECT_HELP = ("the project the command runs in: the git repository of PATH (default: "
                "the current folder's; none outside a repository)")


def project(args: argparse.Namespace) -> str | None:
    """The project of ``--project PATH``, else of the current folder (None outside a
    repository; a PATH given by hand must be inside one)."""
    given = getattr(args, "project", None)
    if not given:
        return project_of(None)
    found = project_of(given)
    if found is None:
        raise InputError(f"--project {given}: this folder is in no git repository")
    return found


def add_scope_option(name: str, parser: argparse.ArgumentParser) -> None:
    """``--scope`` for the commands that take one (called for every subcommand)."""
    if name in ("search", "ask"):
        parser.add_argument("--scope", choices=MODES, default="auto",
                            help="auto (default): this project's memories and global ones, "
                                 "another project's only when it matches much better "
                                 "(labelled); all, project or global: only those")
    elif name == "save":
        parser.add_argument("--scope", default="auto", metavar="|".join(SAVE_SCOPES),
                            help="where it applies: project (this repository), global (you, "
                                 "everywhere), a project id, or auto (default: chosen from "
                                 "the content)")
    elif name == "ingest":
        parser.add_argument("--scope", default="global", metavar="auto|project|global",
                            help="where the documents apply (default global; auto chooses "
                                 "per document)")


def add_commands(cmd: Callable[[str, str], argparse.ArgumentParser]) -> None:
    cmd("scopes", "list the scopes (global and each project) with their memory counts")
    s = cmd("move", "re-file a memory to another scope")
    s.add_argument("id", help="the memory's id (ihmt search --full shows it)")
    s.add_argument("--scope", required=True, metavar="project|global|PROJECT_ID",
                   help="project (the current one), global, or a project id as "
                        "'ihmt scopes' lists it")


def handlers(open_memory: Opener, out: Printer) -> dict[str, Handler]:
    def cmd_scopes(args: argparse.Namespace) -> int:
        mem = open_memory(args)
        counts = mem.scopes()
        here = mem.project
        lines = [f"{name}  {count(n, 'memory', 'memories')}"
                 + ("  (this project)" if name == here else "") for name, n in counts.items()]
        if here and here not in counts:
            lines.append(f"{here}  0 memories  (this project)")
        out(args, {"project": here, "scopes": counts}, "\n".join(lines))
        return 0

    def cmd_move(args: argparse.Namespace) -> int:
        rep = open_memory(args).move(args.id, args.scope)
        text = (f"{rep['id']} is already in {rep['to']}" if rep["from"] == rep["to"]
                else f"moved {rep['id']} from {rep['from']} to {rep['to']}")
        out(args, rep, text)
        return 0

    return {"scopes": cmd_scopes, "move": cmd_move}
