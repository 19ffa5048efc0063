"""Peak memory and time of a bulk load, lexical only against semantic, in one run.

    python -m bench.bulk_memory --memories /tmp/syn/memories.jsonl --n 16384 --json

Each mode runs in a fresh child process (so one mode's peak does not hide another's), on a
store in a temporary folder:

- ``lexical`` (the baseline): the first ``--n`` memories saved inside ``Memory.bulk()``
  with semantic search off, then ``flush()``. 16,384 is one bulk batch, the most a load
  holds at once.
- ``semantic``: the same load into a second store with semantic search on (every batch
  encoded with every core, its vectors appended and routed).
- ``rebuild``: ``ihmt rebuild --embeddings`` of the lexical store, which has no vector
  (every memory encoded, every vector file and routing tree written anew).

Figures per mode: the child's peak resident memory before the work (Python, IHMT, the
store, and for the semantic modes the model) and at its end, the work's seconds and the
memories with a vector afterwards. The semantic modes need ``ihmt[semantic]`` and are
reported as skipped without it.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench._common import (
    Stopwatch,
    emit,
    env_info,
    format_table,
    load_memory_api,
    progress,
    read_jsonl,
    rss_mb,
)
from bench._semantic import select

MODES = ("lexical", "semantic", "rebuild")


def child(mode: str, memories: Path, n: int, store: Path) -> dict[str, Any]:
    """One mode's work in this process (the child side)."""
    select(mode != "lexical")
    memory_cls, missing = load_memory_api()
    if memory_cls is None:
        raise SystemExit(missing)
    rows = read_jsonl(memories)[:n] if mode != "rebuild" else []
    mem = memory_cls.open(store, create=mode != "rebuild")
    try:
        if mode != "lexical":
            if not mem.semantic.active:
                return {"mode": mode, "skipped": mem.semantic.reason}
            from ihmt.semantic.encoder import get_encoder
            get_encoder(bulk=True)  # the model counts in the "before" figure
        before = rss_mb()
        with Stopwatch() as work:
            if mode == "rebuild":
                mem.rebuild_embeddings()
            else:
                with mem.bulk():
                    for row in rows:
                        mem.save(row["text"], date=row.get("date"), domain="general")
                mem.flush()
        out: dict[str, Any] = {"mode": mode, "memories": mem.stats().get("leaves"),
                               "rss_mb_before": before, "rss_mb_peak": rss_mb(),
                               "seconds": work.s}
        if mode != "lexical":
            out["vectors"] = mem.semantic.health().get("vectors")
        return out
    finally:
        mem.close()


def run(memories: Path, n: int) -> dict[str, Any]:
    modes = []
    stores = {"lexical": "lexical", "semantic": "semantic", "rebuild": "lexical"}
    with tempfile.TemporaryDirectory(prefix="ihmt-bulk-") as tmp:
        for mode in MODES:
            progress(f"bulk_memory: {mode}, {n} memories")
            proc = subprocess.run(
                [sys.executable, "-m", "bench.bulk_memory", "--child", mode,
                 "--memories", str(memories), "--n", str(n),
                 "--store", str(Path(tmp) / stores[mode])],
                capture_output=True, text=True, check=False,
                cwd=Path(__file__).resolve().parent.parent)
            if proc.returncode != 0:
                raise SystemExit(f"the {mode} run failed:\n{proc.stderr[-2000:]}")
            modes.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    return {"memories_file": str(memories), "n": n, "modes": modes}


def table(result: dict[str, Any]) -> str:
    cols = ["mode", "memories", "rss_mb_before", "rss_mb_peak", "seconds", "vectors"]
    rows = [m if "skipped" not in m else {"mode": m["mode"], "memories": "skipped"}
            for m in result["modes"]]
    return f"bulk load of {result['n']} memories, one process per mode\n" + format_table(
        rows, cols)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.bulk_memory",
                                 description=__doc__.split("\n")[0])
    ap.add_argument("--memories", type=Path, required=True,
                    help="memories.jsonl from bench.synthetic")
    ap.add_argument("--n", type=int, default=16384, help="memories loaded (default 16384)")
    ap.add_argument("--child", choices=MODES, help=argparse.SUPPRESS)
    ap.add_argument("--store", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child, args.memories, args.n, args.store)))
        return 0
    result = run(args.memories, args.n)
    result.update(env_info())
    emit(result, args.json, table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
