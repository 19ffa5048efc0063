"""Export and restore: ``Memory.export`` / ``ihmt export``, and ``ihmt ingest`` of a JSONL
export into another store giving the same search answers. Real files; the CLI runs as a
subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import ihmt.export as export_mod
from ihmt import InputError, Memory

PROJECT = "github.com/acme/shop"
QUERIES = [
    "why postgres for billing",
    "where do I live",
    "who is my employer",
    "which package manager do we use",
    "total price of the items",
    "deploy on tuesdays",
    "when is the team standup",
    "rollbacks blue slot",
]


def ihmt(*args: str, input: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ihmt.faces.cli", *args], input=input,
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "IHMT_SEMANTIC": "off"})


def build(path: Path) -> Memory:
    """Several memories: dates, domains, tags, a told correction, a fact that changed,
    stated facts, an undated code memory, a document cut in pieces, a project's memory."""
    m = Memory.open(path, create=True, config={"branch_factor": 4})
    m.save("We chose Postgres for billing because we need transactions.", date="2025-01-03",
           domain="software", tags=["db", "billing"])
    m.save("I live in Madrid, near the Retiro park.", date="2024-03-01")
    m.save("I moved to Valencia last month.", date="2026-02-01", replaces="I live in Madrid")
    old = m.save("The team standup is at 9:30 in room Ada.", date="2025-02-01")
    new = m.save("Standup happens at 10:00 in room Turing now.", date="2025-09-01")
    m.mark_outdated(old.ids[0], new.ids[0])  # told, not implied by any fact
    m.save("I started a new job this week.", date="2025-06-01",
           states="user :: employer = Initech")
    m.save("New job again, at a bigger company.", date="2026-01-10",
           states="user :: employer = Globex")
    m.save("def total_price(items):\n    return sum(i.price for i in items)\n",
           content_type="code", domain="software")
    m.ingest_text("# Deploys\n\nWe deploy on Tuesdays.\n\n# Rollbacks\n\nRollbacks use the "
                  "blue slot, never the green one.\n", source="notes.md", tags=["ops"])
    m.save("We use pnpm in this repo, never npm.", date="2026-03-01", domain="software",
           scope=PROJECT)  # a project's memory: the header holds its id
    return m


def records(m: Memory, scope: str | None = None) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in m.export(scope=scope)]
    assert lines[0]["ihmt_export"] == 1 and lines[-1]["kind"] == "end"
    assert lines[-1]["memories"] == len(lines) - 2
    return lines[1:-1]


def answers(m: Memory) -> list[Any]:
    out = []
    for q in QUERIES:
        res = m.search(q, top_k=5)
        out.append((q, res.status, round(res.confidence, 6), res.best and res.best.text,
                    [(h.id, h.outdated, h.date, h.tags) for h in res.hits]))
    return out


def fact_rows(m: Memory) -> list[tuple[Any, ...]]:
    return sorted((f.subject, f.attribute, f.value, f.status, f.source, f.valid_from)
                  for f in m.facts())


@pytest.fixture
def src(tmp_path: Path) -> Memory:
    m = build(tmp_path / "src")
    yield m
    m.close()


def test_what_an_export_records(src: Memory) -> None:
    recs = records(src)
    by_text = {r["text"]: r for r in recs}
    madrid = by_text["I live in Madrid, near the Retiro park."]
    valencia = by_text["I moved to Valencia last month."]
    assert madrid["outdated"] and madrid["superseded_by"] == valencia["id"]
    assert not madrid["superseded_implicitly"] and not valencia["outdated"]
    ada = by_text["The team standup is at 9:30 in room Ada."]
    assert ada["outdated"] and ada["superseded_by"] == by_text[
        "Standup happens at 10:00 in room Turing now."]["id"]
    initech = by_text["I started a new job this week."]
    assert initech["states"] == [["user", "employer", "Initech"]] and initech["outdated"]
    assert initech["date"] == "2025-06-01" and initech["saved_at"]
    pg = by_text["We chose Postgres for billing because we need transactions."]
    assert (pg["domain"], pg["tags"], pg["scope"]) == ("software", ["db", "billing"], "global")
    code = next(r for r in recs if r["text"].startswith("def total_price"))
    assert code["date"] is None and code["data_type"] == "CODE"
    pnpm = by_text["We use pnpm in this repo, never npm."]
    assert pnpm["scope"] == PROJECT and "scope" not in pnpm["extra"]
    doc = [r for r in recs if r["source"] == "notes.md"]
    assert doc and all(r["tags"] == ["ops"] and r["span"] for r in doc)
    assert len(recs) == len({p.stem for p in src.store.iter_leaf_paths()})


