"""``ihmt export``: every memory to stdout or a file, as JSONL (restorable) or Markdown.

One call into :meth:`ihmt.Memory.export`; the file is written by
:func:`ihmt.export.write_file` (atomic, never over an existing file without ``--force``).
The export itself goes to stdout when there is no ``--out``, so the summary line goes to
stderr then, where it cannot end up inside the export.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..export import FORMATS, write_file
from ..memory import Memory
from ..text import count

HELP = ("write every memory (date, domain, scope, tags, outdated status) as JSONL, which "
        "'ihmt ingest' restores, or as Markdown, for reading")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--scope", default="all", metavar="S",
                   help="'all' (default), 'global', or one project's id")
    p.add_argument("--format", choices=FORMATS, default="jsonl",
                   help="jsonl (default): restorable with 'ihmt ingest FILE'; markdown: "
                        "for reading")
    p.add_argument("--out", metavar="PATH",
                   help="write to this file (atomically) instead of stdout")
    p.add_argument("--force", action="store_true",
                   help="with --out: replace the file if it exists (refused otherwise)")


def run(args: argparse.Namespace, mem: Memory) -> int:
    export = mem.export(scope=args.scope, fmt=args.format)
    if args.out:
        path = str(write_file(export, args.out, force=args.force))
    else:
        path = None
        for chunk in export:
            sys.stdout.write(chunk)
        sys.stdout.flush()
    for name, why in export.skipped:
        print(f"ihmt: not exported: {name}: {why}", file=sys.stderr)
    data: dict[str, Any] = {"exported": export.exported, "format": args.format,
                            "scope": export.scope, "out": path,
                            "skipped": [{"file": n, "reason": w} for n, w in export.skipped]}
    text = f"exported {count(export.exported, 'memory', 'memories')}"
    text += f" to {path}" if path else ""
    if export.skipped:
        text += f"; {count(len(export.skipped), 'damaged leaf', 'damaged leaves')} skipped"
    summary = json.dumps(data, ensure_ascii=False, indent=1) if args.json else text
    print(summary, file=sys.stdout if path else sys.stderr)
    return 0
