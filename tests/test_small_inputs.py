"""The smaller bad inputs of issue 23, item 10: a query of a whole document, a tag of
control characters, a link out of a folder being ingested, a path of megabytes in an error,
a session note of megabytes. Each is refused (or skipped) with a message about what was
given, and nothing is stored or lost."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ihmt import Memory
from ihmt.errors import IHMTError, InputError
from ihmt.project import SessionMemory


@pytest.fixture
def mem(tmp_path: Path) -> Memory:
    m = Memory.open(tmp_path / "s", create=True)
    m.save("The staging database runs on host pg-stage-7.")
    yield m
    m.close()


def test_a_query_of_a_whole_document_gets_a_message_about_queries(mem: Memory) -> None:
    for kwargs in ({"query": "staging " * 3000}, {"query": "staging", "clue": "db " * 8000}):
        with pytest.raises(InputError) as err:
            mem.search(**kwargs)
        msg = str(err.value)
        assert "limit for a search" in msg and "save" not in msg, msg
        assert "max_input_bytes" not in msg


@pytest.mark.parametrize("tag", ["\x00", "\t\x1b", "\u200b\x07 "])
def test_a_tag_of_control_characters_is_refused_not_stored_empty(mem: Memory, tag: str) -> None:
    with pytest.raises(InputError, match="visible characters"):
        mem.save("The staging database has 64 GB of memory.", tags=[tag])
    assert len(list(mem.store.iter_leaf_paths())) == 1  # nothing stored


def test_a_tag_keeps_its_visible_characters(mem: Memory) -> None:
    leaf = mem.get(mem.save("The standup is at 9:30.", tags=["team\x00-a"]).ids[0])
    assert leaf.tags == ["team-a"]


def _tree(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "private.txt").write_text("the outside file holds zebracorn passwords\n")
    (docs / "a.txt").write_text("The inside note about the orchard irrigation.\n")
    (docs / "sub" / "b.md").write_text("The sub note about pruning pear trees.\n")
    (docs / "passwd").symlink_to(outside / "private.txt")  # a file outside
    (docs / "elsewhere").symlink_to(outside)  # a folder outside
    (docs / "also.txt").symlink_to(docs / "a.txt")  # inside: allowed
    return docs


def test_ingesting_a_folder_never_follows_a_link_out_of_it(tmp_path: Path, mem: Memory) -> None:
    docs = _tree(tmp_path)
    items = list(mem.ingest_paths([docs]))
    skipped = {Path(i.path).name: i.skipped for i in items if i.skipped}
    assert set(skipped) == {"passwd", "elsewhere"}
    assert all("outside the folder" in why for why in skipped.values())
    assert {Path(i.path).name for i in items if not i.skipped} == {"a.txt", "b.md", "also.txt"}
    assert mem.search("zebracorn passwords").status == "NOT_FOUND"
    for p in mem.store.iter_leaf_paths():
        assert "zebracorn" not in p.read_text()


def test_the_cli_ingest_of_a_folder_skips_links_out_of_it(tmp_path: Path) -> None:
    docs = _tree(tmp_path)
    store = tmp_path / "cli"
    r = subprocess.run([sys.executable, "-m", "ihmt.faces.cli", "--path", str(store),
                        "ingest", str(docs)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "skipped" in r.stderr and "passwd" in r.stderr and "outside the folder" in r.stderr
    assert "3 ingested, 2 skipped" in r.stdout
    for p in (store / "ihmt_memory" / "layer_0").rglob("*.txt"):
        assert "zebracorn" not in p.read_text()


def test_a_path_of_megabytes_is_clipped_in_errors(mem: Memory) -> None:
    huge = "/tmp/" + "a/" * 2_500_000
    calls = [lambda: mem.ingest_file(huge), lambda: mem.get("L-" + "x" * 5_000_000),
             lambda: mem.search("db", scope="p" * 5_000_000),
             lambda: mem.save("db note", date="2" * 5_000_000)]
    for call in calls:
        with pytest.raises(IHMTError) as err:
            call()
        assert len(str(err.value)) <= 2_000, len(str(err.value))
    [item] = list(mem.ingest_paths([huge]))
    assert item.skipped and len(item.path) + len(item.skipped) < 2_000


def test_a_session_note_of_megabytes_is_refused(tmp_path: Path) -> None:
    s = SessionMemory()
    with pytest.raises(InputError, match="limit for a note.*digest_output"):
        s.note("x " * 2_500_000)
    assert len(s) == 0
    assert s.note("the flaky test is test_sync_retry").startswith("noted #1")


def test_the_note_tool_refuses_megabytes_over_mcp(tmp_path: Path) -> None:
    from tests.mcp_client import running_server

    with running_server(tmp_path / "home", tmp_path / "server.log", cwd=tmp_path) as agent:
        text = agent.error("note", text="y" * 5_000_000)
        assert "limit for a note" in text and len(text) < 1_000
        assert agent.text("note", text="the flaky test is test_sync_retry").startswith("noted")
