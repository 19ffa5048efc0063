"""The agent hooks in the agents' own configuration: planning, finding, one dry call.

Claude Code reads hooks from its settings files (``~/.claude/settings.json``, or
``<project>/.claude/settings.json``); Codex from ``hooks.json`` next to its config
(``~/.codex/hooks.json``, ``<project>/.codex/hooks.json``). Both use the same layout::

    {"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "...",
                                            "timeout": 10}]}],
               "UserPromptSubmit": [...]}}

IHMT adds one group per event whose command runs ``<python> -m ihmt.faces.cli --path
<memory> hook <event>`` (portable: ``ihmt hook <event>``); it recognises its own handlers by that command, so other hooks in
the file are left as they are, and uninstall removes only its own. opencode has no command
hooks (its extensions are JavaScript plugins), so nothing is written for it.

The functions here compute text; :mod:`ihmt.faces.install_plan` plans, backs up and writes.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from ..errors import IHMTError

HOOK_AGENTS = ("claude-code", "codex")
EVENTS = {"SessionStart": "session-start", "UserPromptSubmit": "prompt-submit"}
TIMEOUT_S = 10  # the agent's limit; the hook gives up by itself after 2 s
_OURS = re.compile(r"ihmt(?:\.faces\.cli)?\b.*\bhook\s+(?:session-start|prompt-submit)\b")
SAMPLE_PROMPT = "what did we decide about the database?"


class HookConfigError(IHMTError):
    """A hooks file cannot be edited safely; the message says what to fix."""


def hooks_path(agent: str, scope: str, home: Path, project: Path) -> Path:
    base = home if scope == "user" else project
    if agent == "claude-code":
        return base / ".claude" / "settings.json"
    if agent == "codex":
        return base / ".codex" / "hooks.json"
    raise HookConfigError(f"{agent} has no command hooks IHMT can register")


def hook_command(python: str | None, memory_home: str | None, event: str) -> str:
    """The shell command the agent runs for ``event`` (session-start | prompt-submit).

    ``python`` None: the portable form, ``ihmt`` found through PATH; ``memory_home`` None:
    no ``--path``, so the hook opens ``$IHMT_HOME`` (else ``~/.ihmt``) as the server does.
    """
    head = ["ihmt"] if python is None else [python, "-m", "ihmt.faces.cli"]
    where = [] if memory_home is None else ["--path", memory_home]
    return shlex.join([*head, *where, "hook", event])


def is_ours(handler: Any) -> bool:
    return isinstance(handler, dict) and bool(_OURS.search(str(handler.get("command", ""))))


def _load(text: str | None, path: Path) -> dict[str, Any]:
    if text is None or not text.strip():
        return {}
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise HookConfigError(f"{path} is not plain JSON ({exc}); fix it, or install with "
                              "--no-hooks and add the hooks by hand") from exc
    if not isinstance(data, dict):
        raise HookConfigError(f"{path} does not hold a JSON object; fix it by hand")
    hooks = data.get("hooks")
    if hooks is not None and not isinstance(hooks, dict):
        raise HookConfigError(f"{path}: 'hooks' is not an object; fix it by hand")
    for event in EVENTS:
        groups = (hooks or {}).get(event)
        if groups is not None and not isinstance(groups, list):
            raise HookConfigError(f"{path}: hooks.{event} is not a list; fix it by hand")
    return data


def dump_json(data: dict[str, Any], like: str | None) -> str:
    """JSON in the file's own indentation (2 spaces unless it used something else); also
    used by :mod:`ihmt.faces.install_plan` for the MCP entries."""
    indent: int | str = 2
    if like:
        m = re.search(r"\n([ \t]+)\S", like)
        if m:
            indent = m.group(1) if "\t" in m.group(1) else len(m.group(1))
    return json.dumps(data, indent=indent, ensure_ascii=False) + "\n"


def _strip_ours(data: dict[str, Any]) -> None:
    """Remove IHMT's handlers (and the groups and events they leave empty) in place."""
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        return
    for event in EVENTS:
        groups = hooks.get(event)
        if not isinstance(groups, list):
            continue
        kept = []
        for g in groups:
            if isinstance(g, dict) and isinstance(g.get("hooks"), list):
                handlers = [h for h in g["hooks"] if not is_ours(h)]
                if not handlers and len(handlers) != len(g["hooks"]):
                    continue  # the group held only ours
                g = {**g, "hooks": handlers}
            kept.append(g)
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    if not hooks:
        del data["hooks"]


