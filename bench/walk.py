"""A walk: histories written blind, asked one by one, each in a store of its own.

A walk is a Python file outside the repository (it is written by someone who has read none
of the rules, measured before anyone reads it, and never committed) defining:

- ``HISTORIES``: dicts with ``id``, ``lang`` ("en"/"es"), ``kind`` ("change"/"trap"),
  ``memories`` (``(ISO date, text)`` pairs, oldest first), ``question``, ``current`` (a
  piece of text only the memory that answers now holds), ``stale`` (pieces only memories
  holding older or wrong values hold) and ``trap`` (what kind, or None);
- ``BACKGROUND``: ``(ISO date, text)`` notes about nothing the histories ask.

Each history is saved into a new store (with the background first under ``--noise``) and
its question asked once through :meth:`ihmt.Memory.search`. Counted:

- ``ok``: FOUND with the current value first;
- ``leads``: the current value first, whatever the status;
- ``stale``: FOUND with an older or wrong value first (the worst answer: confidently stale);
- ``traps_held``: traps whose still-valid value leads;
- ``nf``: NOT FOUND.

    python -m bench.walk --data /tmp/walk13/walk13_data.py [--noise] [--extra] [--json]
    python -m bench.walk --data F --show --only w13-04,w13-17   # read misses (spoils a walk)

``--extra`` turns semantic search on (``ihmt[semantic]``); without it the run is lexical.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from ._common import progress


def load(path: Path) -> tuple[list[dict[str, Any]], list[tuple[str, str]]]:
    """The histories and background notes of the walk file at ``path``."""
    spec = importlib.util.spec_from_file_location(f"walk_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"bench.walk: cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return list(module.HISTORIES), list(getattr(module, "BACKGROUND", []))


def _has(text: str, piece: str) -> bool:
    return piece.casefold() in text.casefold()


def judge(history: dict[str, Any], status: str, texts: list[str],
          outdated: list[bool]) -> dict[str, Any]:
    """What one answer counts as (``texts`` in the order listed)."""
    top = texts[0] if texts else ""
    leads = bool(top) and _has(top, history["current"])
    stale_top = bool(top) and not leads and any(_has(top, s) for s in history["stale"])
    current_flagged = any(_has(t, history["current"]) and o for t, o in zip(texts, outdated))
    return {"id": history["id"], "lang": history["lang"], "kind": history["kind"],
            "status": status, "leads": leads, "ok": leads and status == "FOUND",
            "stale": stale_top and status == "FOUND", "stale_top": stale_top,
            "current_flagged": current_flagged}


def run_one(history: dict[str, Any], background: list[tuple[str, str]], noise: bool,
            extra: bool, show: bool) -> dict[str, Any]:
    """Save one history into a fresh store, ask its question, judge the answer."""
    os.environ["IHMT_SEMANTIC"] = "on" if extra else "off"
    from ihmt import Memory

    with tempfile.TemporaryDirectory(prefix="ihmt-walk-") as tmp:
        m = Memory.open(Path(tmp) / "s", create=True)
        try:
            if noise:
                for when, text in background:
                    m.save(text, date=when)
            for when, text in history["memories"]:
                m.save(text, date=when)
            if extra:
                m.semantic.wait(timeout=120)
            res = m.search(history["question"])
            texts = [h.text for h in res.hits]
            verdict = judge(history, res.status, texts, [bool(h.outdated) for h in res.hits])
            if show:
                verdict["shown"] = [{"text": h.text[:160], "outdated": bool(h.outdated)}
                                    for h in res.hits[:4]]
            return verdict
        finally:
            m.close()


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    traps = [r for r in rows if r["kind"] == "trap"]
    return {"histories": len(rows), "ok": sum(r["ok"] for r in rows),
            "leads": sum(r["leads"] for r in rows), "stale": sum(r["stale"] for r in rows),
            "traps": len(traps), "traps_held": sum(r["leads"] for r in traps),
            "nf": sum(r["status"] == "NOT_FOUND" for r in rows),
            "current_flagged": sum(r["current_flagged"] for r in rows)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.walk", description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", required=True, type=Path, help="the walk file (outside the repo)")
    ap.add_argument("--noise", action="store_true", help="save the background notes first")
    ap.add_argument("--extra", action="store_true", help="semantic search on")
    ap.add_argument("--only", default="", help="comma-separated history ids")
    ap.add_argument("--show", action="store_true",
                    help="print each answer's first hits (reading them spoils the walk)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--json", type=Path, help="also write every row to this file")
    args = ap.parse_args(argv)
    if not args.data.is_file():
        ap.error(f"no walk file at {args.data}")
    histories, background = load(args.data)
    if args.only:
        wanted = {s.strip() for s in args.only.split(",") if s.strip()}
        histories = [h for h in histories if h["id"] in wanted]
    progress(f"bench.walk: {len(histories)} histories from {args.data.name}")
    with ProcessPoolExecutor(max_workers=max(1, args.workers)) as pool:
        futures = [pool.submit(run_one, h, background, args.noise, args.extra, args.show)
                   for h in histories]
        rows = [f.result() for f in futures]
    out = {"walk": args.data.stem, "noise": args.noise, "extra": args.extra,
           "summary": summarise(rows)}
    if args.show:
        for h, r in zip(histories, rows):
            mark = "OK " if r["ok"] else "STALE" if r["stale"] else "lead" if r["leads"] else "miss"
            print(f"== {r['id']} [{r['kind']}/{r['lang']}] {mark} {r['status']}: "
                  f"{h['question']}  (current: {h['current']!r})")
            for s in r.get("shown", []):
                print(f"   {'OUT ' if s['outdated'] else '    '}{s['text']}")
    if args.json:
        args.json.write_text(json.dumps({**out, "rows": rows}, indent=1), encoding="utf-8")
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
