"""The light entry point: ``ihmt hook`` (a fresh process on every prompt) loads only what a
search needs, and the full command line is still all there."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ihmt import Memory

PY = sys.executable
# Loaded by saving, ingesting, git sync or the other commands; never by a hook's search.
WRITE_SIDE = ["ihmt.writing", "ihmt.export", "ihmt.forgetting", "ihmt.upkeep",
              "ihmt.ingest.prepare", "ihmt.timeline.extract", "ihmt.sync.gitsync",
              "ihmt.tree.consolidate", "ihmt.faces.cli_commands", "filelock"]


def _modules_after(code: str) -> tuple[str, set[str]]:
    probe = code + "\nimport sys\nprint('MODULES', ' '.join(sorted(sys.modules)))\n"
    proc = subprocess.run([PY, "-c", probe], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    out, _, mods = proc.stdout.rpartition("MODULES ")
    return out, set(mods.split())


@pytest.fixture
def store(tmp_path: Path) -> Path:
    path = tmp_path / "ihmt_memory"
    with Memory.open(path, create=True) as m:
        m.save("The staging server runs on port 8443 behind nginx.", date="2026-03-02")
        m.save("We decided to use Postgres for billing because we need transactions.")
    return path


def test_top_help_lists_every_command() -> None:
    from ihmt.faces.cli import PASSTHROUGH
    from ihmt.faces.cli_commands import COMMANDS

    proc = subprocess.run([PY, "-m", "ihmt.faces.cli", "--help"], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    listed = proc.stdout.split("positional arguments:")[1].split("options:")[0]
    names = {line.split()[0] for line in listed.splitlines() if line.startswith("    ")
             and not line.startswith("     ")}
    assert set(COMMANDS) | set(PASSTHROUGH) <= names
    assert {"hook", "save", "search", "forget", "scopes", "move", "export"} <= names


def test_hook_help_and_a_hook_call_load_no_write_side(store: Path) -> None:
    out, mods = _modules_after("from ihmt.faces.cli import main\n"
                               "try:\n    main(['hook', '--help'])\n"
                               "except SystemExit:\n    pass\n")
    assert "usage: ihmt hook" in out and "prompt-submit" in out
    assert not {m for m in mods if m.startswith("ihmt.")} - {
        "ihmt.errors", "ihmt.faces", "ihmt.faces.cli", "ihmt.faces.hook"}
    payload = {"hook_event_name": "UserPromptSubmit", "cwd": str(store.parent),
               "prompt": "what port does staging run on?"}
    out, mods = _modules_after(
        "import io, json, sys\nfrom ihmt.faces.cli import main\n"
        f"sys.stdin = io.StringIO({json.dumps(payload)!r})\n"
        f"main(['--path', {str(store)!r}, 'hook', 'prompt-submit'])\n")
    assert "8443" in out  # it answered
    assert not mods & set(WRITE_SIDE), sorted(mods & set(WRITE_SIDE))


def test_package_names_are_imported_on_first_use() -> None:
    _, mods = _modules_after("import ihmt\nassert ihmt.__version__")
    assert "ihmt.memory" not in mods
    out, mods = _modules_after("import ihmt\nprint(ihmt.Memory.__name__, ihmt.Hit.__name__,"
                               " ihmt.Config.__name__, 'Memory' in dir(ihmt))\n"
                               "from ihmt import SearchResult, InputError, SaveReport")
    assert "Memory Hit Config True" in out and "ihmt.memory" in mods
    with pytest.raises(AttributeError):
        import ihmt

        _ = ihmt.NoSuchName  # type: ignore[attr-defined]


def test_write_side_is_built_on_first_write_and_searches_agree(store: Path) -> None:
    def answer(build_first: bool) -> tuple:
        mem = Memory.open(store)
        try:
            if build_first:
                assert mem.writer is not None and mem._write_side.built
            res = mem.search("which port does staging use?")
            built = mem._write_side.built
        finally:
            mem.close()
        return built, [h.id for h in res.hits], res.status, res.confidence, res.notices

    light, full = answer(False), answer(True)
    assert light[0] is False  # a search needs no write side
    assert light[1:] == full[1:]
    with Memory.open(store) as mem:
        mem.save("The deploy window is Tuesday morning.")
        assert mem._write_side.built
        assert mem.search("when is the deploy window?").hits[0].text.startswith("The deploy")


def test_a_damaged_fact_log_is_still_repaired_by_a_search(store: Path) -> None:
    with Memory.open(store) as mem:
        mem.record_fact("user", "location", "Madrid", "2024-03-01")
    log = store / "state" / "facts.jsonl"
    log.write_bytes(log.read_bytes() + b"{not json\n")
    mem = Memory.open(store)
    try:
        res = mem.search("which port does staging use?")
        assert mem._write_side.built  # the repair needed it
        assert [f.value for f in mem.facts("user")] == ["Madrid"]
    finally:
        mem.close()
    assert res.hits and "8443" in res.hits[0].text
    assert b"{not json" not in log.read_bytes()
