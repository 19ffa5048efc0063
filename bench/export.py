"""Export and restore of a generated store: time, peak memory, and whether the restore is
faithful, with the load-everything export as the baseline in the same run.

    python -m bench.export --n 5000 --json

A store of ``--n`` synthetic memories (:mod:`bench.synthetic`, seeded) is saved in bulk,
then:

- ``stream``: ``Memory.export()`` written to a file with :func:`ihmt.export.write_file`,
  one leaf file at a time;
- ``load_all`` (the baseline): the same records built after reading every leaf into a
  list first, as an export that sorted or counted its memories before writing would;
- ``restore``: ``ingest_file`` of the export into an empty store, whose own export is
  then compared line by line with the first (``identical``: every record equal).

Peak memory is what ``tracemalloc`` saw allocated during the step (Python objects only,
which is what an export holds); seconds are measured in a separate run of the step
without tracing.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench._common import Stopwatch, emit, env_info, format_table, progress


def _peak(step: Callable[[], Any]) -> tuple[float, Any]:
    tracemalloc.start()
    try:
        value = step()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak / 2**20, value


def _timed(step: Callable[[], Any]) -> tuple[float, Any]:
    with Stopwatch() as sw:
        value = step()
    return sw.s, value


def run(n: int, seed: int, work: Path) -> dict[str, Any]:
    from bench.synthetic import generate
    from ihmt import Memory
    from ihmt.export import Export, memory_record, write_file
    from ihmt.store.leaves import read_leaf

    rows, _ = generate(n, 0, seed)
    src = Memory.open(work / "src", create=True)
    progress(f"saving {n} memories")
    with src.bulk():
        for row in rows:
            src.save(row["text"], date=row.get("date"))
    src.flush()
    out = work / "export.jsonl"

    def stream() -> int:
        exp = src.export()
        write_file(exp, out, force=True)
        return exp.exported

    def load_all() -> int:
        leaves = [read_leaf(p) for p in src.store.iter_leaf_paths()]
        src.timeline.refresh()
        superseded = src.timeline.superseded_sources()
        with open(work / "baseline.jsonl", "w", encoding="utf-8") as fh:
            for leaf in leaves:
                rec = memory_record(leaf, "global", src.timeline, superseded)
                fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
        return len(leaves)

    progress("exporting")
    stream_s, exported = _timed(stream)
    stream_mb, _ = _peak(stream)
    base_s, _ = _timed(load_all)
    base_mb, _ = _peak(load_all)

    progress("restoring")
    dst = Memory.open(work / "dst", create=True)
    restore_s, rep = _timed(lambda: dst.ingest_file(out))
    again = work / "again.jsonl"
    write_file(Export(dst.store, dst.timeline), again)
    with open(out, encoding="utf-8") as a, open(again, encoding="utf-8") as b:
        next(a), next(b)  # headers differ by their time
        identical = all(x == y for x, y in zip(a, b, strict=True))
    src.close()
    dst.close()
    return {
        "n": n, "seed": seed, "exported": exported, "restored_new": rep.new,
        "identical": identical, "export_mb": out.stat().st_size / 2**20,
        "stream": {"seconds": stream_s, "peak_mb": stream_mb},
        "load_all": {"seconds": base_s, "peak_mb": base_mb},
        "peak_ratio": stream_mb / base_mb if base_mb else None,
        "restore_seconds": restore_s, "env": env_info(),
    }


def _table(r: dict[str, Any]) -> str:
    rows = [{"step": "stream (export)", **r["stream"]},
            {"step": "load_all (baseline)", **r["load_all"]}]
    return (f"{r['n']} memories, export {r['export_mb']:.1f} MB, restored {r['restored_new']} "
            f"in {r['restore_seconds']:.1f} s, identical {r['identical']}, peak ratio "
            f"{r['peak_ratio']:.3f}\n" + format_table(rows, ["step", "seconds", "peak_mb"]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.export",
                                 description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=5000, help="memories in the store")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--json", action="store_true", help="one JSON object on stdout")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="ihmt-bench-export-") as tmp:
        result = run(args.n, args.seed, Path(tmp))
    emit(result, args.json, _table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
