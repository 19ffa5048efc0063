"""The packed copy of a parsed fact log (``ihmt.timeline.snapshot``): a fresh reader that
takes it holds exactly what parsing the log gives, catches up with lines appended after
it, and never trusts a copy that does not match the log; a forget or a rebuild deletes
it, so no copy keeps a forgotten fact."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from ihmt import Memory
from ihmt.model import Fact
from ihmt.timeline import snapshot
from ihmt.timeline.facts import FactTimeline

MARKER = "zorblax-9931"


def big_log(state: Path, n: int = 3000) -> FactTimeline:
    tl = FactTimeline(state)
    facts = [Fact(f"service-{i % 400}", ["database", "region", "owner"][i % 3],
                  f"value {i} {'x' * 60}", f"2024-{1 + i % 12:02d}-{1 + i % 28:02d}",
                  f"L-general-{i:012x}") for i in range(n)]
    facts.append(Fact("billing", "database", MARKER, "2025-01-01", "L-general-marker00000"))
    tl.record_many(facts)
    tl.mark_outdated("L-general-000000000001", "L-general-000000000002", "2025-02-02")
    assert tl.path.stat().st_size >= snapshot.MIN_BYTES
    return tl


def state_of(tl: FactTimeline) -> tuple:
    tl.refresh()
    return (tl._stmts, tl._exact, tl._by_source, tl._outdated, tl._implicit, tl._offset,
            tl._lines, tl._seq, tl._head, tl.active_state())


def parsed(state: Path) -> tuple:
    tl = FactTimeline(state)
    tl.snapshots = False
    return state_of(tl)


def copy_written(state: Path) -> None:
    tl = FactTimeline(state)
    tl.refresh()
    assert tl.write_deferred_cache() == 1
    assert snapshot.path_of(state).is_file()


def test_a_reader_from_the_copy_holds_what_the_parse_gives(tmp_path: Path) -> None:
    state = tmp_path / "state"
    big_log(state)
    copy_written(state)
    fresh = FactTimeline(state)
    got = state_of(fresh)
    assert fresh._offset > 0 and got == parsed(state)
    assert fresh.write_deferred_cache() == 0  # read from the copy: nothing new to write


def test_lines_appended_after_the_copy_are_read(tmp_path: Path) -> None:
    state = tmp_path / "state"
    tl = big_log(state)
    copy_written(state)
    tl.record(Fact("billing", "database", "CockroachDB", "2026-01-01", "L-general-newer0000000"))
    fresh = FactTimeline(state)
    assert state_of(fresh) == parsed(state)
    assert fresh.timeline("billing", "database")[-1].value == "CockroachDB"


def test_a_copy_that_does_not_match_is_not_used_and_goes(tmp_path: Path) -> None:
    state = tmp_path / "state"
    big_log(state)
    copy_written(state)
    want = parsed(state)
    path = snapshot.path_of(state)
    good = path.read_bytes()
    for bad in (good[:-7], good[:40] + b"garbage" + good[47:], os.urandom(300), b""):
        path.write_bytes(bad)
        assert state_of(FactTimeline(state)) == want
        assert not path.exists()
    # the log replaced by a copy of itself (another inode, the same bytes) then changed
    path.write_bytes(good)
    log = state / "facts.jsonl"
    data = log.read_bytes()
    log.unlink()
    log.write_bytes(data.replace(b"value 7 ", b"value 8 ", 1))
    assert state_of(FactTimeline(state)) == parsed(state)
    assert not path.exists()


def test_a_forget_and_a_rebuild_delete_the_copy(tmp_path: Path) -> None:
    state = tmp_path / "state"
    tl = big_log(state)
    copy_written(state)
    assert MARKER.encode() in snapshot.path_of(state).read_bytes()
    tl.forget({"L-general-marker00000"})
    assert not snapshot.path_of(state).exists()
    assert not any(MARKER.encode() in p.read_bytes() for p in state.rglob("*") if p.is_file())
    copy_written(state)
    tl.rebuild([])
    assert not snapshot.path_of(state).exists()


def test_the_hook_writes_the_copy_and_the_next_call_answers_alike(tmp_path: Path) -> None:
    store = tmp_path / "ihmt_memory"
    with Memory.open(store, create=True) as m:
        m.save("The billing database runs on Postgres 16 in eu-west.", date="2025-01-01")
    big_log(store / "state")  # a large log beside the store's own facts
    payload = json.dumps({"hook_event_name": "UserPromptSubmit", "cwd": str(tmp_path),
                          "prompt": "what does the billing database run on?"})
    cmd = [sys.executable, "-m", "ihmt.faces.cli", "--path", str(store), "hook",
           "prompt-submit"]
    first = subprocess.run(cmd, input=payload, capture_output=True, text=True, timeout=60)
    assert snapshot.path_of(store / "state").is_file()
    second = subprocess.run(cmd, input=payload, capture_output=True, text=True, timeout=60)
    assert first.returncode == second.returncode == 0
    assert first.stdout == second.stdout and "Postgres" in second.stdout
