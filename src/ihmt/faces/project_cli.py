"""``ihmt project map|find|sync PATH``: the project tools from a terminal."""

from __future__ import annotations

import argparse
import json
import sys

from ..errors import IHMTError
from ..project import find_code, project_map, sync_project
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
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    try:
        if args.action == "map":
            text = project_map(args.path, "symbols" if args.symbols else "files", args.subpath)
        elif args.action == "find":
            text = find_code(args.query, args.path, args.scope, args.subpath, args.clue,
                             args.max_tokens)
        else:
            report = sync_project(args.path)
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
