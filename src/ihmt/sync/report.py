"""The compact text of ``ihmt sync``: status, a sync's outcome, the history."""

from __future__ import annotations

from typing import Any

from ..text import count


def status_lines(st: dict[str, Any]) -> list[str]:
    if not st.get("enabled"):
        return ["sync    off (not under git): 'ihmt sync init [--remote URL]' turns it on"]
    remote = f"{st['remote']} {st.get('url') or ''}".strip() if st.get("remote") else \
        "no remote (local history only)"
    pos = ""
    if st.get("remote") and st.get("ahead") is not None:
        pos = f", {st['ahead']} ahead / {st['behind']} behind"
    last = st.get("last_sync") or {}
    lines = [f"sync    {st.get('branch', '?')} at {st.get('head') or 'no commit'}, "
             f"{count(st.get('commits', 0), 'commit', 'commits')}{pos}",
             f"remote  {remote}",
             f"last    {last.get('at', 'never synced')}"
             + (f", {count(st['uncommitted'], 'uncommitted change', 'uncommitted changes')}"
                if st.get("uncommitted") else "")]
    if st.get("interrupted"):
        lines.append("  - a sync was interrupted: 'ihmt sync' finishes it")
    if st.get("error"):
        lines.append(f"  - {st['error']}")
    return lines


def sync_lines(rep: dict[str, Any]) -> list[str]:
    lines = [f"recovered: {n}" for n in rep.get("recovered", [])]
    how = ("fast-forward" if rep.get("fast_forward") else "merged") if rep.get("merged") \
        else "nothing to merge"
    lines.append(f"synced with {rep.get('remote')}/{rep.get('branch')}: {how}, "
                 f"{count(rep.get('new_memories', 0), 'new memory', 'new memories')}, "
                 + ("pushed" if rep.get("pushed") else "not pushed")
                 + f" (now at {rep.get('head')}, {rep.get('ahead', 0)} ahead / "
                 f"{rep.get('behind', 0)} behind)")
    lines += [f"kept both: {c}" if "kept both" in c else f"conflict: {c}"
              for c in rep.get("conflicts", [])]
    return lines


def history_lines(rows: list[dict[str, Any]]) -> list[str]:
    if not rows:
        return ["no commits in that period"]
    return [f"{r['date'][:16].replace('T', ' ')}  {r['commit']}  {r['subject']}" for r in rows]