def snippet(python: str | None, memory_home: str | None) -> str:
    """The hooks block to paste into a settings file (Claude Code, Codex, or another agent
    with the same hook layout)."""
    return with_hooks(None, Path("settings.json"), python, memory_home)


def with_hooks(old: str | None, path: Path, python: str | None,
               memory_home: str | None) -> str:
    """``old`` (the file's text, None when absent) with IHMT's two hooks, others untouched."""
    data = _load(old, path)
    desired = {event: {"type": "command", "command": hook_command(python, memory_home, arg),
                       "timeout": TIMEOUT_S} for event, arg in EVENTS.items()}
    current = data.get("hooks") or {}
    mine = {event: [h for g in current.get(event, []) if isinstance(g, dict)
                    for h in g.get("hooks", []) if is_ours(h)] for event in EVENTS}
    if all(mine[e] == [desired[e]] for e in EVENTS) and old is not None:
        return old  # already in place: leave the file byte for byte
    _strip_ours(data)
    hooks = data.setdefault("hooks", {})
    for event, handler in desired.items():
        hooks.setdefault(event, []).append({"hooks": [handler]})
    return dump_json(data, old)


def without_hooks(old: str | None, path: Path) -> str | None:
    """``old`` without IHMT's hooks; None when nothing else is left (the file goes)."""
    if old is None:
        return None
    data = _load(old, path)
    before = json.dumps(data, sort_keys=True)
    _strip_ours(data)
    if json.dumps(data, sort_keys=True) == before:
        return old
    return dump_json(data, old) if data else None


def installed(home: Path, project: Path | None) -> list[dict[str, Any]]:
    """IHMT's hooks found in the agents' files: agent, scope, file, events, command."""
    out: list[dict[str, Any]] = []
    for agent in HOOK_AGENTS:
        for scope in ("user",) + (("project",) if project is not None else ()):
            path = hooks_path(agent, scope, home, project or Path.cwd())
            if not path.is_file():
                continue
            try:
                data = _load(path.read_text(encoding="utf-8"), path)
            except (OSError, UnicodeDecodeError, HookConfigError) as exc:
                out.append({"agent": agent, "scope": scope, "config": str(path), "events": [],
                            "problem": str(exc)})
                continue
            events = {e: h.get("command") for e in EVENTS
                      for g in (data.get("hooks") or {}).get(e, []) if isinstance(g, dict)
                      for h in g.get("hooks", []) if is_ours(h)}
            if events:
                out.append({"agent": agent, "scope": scope, "config": str(path),
                            "events": sorted(events), "command": next(iter(events.values())),
                            "problem": None})
    return out


def dry_call(memory_path: str | os.PathLike[str], *, python: str | None = None,
             timeout: float = 30.0) -> dict[str, Any]:
    """Run the prompt-submit hook once as an agent would (with ``--explain``) and time it."""
    cmd = [python or sys.executable, "-m", "ihmt.faces.cli", "--path", str(memory_path),
           "hook", "prompt-submit", "--explain"]
    payload = {"session_id": "ihmt-doctor", "hook_event_name": "UserPromptSubmit",
               "cwd": str(Path.cwd()), "prompt": SAMPLE_PROMPT}
    out: dict[str, Any] = {"ok": False, "seconds": None, "prompt": SAMPLE_PROMPT,
                           "result": None, "error": None}
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, input=json.dumps(payload), capture_output=True, text=True,
                              timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as exc:
        out["error"] = f"the hook could not run: {exc}"
        return out
    out["seconds"] = round(time.perf_counter() - t0, 3)
    try:
        out["result"] = json.loads(proc.stdout) if proc.stdout.strip() else None
    except ValueError:
        out["error"] = f"unexpected output: {proc.stdout[:200]!r}"
        return out
    if proc.returncode != 0:
        out["error"] = f"exit status {proc.returncode}: {proc.stderr.strip()[-300:]}"
    elif out["result"] is None:
        out["error"] = "the hook printed nothing (see state/hook.log in the memory folder)"
    out["ok"] = out["error"] is None
    return out
