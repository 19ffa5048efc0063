"""The CLI's part of semantic search: ``ihmt semantic model [NAME|FOLDER] [--download]``.

One call into :meth:`ihmt.Memory.semantic_model`: without an argument it shows the model
in use and the one the vectors were made with; with one it switches the store to that
model and recomputes the vectors, with a progress bar at a terminal and a line every few
seconds otherwise.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from ..memory import Memory
from ..text import count

Handler = Callable[[argparse.Namespace], int]
Opener = Callable[..., Memory]
Printer = Callable[[argparse.Namespace, Any, "str | None"], None]

HELP = "the sentence model of semantic search: show it, or switch to another"
LINE_EVERY_S = 5.0  # without a terminal: a progress line at most this often


def add_parser(cmd: Callable[[str, str], argparse.ArgumentParser],
               parents: list[argparse.ArgumentParser]) -> None:
    s = cmd("semantic", HELP)
    sub = s.add_subparsers(dest="semantic_command", required=True, metavar="ACTION")
    m = sub.add_parser("model", parents=parents, help=HELP,
                       description="Without NAME|FOLDER: the model in use, its folder, its "
                       "dimension and the model the vectors were made with. With one: "
                       "switch this store to it and recompute every vector. TARGET is a "
                       "folder holding model.onnx and tokenizer.json (a sentence model "
                       "with 384-value vectors, mean pooling), 'default' (the packaged "
                       "all-MiniLM-L6-v2 int8), or with --download a Hugging Face name "
                       "(owner/name) fetched once into ~/.cache/ihmt/models (IHMT_MODELS).")
    m.add_argument("target", nargs="?", metavar="NAME|FOLDER",
                   help="a model folder, 'default', or with --download owner/name")
    m.add_argument("--download", action="store_true",
                   help="fetch NAME's model.onnx and tokenizer.json now (needs network; "
                        "the only download IHMT makes, and never at search time)")


@contextmanager
def _progress(label: str, quiet: bool) -> Iterator[Callable[[int, int], None]]:
    """A bar on a terminal, else a line on stderr every :data:`LINE_EVERY_S` seconds."""
    if sys.stderr.isatty() and not quiet:
        from rich.console import Console
        from rich.progress import Progress

        with Progress(transient=True, console=Console(stderr=True)) as bar:
            task = bar.add_task(label, total=None)
            yield lambda done, total: bar.update(task, completed=done, total=total)
        return
    last = [0.0]

    def line(done: int, total: int) -> None:
        now = time.monotonic()
        if done >= total or now - last[0] >= LINE_EVERY_S:
            last[0] = now
            print(f"{label}: {done} of {count(total, 'memory', 'memories')}",
                  file=sys.stderr, flush=True)

    yield line


def _shown(info: dict[str, Any]) -> str:
    if not info.get("name"):
        return info["message"]
    lines = [f"model    {info['name']} ({'packaged' if info['packaged'] else 'folder'}, "
             f"{info['dim']} dimensions)",
             f"files    {info['model_file']}", f"         {info['tokenizer_file']}"]
    made = info.get("vectors_model")
    lines.append(f"vectors  {count(info['vectors'], 'memory', 'memories')}"
                 + (f", made with {made}" if made else
                    ", made with the packaged default (not recorded)" if info["vectors"]
                    else ""))
    if info.get("mismatch"):
        lines.append(f"warning  {info['mismatch']}: search ranks lexically until "
                     "'ihmt rebuild --embeddings'")
    if not info["on"]:
        lines.append(info["message"])
    return "\n".join(lines)


def handlers(open_memory: Opener, out: Printer) -> dict[str, Handler]:
    def cmd_semantic(args: argparse.Namespace) -> int:
        mem = open_memory(args)
        if args.target is None:
            if args.download:
                raise SystemExit("ihmt semantic model: --download needs a NAME (owner/name)")
            info = mem.semantic_model()
            out(args, info, _shown(info))
            return 0
        with _progress("embedding", args.json) as bar:
            rep = mem.semantic_model(args.target, download=args.download, progress=bar)
        where = rep["folder"] or "packaged"
        out(args, rep, f"semantic model: {rep['model']} ({where}); "
                       f"{count(rep['vectors'], 'memory', 'memories')} re-encoded")
        return 0

    return {"semantic": cmd_semantic}
