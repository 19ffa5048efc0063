"""Registering the server with agents, against temporary HOME folders.

Every test gets its own HOME and project folder, and passes ``use_cli=False`` (or a fake
``claude`` on PATH) so the outcome does not depend on what is installed on the machine.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: the installer reads TOML with tomli there
    tomllib = pytest.importorskip("tomli")

from ihmt import Memory
from ihmt.doctor import check_store
from ihmt.faces import install as inst
from ihmt.faces import install_agents as agents
from ihmt.faces.install import InstallError, install, print_config, uninstall

PY = os.path.abspath(sys.executable)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    h = tmp_path / "home"
    h.mkdir()
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.setenv("HOME", str(h))
    monkeypatch.setenv("USERPROFILE", str(h))
    monkeypatch.delenv("IHMT_HOME", raising=False)
    monkeypatch.chdir(project)
    return h


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file()}


def entry_of(agent: str, home: Path, project: Path | None = None) -> dict:
    path = inst.config_path(agent, "project" if project else "user", home,
                            project or Path.cwd())
    text = path.read_text()
    data = tomllib.loads(text) if agent == "codex" else json.loads(text)
    return data[agents._CONTAINER[agent]]["ihmt-memory"]


UNRELATED = {
    "claude-code": (".claude.json", json.dumps({
        "numStartups": 12, "theme": "dark",
        "mcpServers": {"github": {"type": "stdio", "command": "gh-mcp", "args": []}},
        "projects": {"/src/app": {"allowedTools": ["Bash"]}},
    }, indent=2) + "\n"),
    "codex": (".codex/config.toml",
              'model = "gpt-5"\napproval_policy = "on-request"\n\n'
              '[mcp_servers.github]\ncommand = "gh-mcp"\nargs = ["--stdio"]\n\n'
              '# my profiles\n[profiles.fast]\nmodel = "gpt-5-mini"\n'),
    "opencode": (".config/opencode/opencode.json", json.dumps({
        "$schema": "https://opencode.ai/config.json", "theme": "tokyonight",
        "mcp": {"github": {"type": "local", "command": ["gh-mcp"]}},
    }, indent=2) + "\n"),
}
INSTRUCTIONS = {"claude-code": ".claude/CLAUDE.md", "codex": ".codex/AGENTS.md",
                "opencode": ".config/opencode/AGENTS.md"}


def seed(agent: str, home: Path) -> tuple[Path, str, Path, str]:
    rel, text = UNRELATED[agent]
    cfg = home / rel
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text(text)
    instr = home / INSTRUCTIONS[agent]
    instr.parent.mkdir(parents=True, exist_ok=True)
    user_text = "# My rules\n\nAlways answer in English.\n"
    instr.write_text(user_text)
    return cfg, text, instr, user_text


# ---------------------------------------------------------------------- every agent
@pytest.mark.parametrize("agent", inst.WRITABLE_AGENTS)
def test_install_preserves_config_backs_up_and_is_idempotent(agent: str, home: Path) -> None:
    cfg, original, instr, user_text = seed(agent, home)
    result = install(agent, home=home, use_cli=False)
    assert result.changed and not result.dry_run
    assert result.memory_home == str(home / ".ihmt")
    assert (home / ".ihmt" / "ihmt_memory" / "root.json").exists()

    entry = entry_of(agent, home)
    assert agents._argv(entry) == [PY, "-m", "ihmt.faces.mcp"]
    assert agents._env(entry) == {"IHMT_HOME": str(home / ".ihmt")}
    # Unrelated content kept.
    if agent == "codex":
        after = tomllib.loads(cfg.read_text())
        before = tomllib.loads(original)
        assert after["model"] == "gpt-5" and after["profiles"] == before["profiles"]
        assert after["mcp_servers"]["github"] == before["mcp_servers"]["github"]
        assert cfg.read_text().startswith(original)  # appended, nothing rewritten
    else:
        after, before = json.loads(cfg.read_text()), json.loads(original)
        container = agents._CONTAINER[agent]
        assert after[container]["github"] == before[container]["github"]
        assert {k: v for k, v in after.items() if k != container} == \
            {k: v for k, v in before.items() if k != container}
    # Backups hold the originals.
    assert Path(str(cfg) + ".bak-ihmt").read_text() == original
    assert Path(str(instr) + ".bak-ihmt").read_text() == user_text
    assert set(result.backups) == {str(cfg) + ".bak-ihmt", str(instr) + ".bak-ihmt"}
    # Instructions appended after the user's own text.
    text = instr.read_text()
    assert text.startswith(user_text)
    assert text.count(inst.MARK_BEGIN) == 1 and text.rstrip().endswith(inst.MARK_END)

    before_second = snapshot(home)
    again = install(agent, home=home, use_cli=False)
    assert not again.changed
    assert "Nothing to change" in "\n".join(again.lines())
    assert snapshot(home) == before_second


@pytest.mark.parametrize("agent", inst.WRITABLE_AGENTS)
def test_dry_run_writes_nothing_and_shows_the_change(agent: str, home: Path) -> None:
    seed(agent, home)
    before = snapshot(home)
    result = install(agent, home=home, use_cli=False, dry_run=True)
    assert snapshot(home) == before
    assert not (home / ".ihmt").exists()
    assert result.dry_run and result.changed and not result.backups
    entry_change = next(c for c in result.changes if c.what == "mcp entry")
    assert entry_change.action == "update"
    assert "ihmt-memory" in entry_change.diff and "ihmt.faces.mcp" in entry_change.diff
    assert "would update" in "\n".join(result.lines())
    # A dry-run uninstall of an installed agent writes nothing either.
    install(agent, home=home, use_cli=False)
    before = snapshot(home)
    preview = uninstall(agent, home=home, use_cli=False, dry_run=True)
    assert preview.changed and snapshot(home) == before


@pytest.mark.parametrize("agent", inst.WRITABLE_AGENTS)
def test_uninstall_restores_everything_but_the_memory(agent: str, home: Path) -> None:
    cfg, original, instr, user_text = seed(agent, home)
    install(agent, home=home, use_cli=False)
    Memory.open(home / ".ihmt").save("Keep this memory after uninstall.",
                                     content_type="generic")
    result = uninstall(agent, home=home, use_cli=False)
    assert result.changed
    if agent == "codex":
        assert cfg.read_text() == original
    else:
        assert json.loads(cfg.read_text()) == json.loads(original)
    assert instr.read_text() == user_text
    assert check_store(home / ".ihmt")["stats"]["leaves"] == 1  # the memory is untouched
    assert not uninstall(agent, home=home, use_cli=False).changed


@pytest.mark.parametrize("agent", inst.WRITABLE_AGENTS)
def test_install_from_nothing_and_uninstall_leaves_nothing(agent: str, home: Path) -> None:
    install(agent, home=home, use_cli=False)
    assert entry_of(agent, home)
    uninstall(agent, home=home, use_cli=False)
    left = set(snapshot(home))
    assert all(name.startswith(".ihmt/") for name in left), left


def test_first_backup_is_kept(home: Path) -> None:
    cfg, original, _, _ = seed("opencode", home)
    install("opencode", home=home, use_cli=False)
    data = json.loads(cfg.read_text())
    data["theme"] = "light"
    cfg.write_text(json.dumps(data))
    install("opencode", home=home, use_cli=False, memory_home=home / "elsewhere")
    assert Path(str(cfg) + ".bak-ihmt").read_text() == original


# ---------------------------------------------------------------------- per agent
def test_codex_table_layout(home: Path) -> None:
    install("codex", home=home, use_cli=False)
    text = (home / ".codex/config.toml").read_text()
    server = text.index("[mcp_servers.ihmt-memory]\n")
    approval = text.index('default_tools_approval_mode = "approve"')
    env = text.index("[mcp_servers.ihmt-memory.env]\n")
    assert server < approval < env
    entry = tomllib.loads(text)["mcp_servers"]["ihmt-memory"]
    assert entry == {"command": PY, "args": ["-m", "ihmt.faces.mcp"],
                     "default_tools_approval_mode": "approve",
                     "env": {"IHMT_HOME": str(home / ".ihmt")}}


def test_codex_replaces_an_older_entry_in_place(home: Path) -> None:
    cfg = home / ".codex/config.toml"
    cfg.parent.mkdir()
    cfg.write_text('model = "gpt-5"\n\n[mcp_servers."ihmt-memory"]\ncommand = "python3"\n'
                   'args = ["/opt/IHMT-MEMORY/mcp_server.py"]\n\n'
                   "[ mcp_servers . 'ihmt-memory' . env ]\n"
                   f'IHMT_HOME = "{home}/old-memory"\n\n'
                   '[mcp_servers.other]\ncommand = "x"\nnote = """\n[mcp_servers.ihmt-memory]\n"""\n')
    result = install("codex", home=home, use_cli=False)
    assert result.memory_home == str(home / "old-memory")  # its memory is reused
    assert any("replaced an earlier ihmt-memory entry" in n for n in result.notes)
    data = tomllib.loads(cfg.read_text())
    assert data["mcp_servers"]["ihmt-memory"]["command"] == PY
    assert data["mcp_servers"]["other"]["note"] == "[mcp_servers.ihmt-memory]\n"
    text = cfg.read_text()
    assert text.index("ihmt-memory]") < text.index("[mcp_servers.other]")  # kept its place


@pytest.mark.parametrize("text", [
    'mcp_servers = { ihmt-memory = { command = "x" } }\n',
    '[mcp_servers]\nihmt-memory.command = "x"\n',
    "[mcp_servers\n",
])
def test_codex_refuses_what_it_cannot_edit_safely(home: Path, text: str) -> None:
    cfg = home / ".codex/config.toml"
    cfg.parent.mkdir()
    cfg.write_text(text)
    with pytest.raises(InstallError):
        install("codex", home=home, use_cli=False, memory_home=home / "m")
    assert cfg.read_text() == text
    assert not (home / "m").exists() and not (home / ".codex/AGENTS.md").exists()


def test_opencode_entry_format(home: Path) -> None:
    install("opencode", home=home, use_cli=False)
    entry = entry_of("opencode", home)
    assert entry == {"type": "local", "command": [PY, "-m", "ihmt.faces.mcp"],
                     "environment": {"IHMT_HOME": str(home / ".ihmt")}, "enabled": True}


def test_claude_code_keeps_file_mode_and_refuses_broken_json(home: Path) -> None:
    cfg = home / ".claude.json"
    cfg.write_text('{"numStartups": 3}\n')
    cfg.chmod(0o600)
    install("claude-code", home=home, use_cli=False)
    assert stat.S_IMODE(cfg.stat().st_mode) == 0o600
    assert entry_of("claude-code", home)["type"] == "stdio"
    cfg.write_text('{"numStartups": 3,,}')
    with pytest.raises(InstallError, match="not plain JSON"):
        install("claude-code", home=home, use_cli=False, memory_home=home / "other")
    assert cfg.read_text() == '{"numStartups": 3,,}'


def test_project_scope_writes_into_the_project(home: Path) -> None:
    project = Path.cwd()
    result = install("claude-code", "project", home=home, project=project, use_cli=False)
    assert (project / ".mcp.json").exists() and (project / "CLAUDE.md").exists()
    assert not (home / ".claude.json").exists() and not (home / ".claude").exists()
    assert any("approve" in n for n in result.notes)
    install("opencode", "project", home=home, project=project, use_cli=False)
    install("codex", "project", home=home, project=project, use_cli=False)
    assert entry_of("opencode", home, project)["enabled"] is True
    assert entry_of("codex", home, project)["command"] == PY
    assert (project / "AGENTS.md").read_text().count(inst.MARK_BEGIN) == 1
    uninstall("codex", "project", home=home, project=project, use_cli=False)
    uninstall("opencode", "project", home=home, project=project, use_cli=False)
    uninstall("claude-code", "project", home=home, project=project, use_cli=False)
    # Empty folders: .codex held config.toml and hooks.json, .claude the hooks' settings.json
    assert sorted(p.name for p in project.iterdir()) == [".claude", ".codex"]
    assert not any((project / ".claude").iterdir()) and not any((project / ".codex").iterdir())


# ---------------------------------------------------------------------- claude CLI
def test_claude_cli_command_in_dry_run(home: Path) -> None:
    result = install("claude-code", home=home, use_cli=True, dry_run=True)
    run = [c for c in result.changes if c.action == "run"]
    assert [c.command for c in run] == [[
        "claude", "mcp", "add", "ihmt-memory", "--scope", "user",
        "-e", f"IHMT_HOME={home / '.ihmt'}", "--", PY, "-m", "ihmt.faces.mcp"]]
    assert "would run" in "\n".join(result.lines())
    assert not (home / ".claude.json").exists()


def test_claude_cli_is_run_and_an_old_entry_removed_first(home: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    (home / ".claude.json").write_text(json.dumps({"mcpServers": {"ihmt-memory": {
        "command": "python3", "args": ["/old/mcp_server.py"]}}}))
    bindir = tmp_path / "bin"
    bindir.mkdir()
    log = tmp_path / "claude.log"
    fake = bindir / "claude"
    fake.write_text(f"#!/bin/sh\necho \"$@\" >> {log}\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    result = install("claude-code", home=home, use_cli=True)
    calls = log.read_text().splitlines()
    assert calls[0] == "mcp remove ihmt-memory --scope user"
    assert calls[1].startswith("mcp add ihmt-memory --scope user -e IHMT_HOME=")
    assert calls[1].endswith(f"-- {PY} -m ihmt.faces.mcp")
    assert str(home / ".claude.json") + ".bak-ihmt" in result.backups


# ---------------------------------------------------------------------- one memory
def test_reuses_the_memory_registered_with_another_agent(home: Path) -> None:
    shared = home / "Memories" / "ihmt"
    install("codex", home=home, use_cli=False, memory_home=shared)
    result = install("opencode", home=home, use_cli=False)
    assert result.memory_home == str(shared)
    assert "codex" in result.memory_source
    assert agents._env(entry_of("opencode", home))["IHMT_HOME"] == str(shared)
    # --home wins over what is registered.
    own = install("claude-code", home=home, use_cli=False, memory_home=home / "mine")
    assert own.memory_home == str(home / "mine")
    regs = {(r.agent, r.scope): r for r in inst.registered(home)}
    assert regs[("codex", "user")].memory_home == str(shared)
    assert regs[("claude-code", "user")].this_install


def test_existing_store_is_never_overwritten(home: Path) -> None:
    mem = Memory.open(home / ".ihmt", create=True)
    mem.save("An old memory that must survive.", content_type="generic")
    before = snapshot(home / ".ihmt")
    result = install("opencode", home=home, use_cli=False)
    assert result.changes[0].action == "unchanged" and result.changes[0].note == "1 memory"
    assert snapshot(home / ".ihmt") == before


# ---------------------------------------------------------------------- snippets
@pytest.mark.parametrize(("agent", "key"), [
    ("cursor", "mcpServers"), ("windsurf", "mcpServers"), ("gemini-cli", "mcpServers"),
    ("claude-desktop", "mcpServers"), ("vscode", "servers"), ("copilot", "servers"),
    ("claude-code", "mcpServers"), ("opencode", "mcp"),
])
def test_print_config_json(agent: str, key: str, home: Path) -> None:
    snippet = print_config(agent, home=home, memory_home=home / "mem")
    data = json.loads(snippet.text)
    assert list(data) == [key]
    entry = data[key]["ihmt-memory"]
    assert agents._argv(entry) == [PY, "-m", "ihmt.faces.mcp"]
    assert agents._env(entry)["IHMT_HOME"] == str(home / "mem")
    assert snippet.where


def test_print_config_toml_for_codex(home: Path) -> None:
    snippet = print_config("codex", home=home, memory_home=home / "mem")
    entry = tomllib.loads(snippet.text)["mcp_servers"]["ihmt-memory"]
    assert entry["env"]["IHMT_HOME"] == str(home / "mem")


def test_unknown_agent_and_scope(home: Path) -> None:
    with pytest.raises(InstallError, match="print-config"):
        install("cursor", home=home)
    with pytest.raises(InstallError, match="unknown agent"):
        install("emacs", home=home)
    with pytest.raises(InstallError, match="scope"):
        install("codex", "global", home=home)


# ---------------------------------------------------------------------- instructions
def test_template_is_marked_and_complete() -> None:
    block = inst.instructions_block()
    lines = block.strip().splitlines()
    assert lines[0].startswith(inst.MARK_BEGIN) and lines[-1] == inst.MARK_END
    for must in ("search_memory", "save_memory", "replaces", "AMBIGUOUS", "OUTDATED",
                 "clue", "secret"):
        assert must in block
    repo_copy = Path(__file__).resolve().parents[1] / "templates" / "memory-instructions.md"
    assert repo_copy.read_text() == block


def test_instructions_block_is_refreshed_not_duplicated(home: Path) -> None:
    instr = home / ".codex/AGENTS.md"
    instr.parent.mkdir()
    instr.write_text(f"before\n\n{inst.MARK_BEGIN} old -->\nold rules\n{inst.MARK_END}\n\nafter\n")
    install("codex", home=home, use_cli=False)
    text = instr.read_text()
    assert text.count(inst.MARK_BEGIN) == 1 and "old rules" not in text
    assert text.startswith("before\n") and text.endswith("after\n")


# ---------------------------------------------------------------------- doctor
def test_check_store_finds_unreachable_and_damaged_leaves(tmp_path: Path) -> None:
    mem = Memory.open(tmp_path, create=True, config={"branch_factor": 2})
    for i in range(7):
        mem.save(f"Fact number {i}: the {i}th widget is painted colour{i}.",
                 content_type="generic")
    report = check_store(tmp_path)
    assert report["ok"], report["problems"]
    assert report["stats"]["leaves"] == 7 and report["stats"]["branches"] >= 3
    leaf = next((tmp_path / "ihmt_memory" / "layer_0").rglob("L-*.txt"))
    stray = leaf.with_name("L-general-0123456789ab.txt")
    stray.write_text(leaf.read_text().replace(leaf.stem, stray.stem))
    (leaf.parent / "L-general-badbadbadbad.txt").write_text("no header at all")
    report = check_store(tmp_path)
    assert not report["ok"]
    assert report["unreachable"]["items"] == ["L-general-0123456789ab"]
    assert report["damaged_leaves"]["count"] == 1
    assert any("not reachable" in p for p in report["problems"])


def test_doctor_end_to_end(home: Path) -> None:
    install("claude-code", home=home, use_cli=False)
    install("codex", home=home, use_cli=False, memory_home=home / "other")
    report = inst.doctor(home / ".ihmt", home=home, timeout=60)
    assert report["store"]["ok"]
    server = report["server"]
    assert server["error"] is None, server
    assert {"search_memory", "save_memory", "mark_outdated"} <= set(server["tools"])
    agents = {a["agent"]: a for a in report["agents"]}
    assert agents["claude-code"]["same_memory"] and agents["claude-code"]["this_install"]
    assert not agents["codex"]["same_memory"]
    text = "\n".join(inst.doctor_lines(report))
    assert "claude-code (user): same memory" in text and "other memory" in text


def _doctor_cli(home: Path, *args: str, ihmt_home: Path | None = None):
    import subprocess

    env = {**os.environ, "HOME": str(home), "USERPROFILE": str(home)}
    env.pop("IHMT_HOME", None)
    if ihmt_home is not None:
        env["IHMT_HOME"] = str(ihmt_home)
    return subprocess.run([sys.executable, "-m", "ihmt.faces.cli", "doctor", "--no-server",
                           *args], capture_output=True, text=True, timeout=120, env=env)


def test_doctor_checks_the_store_ihmt_home_names(home: Path, tmp_path: Path) -> None:
    store = tmp_path / "elsewhere"
    mem = Memory.open(store, create=True)
    mem.save("The doctor should look here, not in ~/.ihmt")
    mem.close()
    r = _doctor_cli(home, ihmt_home=store)
    assert r.returncode == 0, r.stdout + r.stderr
    first = r.stdout.splitlines()[0]
    assert first == f"memory  {store / 'ihmt_memory'}: ok (1 memory, 0 branches, depth 0)"
    assert "PROBLEM" not in r.stdout


def test_doctor_and_stats_agree_on_the_depth(tmp_path: Path) -> None:
    mem = Memory.open(tmp_path, create=True, config={"branch_factor": 2})
    for i in range(9):
        mem.save(f"Fact number {i}: the {i}th widget is painted colour{i}.",
                 content_type="generic")
    mem.consolidate(force=True)
    assert mem.stats()["depth"] >= 2
    assert check_store(tmp_path)["stats"]["depth"] == mem.stats()["depth"]


def test_doctor_exits_non_zero_when_it_prints_a_problem(home: Path, tmp_path: Path) -> None:
    store = tmp_path / "mem"
    Memory.open(store, create=True).close()
    install("claude-code", home=home, use_cli=False, memory_home=store)
    assert _doctor_cli(home, "--path", str(store)).returncode == 0
    (home / ".claude.json").write_text("{ not json")
    r = _doctor_cli(home, "--path", str(store))
    assert "PROBLEM" in r.stdout and r.returncode == 1, r.stdout


def _cli(home: Path, cwd: Path, *args: str):
    import subprocess

    env = {**os.environ, "HOME": str(home), "USERPROFILE": str(home)}
    env.pop("IHMT_HOME", None)
    return subprocess.run([sys.executable, "-m", "ihmt.faces.cli", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120, env=env)


def test_project_agents_md_block_stays_while_another_agent_reads_it(home: Path) -> None:
    project = Path.cwd()
    for agent in ("codex", "opencode"):
        r = _cli(home, project, "install", agent, "--scope", "project", "--no-cli")
        assert r.returncode == 0, r.stderr
    agents_md = project / "AGENTS.md"
    assert "<!-- ihmt-memory:begin" in agents_md.read_text()
    r = _cli(home, project, "uninstall", "codex", "--scope", "project", "--no-cli")
    assert r.returncode == 0, r.stderr
    assert "<!-- ihmt-memory:begin" in agents_md.read_text()  # opencode still reads it
    assert "opencode" in r.stdout
    r = _cli(home, project, "uninstall", "opencode", "--scope", "project", "--no-cli")
    assert r.returncode == 0, r.stderr
    assert not agents_md.exists() or "ihmt-memory" not in agents_md.read_text()


def test_opencode_jsonc_is_edited_in_place_keeping_its_comments(home: Path,
                                                                tmp_path: Path) -> None:
    cfg = home / ".config" / "opencode" / "opencode.json"
    cfg.parent.mkdir(parents=True)
    original = '{\n  // my theme, keep it\n  "theme": "dark", /* and this */\n  "mcp": {\n' \
               '    "gh": {"type": "local", "command": ["gh-mcp"]}, // mine\n  },\n}\n'
    cfg.write_text(original)
    store = tmp_path / "mem"
    Memory.open(store, create=True).close()
    r = _cli(home, Path.cwd(), "install", "opencode", "--no-cli", "--home", str(store))
    assert r.returncode == 0, r.stderr
    text = cfg.read_text()
    for kept in ("// my theme, keep it", "/* and this */", "// mine", '"gh-mcp"'):
        assert kept in text, text
    d = _cli(home, Path.cwd(), "doctor", "--no-server", "--path", str(store))
    assert "opencode (user): same memory" in d.stdout, d.stdout
    assert "PROBLEM" not in d.stdout and d.returncode == 0
    r = _cli(home, Path.cwd(), "uninstall", "opencode", "--no-cli")
    assert r.returncode == 0, r.stderr
    assert cfg.read_text() == original  # ours out, everything of the user's as it was


def test_jsonc_where_the_agent_reads_plain_json_is_refused_with_the_exact_edit(
        home: Path, tmp_path: Path) -> None:
    cfg = home / ".claude.json"
    original = '{\n  // a comment Claude Code would not accept\n  "theme": "dark",\n}\n'
    cfg.write_text(original)
    store = tmp_path / "mem"
    Memory.open(store, create=True).close()
    r = _cli(home, Path.cwd(), "install", "claude-code", "--no-cli", "--home", str(store))
    assert r.returncode == 2 and r.stderr.startswith("ihmt: ")
    assert "JSONC" in r.stderr and "'ihmt doctor'" in r.stderr
    assert cfg.read_text() == original
    lines = r.stderr.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith('  "ihmt-memory"'))
    end = next(i for i, ln in enumerate(lines) if ln.startswith("Then run"))
    cfg.write_text(original.replace('"theme": "dark",', '"theme": "dark",\n  "mcpServers": {\n'
                                    + "\n".join(lines[start:end]) + "\n  },"))
    d = _cli(home, Path.cwd(), "doctor", "--no-server", "--path", str(store))
    assert "claude-code (user): same memory" in d.stdout, d.stdout
    assert "PROBLEM" not in d.stdout and d.returncode == 0


def test_doctor_problems_count_one_as_one(tmp_path: Path) -> None:
    mem = Memory.open(tmp_path, create=True, config={"branch_factor": 2})
    for i in range(5):
        mem.save(f"Fact number {i}: the {i}th widget is painted colour{i}.",
                 content_type="generic")
    leaf = next((tmp_path / "ihmt_memory" / "layer_0").rglob("L-*.txt"))
    stray = leaf.with_name("L-general-0123456789ab.txt")
    stray.write_text(leaf.read_text().replace(leaf.stem, stray.stem))
    problems = check_store(tmp_path)["problems"]
    assert any(p.startswith("1 memory file is not reachable") for p in problems), problems
    assert not any("(s)" in p or "leaf" in p for p in problems), problems
