"""``ihmt hook session-start|prompt-submit``: the command an agent runs on its own hooks.

The agent (Claude Code, Codex) starts it as a fresh process for each event, writes the
event's JSON payload on stdin and adds what it prints to the model's context. So it:

* imports only what a search needs (no MCP SDK, no web server, no progress bars, none of
  the write side: :mod:`ihmt.faces.cli` hands it over before importing the commands);
* reads the top of the tree from the packed copies of :mod:`ihmt.store.branch_cache`, and
  writes the copies it lacked after printing its answer, under a time limit of its own;
* prints the documented hook output, ``{"hookSpecificOutput": {"hookEventName": ...,
  "additionalContext": ...}}``, or nothing at all when memory has nothing worth saying
  (``--plain`` prints the bare text instead, for agents that read stdout as is);
* fails safe: a missing or damaged store, a lock held too long, its own time limit
  (``IHMT_HOOK_TIMEOUT`` seconds, default 2) or any error print nothing and exit 0, so the
  agent is never blocked; what went wrong goes to ``state/hook.log`` in the memory folder.

``IHMT_HOOKS=off`` silences both hooks without uninstalling them.

The hooks search lexically even where the semantic extra is installed: loading the encoder
and embedding the prompt made a call take 0.9 s (p50 at 500 memories, lexical 0.19 s) and
1.5 s at 5,000 (BENCHMARKS.md, a busy machine), too slow for every prompt, and the
confidence gate was measured on the lexical search.
``IHMT_HOOK_SEMANTIC=on`` lets the hooks use semantic search anyway.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any, TextIO

EVENTS = {"session-start": "SessionStart", "prompt-submit": "UserPromptSubmit"}
DEFAULT_TIMEOUT_S = 2.0
MAX_PAYLOAD = 1_000_000  # bytes of stdin read; a prompt longer than this is not a question
LOG_NAME = "hook.log"
LOG_MAX_BYTES = 1_000_000  # the log is moved to hook.log.1 beyond this

log = logging.getLogger("ihmt.hook")


class HookTimeout(BaseException):
    """The hook's own time limit passed (a BaseException: no library handler swallows it)."""


def parser() -> Any:
    """The hook's command line (argparse, imported here: see :func:`parse_args`)."""
    import argparse

    p = argparse.ArgumentParser(
        prog="ihmt hook", description="Run as an agent hook: read the hook's JSON payload on "
        "stdin, print memory worth adding to the context, or nothing. Never fails: errors "
        "go to state/hook.log in the memory folder.")
    p.add_argument("event", choices=sorted(EVENTS), help="session-start: a digest of "
                   "decisions and preferences; prompt-submit: a confident answer to the prompt")
    p.add_argument("--plain", action="store_true", help="print the bare text, not the "
                   "hookSpecificOutput JSON")
    p.add_argument("--explain", action="store_true", help="print why it injected or stayed "
                   "quiet, as JSON (for checking; not for agents)")
    p.add_argument("--timeout", type=float, default=None,
                   help=f"seconds before giving up silently (default {DEFAULT_TIMEOUT_S:g}, "
                   "or $IHMT_HOOK_TIMEOUT)")
    return p


def parse_args(argv: list[str]) -> Any:
    """The arguments of a hook call. The forms an agent runs (``EVENT`` with ``--plain`` or
    ``--explain``) are read directly; anything else (``--timeout``, ``--help``, a mistake)
    goes through :func:`parser`: argparse and its help formatter (which imports shutil, bz2
    and lzma) cost a fresh hook process a few milliseconds."""
    if argv and argv[0] in EVENTS and set(argv[1:]) <= {"--plain", "--explain"}:
        return SimpleNamespace(event=argv[0], plain="--plain" in argv,
                               explain="--explain" in argv, timeout=None)
    return parser().parse_args(argv)


