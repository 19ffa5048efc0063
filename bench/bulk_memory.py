"""Peak memory and time of a bulk load, lexical only against semantic, in one run.

    python -m bench.bulk_memory --memories /tmp/syn/memories.jsonl --n 16384 --json

Each mode runs in a fresh child process (so one mode's peak does not hide the other's):
a new store in a temporary folder, the first ``--n`` memories saved inside
``Memory.bulk()`` (16,384 is one bulk batch, the largest a load holds at once), then
``flush()``. Figures per mode: the child's peak resident memory before the load (Python,
IHMT, and with ``semantic`` the model) and at the end, and the load's seconds. The
``lexical`` mode is the baseline; ``semantic`` needs ``ihmt[semantic]`` and is reported as
skipped without it.
"""

from __future__ import annotations

import argparse
import json
import os
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

MODES = ("lexical", "semantic")


def child(mode: str, memories: Path, n: int) -> dict[str, Any]:
    """One bulk load in this process (the child side)."""
    os.environ["IHMT_SEMANTIC"] = "auto" if mode == "semantic" else "off"
    memory_cls, missing = load_memory_api()
    if memory_cls is None:
        raise SystemExit(missing)
    rows = read_jsonl(memories)[:n]
    with tempfile.TemporaryDirectory(prefix="ihmt-bulk-") as tmp:
        mem = memory_cls.open(Path(tmp) / "store", create=True)
        if mode == "semantic":
            if not mem.semantic.active:
                return {"mode": mode, "skipped": mem.semantic.reason}
            from ihmt.semantic.encoder import get_encoder
            get_encoder(bulk=True)  # the model counts in the "before" figure
        before = rss_mb()
        with Stopwatch() as load:
            with mem.bulk():
                for row in rows:
                    mem.save(row["text"], date=row.get("date"), domain="general")
            mem.flush()
        out = {"mode": mode, "memories": len(rows), "rss_mb_before": before,
               "rss_mb_peak": rss_mb(), "load_s": load.s}
        if mode == "semantic":
            out["vectors"] = mem.semantic.health().get("vectors")
        mem.close()
    return out


def run(memories: Path, n: int) -> dict[str, Any]:
    modes = []
    for mode in MODES:
        progress(f"bulk_memory: {mode}, {n} memories")
        proc = subprocess.run(
            [sys.executable, "-m", "bench.bulk_memory", "--child", mode,
             "--memories", str(memories), "--n", str(n)],
            capture_output=True, text=True, check=False,
            cwd=Path(__file__).resolve().parent.parent)
        if proc.returncode != 0:
            raise SystemExit(f"the {mode} load failed:\n{proc.stderr[-2000:]}")
        modes.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    return {"memories_file": str(memories), "n": n, "modes": modes}


def table(result: dict[str, Any]) -> str:
    cols = ["mode", "memories", "rss_mb_before", "rss_mb_peak", "load_s", "vectors"]
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
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child, args.memories, args.n)))
        return 0
    result = run(args.memories, args.n)
    result.update(env_info())
    emit(result, args.json, table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