def test_round_trip_gives_the_same_answers_and_records(src: Memory, tmp_path: Path) -> None:
    path = tmp_path / "export.jsonl"
    path.write_text("".join(src.export()), encoding="utf-8")
    dst = Memory.open(tmp_path / "dst", create=True, config={"branch_factor": 4})
    rep = dst.ingest_file(path)
    n = len(records(src))
    assert (rep.new, rep.duplicates, len(rep.ids)) == (n, 0, n)
    assert answers(dst) == answers(src)
    assert fact_rows(dst) == fact_rows(src)
    assert records(dst) == records(src)
    leaf = dst.get(next(r["id"] for r in records(src) if r["scope"] == PROJECT))
    assert leaf.extra["scope"] == PROJECT
    # a second restore of the same export adds nothing
    again = dst.ingest_file(path)
    assert (again.new, again.duplicates) == (0, n)
    assert dst.stats()["leaves"] == n
    assert records(dst) == records(src) and fact_rows(dst) == fact_rows(src)
    # the restored store's own files tell the same story after a rebuild
    dst.rebuild()
    assert answers(dst) == answers(src) and records(dst) == records(src)
    dst.close()


def test_round_trip_through_the_cli(src: Memory, tmp_path: Path) -> None:
    out = tmp_path / "backup.jsonl"
    r = ihmt("--path", str(src.path), "export", "--out", str(out))
    assert r.returncode == 0, r.stderr
    n = len(records(src))
    assert r.stdout.strip() == f"exported {n} memories to {out}"
    dst = str(tmp_path / "dst")
    r = ihmt("--path", dst, "ingest", str(out))
    assert r.returncode == 0, r.stderr
    assert f"{n} memories ({n} new)" in r.stdout
    r = ihmt("--path", dst, "ingest", str(out), "--json")
    assert json.loads(r.stdout)["files"][0]["new"] == 0
    for q in QUERIES:
        a = json.loads(ihmt("--path", str(src.path), "search", q, "--json").stdout)
        b = json.loads(ihmt("--path", dst, "search", q, "--json").stdout)
        for hit in a["hits"] + b["hits"]:
            del hit["path"]  # the branches above the leaves are derived: their ids differ
        assert (a["status"], a["hits"]) == (b["status"], b["hits"]), q
    # stdout export piped into ingest '-' restores too; the summary goes to stderr
    r = ihmt("--path", str(src.path), "export")
    assert r.stderr.strip() == f"exported {n} memories"
    assert r.stdout.splitlines()[0].startswith('{"ihmt_export":1')
    r = ihmt("--path", str(tmp_path / "piped"), "ingest", "-", input=r.stdout)
    assert r.returncode == 0 and f"({n} new)" in r.stdout
    with Memory.open(tmp_path / "dst") as a, Memory.open(tmp_path / "piped") as b:
        assert records(a) == records(src) == records(b)


def test_one_memory_is_counted_as_one(tmp_path: Path) -> None:
    store = str(tmp_path / "one")
    assert ihmt("--path", store, "save", "The boiler was serviced in March").returncode == 0
    r = ihmt("--path", store, "export", "--out", str(tmp_path / "one.jsonl"))
    assert r.stdout.startswith("exported 1 memory to ")
    r = ihmt("--path", str(tmp_path / "two"), "ingest", str(tmp_path / "one.jsonl"))
    assert "1 memory (1 new)" in r.stdout


def test_markdown_is_one_readable_section_per_memory(src: Memory) -> None:
    src.save("A fenced note:\n```\nmake dev\n```\n", date="2026-04-01", tags=["howto"])
    md = "".join(src.export(fmt="markdown"))
    recs = records(src)
    assert md.count("\n## ") == len(recs)
    assert md.rstrip().endswith(f"{len(recs)} memories.")
    madrid = md.split("\n## ")[[i for i, s in enumerate(md.split("\n## "))
                                if "Madrid" in s.splitlines()[0]][0]]
    assert madrid.startswith("OUTDATED · 2024-03-01 · I live in Madrid")
    assert "- OUTDATED: corrected by `L-" in madrid
    assert "- domain: software · type: GENERIC · scope: github.com/acme/shop" in md
    assert "- tags: db, billing" in md and "- states: user :: employer = Initech" in md
    assert "- date: undated" in md and "- source: notes.md" in md
    # a text holding a code fence stays inside its own, longer fence
    assert "````text\nA fenced note:\n```\nmake dev\n```\n````\n" in md
    r = ihmt("--path", str(src.path), "export", "--format", "markdown")
    assert r.returncode == 0 and r.stdout.count("\n## ") == len(recs)