def main_hook(argv: list[str], path: str | None, stdin: TextIO | None = None,
              stdout: TextIO | None = None) -> int:
    """Run one hook call. Returns 0 whatever happens, except for a wrong command line."""
    args = parse_args(argv)
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    if os.environ.get("IHMT_HOOKS", "").lower() in ("0", "off", "no", "false"):
        return 0
    store = _store_path(path)
    _quiet_logging(store)
    timeout = _timeout(args.timeout)
    started = time.monotonic()
    opened: list[Any] = []  # the store, once open: its branch cache is written last
    try:
        with _time_limit(timeout, store):
            payload = _payload(stdin)
            text, info = _run(args.event, payload, store, opened)
    except BaseException as exc:  # noqa: BLE001 - the hook must never fail the agent
        if isinstance(exc, KeyboardInterrupt):
            return 0
        what = "timed out" if isinstance(exc, HookTimeout) else f"{type(exc).__name__}: {exc}"
        log.error("%s after %.2f s: %s", args.event, time.monotonic() - started, what)
        _write_cache(opened, timeout, store)  # so that the next call is faster
        return 0
    if args.explain:
        stdout.write(json.dumps({**info, "seconds": round(time.monotonic() - started, 4)},
                                ensure_ascii=False) + "\n")
    elif text:
        stdout.write(_output(args.event, text, args.plain, info.get("masked", False)))
    stdout.flush()
    _write_cache(opened, timeout, store)
    return 0


def _write_cache(opened: list[Any], timeout: float, store: Path) -> None:
    """Write the packed branch copies this call made (ihmt.store.branch_cache) after the
    answer, under a time limit of their own: a store's first call after its top branches
    changed parses them, and must not also spend its own limit packing them."""
    try:
        with _time_limit(timeout, store):
            for s in opened:
                s.write_deferred_cache()
            if opened:
                from .. import regex_cache

                regex_cache.save(_regex_file(store))
    except BaseException as exc:  # noqa: BLE001 - a cache not written is only slower
        log.warning("branch cache not written: %s", type(exc).__name__)


def _regex_file(store: Path) -> Path:
    """The patterns the last searches compiled (:mod:`ihmt.regex_cache`)."""
    return store / "state" / "cache" / "regex.bin"


def _lexical_only() -> None:
    """Keep the hook off the semantic encoder unless IHMT_HOOK_SEMANTIC asks for it."""
    if os.environ.get("IHMT_HOOK_SEMANTIC", "").strip().lower() not in ("on", "1", "yes",
                                                                       "true", "auto"):
        os.environ["IHMT_SEMANTIC"] = "off"


def _run(event: str, payload: dict[str, Any], store: Path,
         opened: list[Any]) -> tuple[str, dict[str, Any]]:
    _lexical_only()
    from ..scope import project_from_env

    if not (store / "root.json").exists() and not (store / "layer_0").exists():
        return "", {"injected": False, "reason": f"no memory at {store}"}
    cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else None
    project = project_from_env(cwd)  # the session's repository
    key = ""
    if event == "session-start":  # an unchanged store gives the digest it gave last time
        from . import digest_cache

        key = digest_cache.stamp(store, project, Path(cwd).name if cwd else "")
        kept = digest_cache.read(store, key)
        if kept is not None:
            return kept, {"injected": bool(kept), "reason": "digest, kept from an unchanged "
                          "store" if kept else "nothing on record qualifies", "text": kept,
                          "masked": True}
    from .. import regex_cache

    regex_cache.load(_regex_file(store))  # before the library compiles its patterns
    from ..memory import Memory  # imported here so that --help and IHMT_HOOKS=off stay light
    from ..recall import describe

    mem = Memory.open(store, project=project)
    mem.store.defer_branch_cache = True
    opened.append(mem.store)
    opened.append(mem.timeline)  # its packed copy too (ihmt.timeline.snapshot)
    try:
        if event == "session-start":
            from ..render import for_reader  # what goes into the model's context: masked

            text = mem.session_digest(cwd=cwd)
            text = for_reader(text) if text else ""
            digest_cache.write(store, key, text)
            return text, {"injected": bool(text), "reason": "digest" if text
                          else "nothing on record qualifies", "text": text, "masked": True}
        prompt = payload.get("prompt")
        if not isinstance(prompt, str) or not prompt.strip():
            return "", {"injected": False, "reason": "the payload has no prompt"}
        inj = mem.recall_for_prompt(prompt)
        return inj.text, describe(inj)
    finally:
        mem.store.clear_cache()


