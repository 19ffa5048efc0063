"""``ihmt doctor``'s checks of an installation: the store, that the server starts and lists
its tools, the agents' registrations and hooks, and its report in a few lines."""

from __future__ import annotations

import os
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ..doctor import check_store
from ..store.store import resolve_store_path
from ..text import count
from .install_agents import MODULE, _home, _python
from .install_plan import find_memory_home, registered

# The tools a complete server lists (memory tools, then the project tools).
EXPECTED_TOOLS = ("search_memory", "save_memory", "mark_outdated", "find_code", "project_map",
                  "read_file", "note", "recall", "digest_output")


def doctor(memory_path: str | os.PathLike[str] | None = None, *, home: Path | None = None,
           timeout: float = 30.0, check_server: bool = True) -> dict[str, Any]:
    """Check the store, that the server starts and lists its tools, and who registered it."""
    home = _home(home)
    if memory_path is None:
        memory_path = doctor_target(home)
    store = check_store(memory_path)
    report: dict[str, Any] = {"memory": str(memory_path), "store": store}
    if check_server:
        report["server"] = check_server_starts(memory_path, timeout=timeout)
    spath = resolve_store_path(memory_path)
    regs = registered(home, Path.cwd())
    report["agents"] = [
        {**asdict(r), "same_memory": bool(r.memory_home)
         and resolve_store_path(r.memory_home or "") == spath}
        for r in regs
    ]
    report["hooks"] = _doctor_hooks(memory_path, home, check_server)
    report["ok"] = (bool(store.get("ok")) and (not check_server or report["server"]["ok"])
                    and not any(a["problem"] for a in report["agents"]))
    return report


def _doctor_hooks(memory_path: str | os.PathLike[str], home: Path,
                  dry_call: bool) -> dict[str, Any]:
    """Which agents have IHMT's hooks, and one dry prompt-submit call with its latency."""
    from . import install_hooks as ih

    found = ih.installed(home, Path.cwd())
    out: dict[str, Any] = {"installed": found}
    if dry_call:
        out["call"] = ih.dry_call(memory_path)
    return out


def doctor_target(home: Path | None = None) -> Path:
    """The memory ``doctor`` checks without --path: $IHMT_HOME, as every other command and
    the server use, else the one the agents were registered with, else ~/.ihmt."""
    env = os.environ.get("IHMT_HOME")
    if env:
        return Path(env).expanduser().absolute()
    return find_memory_home("claude-code", home=_home(home))[0]


def check_server_starts(memory_path: str | os.PathLike[str], *, timeout: float = 30.0,
                        python: str | None = None) -> dict[str, Any]:
    """Spawn ``python -m ihmt.faces.mcp`` as an agent would and list its tools."""
    import tempfile

    import anyio

    out: dict[str, Any] = {"ok": False, "tools": [], "missing": [], "seconds": None,
                           "error": None}

    async def probe() -> None:
        from mcp import ClientSession, StdioServerParameters
        from mcp.client.stdio import stdio_client

        params = StdioServerParameters(command=python or _python(), args=["-m", MODULE],
                                       env={"IHMT_HOME": str(memory_path)})
        with anyio.fail_after(timeout):
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    listed = await session.list_tools()
        out["tools"] = [t.name for t in listed.tools]

    start = time.monotonic()
    # The server's stderr is kept aside: on failure its last lines say why.
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errlog:
        try:
            anyio.run(probe)
        except TimeoutError:
            out["error"] = f"the server did not answer within {timeout:.0f} s"
        except Exception as exc:  # noqa: BLE001 - any failure to start is the finding itself
            out["error"] = f"the server could not be started: {exc}"
        if out["error"]:
            errlog.seek(0)
            tail = errlog.read()[-600:].strip()
            if tail:
                out["error"] += f"; its last output: {tail}"
    out["seconds"] = round(time.monotonic() - start, 2)
    out["missing"] = [t for t in EXPECTED_TOOLS if t not in out["tools"]]
    out["ok"] = out["error"] is None and not out["missing"]
    return out


def _hook_lines(hooks: dict[str, Any]) -> list[str]:
    out = []
    for h in hooks.get("installed", []):
        state = h["problem"] or ", ".join(h["events"])
        out.append(f"hooks   {h['agent']} ({h['scope']}): {state} [{h['config']}]")
    if not hooks.get("installed"):
        out.append("hooks   none installed ('ihmt install claude-code' adds them)")
    call = hooks.get("call")
    if call:
        if call["error"]:
            out.append(f"hooks   dry call FAILED: {call['error']}")
        else:
            r = call["result"] or {}
            said = "would inject" if r.get("injected") else f"silent ({r.get('reason')})"
            out.append(f"hooks   dry call answers in {call['seconds']} s: {said}")
    return out


def doctor_lines(report: dict[str, Any]) -> list[str]:
    """A short human reading of :func:`doctor`'s report."""
    store = report["store"]
    stats = store.get("stats", {})
    out = [f"memory  {store['path']}: " + ("ok" if store.get("ok") else "PROBLEMS")
           + (f" ({count(stats.get('leaves', 0), 'memory', 'memories')}, "
              f"{count(stats.get('branches', 0), 'branch', 'branches')}, "
              f"depth {stats.get('depth', 0)})" if "leaves" in stats else "")]
    out += [f"  - {p}" for p in store.get("problems", [])]
    if store.get("interrupted_write"):
        out.append("  - a write is under way or was interrupted; the next save completes it")
    if store.get("sync"):
        from ..sync.report import status_lines

        out.extend(ln for i, ln in enumerate(status_lines(store["sync"]))
                   if i < 2 or ln.startswith("  - "))
    sem = store.get("semantic")
    if sem:
        extra = (f" ({sem.get('vectors', 0)} vectors)" if sem.get("on") else "")
        out.append(f"search  {sem['message']}{extra}")
        out += [f"  - {n}" for n in sem.get("notes", [])]
    server = report.get("server")
    if server:
        if server["error"]:
            out.append(f"server  FAILED: {server['error']}")
        else:
            out.append(f"server  starts in {server['seconds']} s, {len(server['tools'])} tools"
                       + (f"; missing: {', '.join(server['missing'])}" if server["missing"]
                          else ""))
    out += _hook_lines(report.get("hooks") or {})
    agents = report.get("agents", [])
    if not agents:
        out.append("agents  none has ihmt-memory registered: run 'ihmt install <agent>'")
    for a in agents:
        state = (f"PROBLEM: {a['problem']}" if a["problem"] else "same memory"
                 if a["same_memory"] else f"other memory {a['memory_home']}")
        other = "" if a["this_install"] or a["problem"] else "; launches another installation"
        if a.get("portable") and not a["problem"]:
            other = "; portable ('ihmt' through PATH" + (")" if a["this_install"] else
                                                          ", which is another installation)")
        out.append(f"agent   {a['agent']} ({a['scope']}): {state}{other} [{a['config']}]")
    return out
