"""``ihmt forget``: remove memories for good, after showing what goes.

At a terminal it asks before removing anything; elsewhere (an agent, a script) it removes
only with ``--yes``. ``--query`` lists the memories that match, to choose from by number at
a terminal, or to copy the ids from. ``--purge-history`` also rewrites the memory folder's
own git history (see :mod:`ihmt.sync.purge`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from ..errors import InputError, NotFoundError
from ..memory import Memory
from ..text import clip, clip_shown, count

Add = Callable[[str, str], argparse.ArgumentParser]


def add_parser(cmd: Add) -> None:
    s = cmd("forget", "remove memories for good (asks first; --yes in scripts)")
    s.add_argument("ids", nargs="*", metavar="ID", help="ids of the memories to remove")
    s.add_argument("--query", "-q", help="list the memories matching these words, to choose "
                                         "from (by number at a terminal)")
    s.add_argument("--yes", "-y", action="store_true",
                   help="remove without asking (needed when not at a terminal)")
    s.add_argument("--purge-history", action="store_true",
                   help="also rewrite the memory folder's git history without them (ids "
                        "already forgotten are accepted)")


def _ask(prompt: str) -> str:
    try:
        return input(prompt).strip()
    except EOFError:
        return ""


def run(args: argparse.Namespace, mem: Memory, out: Callable[..., None]) -> int:
    at_terminal = sys.stdin.isatty() and not args.json
    ids: list[str] = list(dict.fromkeys(args.ids))
    if args.query:
        hits = [h for h in mem.search(args.query, top_k=10).hits]
        if not hits:
            out(args, {"candidates": []}, f"no memory matches {clip(args.query, 60)!r}")
            return 0
        listing = [f"{n}. {h.id}  {h.date or 'undated'}  {clip_shown(h.text, 90)}"
                   for n, h in enumerate(hits, 1)]
        if not at_terminal or ids:
            if not ids:
                out(args, {"candidates": [{"id": h.id, "date": h.date,
                                           "text": clip_shown(h.text, 200)} for h in hits]},
                    "\n".join(["memories matching the query (nothing removed yet):", *listing,
                               "forget one with: ihmt forget ID --yes"]))
                return 0
        else:
            print("\n".join(listing))
            picked = _ask("numbers to forget (e.g. 1,3; empty to stop)> ")
            try:
                nums = [int(x) for x in picked.replace(",", " ").split()]
            except ValueError as exc:
                raise InputError(f"{picked!r}: give numbers from the list") from exc
            if any(not 1 <= k <= len(hits) for k in nums):
                raise InputError(f"choose numbers from 1 to {len(hits)}")
            ids = [hits[k - 1].id for k in nums]
            if not ids:
                print("nothing forgotten")
                return 0
    if not ids:
        raise InputError("name the memories to forget (ihmt forget ID...) or find them with "
                         "--query WORDS")
    present, absent = [], []
    for i in ids:
        (present if mem.store.leaf_exists(i) else absent).append(i)
    if absent and not args.purge_history:
        raise NotFoundError(f"no memory with id {absent[0]}"
                            + (f" (and {count(len(absent) - 1, 'other')})" if len(absent) > 1
                               else "") + "; nothing was removed")
    shown = [f"  {i}  {clip_shown(mem.get(i).text, 90)}" for i in present]
    if present and not args.yes:
        if not at_terminal:
            raise InputError("forgetting cannot be undone: pass --yes to confirm (not at a "
                             "terminal, so nobody can be asked)")
        print("\n".join([f"will remove {count(len(present), 'memory', 'memories')}:", *shown]))
        if _ask("forget for good? [y/N] ").lower() not in ("y", "yes"):
            print("nothing forgotten")
            return 0
    data: dict = {"forgotten": [], "history": None}
    lines: list[str] = []
    if present:
        rep = mem.forget(present)
        data.update(rep.as_dict())
        lines.append(f"forgot {count(len(rep.ids), 'memory', 'memories')}: {', '.join(rep.ids)}")
        if rep.facts_removed:
            lines.append(f"the timeline dropped {count(rep.facts_removed, 'fact')} they stated")
        lines += [f"current again: {i}" for i in rep.current_again]
        lines += [f"warning: {w}" for w in rep.warnings]
        if (mem.path / ".git").is_dir() and not args.purge_history:
            lines.append("git history still holds them: 'ihmt forget ID --purge-history "
                         "--yes' rewrites it")
    if args.purge_history:
        from ..sync.purge import purge_history

        with mem.store.lock.hold():
            hist = purge_history(mem.path, ids)
        data["history"] = hist
        if hist["rewritten"]:
            lines.append(f"git history rewritten without {count(len(hist['ids']), 'memory', 'memories')}")
        else:
            lines.append("git history holds none of them: nothing to rewrite")
        lines += [f"not reached: {n}" for n in hist["not_reached"]]
    out(args, data, "\n".join(lines))
    return 0
