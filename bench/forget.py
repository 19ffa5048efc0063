"""The cost of a forget, and what it writes, as the store grows.

    python -m bench.forget [--sizes 5000,50000] [--runs 30] [--seed 7] [--json]

For each size a store of synthetic memories (:mod:`bench.synthetic`, loaded in bulk, so
memories sit deep in the tree) is built in a temporary folder; then ``--runs`` memories
chosen at random are forgotten one call each, timed (p50, p95), with the bytes written
per forget (the files whose size, mtime or inode changed, read from the folder before and
after one forget: a file replaced counts whole, a journal appended to its growth). Baseline in the same run, on the same store: one single ``save`` of a new
memory (the write every user already pays), timed the same way.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import synthetic
from bench._common import emit, env_info, format_table, open_store, percentile, progress


def _files(folder: Path) -> dict[str, tuple[int, int, int]]:
    out = {}
    for dirpath, _dirs, names in os.walk(folder):
        for n in names:
            p = os.path.join(dirpath, n)
            try:
                st = os.stat(p)
            except OSError:
                continue
            out[p] = (st.st_size, st.st_mtime_ns, st.st_ino)
    return out


def _written(before: dict[str, tuple[int, int, int]],
             after: dict[str, tuple[int, int, int]]) -> tuple[int, int]:
    """Bytes and files written between two listings: a new or replaced file (another
    inode) counts whole, a file that kept its inode and grew counts its growth (a journal
    appended to: the catalog, the intent log), one changed in place otherwise whole."""
    total = n = 0
    for p, (size, mtime, ino) in after.items():
        old = before.get(p)
        if old == (size, mtime, ino):
            continue
        n += 1
        if old is not None and old[2] == ino and size > old[0]:
            total += size - old[0]
        else:
            total += size
    return total, n


def run_size(n: int, runs: int, seed: int) -> dict[str, Any]:
    from ihmt.memory import Memory

    with tempfile.TemporaryDirectory(prefix="ihmt-forget-") as tmp:
        rows, _ = synthetic.generate(n, 10, seed)
        mem = open_store(Memory, Path(tmp) / "ihmt_memory")
        t0 = time.perf_counter()
        ids: list[str] = []
        with mem.bulk():
            for row in rows:
                ids.extend(mem.save(row["text"], date=row.get("date"), domain="general").ids)
        mem.flush()
        build_s = time.perf_counter() - t0
        progress(f"{n}: built in {build_s:.0f} s")
        rng = random.Random(seed)
        picked = rng.sample(sorted(set(ids)), runs)
        forget_s, save_s, rebuilt = [], [], 0
        before = _files(mem.path)
        for k, leaf_id in enumerate(picked):
            t = time.perf_counter()
            rep = mem.forget(leaf_id)
            forget_s.append(time.perf_counter() - t)
            rebuilt += rep.rebuilt
            if k == 0:
                written, n_files = _written(before, _files(mem.path))
            t = time.perf_counter()
            mem.save(f"baseline save number {k} about nothing in particular {rng.random()}",
                     date="2026-01-01", domain="general")
            save_s.append(time.perf_counter() - t)
        still = sum(1 for i in picked if mem.store.leaf_exists(i))
        left = mem.stats()["leaves"]
        mem.close()
    return {
        "memories": n, "runs": runs, "build_s": build_s,
        "forget_p50_ms": 1000 * (percentile(forget_s, 50) or 0),
        "forget_p95_ms": 1000 * (percentile(forget_s, 95) or 0),
        "save_p50_ms": 1000 * (percentile(save_s, 50) or 0),
        "bytes_written_first": written, "files_written_first": n_files,
        "rebuilt": rebuilt, "left_on_disk": still,
        "leaves_after": left,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.forget", description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="5000,50000", help="store sizes, comma separated")
    ap.add_argument("--runs", type=int, default=30, help="forgets timed per size")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    os.environ.setdefault("IHMT_SEMANTIC", "off")
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    result = {"env": env_info(), "sizes": [run_size(n, args.runs, args.seed) for n in sizes]}
    emit(result, args.json, lambda r: format_table(r["sizes"], [
        "memories", "runs", "forget_p50_ms", "forget_p95_ms", "save_p50_ms",
        "bytes_written_first", "files_written_first", "rebuilt", "left_on_disk"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
