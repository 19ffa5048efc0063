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
    r = ihmt("project", "sync", str(proj), "--json", env=env)
    assert r.returncode == 0, r.stderr
    r = ihmt("project", "map", str(proj), "--symbols", env=env)
    assert "shop.py" in r.stdout and "total_price" in r.stdout and "Cart.add" in r.stdout
    r = ihmt("project", "find", "total price of items", str(proj), env=env)
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
