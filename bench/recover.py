"""The first save after a save that failed part way (issue 23, item 9).

For each store size: a store is bulk-loaded, then, in the same process and run,

* ``plain``: the p50 of ordinary saves (the baseline);
* ``after``: a save fails after writing its leaf (the trunk write raises ENOSPC, as a full
  disk does), and the next save is timed: it finishes the failed one from its intent
  record (:mod:`ihmt.recover`);
* ``before``: the same, with the record removed from the intent line, which forces the
  full rebuild from the leaves that every interrupted write cost before.

    python -m bench.recover --json                      # 2,000 and 20,000 memories
    python -m bench.recover --sizes 2000 --runs 5 --json
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from ._common import percentile, progress

os.environ.setdefault("IHMT_SEMANTIC", "off")


def _build(path: Path, n: int) -> Any:
    from ihmt import Memory

    mem = Memory.open(path, create=True)
    with mem.bulk():
        for i in range(n):
            mem.save(f"Note {i}: rectok{i:06d} the build server h{i % 13} runs job "
                     f"{i % 97} nightly for team t{i % 31}", date=f"2024-{1 + i % 12:02d}-01")
    return mem


def _fail_one(mem: Any, i: int) -> None:
    """A save whose leaf reaches the disk and whose trunk write fails (a full disk)."""
    from ihmt.errors import StoreError
    from ihmt.store import files

    real = files.write_json

    def full(path: Path, *a: Any, **k: Any) -> None:
        if path.name == "root.json":
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(path, *a, **k)

    files.write_json = full
    try:
        mem.save(f"Failed save {i}: failtok{i:04d} the printer needs toner")
    except StoreError:
        pass
    finally:
        files.write_json = real
    assert mem.store.interrupted()


def _drop_record(mem: Any) -> None:
    log = mem.store.intent_path
    lines = log.read_bytes().rstrip(b"\n").split(b"\n")
    lines[-1] = b" ".join(lines[-1].split(b" ")[:4])  # "B pid what time": no record
    log.write_bytes(b"\n".join(lines) + b"\n")


def run_size(n: int, runs: int, full_runs: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        mem = _build(Path(tmp) / "ihmt_memory", n)
        load_s = time.perf_counter() - t0
        recovery = mem._write_side.parts().recovery
        plain = []
        for i in range(max(runs, 5)):
            t = time.perf_counter()
            mem.save(f"Plain save {i}: plaintok{i:04d} the coffee machine is descaled")
            plain.append(time.perf_counter() - t)
        out: dict[str, list[float]] = {"after": [], "before": []}
        for mode, k in (("after", runs), ("before", full_runs)):
            for i in range(k):
                _fail_one(mem, len(out["after"]) + len(out["before"]))
                if mode == "before":
                    _drop_record(mem)
                t = time.perf_counter()
                mem.save(f"Next save {mode} {i}: nexttok{mode}{i} the garage closes at 22:00")
                out[mode].append(time.perf_counter() - t)
                want = "partial" if mode == "after" else "full"
                assert recovery.last["mode"] == want, recovery.last
        mem.close()
    p50 = {k: percentile(v, 50) for k, v in {"plain": plain, **out}.items()}
    return {
        "memories": n, "load_s": round(load_s, 2), "runs": runs, "full_runs": full_runs,
        "plain_save_p50_ms": round(p50["plain"] * 1000, 1),
        "after_p50_ms": round(p50["after"] * 1000, 1),
        "before_p50_ms": round(p50["before"] * 1000, 1),
        "after_vs_plain": round(p50["after"] / p50["plain"], 2),
        "before_vs_plain": round(p50["before"] / p50["plain"], 1),
        "before_vs_after": round(p50["before"] / p50["after"], 1),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="2000,20000")
    ap.add_argument("--runs", type=int, default=5, help="failed saves finished by recovery")
    ap.add_argument("--full-runs", type=int, default=2, help="... by the forced full rebuild")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    results = []
    for n in (int(x) for x in args.sizes.split(",")):
        progress(f"recover: {n} memories")
        results.append(run_size(n, args.runs, args.full_runs))
    report = {"bench": "recover", "date": time.strftime("%Y-%m-%d"), "sizes": results}
    print(json.dumps(report, indent=None if args.json else 2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
