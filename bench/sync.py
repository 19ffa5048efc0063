"""What git history and sync cost: save latency with commits per save, per window and none
(the baseline, in the same run), and the time of a sync that brings N new memories.

    python -m bench.sync --saves 200 --merge 2000 --out /tmp/sync-bench

Saves to the three stores are interleaved (save i goes to each store in turn), so a
machine busy with other work slows every column alike. JSON on stdout.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import time
from pathlib import Path
from typing import Any

from bench._common import env_info, percentile, progress

WORDS = ("billing postgres deploy friday madrid cache index tree leaf queue worker retry "
         "invoice tenant schema migration backup nightly alert latency budget").split()


def _text(rnd: random.Random, i: int) -> str:
    return " ".join(rnd.choice(WORDS) for _ in range(40)) + f" note {i}"


def save_latency(base: Path, n: int) -> dict[str, Any]:
    from ihmt import Memory
    from ihmt.sync import gitsync

    modes = {"no_git": None, "commit_per_save": "save", "commit_window_60s": "window"}
    mems = {}
    for name, mode in modes.items():
        mem = Memory.open(base / name, create=True, config={"sync_commit": mode or "save"})
        if mode:
            gitsync.init(mem)
        mems[name] = mem
    times: dict[str, list[float]] = {k: [] for k in modes}
    rnd = random.Random(7)
    for i in range(n):
        text = _text(rnd, i)
        for name, mem in mems.items():
            t = time.perf_counter()
            mem.save(text, date="2026-01-02")
            times[name].append((time.perf_counter() - t) * 1000)
    return {name: {"p50_ms": round(percentile(ts, 50) or 0, 2),
                   "p90_ms": round(percentile(ts, 90) or 0, 2)} for name, ts in times.items()}


def sync_time(base: Path, n: int) -> dict[str, Any]:
    from ihmt import Memory
    from ihmt.sync import gitsync

    remote = base / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    a = Memory.open(base / "a", create=True)
    b = Memory.open(base / "b", create=True)
    gitsync.init(a, str(remote))
    gitsync.init(b, str(remote))
    rnd = random.Random(11)
    with a.bulk():
        for i in range(n):
            a.save(_text(rnd, i), date="2026-01-03")
    b.save("one memory of machine b", date="2026-01-04")
    t = time.perf_counter()
    gitsync.sync(a)
    push_s = time.perf_counter() - t
    t = time.perf_counter()
    rep = gitsync.sync(b)
    merge_s = time.perf_counter() - t
    t = time.perf_counter()
    gitsync.sync(b)
    idle_s = time.perf_counter() - t
    return {"new_memories": rep["new_memories"], "push_s": round(push_s, 2),
            "merge_and_rebuild_s": round(merge_s, 2), "nothing_to_do_s": round(idle_s, 2)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.sync")
    p.add_argument("--saves", type=int, default=200)
    p.add_argument("--merge", type=int, default=2000, help="memories a sync brings in")
    p.add_argument("--out", default="/tmp/ihmt-sync-bench", help="scratch folder (emptied)")
    args = p.parse_args(argv)
    base = Path(args.out)
    if base.exists():
        import shutil

        shutil.rmtree(base)
    base.mkdir(parents=True)
    progress(f"save latency over {args.saves} saves per store")
    saves = save_latency(base / "saves", args.saves)
    progress(f"a sync bringing {args.merge} new memories")
    merge = sync_time(base / "merge", args.merge)
    print(json.dumps({"env": env_info(), "saves": args.saves, "save_latency": saves,
                      "sync": merge}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