def test_scope_filters_the_export(src: Memory, tmp_path: Path) -> None:
    everything = records(src)
    only_project = records(src, PROJECT)
    only_global = records(src, "global")
    assert [r["text"] for r in only_project] == ["We use pnpm in this repo, never npm."]
    assert len(only_global) == len(everything) - 1
    assert all(r["scope"] == "global" for r in only_global)
    assert records(src, "all") == everything
    assert records(src, "github.com/other/repo") == []
    r = ihmt("--path", str(src.path), "export", "--scope", PROJECT)
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert lines[0]["scope"] == PROJECT and len(lines) == 3
    assert r.stderr.strip() == "exported 1 memory"


def test_a_damaged_line_is_named_and_what_came_before_is_kept(src: Memory,
                                                             tmp_path: Path) -> None:
    lines = list(src.export())
    n = len(lines) - 2
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(lines[:4]) + lines[4][:30] + "\n" + "".join(lines[5:]))
    dst = Memory.open(tmp_path / "dst", create=True)
    with pytest.raises(InputError, match=r"bad\.jsonl: line 5: not valid JSON"):
        dst.ingest_file(bad)
    assert dst.stats()["leaves"] == 3  # lines 2-4
    r = ihmt("--path", str(tmp_path / "dst"), "ingest", str(bad))
    assert r.returncode == 1 and "line 5: not valid JSON" in r.stderr
    assert r.stderr.count(str(bad)) == 1
    good = tmp_path / "good.jsonl"
    good.write_text("".join(lines))
    rep = dst.ingest_file(good)
    assert (rep.new, rep.duplicates) == (n - 3, 3)
    assert records(dst) == records(src)
    dst.close()


def test_a_line_nested_too_deep_is_a_damaged_line(tmp_path: Path) -> None:
    path = tmp_path / "deep.jsonl"
    path.write_text('{"ihmt_export": 1}\n' + "[" * 100_000 + "\n")
    dst = Memory.open(tmp_path / "dst", create=True)
    with pytest.raises(InputError, match="line 2: not valid JSON"):
        dst.ingest_file(path)
    dst.close()


@pytest.mark.parametrize("header,why", [
    ('{"ihmt_export": 2, "kind": "header"}', "export format version 2 is not one this IHMT"),
    ('{"ihmt_export": "1"}', "export format version '1' is not one"),
])
def test_an_unknown_format_version_is_refused(tmp_path: Path, header: str, why: str) -> None:
    path = tmp_path / "future.jsonl"
    path.write_text(header + "\n" + '{"kind": "end", "memories": 0}\n')
    dst = Memory.open(tmp_path / "dst", create=True)
    with pytest.raises(InputError, match="line 1: " + why):
        dst.ingest_file(path)
    r = ihmt("--path", str(tmp_path / "dst"), "ingest", str(path))
    assert r.returncode == 1 and why in r.stderr
    dst.close()


@pytest.mark.parametrize("change,why", [
    ({"id": "L-other-0123456789ab"}, "is not a memory id of domain"),
    ({"id": "L-general-../../x"}, "is not a memory id of domain"),
    ({"domain": "../etc"}, "domain '../etc' is not allowed"),
    ({"text": ""}, "text is empty"),
    ({"data_type": "POEM"}, "data type 'POEM'"),
    ({"kind": "memroy"}, "unknown record kind 'memroy'"),
    ({"states": [["user", "employer"]]}, "'states' must be a list"),
    ({"tags": "db"}, "field 'tags' is missing or of the wrong kind"),
])
def test_a_bad_record_is_named_by_its_line(src: Memory, tmp_path: Path,
                                           change: dict[str, Any], why: str) -> None:
    lines = list(src.export())
    rec = json.loads(lines[2])
    rec.update(change)
    path = tmp_path / "edited.jsonl"
    path.write_text(lines[0] + lines[1] + json.dumps(rec) + "\n" + "".join(lines[3:]))
    dst = Memory.open(tmp_path / "dst", create=True)
    with pytest.raises(InputError, match="line 3: ") as err:
        dst.ingest_file(path)
    assert why in str(err.value)
    assert {p.stem for p in dst.store.iter_leaf_paths()} == {json.loads(lines[1])["id"]}
    dst.close()


