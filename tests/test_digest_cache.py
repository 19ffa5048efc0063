"""The session-start digest kept for an unchanged store (ihmt.faces.digest_cache), driven
as the agent runs the hook: a subprocess with the documented payload."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from ihmt import Memory

from . import test_hooks
from .test_hooks import PY, context_of, run_hook, start_payload

CACHE = Path("state") / "cache" / "digest.json"
store = test_hooks.store  # the same store fixture: a few dated decisions and notes


def _explain(store: Path, cwd: str = "/home/dev/billing") -> dict:
    proc = run_hook(store, "session-start", start_payload(cwd), "--explain")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_an_unchanged_store_gives_the_kept_digest_without_searching(store: Path) -> None:
    first = run_hook(store, "session-start", start_payload())
    assert "Postgres for billing" in context_of(first, "SessionStart")
    assert (store / CACHE).is_file()
    assert _explain(store)["reason"] == "digest, kept from an unchanged store"
    again = run_hook(store, "session-start", start_payload())
    assert again.stdout == first.stdout
    # a kept digest needs neither the facade nor the search
    code = ("import io, sys, json\n"
            "from ihmt.faces.cli import main\n"
            f"sys.stdin = io.StringIO(json.dumps({start_payload()!r}))\n"
            f"main(['--path', {str(store)!r}, 'hook', 'session-start'])\n"
            "print('LOADED', sorted({'ihmt.memory', 'ihmt.search.query'} & set(sys.modules)))\n")
    proc = subprocess.run([PY, "-c", code], capture_output=True, text=True, timeout=60)
    assert "Postgres for billing" in proc.stdout and "LOADED []" in proc.stdout, proc.stderr


def test_a_save_a_forget_or_another_folder_makes_it_again(store: Path) -> None:
    run_hook(store, "session-start", start_payload())
    with Memory.open(store) as m:
        report = m.save("We decided to keep invoices for ten years, the law asks for it.",
                        date="2026-03-06")
    info = _explain(store)
    assert info["reason"] == "digest" and "ten years" in info["text"]
    with Memory.open(store) as m:
        m.forget(report.ids)
    info = _explain(store)
    assert info["reason"] == "digest" and "ten years" not in info["text"]
    assert _explain(store, "/home/dev/other")["reason"] == "digest"  # its own entry
    assert _explain(store)["reason"] == "digest, kept from an unchanged store"


def test_a_damaged_kept_digest_is_a_miss_and_is_replaced(store: Path) -> None:
    run_hook(store, "session-start", start_payload())
    for junk in ("{not json", "[1, 2]", json.dumps({"x": {"text": 3}})):
        (store / CACHE).write_text(junk, encoding="utf-8")
        out = run_hook(store, "session-start", start_payload())
        assert "Postgres for billing" in context_of(out, "SessionStart")
        assert _explain(store)["reason"] == "digest, kept from an unchanged store"
    (store / CACHE).unlink()
    (store / CACHE).mkdir()  # a folder where the file goes: still answers
    out = run_hook(store, "session-start", start_payload())
    assert "Postgres for billing" in context_of(out, "SessionStart")
