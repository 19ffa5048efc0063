"""The ``ihmt`` command, run as a real subprocess on real files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


def ihmt(*args: str, cwd: Path | None = None, input: str | None = None,
         env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, **(env or {})}
    return subprocess.run([sys.executable, "-m", "ihmt.faces.cli", *args], cwd=cwd,
                          input=input, capture_output=True, text=True, timeout=120,
                          env=full_env)


def test_init_save_search_with_global_flags_anywhere(tmp_path: Path) -> None:
    store = str(tmp_path / "mem")
    r = ihmt("init", "--branch-factor", "4", "--path", store)
    assert r.returncode == 0, r.stderr
    assert "store ready" in r.stdout
    r = ihmt("--path", store, "save", "The staging host is db-eu-7, Postgres 16", "--date",
             "2026-01-05")
    assert r.returncode == 0, r.stderr
    r = ihmt("search", "staging host", "--json", "--path", store)
    data = json.loads(r.stdout)
    assert data["status"] in ("FOUND", "AMBIGUOUS")
    assert data["hits"][0]["date"] == "2026-01-05"
    assert "db-eu-7" in data["hits"][0]["text"]
    r = ihmt("--path", store, "search", "staging host")
    assert "[2026-01-05]" in r.stdout and "branch files opened" in r.stdout


def test_ingest_folder_skips_what_it_cannot_read_with_a_reason(tmp_path: Path) -> None:
    src = tmp_path / "docs"
    src.mkdir()
    (src / "notes.md").write_text("We deploy on Tuesdays.\n\nRollbacks use the blue slot.\n")
    (src / "blob.bin").write_bytes(b"\x00\x01\x02binary")
    (src / "latin1.txt").write_bytes("caf\xe9".encode("latin-1"))
    (src / "empty.txt").write_text("   \n")
    store = str(tmp_path / "mem")
    r = ihmt("--path", store, "ingest", str(src), str(tmp_path / "missing.txt"), "--json")
    assert r.returncode == 0, r.stderr
    files = {Path(f["path"]).name: f for f in json.loads(r.stdout)["files"]}
    assert files["notes.md"]["new"] >= 1
    assert "binary" in files["blob.bin"]["skipped"]
    assert "UTF-8" in files["latin1.txt"]["skipped"]
    assert "empty" in files["empty.txt"]["skipped"]
    assert "no such file" in files["missing.txt"]["skipped"]
    assert "skipped" in r.stderr


def test_ingest_stdin_tree_stats_rebuild_consolidate(tmp_path: Path) -> None:
    store = str(tmp_path / "mem")
    ihmt("--path", store, "init", "--branch-factor", "2")
    text = "\n\n".join(f"Paragraph {i} talks about subject{i}." for i in range(6))
    r = ihmt("--path", store, "ingest", "-", "--type", "narrative", input=text)
    assert r.returncode == 0, r.stderr
    assert ihmt("--path", store, "consolidate", "--force").returncode == 0
    tree = json.loads(ihmt("--path", store, "tree", "--json").stdout)
    assert tree["leaves"] >= 1 and len(tree["children"]) == 1
    st = json.loads(ihmt("--path", store, "stats", "--json").stdout)
    assert st["leaves"] == tree["leaves"]
    rb = json.loads(ihmt("--path", store, "rebuild", "--json").stdout)
    assert rb["leaves"] == st["leaves"]


@pytest.mark.parametrize("args,needle", [
    (["search", "   "], "query is empty"),
    (["save", "   "], "nothing to save"),
    (["save", "x", "--domain", "../../etc"], "not allowed"),
    (["save", "x", "--date", "31/31/2024"], "invalid date"),
])
def test_bad_input_gives_a_clear_error_and_exit_2(tmp_path: Path, args: list[str],
                                                  needle: str) -> None:
    store = str(tmp_path / "mem")
    ihmt("--path", store, "init")
    r = ihmt("--path", store, *args)
    assert r.returncode == 2
    assert needle in r.stderr
    assert "Traceback" not in r.stderr


def test_search_on_missing_store_says_how_to_create_it(tmp_path: Path) -> None:
    r = ihmt("--path", str(tmp_path / "nowhere"), "search", "x")
    assert r.returncode == 2 and "ihmt init" in r.stderr


def test_demo_runs_end_to_end(tmp_path: Path) -> None:
    r = ihmt("demo", "--json", "--path", str(tmp_path / "demo"))
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    types = {d["file"]: d["type"] for d in report["ingested"]}
    assert types["InventoryService.java"] == "CODE"
    assert types["receta_tortilla.txt"] == "PROCESS"
    first = report["searches"][0]
    assert first["best"] is not None and first["node_reads"] <= first["total_nodes"]
    # running it again replaces its own store, never someone else's
    assert ihmt("demo", "--path", str(tmp_path / "demo")).returncode == 0
    other = tmp_path / "user"
    ihmt("--path", str(other), "init")
    assert ihmt("demo", "--path", str(other)).returncode != 0


def test_doctor_repair_fixes_permissions_catalog_and_timeline(tmp_path: Path) -> None:
    store = tmp_path / "mem"
    ihmt("--path", str(store), "save", "I live in Madrid", "--date", "2024-03-11")
    ihmt("--path", str(store), "save", "I moved to Valencia", "--date", "2026-02-03")
    root = store / "ihmt_memory"
    (root / "root.json").chmod(0o644)
    (root / "state" / "catalog.jsonl").write_text("")  # the catalog lost its lines
    r = ihmt("--path", str(store), "doctor", "--no-server", "--json")
    report = json.loads(r.stdout)
    assert r.returncode == 1 and not report["store"]["ok"]
    problems = " ".join(report["store"]["problems"])
    assert "readable by other users" in problems and "catalog" in problems
    r = ihmt("--path", str(store), "doctor", "--no-server", "--repair", "--json")
    report = json.loads(r.stdout)
    assert r.returncode == 0 and report["store"]["ok"], report["store"]["problems"]
    assert oct((root / "root.json").stat().st_mode & 0o777) == "0o600"
    facts = json.loads(ihmt("--path", str(store), "facts", "--json").stdout)
    assert {f["value"] for f in facts} == {"Madrid", "Valencia"}


def test_project_commands_as_a_subprocess(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    (proj / "pkg").mkdir(parents=True)
    (proj / "pkg" / "shop.py").write_text(
        "def total_price(items):\n    return sum(i.price for i in items)\n\n\n"
        "class Cart:\n    def add(self, item):\n        self.items.append(item)\n")
    env = {"IHMT_HOME": str(tmp_path / "home")}
    # Run in the project, as a user does (a folder elsewhere needs --root: test_confine.py).
    r = ihmt("project", "sync", str(proj), "--json", env=env, cwd=proj)
    assert r.returncode == 0, r.stderr
    r = ihmt("project", "map", ".", "--symbols", env=env, cwd=proj)
    assert "shop.py" in r.stdout and "total_price" in r.stdout and "Cart.add" in r.stdout
    r = ihmt("project", "find", "total price of items", str(proj), env=env, cwd=proj)
    assert r.stdout.startswith("pkg/shop.py:1-") and "return sum(i.price" in r.stdout


PNG_BYTES = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01" + bytes(range(256))


@pytest.mark.parametrize("command", [["save", "-"], ["ingest", "-"]])
def test_binary_data_on_stdin_is_refused_like_a_binary_file(tmp_path: Path,
                                                            command: list[str]) -> None:
    store = str(tmp_path / "mem")
    r = subprocess.run([sys.executable, "-m", "ihmt.faces.cli", "--path", store, *command],
                       input=PNG_BYTES, capture_output=True, timeout=120)
    err = r.stderr.decode()
    assert r.returncode == 2, err
    assert "binary" in err and "Traceback" not in err
    st = json.loads(ihmt("--path", store, "stats", "--json").stdout)
    assert st["leaves"] == 0
    r = subprocess.run([sys.executable, "-m", "ihmt.faces.cli", "--path", store, *command],
                       input="caf\xe9".encode("latin-1"), capture_output=True, timeout=120)
    assert r.returncode == 2 and "not valid UTF-8" in r.stderr.decode()


def test_every_command_answers_help_without_starting_anything(tmp_path: Path) -> None:
    top = ihmt("--help")
    assert top.returncode == 0
    assert "--path" in top.stdout and "--json" in top.stdout
    names = [line.split()[0] for line in top.stdout.split("positional arguments:")[1]
             .split("options:")[0].splitlines()[2:] if line.startswith("    ") and
             not line.startswith("     ")]
    assert {"init", "save", "search", "mcp", "gui", "install", "doctor", "project"} <= set(names)
    for name in names:
        # stdin stays a pipe: a command that started its work instead would wait or fail.
        r = subprocess.run([sys.executable, "-m", "ihmt.faces.cli", name, "--help"],
                           stdin=subprocess.PIPE, capture_output=True, text=True, timeout=60,
                           env={**os.environ, "IHMT_HOME": str(tmp_path / "home")})
        assert r.returncode == 0, (name, r.stderr)
        assert r.stdout.startswith(f"usage: ihmt {name}"), (name, r.stdout[:200])
    assert not (tmp_path / "home").exists()
    assert "'-' reads text" in ihmt("ingest", "--help").stdout


def test_counts_are_true_for_one_and_save_prints_the_id(tmp_path: Path) -> None:
    store = str(tmp_path / "mem")
    r = ihmt("--path", store, "save", "The boiler was serviced by Hendrik in March")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("saved 1 memory in ")
    new_id = json.loads(ihmt("--path", store, "--json", "stats").stdout)["leaves"] and \
        r.stdout.split("(id ")[1].split(")")[0]
    assert ihmt("--path", store, "--json", "search", "boiler").stdout.count(new_id) >= 1
    again = ihmt("--path", store, "save", "The boiler was serviced by Hendrik in March")
    assert again.stdout.startswith("saved 0 memories in ") and "1 already stored" in again.stdout
    outputs = [ihmt("--path", store, c, *a).stdout for c, *a in
               (["stats"], ["tree"], ["search", "boiler Hendrik"], ["rebuild"])]
    text = "\n".join(outputs)
    assert "1 memory," in outputs[0] and "root (1 memory)" in outputs[1]
    assert "of 1 memory read" in outputs[2] and "rebuilt from 1 memory:" in outputs[3]
    for wrong in ("1 memories", "1 leaves", "leaf(s)", "node(s)", "branch(es)"):
        assert wrong not in text, wrong


def test_a_closed_pipe_ends_the_command_quietly(tmp_path: Path) -> None:
    store = str(tmp_path / "mem")
    ihmt("--path", store, "save", "Something to print")
    proc = subprocess.Popen([sys.executable, "-m", "ihmt.faces.cli", "--path", store, "--json",
                             "tree"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader is gone before the command writes, as with `| head -0`
    err = proc.stderr.read().decode()
    proc.wait(timeout=60)
    assert "Traceback" not in err and "BrokenPipe" not in err, err
    assert proc.returncode == 141


def test_search_and_ask_show_the_cli_way_to_give_a_clue(tmp_path: Path) -> None:
    store = str(tmp_path / "mem")
    ihmt("--path", store, "save", "Ambrosio is my brother; he lives in Sevilla")
    ihmt("--path", store, "save", "Ambrosio is my dentist; his practice is in Madrid")
    for command in ("search", "ask"):
        r = ihmt("--path", store, command, "Ambrosio", input="")
        assert r.stdout.startswith("AMBIGUOUS"), r.stdout
        assert "--clue" in r.stdout and "clue='" not in r.stdout


def test_a_skipped_file_is_named_once(tmp_path: Path) -> None:
    blob = tmp_path / "blob.bin"
    blob.write_bytes(b"\x00\x01\x02binary")
    r = ihmt("--path", str(tmp_path / "mem"), "ingest", str(blob))
    assert f"skipped {blob}: binary file" in r.stderr
    assert r.stderr.count(str(blob)) == 1 and "skipped" not in r.stderr.split(str(blob))[1]


def test_demo_counts_each_branch_once_and_ends_with_a_command_that_runs(tmp_path: Path) -> None:
    bin_dir = Path(sys.executable).parent
    # As after `make demo`: the virtual environment is not activated, ihmt is not on PATH.
    path = os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep)
                           if p and Path(p).resolve() != bin_dir.resolve())
    r = ihmt("--path", str(tmp_path / "demo"), "demo", env={"PATH": path})
    assert r.returncode == 0, r.stderr
    done = r.stdout.strip().splitlines()[-1]
    assert done.startswith("Done.")
    exe = done.split("yourself:")[1].split("--path")[0].strip()
    assert exe != "ihmt"
    tree = subprocess.run([*exe.split(), "--path", str(tmp_path / "demo"), "stats"],
                          capture_output=True, text=True, timeout=120, env={**os.environ,
                                                                           "PATH": path})
    assert tree.returncode == 0 and "13 memories" in tree.stdout, tree.stderr
    report = json.loads(ihmt("--path", str(tmp_path / "demo2"), "demo", "--json").stdout)
    for s in report["searches"]:
        assert s["node_reads"] <= s["total_nodes"], s
    for line in r.stdout.splitlines():
        if "files opened:" in line:
            opened, total = line.split("files opened:")[1].split(" branches")[0].split(" of ")
            assert int(opened) <= int(total), line


def test_installer_errors_read_like_every_other_command(tmp_path: Path) -> None:
    for args in (["install", "nosuch-agent"], ["uninstall", "nosuch-agent"],
                 ["print-config", "nosuch-agent"]):
        r = ihmt(*args, env={"HOME": str(tmp_path)})
        assert r.returncode == 2, (args, r.stderr)
        assert r.stderr.startswith("ihmt: unknown agent"), r.stderr


def test_replaces_with_several_matches_shows_each_candidate_with_its_text(tmp_path: Path) -> None:
    store = str(tmp_path / "mem")
    ihmt("--path", store, "save", "The staging host is db-eu-7")
    ihmt("--path", store, "save", "The staging host for payments is db-eu-8")
    r = ihmt("--path", store, "save", "The staging host moved to db-eu-9", "--replaces",
             "staging host")
    assert "several memories match" in r.stdout
    lines = [ln for ln in r.stdout.splitlines() if ln.strip().startswith("L-")]
    assert len(lines) == 2
    assert any("db-eu-7" in ln for ln in lines) and any("db-eu-8" in ln for ln in lines)


def test_search_finds_a_memory_by_its_tag(tmp_path: Path) -> None:
    store = str(tmp_path / "mem")
    ihmt("--path", store, "save", "We moved the job queue to RabbitMQ", "--tag", "decision")
    ihmt("--path", store, "save", "Lunch is at noon on Fridays")
    data = json.loads(ihmt("--path", store, "--json", "search", "decision").stdout)
    assert data["status"] == "FOUND" and "RabbitMQ" in data["hits"][0]["text"]