def test_a_cut_short_export_restores_what_it_holds_and_says_so(src: Memory,
                                                             tmp_path: Path) -> None:
    lines = list(src.export())
    path = tmp_path / "cut.jsonl"
    path.write_text("".join(lines[:-3]))
    dst = Memory.open(tmp_path / "dst", create=True)
    rep = dst.ingest_file(path)
    assert rep.new == len(lines) - 4
    assert any("no end line" in w for w in rep.warnings)
    dst.close()


def test_an_ordinary_jsonl_file_is_still_ingested_as_text(tmp_path: Path) -> None:
    path = tmp_path / "memories.jsonl"
    path.write_text('{"id": "m1", "text": "We deploy on Tuesdays."}\n')
    dst = Memory.open(tmp_path / "dst", create=True)
    rep = dst.ingest_file(path)
    assert rep.new == 1 and rep.data_type != "IHMT export"
    dst.close()


def test_out_writes_atomically_and_never_over_an_existing_file(src: Memory,
                                                               tmp_path: Path) -> None:
    target = tmp_path / "out" / "mem.jsonl"
    target.parent.mkdir()
    target.write_text("keep me\n")
    r = ihmt("--path", str(src.path), "export", "--out", str(target))
    assert r.returncode == 2 and "already exists" in r.stderr and "--force" in r.stderr
    assert target.read_text() == "keep me\n"
    r = ihmt("--path", str(src.path), "export", "--out", str(target), "--force", "--json")
    assert r.returncode == 0, r.stderr
    summary = json.loads(r.stdout)
    assert summary["exported"] == len(records(src)) and summary["out"] == str(target)
    assert target.read_text().startswith('{"ihmt_export":1')
    assert sorted(p.name for p in target.parent.iterdir()) == ["mem.jsonl"]  # no temp left
    r = ihmt("--path", str(src.path), "export", "--out", str(tmp_path / "out"))
    assert r.returncode == 2 and "is a folder" in r.stderr


def test_a_failed_export_leaves_no_file(src: Memory, tmp_path: Path) -> None:
    def broken() -> Any:
        yield "first line\n"
        raise OSError("disk full")

    folder = tmp_path / "backups"
    folder.mkdir()
    with pytest.raises(OSError, match="disk full"):
        export_mod.write_file(broken(), folder / "x.jsonl")
    assert list(folder.iterdir()) == []


def test_export_reads_one_leaf_at_a_time(src: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[str] = []
    real = export_mod.read_leaf

    def counting(path: Path) -> Any:
        reads.append(path.name)
        return real(path)

    monkeypatch.setattr(export_mod, "read_leaf", counting)
    total = len({p.stem for p in src.store.iter_leaf_paths()})
    assert total >= 8
    it = src.export()
    next(it)  # the header
    assert reads == []
    next(it)
    next(it)
    assert len(reads) == 2  # nothing read ahead: each line is made from one leaf file
    rest = list(it)
    assert len(reads) == total and len(rest) == total - 1  # the others and the end line


def test_a_damaged_leaf_is_skipped_reported_and_left_in_place(src: Memory,
                                                             tmp_path: Path) -> None:
    victim = next(src.store.iter_leaf_paths())
    victim.write_text("not a leaf any more")
    total = len({p.stem for p in src.store.iter_leaf_paths()})
    exp = src.export()
    body = list(exp)
    assert exp.exported == total - 1 and exp.skipped[0][0] == victim.name
    assert json.loads(body[-1])["memories"] == total - 1
    assert victim.exists()  # an export only reads: no quarantine
    r = ihmt("--path", str(src.path), "export", "--out", str(tmp_path / "e.jsonl"))
    assert r.returncode == 0 and f"not exported: {victim.name}" in r.stderr
    assert "1 damaged leaf skipped" in r.stdout


def test_bad_arguments(src: Memory) -> None:
    with pytest.raises(InputError, match="export format 'csv'"):
        src.export(fmt="csv")
    with pytest.raises(InputError, match="scope must be"):
        src.export(scope="  ")
    r = ihmt("--path", str(src.path), "export", "--format", "csv")
    assert r.returncode == 2 and "invalid choice" in r.stderr


def test_the_export_benchmark_restores_a_generated_store_identically(tmp_path: Path) -> None:
    from bench import export as bench_export

    r = bench_export.run(80, 3, tmp_path)
    assert r["exported"] == r["restored_new"] > 0
    assert r["identical"] is True
    assert r["stream"]["peak_mb"] > 0 and r["load_all"]["peak_mb"] > 0
