"""``ihmt project map|find|sync PATH``: the project tools from a terminal.

Confined like the MCP tools: PATH must be inside the working folder (unless that is ``/``
or the home folder), ``$IHMT_PROJECT`` (``ihmt --project``), ``$IHMT_ROOTS`` or a ``--root``
given here; anything else is refused with the same line the MCP server gives.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from ..errors import IHMTError
from ..project import Roots, find_code, project_map, sync_project
from ..render import for_reader


def main_project(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="ihmt project")
    sub = p.add_subparsers(dest="action", required=True)
    s = sub.add_parser("map", help="files with their size in tokens (and symbols)")
    s.add_argument("path")
    s.add_argument("--symbols", action="store_true")
    s.add_argument("--subpath", default="")
    s = sub.add_parser("find", help="the symbol that answers a query")
    s.add_argument("query")
    s.add_argument("path")
    s.add_argument("--scope", choices=["main", "test", "all"], default="main")
    s.add_argument("--subpath", default="")
    s.add_argument("--clue")
    s.add_argument("--max-tokens", type=int, default=1500)
    s = sub.add_parser("sync", help="bring the project's index up to date")
    s.add_argument("path")
    for s in sub.choices.values():
        s.add_argument("--root", action="append", default=[], metavar="DIR",
                       help="also allow this folder (repeatable; see IHMT_ROOTS)")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    try:
        roots = Roots.from_environment(args.root)
        args.path = _as_typed(args.path, roots)
        if args.action == "map":
            text = project_map(args.path, "symbols" if args.symbols else "files", args.subpath,
                               roots=roots)
        elif args.action == "find":
            text = find_code(args.query, args.path, args.scope, args.subpath, args.clue,
                             args.max_tokens, roots=roots)
        else:
            report = sync_project(args.path, roots=roots)
            if args.json:
                print(json.dumps(report, indent=1, default=str))
            else:
                print(", ".join(f"{k} {v}" for k, v in report.items()
                                if isinstance(v, (int, float))))
            return 0
    except IHMTError as exc:
        print(f"ihmt: {exc}", file=sys.stderr)
        return 2
    text = for_reader(text)  # code and files may hold keys: masked, and said so
    print(json.dumps({"text": text}) if args.json else text)
    return 0


def _as_typed(path: str, roots: Roots) -> str:
    """PATH as a shell user means it: a relative one is below the working folder. The roots
    take it below their first folder, which is another one when the working folder is not
    a root (the home folder, say): there it is made absolute, so '.' in ~ is refused rather
    than read as the first configured root."""
    if os.path.isabs(path) or (roots.folders and roots.folders[0] == Path.cwd().resolve()):
        return path
    return os.path.abspath(path)
