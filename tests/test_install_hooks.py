"""Registering the agent hooks (issue 20) in temporary HOME folders, and running the
registered command the way the agent does: through a shell, the payload on stdin."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ihmt import Memory
from ihmt.faces import install as inst
from ihmt.faces import install_doctor
from ihmt.faces import install_hooks as ih
from ihmt.faces.install import install, uninstall


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    h = tmp_path / "home"
    h.mkdir()
    (tmp_path / "project").mkdir()
    monkeypatch.setenv("HOME", str(h))
    monkeypatch.delenv("IHMT_HOME", raising=False)
    monkeypatch.chdir(tmp_path / "project")
    return h


@pytest.fixture
def memory(tmp_path: Path) -> Path:
    mh = tmp_path / "mem"
    with Memory.open(mh / "ihmt_memory", create=True) as m:
        m.save("The staging server runs on port 8443 behind nginx.", date="2026-03-02")
        m.save("We decided to use Postgres for billing.", date="2026-03-01")
    return mh


def settings(home: Path) -> dict:
    return json.loads((home / ".claude" / "settings.json").read_text())


def ours(data: dict, event: str) -> list[dict]:
    return [h for g in data.get("hooks", {}).get(event, []) for h in g["hooks"] if ih.is_ours(h)]


USER_SETTINGS = {
    "model": "opus",
    "hooks": {
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo mine"}]}],
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "lint"}]}],
    },
}


def test_install_registers_both_hooks_and_keeps_the_users(home: Path, memory: Path) -> None:
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text(json.dumps(USER_SETTINGS, indent=2))
    res = install("claude-code", memory_home=memory, home=home, use_cli=False)
    assert [c.action for c in res.changes if c.what == "hooks"] == ["update"]
    data = settings(home)
    for event, arg in (("SessionStart", "session-start"), ("UserPromptSubmit", "prompt-submit")):
        [h] = ours(data, event)
        assert h["type"] == "command" and h["command"].endswith(f"hook {arg}")
        assert str(memory) in h["command"]
    assert data["model"] == "opus"
    assert {"type": "command", "command": "echo mine"} in \
        data["hooks"]["UserPromptSubmit"][0]["hooks"]
    assert data["hooks"]["PreToolUse"] == USER_SETTINGS["hooks"]["PreToolUse"]
    assert (home / ".claude" / ("settings.json" + inst.BACKUP_SUFFIX)).exists()

    again = install("claude-code", memory_home=memory, home=home, use_cli=False)
    assert [c.action for c in again.changes if c.what == "hooks"] == ["unchanged"]

    uninstall("claude-code", home=home, use_cli=False)
    assert settings(home) == USER_SETTINGS  # only ours went


def test_uninstall_deletes_a_settings_file_that_held_only_the_hooks(home: Path,
                                                                      memory: Path) -> None:
    install("claude-code", memory_home=memory, home=home, use_cli=False)
    assert (home / ".claude" / "settings.json").exists()
    res = uninstall("claude-code", home=home, use_cli=False)
    assert [c.action for c in res.changes if c.what == "hooks"] == ["delete"]
    assert not (home / ".claude" / "settings.json").exists()


def test_no_hooks_opts_out_and_removes_earlier_ones(home: Path, memory: Path) -> None:
    assert inst.main_install(["claude-code", "--no-cli", "--home", str(memory),
                              "--no-hooks"]) == 0
    assert not (home / ".claude" / "settings.json").exists()
    install("claude-code", memory_home=memory, home=home, use_cli=False)
    install("claude-code", memory_home=memory, home=home, use_cli=False, hooks=False)
    assert not (home / ".claude" / "settings.json").exists()


def test_project_scope_and_codex(home: Path, memory: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    install("claude-code", "project", memory_home=memory, home=home, project=project,
            use_cli=False)
    assert ours(json.loads((project / ".claude" / "settings.json").read_text()),
                "UserPromptSubmit")
    install("codex", memory_home=memory, home=home, use_cli=False)
    codex = json.loads((home / ".codex" / "hooks.json").read_text())
    assert set(codex) == {"hooks"}  # Codex refuses unknown top-level keys
    assert ours(codex, "SessionStart") and ours(codex, "UserPromptSubmit")
    found = {(h["agent"], h["scope"]) for h in ih.installed(home, project)}
    assert found == {("claude-code", "project"), ("codex", "user")}


def test_opencode_gets_no_hooks(home: Path, memory: Path) -> None:
    res = install("opencode", memory_home=memory, home=home, use_cli=False)
    assert not [c for c in res.changes if c.what == "hooks"]


def test_damaged_settings_file_is_refused_before_anything_is_written(home: Path,
                                                                     memory: Path) -> None:
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text('{"hooks": [1, 2]}')
    with pytest.raises(ih.HookConfigError, match="'hooks' is not an object"):
        install("claude-code", memory_home=memory, home=home, use_cli=False)
    assert not (home / ".claude.json").exists()


def test_the_registered_command_answers_through_a_shell(home: Path, memory: Path) -> None:
    install("claude-code", memory_home=memory, home=home, use_cli=False)
    [h] = ours(settings(home), "UserPromptSubmit")
    payload = {"session_id": "s", "transcript_path": "/tmp/t.jsonl", "cwd": str(Path.cwd()),
               "hook_event_name": "UserPromptSubmit", "prompt": "what port does the staging server run on?"}
    proc = subprocess.run(h["command"], shell=True, input=json.dumps(payload),
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PATH": os.path.dirname(sys.executable)})
    assert proc.returncode == 0, proc.stderr
    assert "8443" in json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    [s] = ours(settings(home), "SessionStart")
    proc = subprocess.run(s["command"], shell=True, input=json.dumps(
        {**payload, "hook_event_name": "SessionStart", "source": "startup"}),
        capture_output=True, text=True, timeout=60)
    assert "Postgres" in json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]


def test_doctor_shows_the_hooks_and_times_a_dry_call(home: Path, memory: Path) -> None:
    install("claude-code", memory_home=memory, home=home, use_cli=False)
    hooks = install_doctor._doctor_hooks(memory, home, True)
    assert hooks["installed"][0]["events"] == ["SessionStart", "UserPromptSubmit"]
    assert hooks["call"]["ok"] and hooks["call"]["seconds"] > 0
    lines = install_doctor._hook_lines(hooks)
    assert any("claude-code (user): SessionStart, UserPromptSubmit" in ln for ln in lines)
    assert any(ln.startswith("hooks   dry call answers in") for ln in lines)


def test_doctor_reports_a_failing_hook(home: Path, tmp_path: Path) -> None:
    store = tmp_path / "broken" / "ihmt_memory"
    Memory.open(store, create=True).close()
    (store / "root.json").unlink()
    (store / "root.json").mkdir()  # set aside and rebuilt, unless ...
    (store / "state" / "aside").write_text("")  # ... nothing can be set aside either
    call = ih.dry_call(store)
    assert not call["ok"] and "hook.log" in call["error"]


def test_print_config_hooks(home: Path, memory: Path, capsys: pytest.CaptureFixture) -> None:
    assert inst.main_print_config(["codex", "--hooks", "--home", str(memory)]) == 0
    data = json.loads(capsys.readouterr().out)
    [h] = ours(data, "UserPromptSubmit")
    assert h["command"].endswith(f"--path {memory} hook prompt-submit")
    assert inst.main_print_config(["cursor", "--hooks"]) == 2  # the CLI's error status
    assert "no command hooks for cursor" in capsys.readouterr().err
