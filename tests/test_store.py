"""The plain-file store: leaf format, atomic files, consolidation, reachability, rebuild."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ihmt import Memory
from ihmt.errors import DamagedFileError, InputError
from ihmt.model import Leaf
from ihmt.store.branch_file import PackedBranch, is_branch_file
from ihmt.store.branches import BranchFiles
from ihmt.store.files import safe_name
from ihmt.store.leaves import format_leaf, parse_leaf

from .conftest import leaf_files, reachable


def test_leaf_round_trip_keeps_text_and_header() -> None:
    leaf = Leaf(id="L-personal-abc123", text="Línea 1\r\n<<<IHMT-META inside text\n",
                domain="personal", data_type="PERSONAL", date="2026-02-03",
                saved_at="2026-02-03T10:00:00Z", tags=["a", "b"], parent="N1-personal-x",
                span={"start_line": 1, "end_line": 2}, source="journal.txt", extra={"k": 1})
    back = parse_leaf(format_leaf(leaf))
    assert back.text == leaf.text
    assert (back.id, back.date, back.tags, back.parent, back.source, back.extra) == (
        leaf.id, leaf.date, leaf.tags, leaf.parent, leaf.source, leaf.extra)


@pytest.mark.parametrize("raw", ["no header", "<<<IHMT-META\n{bad json\nIHMT-META>>>\nx",
                                 "<<<IHMT-META\n{}\nIHMT-META>>>\nx", "<<<IHMT-META\n{\"a\":1}"])
def test_damaged_leaf_header_is_reported(raw: str) -> None:
    with pytest.raises(DamagedFileError):
        parse_leaf(raw)


def test_store_layout_matches_the_spec(mem: Memory) -> None:
    mem.save("We chose Postgres for billing because we need transactions.", domain="decisions")
    p = mem.path
    assert (p / "root.json").is_file() and (p / "ihmt.config.json").is_file()
    assert (p / "state" / "catalog.jsonl").is_file()
    leaves = list((p / "layer_0" / "decisions").glob("L-decisions-*.txt"))
    assert len(leaves) == 1
    assert leaves[0].read_text().startswith("<<<IHMT-META\n")
    assert oct(p.stat().st_mode & 0o777) == "0o700"
    assert oct(leaves[0].stat().st_mode & 0o777) == "0o600"


def test_consolidation_fires_at_branch_factor_and_stamps_children(mem: Memory) -> None:
    ids = [mem.save(f"memory number {i} about topic{i}", domain="notes").ids[0]
           for i in range(3)]
    assert mem.stats()["branches"] == 0
    ids += mem.save("memory number 3 about topic3", domain="notes").ids
    st = mem.stats()
    assert st["branches"] == 1 and st["top_nodes"] == 1
    parents = {mem.get(i).parent for i in ids}
    assert len(parents) == 1 and None not in parents
    path = next((mem.path / "layers" / "1").glob("N1-notes-*.json"))
    branch = PackedBranch(path.read_bytes())
    assert [c["id"] for c in branch.children] == ids
    assert branch.groups("topic2") and b"topic2" in path.read_bytes()
    assert branch.groups("topic9") is None


def test_flush_closes_each_domain_to_one_top_node(mem: Memory) -> None:
    for i in range(11):
        mem.save(f"note {i} alpha{i}", domain="a")
    for i in range(2):
        mem.save(f"note {i} beta{i}", domain="b")
    mem.flush()
    tops = mem.store.root()["top"]
    assert sorted(e["domain"] for e in tops) == ["a", "b"]
    assert sorted(reachable(mem)) == sorted(leaf_files(mem))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=st.lists(st.tuples(st.sampled_from(["a", "b", "c"]), st.integers(0, 30),
                              st.booleans()), min_size=1, max_size=40))
def test_every_leaf_is_reachable_after_any_sequence(tmp_path_factory, ops) -> None:
    m = Memory.open(tmp_path_factory.mktemp("s") / "ihmt_memory", create=True,
                    config={"branch_factor": 3})
    for dom, n, flush in ops:
        m.save(f"entry {n} in {dom} word{n}", domain=dom)
        if flush:
            m.flush()
    ids = reachable(m)
    assert len(ids) == len(set(ids)), "a leaf is reachable twice"
    assert set(ids) == leaf_files(m)
    assert m.stats()["leaves"] == len(ids)


def test_same_memory_saved_twice_is_not_duplicated(mem: Memory) -> None:
    a = mem.save("the staging database is db-eu-7", date="2026-01-02")
    b = mem.save("the staging database is db-eu-7", date="2026-01-02")
    assert a.ids == b.ids and b.new == 0 and b.duplicates == 1
    assert mem.stats()["leaves"] == 1


def test_reingesting_a_document_rewrites_the_same_leaves(mem: Memory) -> None:
    text = "First paragraph about caching.\n\nSecond paragraph about queues.\n"
    r1 = mem.ingest_text(text, source="notes.md", data_type="GENERIC")
    r2 = mem.ingest_text(text, source="notes.md", data_type="GENERIC")
    assert r1.ids == r2.ids and r2.new == 0
    assert len(leaf_files(mem)) == len(set(r1.ids))


def test_rebuild_from_leaves_alone(mem: Memory) -> None:
    for i in range(10):
        mem.save(f"fact {i}: service{i} listens on port {8000 + i}", domain="setup")
    before = mem.search("service7 port").best.id
    for name in ("root.json", "state/catalog.jsonl"):
        (mem.path / name).unlink()
    import shutil

    shutil.rmtree(mem.path / "layers")
    m2 = Memory.open(mem.path)  # damage detected: rebuilt from the leaves
    assert m2.stats()["leaves"] == 10
    assert m2.search("service7 port").best.id == before
    assert sorted(reachable(m2)) == sorted(leaf_files(m2))


def _fill(m: Memory, n: int = 12) -> None:
    for i in range(n):
        m.save(f"remember item{i} colour {['red', 'green', 'blue'][i % 3]}", domain="general")


@pytest.mark.parametrize("target", ["root", "branch", "old-branch", "catalog", "config"])
@pytest.mark.parametrize("damage", ["truncate", "garbage"])
def test_damaged_derived_file_never_stops_search_or_save(tmp_path: Path, target: str,
                                                         damage: str,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    if target == "old-branch":  # a store written before the current branch format
        monkeypatch.setattr(BranchFiles, "legacy_branches", True)
    m = Memory.open(tmp_path / "ihmt_memory", create=True, config={"branch_factor": 4})
    _fill(m)
    monkeypatch.setattr(BranchFiles, "legacy_branches", False)
    path = {
        "root": lambda: m.path / "root.json",
        "branch": lambda: next(p for p in (m.path / "layers" / "1").glob("*.json")
                               if is_branch_file(p.read_bytes())),
        "old-branch": lambda: next((m.path / "layers" / "1").glob("*.json")),
        "catalog": lambda: m.path / "state" / "catalog.jsonl",
        "config": lambda: m.path / "ihmt.config.json",
    }[target]()
    if damage == "truncate":
        path.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 3])
    else:
        path.write_bytes(os.urandom(300))
    m2 = Memory.open(m.path)  # a fresh process view
    res = m2.search("item5 colour")
    assert res.best is not None and "item5" in res.best.text
    m2.save("remember item99 colour purple")
    assert "item99" in m2.search("item99").best.text
    assert len(leaf_files(m2)) == 13
    assert sorted(reachable(m2)) == sorted(leaf_files(m2))


def test_damaged_leaf_header_is_quarantined_not_dropped(mem: Memory) -> None:
    _fill(mem, 8)
    victim = next(mem.store.iter_leaf_paths())
    content = victim.read_text()
    victim.write_text("garbage header\n" + content)
    rep = mem.rebuild()
    assert rep["quarantined"] == [victim.name]
    q = mem.path / "quarantine" / victim.name
    assert q.read_text() == "garbage header\n" + content
    assert mem.stats()["leaves"] == 7
    assert sorted(reachable(mem)) == sorted(leaf_files(mem))


@pytest.mark.parametrize("bad", ["..", "../etc", "a/b", "/abs", "a\\b", "   ", "...."])
def test_domain_names_cannot_escape_the_store(mem: Memory, bad: str) -> None:
    with pytest.raises(InputError):
        mem.save("some text", domain=bad)
    assert not any(mem.path.parent.glob("etc"))


def test_safe_name_normalises() -> None:
    assert safe_name("Software.Java") == "software.java"
    assert safe_name("my domain!") == "my-domain"


def test_lone_surrogates_are_cleaned_and_nul_is_refused_as_binary(mem: Memory) -> None:
    rep = mem.save("broken \ud800 half")
    assert any("surrogate" in w for w in rep.warnings)
    assert "\ufffd" in mem.get(rep.ids[0]).text
    # A NUL marks binary data, refused as a binary file given by its path is (issue 21).
    with pytest.raises(InputError, match="binary data"):
        mem.save("broken \ud800 half and a \x00 nul")


def test_oversized_input_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    m = Memory.open(tmp_path / "s", create=True, config={"max_input_bytes": 1000})
    with pytest.raises(InputError, match="1,000-byte limit"):
        m.save("x" * 1001)
    big = tmp_path / "big.txt"
    big.write_text("y" * 5000)
    with pytest.raises(InputError, match="limit"):
        m.ingest_file(big)
    assert m.stats()["leaves"] == 0


@pytest.mark.parametrize("bad", [None, 42, b"bytes", ["list"]])
def test_non_text_content_is_refused(mem: Memory, bad) -> None:
    with pytest.raises(InputError, match="must be text"):
        mem.save(bad)


@pytest.mark.parametrize("tags", [[""], [42], ["x" * 101]])
def test_bad_tags_are_refused(mem: Memory, tags) -> None:
    with pytest.raises(InputError):
        mem.save("fine text", tags=tags)


def test_ingest_of_a_folder_path_as_file_is_a_clear_error(mem: Memory, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not a regular file"):
        mem.ingest_file(tmp_path)
    with pytest.raises(InputError, match="no such file"):
        mem.ingest_file(tmp_path / "missing.md")


def test_code_is_undated_and_statements_are_dated_the_day_they_are_told(mem: Memory) -> None:
    code = mem.save("def add(a, b):\n    return a + b\n", content_type="code")
    assert mem.get(code.ids[0]).date is None
    note = mem.save("We picked Redis for the session cache")
    assert mem.get(note.ids[0]).date is not None
    doc = mem.ingest_text("Step 1: preheat. Step 2: bake.", source="recipe.txt")
    assert all(mem.get(i).date is None for i in doc.ids)
    assert all(mem.get(i).saved_at for i in doc.ids)


def test_header_keys_of_another_version_survive_a_rewrite(mem: Memory) -> None:
    path = mem.path / "layer_0" / "notes" / "L-notes-abc123abc123.txt"
    path.parent.mkdir(parents=True)
    path.write_text('<<<IHMT-META\n{"leaf_id": "L-notes-abc123abc123", "timestamp": '
                    '"2024-05-01T10:00:00Z", "domain": "notes", "custom": [1, 2]}\n'
                    "IHMT-META>>>\nAn old note about the billing rewrite.")
    mem.rebuild()
    leaf = mem.get("L-notes-abc123abc123")
    assert leaf.date == "2024-05-01T10:00:00Z"
    mem.mark_outdated(leaf.id, mem.save("New note on billing").ids[0])  # rewrites the header
    head = path.read_text()
    assert '"custom": [' in head and '"timestamp": "2024-05-01T10:00:00Z"' in head
    assert mem.search("billing rewrite").hits


def test_write_all_finishes_short_writes_and_refuses_a_stuck_descriptor(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ihmt.store import files

    real = os.write
    monkeypatch.setattr(os, "write", lambda fd, data: real(fd, bytes(data[:3])))
    path = tmp_path / "f"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        files.write_all(fd, b"0123456789" * 10)
    finally:
        os.close(fd)
    assert path.read_bytes() == b"0123456789" * 10
    files.append_line(path, "tail line")  # the log's appends go through it too
    assert path.read_bytes().endswith(b"0123456789tail line\n")
    monkeypatch.setattr(os, "write", lambda fd, data: 0)
    fd = os.open(path, os.O_WRONLY)
    try:
        with pytest.raises(OSError, match="wrote 0"):
            files.write_all(fd, b"more")
    finally:
        os.close(fd)


@pytest.mark.parametrize("call", ["save", "ingest_text"])
def test_binary_content_is_refused_by_the_library_like_a_binary_file(mem: Memory,
                                                                     call: str) -> None:
    png = (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR").decode("latin-1")
    with pytest.raises(InputError, match="binary data"):
        getattr(mem, call)(png)
    assert mem.stats()["leaves"] == 0


def test_nested_derived_folders_are_private(tmp_path: Path) -> None:
    import stat

    from ihmt.store.files import DIR_MODE, ensure_dir

    top = tmp_path / "state"
    ensure_dir(top / "cache" / "branches")
    for d in (top, top / "cache", top / "cache" / "branches"):
        assert stat.S_IMODE(d.stat().st_mode) & 0o077 == DIR_MODE & 0o077, d
