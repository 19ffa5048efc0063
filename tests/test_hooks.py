"""The agent hooks (``ihmt hook``), driven as the agent drives them: a fresh process per
event, the documented Claude Code payload on stdin, the documented output on stdout."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ihmt import Memory
from ihmt.recall import is_recall_prompt
from ihmt.text import count_tokens

PY = sys.executable


def run_hook(store: Path, event: str, payload: object, *extra: str,
             env: dict[str, str] | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    raw = payload if isinstance(payload, str) else json.dumps(payload)
    return subprocess.run([PY, "-m", "ihmt.faces.cli", "--path", str(store), "hook", event,
                           *extra], input=raw, capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})})


def prompt_payload(prompt: str, cwd: str = "/home/dev/billing") -> dict:
    return {"session_id": "abc123", "transcript_path": "/tmp/t.jsonl", "cwd": cwd,
            "permission_mode": "default", "hook_event_name": "UserPromptSubmit",
            "prompt": prompt}


def start_payload(cwd: str = "/home/dev/billing") -> dict:
    return {"session_id": "abc123", "transcript_path": "/tmp/t.jsonl", "cwd": cwd,
            "hook_event_name": "SessionStart", "source": "startup"}


@pytest.fixture
def store(tmp_path: Path) -> Path:
    path = tmp_path / "ihmt_memory"
    with Memory.open(path, create=True) as m:
        m.save("We decided to use Postgres for billing because we need transactions.",
               date="2026-03-01")
        m.save("The staging server runs on port 8443 behind nginx.", date="2026-03-02")
        m.save("I prefer tabs over spaces in Go code; never use spaces.", date="2026-03-03")
        m.save("The cat's name is Miso.", date="2026-03-04")
        m.save("The dog's name is Miso too.", date="2026-03-05")
    return path


def context_of(proc: subprocess.CompletedProcess, event: str) -> str:
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    out = data["hookSpecificOutput"]
    assert out["hookEventName"] == event
    return out["additionalContext"]


def test_prompt_submit_injects_a_confident_answer_with_date_and_id(store: Path) -> None:
    proc = run_hook(store, "prompt-submit", prompt_payload("what port does staging run on?"))
    text = context_of(proc, "UserPromptSubmit")
    assert "8443" in text and "2026-03-02" in text
    with Memory.open(store) as m:
        best = m.search("staging server port").best
    assert best is not None and f"id {best.id}" in text
    assert count_tokens(text) <= 300
    assert proc.stderr == ""


@pytest.mark.parametrize("prompt", [
    "add a test for the parser",  # an instruction, not a question about the past
    "why does this import fail?",  # about the code at hand
    "what is the capital of Mongolia?",  # a question no memory answers: NOT FOUND
    "what is the name of the pet?",  # two memories fit equally: AMBIGUOUS
])
def test_prompt_submit_stays_silent(store: Path, prompt: str) -> None:
    proc = run_hook(store, "prompt-submit", prompt_payload(prompt))
    assert proc.returncode == 0 and proc.stdout == "" and proc.stderr == ""


def test_explain_says_why_it_was_silent(store: Path) -> None:
    proc = run_hook(store, "prompt-submit", prompt_payload("what is the name of the pet?"),
                    "--explain")
    info = json.loads(proc.stdout)
    assert info["injected"] is False and info["status"] in ("AMBIGUOUS", "NOT_FOUND")


def test_outdated_notice_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "ihmt_memory"
    with Memory.open(path, create=True) as m:
        m.save("The staging server runs on port 8443.", date="2026-01-01")
        m.save("The staging server now runs on port 9443.", date="2026-02-01",
               replaces="staging server port 8443")
    proc = run_hook(path, "prompt-submit", prompt_payload("which port does the staging "
                                                          "server run on?"))
    text = context_of(proc, "UserPromptSubmit")
    assert "9443" in text
    with Memory.open(path) as m:
        res = m.search("which port does the staging server run on?")
    if res.hits[0].notices:  # the notice the search attaches is passed on
        assert "OUTDATED" in text


def test_session_start_digest_and_empty_store(store: Path, tmp_path: Path) -> None:
    text = context_of(run_hook(store, "session-start", start_payload()), "SessionStart")
    assert "Postgres" in text and "tabs" in text and "8443" not in text
    assert "2026-03-01" in text and count_tokens(text) <= 300
    empty = tmp_path / "empty" / "ihmt_memory"
    Memory.open(empty, create=True).close()
    proc = run_hook(empty, "session-start", start_payload())
    assert proc.returncode == 0 and proc.stdout == ""


def test_plain_output(store: Path) -> None:
    proc = run_hook(store, "prompt-submit", prompt_payload("what port does staging run on?"),
                    "--plain")
    assert proc.stdout.startswith("From IHMT memory") and "8443" in proc.stdout


def test_hook_imports_nothing_a_search_does_not_need(store: Path) -> None:
    # An answer, and a question the words alone answer badly (where a semantic search
    # would be consulted if the hook used it).
    prompts = [prompt_payload("what port does staging run on?"),
               prompt_payload("which relational engine keeps our invoices consistent?")]
    code = ("import io, sys, json\n"
            "from ihmt.faces.cli import main\n"
            f"for p in {prompts!r}:\n"
            "    sys.stdin = io.StringIO(json.dumps(p))\n"
            f"    main(['--path', {str(store)!r}, 'hook', 'prompt-submit'])\n"
            "heavy = sorted({m.split('.')[0] for m in sys.modules} & {'mcp', 'anyio', 'rich', "
            "'pydantic', 'starlette', 'uvicorn', 'httpx', 'numpy', 'torch', "
            "'sentence_transformers', 'bm25s', 'onnxruntime', 'tokenizers'})\n"
            "print('HEAVY', heavy)\n")
    proc = subprocess.run([PY, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "8443" in proc.stdout
    assert "HEAVY []" in proc.stdout


def test_session_start_leaves_the_version_lexicon_unloaded(store: Path) -> None:
    # The digest asks no question about the user's own state, so the version groups'
    # lexicon (ihmt.search.topic, ~13 ms of a hook process) stays unimported; a question
    # about a current value does load it.
    code = ("import io, sys, json\n"
            "from ihmt.faces.cli import main\n"
            "TOPIC = ('ihmt.search.topic', 'ihmt.search.topic_words')\n"
            f"sys.stdin = io.StringIO(json.dumps({start_payload()!r}))\n"
            f"main(['--path', {str(store)!r}, 'hook', 'session-start'])\n"
            "print('TOPIC', any(m in sys.modules for m in TOPIC))\n"
            f"sys.stdin = io.StringIO(json.dumps({prompt_payload('where do I live now?')!r}))\n"
            f"main(['--path', {str(store)!r}, 'hook', 'prompt-submit'])\n"
            "print('TOPIC', any(m in sys.modules for m in TOPIC))\n")
    proc = subprocess.run([PY, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "From IHMT memory" in proc.stdout
    assert proc.stdout.count("TOPIC False") == 1 and proc.stdout.count("TOPIC True") == 1


def test_a_hook_outside_a_repository_starts_no_process_and_no_argparse(
        store: Path, tmp_path: Path) -> None:
    # What a fresh hook process must not pay for: argparse and its help formatter (shutil,
    # bz2, lzma), a git process (subprocess) when no folder up holds a .git, OpenSSL
    # (hashlib) on a read-only path, the time patterns of a prompt that names no time, and
    # the version groups' lexicon for a prompt that asks nothing of the user's own state.
    work = tmp_path / "work"  # (no digit in its name: a digit may be a date)
    work.mkdir()
    here = str(work)
    code = ("import io, sys, json\n"
            "from ihmt.faces.cli import main\n"
            f"sys.stdin = io.StringIO(json.dumps({start_payload(here)!r}))\n"
            f"main(['--path', {str(store)!r}, 'hook', 'session-start'])\n"
            f"sys.stdin = io.StringIO(json.dumps({prompt_payload('what port does staging run on?', here)!r}))\n"
            f"main(['--path', {str(store)!r}, 'hook', 'prompt-submit'])\n"
            "import ihmt.ingest.dates as d\n"
            "print('LOADED', sorted({'argparse', 'shutil', 'subprocess', 'hashlib',"
            " 'ihmt.search.topic', 'ihmt.search.topic_words'} & set(sys.modules)))\n"
            "print('TIME', sum(e.rx._rx is not None for e in d._ALL))\n")
    proc = subprocess.run([PY, "-c", code], capture_output=True, text=True, timeout=60,
                          cwd=here)
    assert proc.returncode == 0, proc.stderr
    assert "From IHMT memory" in proc.stdout and "8443" in proc.stdout
    assert "LOADED []" in proc.stdout
    assert "TIME 0" in proc.stdout


# ---------------------------------------------------------------------- fail safe
def log_text(store: Path) -> str:
    p = store / "state" / "hook.log"
    return p.read_text() if p.exists() else ""


def test_garbage_payload_is_silent_and_logged(store: Path) -> None:
    proc = run_hook(store, "prompt-submit", "{not json")
    assert proc.returncode == 0 and proc.stdout == "" and proc.stderr == ""
    assert "JSONDecodeError" in log_text(store)
    assert (store / "state" / "hook.log").stat().st_mode & 0o077 == 0  # private, as the store


def test_missing_store_is_silent(tmp_path: Path) -> None:
    proc = run_hook(tmp_path / "nowhere" / "ihmt_memory", "prompt-submit",
                    prompt_payload("what port does staging run on?"))
    assert proc.returncode == 0 and proc.stdout == "" and proc.stderr == ""


def test_damaged_trunk_is_repaired_quietly_and_logged(store: Path) -> None:
    (store / "root.json").write_text("{ damaged")
    proc = run_hook(store, "prompt-submit", prompt_payload("what port does staging run on?"))
    assert proc.returncode == 0 and proc.stderr == ""
    assert "8443" in context_of(proc, "UserPromptSubmit")  # rebuilt from the leaves
    assert "root.json cannot be parsed" in log_text(store)


def test_unreadable_store_is_silent_and_logged(store: Path) -> None:
    (store / "root.json").unlink()
    (store / "root.json").mkdir()  # not readable; set aside and rebuilt, unless ...
    (store / "state" / "aside").write_text("")  # ... nothing can be set aside either
    proc = run_hook(store, "prompt-submit", prompt_payload("what port does staging run on?"))
    assert proc.returncode == 0 and proc.stdout == "" and proc.stderr == ""
    assert "prompt-submit after" in log_text(store)
    assert "root.json is a folder" in log_text(store) and "move it out" in log_text(store)


def test_lock_held_by_a_writer_times_out_silently(store: Path) -> None:
    m = Memory.open(store)
    m.store.lock.acquire()
    try:
        m.store.begin_write("a writer that is still at work")  # the hook must wait for it
        proc = run_hook(store, "prompt-submit", prompt_payload("what port does staging run on?"),
                        "--timeout", "0.5", timeout=30)
        m.store.end_write()
    finally:
        m.store.lock.release()
        m.close()
    assert proc.returncode == 0 and proc.stdout == "" and proc.stderr == ""
    assert "timed out" in log_text(store)


def test_turned_off_by_environment(store: Path) -> None:
    proc = run_hook(store, "prompt-submit", prompt_payload("what port does staging run on?"),
                    env={"IHMT_HOOKS": "off"})
    assert proc.returncode == 0 and proc.stdout == ""


def test_help() -> None:
    proc = subprocess.run([PY, "-m", "ihmt.faces.cli", "hook", "--help"], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0 and "prompt-submit" in proc.stdout


# ---------------------------------------------------------------------- the prompt filter
@pytest.mark.parametrize("prompt,expected", [
    ("When did Caroline go to the LGBTQ support group?", True),
    ("what did we decide about the billing database", True),
    ("remind me which port staging uses", True),
    ("Do you remember the name of my cat?", True),
    ("add a test for the parser", False),
    ("fix the failing build", False),
    ("why does this import fail?", False),
    ("what does parse_header() return?", False),
    ("rename utils.py to helpers.py", False),
    ("ok", False),
    ("x" * 900 + "?", False),
])
def test_is_recall_prompt(prompt: str, expected: bool) -> None:
    assert is_recall_prompt(prompt) is expected


def test_hook_stays_lexical_where_the_semantic_extra_is_installed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ihmt.semantic import missing_packages

    if missing_packages():
        pytest.skip("ihmt[semantic] not installed")
    monkeypatch.setenv("IHMT_SEMANTIC", "auto")
    path = tmp_path / "ihmt_memory"
    with Memory.open(path, create=True) as m:
        m.save("We decided to use Postgres for billing because we need transactions.")
        m.save("The staging server runs on port 8443 behind nginx.")
        assert m.semantic.active
    code = ("import io, sys, json\n"
            "from ihmt.faces.cli import main\n"
            f"sys.stdin = io.StringIO(json.dumps({prompt_payload('which relational engine keeps our invoices consistent?')!r}))\n"
            f"main(['--path', {str(path)!r}, 'hook', 'prompt-submit'])\n"
            "print('ENCODER', 'onnxruntime' in sys.modules)\n")

    def encoder_loaded(**env: str) -> bool:
        proc = subprocess.run([PY, "-c", code], capture_output=True, text=True, timeout=120,
                              env={**os.environ, "IHMT_SEMANTIC": "auto", **env})
        assert proc.returncode == 0, proc.stderr
        return "ENCODER True" in proc.stdout

    assert not encoder_loaded()
    assert encoder_loaded(IHMT_HOOK_SEMANTIC="on")  # the check can see the encoder


def test_codex_payloads(store: Path) -> None:
    # Codex sends the same events with its own extra fields (model, turn_id).
    base = {"session_id": "019a-thread", "transcript_path": None, "cwd": "/home/dev/billing",
            "model": "gpt-5-codex"}
    proc = run_hook(store, "prompt-submit", {**base, "hook_event_name": "UserPromptSubmit",
                                             "turn_id": "t1",
                                             "prompt": "what port does staging run on?"})
    assert "8443" in context_of(proc, "UserPromptSubmit")
    proc = run_hook(store, "session-start", {**base, "hook_event_name": "SessionStart",
                                             "source": "startup"})
    assert "Postgres" in context_of(proc, "SessionStart")


# ---------------------------------------------------------------------- the library part
def test_injection_keeps_to_its_budget_with_a_long_memory(mem: Memory) -> None:
    long_text = ("The deploy runbook for the zephyr cluster: " + "drain the nodes, " * 400
                 + "then restart.")
    mem.save(long_text, date="2026-04-01")
    inj = mem.recall_for_prompt("what is the deploy runbook for the zephyr cluster?")
    assert inj.injected and inj.status == "FOUND"
    assert count_tokens(inj.text) <= 300 and "[2026-04-01]" in inj.text
    assert f"id {inj.ids[0]}" in inj.text


def test_gate_is_applied(mem: Memory) -> None:
    mem.save("The zephyr cluster runs in eu-west-3.", date="2026-04-01")
    q = "where does the zephyr cluster run?"
    assert mem.recall_for_prompt(q).injected
    res = mem.search(q)
    assert not mem.recall_for_prompt(q, gate=res.confidence + 0.01).injected


def test_digest_puts_the_current_project_first(mem: Memory) -> None:
    mem.save("We always squash commits before merging.", date="2026-01-01")
    mem.save("For the billing project we decided to keep invoices for ten years.",
             date="2025-06-01")
    mem.save("The office coffee machine is on the second floor.", date="2026-02-01")
    text = mem.session_digest(cwd="/home/dev/billing")
    lines = text.splitlines()[1:]
    assert "billing" in lines[0] and "squash" in lines[1]
    assert "coffee" not in text  # not a decision, convention or preference
    assert mem.session_digest(cwd="/home/dev/other").splitlines()[1].count("squash") == 1  # newest first