def _output(event: str, text: str, plain: bool, masked: bool = False) -> str:
    if not masked:
        from ..render import for_reader  # what goes into the model's context: masked

        text = for_reader(text)
    if plain:
        return text + "\n"
    return json.dumps({"hookSpecificOutput": {"hookEventName": EVENTS[event],
                                              "additionalContext": text}},
                      ensure_ascii=False) + "\n"


def _payload(stdin: TextIO) -> dict[str, Any]:
    if stdin.isatty():
        return {}
    raw = stdin.read(MAX_PAYLOAD)
    if not raw.strip():
        return {}
    data = json.loads(raw)
    if not isinstance(data, dict):
        raise ValueError("the hook payload is not a JSON object")
    return data


def _store_path(path: str | None) -> Path:
    from ..store.store import resolve_store_path

    if path:
        return resolve_store_path(Path(path).expanduser())
    home = os.environ.get("IHMT_HOME") or str(Path.home() / ".ihmt")
    return resolve_store_path(Path(home).expanduser())


def _timeout(given: float | None) -> float:
    if given is not None:
        return max(0.05, given)
    try:
        return max(0.05, float(os.environ.get("IHMT_HOOK_TIMEOUT", DEFAULT_TIMEOUT_S)))
    except ValueError:
        return DEFAULT_TIMEOUT_S


def _quiet_logging(store: Path) -> None:
    """Everything the library logs goes to the hook log (created only when written)."""
    root = logging.getLogger()
    for h in list(root.handlers):
        root.removeHandler(h)
    state = store / "state"
    if not state.is_dir():
        root.addHandler(logging.NullHandler())
        return
    target = state / LOG_NAME
    try:
        if target.exists() and target.stat().st_size > LOG_MAX_BYTES:
            os.replace(target, state / (LOG_NAME + ".1"))
    except OSError:
        pass
    handler = _PrivateFileHandler(target, encoding="utf-8", delay=True)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root.addHandler(handler)
    root.setLevel(logging.WARNING)


class _PrivateFileHandler(logging.FileHandler):
    """A log file only its owner can read, like every other file of the store (errors may
    quote what a memory or a prompt said)."""

    def _open(self):  # type: ignore[no-untyped-def]
        fd = os.open(self.baseFilename, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        return open(fd, self.mode, encoding=self.encoding, errors=self.errors)


class _time_limit:
    """Raise HookTimeout in the main thread after ``seconds``; if that cannot happen (a call
    stuck outside Python), a watchdog thread ends the process quietly a second later."""

    def __init__(self, seconds: float, store: Path) -> None:
        self.seconds = seconds
        self.done = threading.Event()
        self.store = store

    def _fire(self, *_: Any) -> None:
        raise HookTimeout()

    def _watch(self) -> None:
        if not self.done.wait(self.seconds + 1.0):
            log.error("stuck past the time limit (%.1f s); exiting", self.seconds)
            logging.shutdown()
            os._exit(0)

    def __enter__(self) -> _time_limit:
        self.alarm = hasattr(signal, "setitimer") and \
            threading.current_thread() is threading.main_thread()
        if self.alarm:
            signal.signal(signal.SIGALRM, self._fire)
            signal.setitimer(signal.ITIMER_REAL, self.seconds)
        threading.Thread(target=self._watch, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
        self.done.set()


if __name__ == "__main__":  # pragma: no cover - python -m ihmt.faces.hook EVENT
    sys.exit(main_hook(sys.argv[1:], None))
