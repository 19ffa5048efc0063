"""A write killed part way is finished from what its intent record names, not by a full
rebuild (issue 23, item 9); a record that cannot be trusted still falls back to the full
rebuild, and nothing acknowledged is lost either way.

The kills are real: a child process saves with one store function wrapped so that it sends
itself SIGKILL at a chosen point (after the begin line, after a leaf file, half way through
a catalog line, after a branch file, just before or just after the trunk is replaced). The
next process opens the store and saves; the full rebuild is counted by wrapping it.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import ihmt.upkeep
from ihmt import Memory
from ihmt.doctor import check_store
from ihmt.writing import facts_of

from .test_reliability import _env, assert_consistent, assert_not_interrupted

PLACES = ["Valencia", "Madrid", "Lisbon", "Porto", "Berlin", "Paris", "Rome"]

CHILD = r'''
import json, os, signal, sys
import ihmt.writing as writing
from ihmt import Memory
from ihmt.store import files
from ihmt.store.store import Store

store, point, nth, kind = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
mem = Memory.open(store)
hits = {"n": 0}

def die():
    os.kill(os.getpid(), signal.SIGKILL)

def due():
    hits["n"] += 1
    return hits["n"] >= nth

def wrap(cls, name, when):
    real = getattr(cls, name)
    def wrapped(self, *a, **k):
        if when == "before" and due():
            die()
        out = real(self, *a, **k)
        if when == "after" and due():
            die()
        return out
    setattr(cls, name, wrapped)

if point == "begin":
    wrap(Store, "begin_write", "after")
elif point == "leaf":
    wrap(Store, "write_leaf", "after")
elif point == "branch":
    wrap(Store, "write_branch", "after")
elif point == "root":
    wrap(Store, "write_root", "before")
elif point == "committed":
    wrap(Store, "write_root", "after")
elif point == "torn-catalog":
    real_append = files.append_line
    def append(path, line, durable=False):
        if path.name == "catalog.jsonl" and due():
            fd = os.open(path, os.O_WRONLY | os.O_APPEND)
            os.write(fd, line.encode()[: len(line) // 2])
            die()
        return real_append(path, line, durable=durable)
    files.append_line = append

print("READY", flush=True)
if kind == "bulk":
    writing.LOCK_CHUNK = 50
    real_chunk = writing.Writer._commit_chunk
    def chunk(self, items, encoded):
        real_chunk(self, items, encoded)
        print(json.dumps({"chunk": [leaf.id for leaf, _, _ in items]}), flush=True)
    writing.Writer._commit_chunk = chunk
    with mem.bulk():
        for i in range(200):
            mem.save(f"Bulk note {i}: bulktok{i:04d} the backup of rack r{i % 9} ran", date="2025-02-03")
    print("SURVIVED", flush=True)
else:
    for i in range(40):
        tok = f"killtok{i:04d}"
        if i % 3 == 0:
            text = f"I moved to {PLACES[i % 7]} for work ({tok})"
        else:
            text = f"Note {i}: {tok} the deploy of service s{i % 5} needs approval"
        print(json.dumps({"trying": tok}), flush=True)
        ids = mem.save(text, date=f"2025-03-{1 + i:02d}").ids
        print(json.dumps({"acked": tok, "ids": ids}), flush=True)
    print("SURVIVED", flush=True)
'''.replace("import json, os, signal, sys", f"import json, os, signal, sys\nPLACES = {PLACES!r}")


def _build(path: Path, n: int, bf: int) -> Path:
    mem = Memory.open(path, create=True, config={"branch_factor": bf})
    with mem.bulk():
        for i in range(n):
            date = f"2024-{1 + i % 12:02d}-{1 + i % 28:02d}"
            if i % 10 == 0:
                mem.save(f"I moved to {PLACES[i % 7]} this week (basetok{i:05d})", date=date)
            else:
                mem.save(f"Note {i}: basetok{i:05d} the build server h{i % 13} runs job "
                         f"{i % 97} nightly", date=date)
    mem.close()
    return path


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _build(tmp_path_factory.mktemp("big") / "ihmt_memory", 2000, 4)


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _build(tmp_path_factory.mktemp("small") / "ihmt_memory", 60, 3)


def _kill(tmp_path: Path, base: Path, point: str, nth: int, kind: str = "save"
          ) -> tuple[Path, list[dict[str, Any]]]:
    """A copy of ``base`` on which a child was killed at ``point`` (its ``nth`` time)."""
    store = tmp_path / "copy" / "ihmt_memory"
    shutil.copytree(base, store)
    child = tmp_path / "child.py"
    child.write_text(CHILD)
    proc = subprocess.run([sys.executable, str(child), str(store), point, str(nth), kind],
                          capture_output=True, timeout=120, env=_env())
    out = proc.stdout.decode()
    assert proc.returncode == -signal.SIGKILL, (proc.returncode, out[-500:],
                                                proc.stderr.decode()[-2000:])
    assert "SURVIVED" not in out
    events = [json.loads(line) for line in out.splitlines()[1:] if line.startswith("{")]
    return store, events


@pytest.fixture
def rebuilds(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Counts the full rebuilds this process runs."""
    seen: Counter[str] = Counter()
    real = ihmt.upkeep._rebuild

    def counted(*a: Any, **k: Any) -> dict[str, Any]:
        seen["full"] += 1
        return real(*a, **k)

    monkeypatch.setattr(ihmt.upkeep, "_rebuild", counted)
    return seen


def _found(mem: Memory, tok: str) -> bool:
    """The top hit holds ``tok`` (or, for a moved-to statement superseded since, stands for
    the memory that does: the search shows the newer version)."""
    best = mem.search(tok).best
    return best is not None and (tok in best.text or tok in best.matched)


def _texts(mem: Memory) -> dict[str, str]:
    return {p.stem: p.read_text() for p in mem.store.iter_leaf_paths()}


def _check(store: Path, events: list[dict[str, Any]], sample: int = 25) -> tuple[Memory, str]:
    """Open, save once more, and check that nothing acknowledged is lost and that the
    interrupted save is all there or not at all. Returns the memory and the mode."""
    mem = Memory.open(store)
    mode = mem._write_side.parts().recovery.last.get("mode", "")
    new = mem.save("The coffee machine is descaled on Fridays (aftertok).")
    assert new.new == 1
    assert_not_interrupted(mem)
    ids = assert_consistent(mem)
    assert "aftertok" in mem.search("coffee machine descaled aftertok").best.text
    acked = [e for e in events if "acked" in e]
    for e in acked:
        assert set(e["ids"]) <= set(ids), e
        assert _found(mem, e["acked"]), e
    for i in range(0, 2000, max(1, 2000 // sample)):
        tok = f"basetok{i:05d}"
        if _found(mem, tok):
            continue
        assert not any(tok in t for t in _texts(mem).values()), f"{tok} on disk, not found"
    trying = [e["trying"] for e in events if "trying" in e]
    if len(trying) > len(acked):  # the save the kill interrupted
        tok = trying[-1]
        holders = [i for i, t in _texts(mem).items() if tok in t]
        assert len(holders) <= 1
        if holders:
            assert holders[0] in ids
            assert _found(mem, tok)
            leaf = mem.store.read_leaf(holders[0])
            want = {(f.subject, f.attribute, f.value) for f in facts_of(leaf)}
            have = {(f.subject, f.attribute, f.value) for f in mem.timeline.facts()
                    if f.source == leaf.id}
            assert want == have
    assert not _problems(store)
    return mem, mode


def _problems(store: Path) -> list[str]:
    """What ``ihmt doctor`` finds, but the branch cache folder's permissions (state/cache
    is made 0755 by ``mkdir(parents=True)`` under a 022 umask whatever the write did)."""
    return [p for p in check_store(store)["problems"] if "readable by other users" not in p]


POINTS = [("begin", 3), ("leaf", 3), ("torn-catalog", 3), ("branch", 1), ("root", 4),
          ("committed", 4)]


@pytest.mark.parametrize("point,nth", POINTS, ids=[p for p, _ in POINTS])
def test_a_save_killed_part_way_is_finished_without_a_full_rebuild(
        tmp_path: Path, small: Path, rebuilds: Counter[str], point: str, nth: int) -> None:
    store, events = _kill(tmp_path, small, point, nth)
    mem, mode = _check(store, events)
    assert mode == "partial" and rebuilds["full"] == 0
    mem.close()


@pytest.mark.parametrize("point,nth", [("leaf", 2), ("root", 2), ("branch", 1)])
def test_a_save_killed_part_way_in_2000_memories_rebuilds_nothing(
        tmp_path: Path, big: Path, rebuilds: Counter[str], point: str, nth: int) -> None:
    store, events = _kill(tmp_path, big, point, nth)
    mem, mode = _check(store, events, sample=60)
    assert mode == "partial" and rebuilds["full"] == 0
    assert len(assert_consistent(mem)) >= 2001
    mem.close()


def _damage_record(store: Path, how: str) -> None:
    log = store / "state" / "intent.log"
    lines = log.read_bytes().rstrip(b"\n").split(b"\n")
    last = lines[-1]
    assert last.startswith(b"B ") and last.count(b" ") >= 5
    if how == "truncated":
        last = last[: len(last) * 2 // 3]
    elif how == "altered":
        i = last.index(b'"leaves":[') + 12
        last = last[:i] + (b"X" if last[i:i + 1] != b"X" else b"Y") + last[i + 1:]
    elif how == "missing":
        last = b" ".join(last.split(b" ")[:4])
    elif how == "garbage":
        last = b"B \xff\xfe\x00 {{{ not json"
    lines[-1] = last
    log.write_bytes(b"\n".join(lines) + b"\n")


@pytest.mark.parametrize("how", ["truncated", "altered", "missing", "garbage"])
def test_a_damaged_intent_record_falls_back_to_the_full_rebuild(
        tmp_path: Path, small: Path, rebuilds: Counter[str], how: str) -> None:
    store, events = _kill(tmp_path, small, "root", 3)
    _damage_record(store, how)
    mem, mode = _check(store, events)
    assert mode == "full" and rebuilds["full"] == 1
    tok = events[-1]["trying"]  # the leaf of the killed save was on disk: the rebuild keeps it
    assert _found(mem, tok)
    mem.close()


def test_a_search_and_a_save_get_through_a_damaged_record(tmp_path: Path, small: Path) -> None:
    store, events = _kill(tmp_path, small, "leaf", 2)
    _damage_record(store, "garbage")
    (store / "state" / "intent.log").chmod(0o600)
    from ihmt.store.store import Store

    assert Store.open(store).interrupted()
    mem = Memory(Store.open(store))  # no open-time repair: the search meets it as it is
    assert "basetok00001" in mem.search("basetok00001").best.text
    assert mem.save("A save after the damage (damagetok).").new == 1
    assert not mem.store.interrupted()
    assert "damagetok" in mem.search("damagetok").best.text
    mem.close()


def test_a_bulk_killed_inside_a_chunk_recovers_only_that_chunk(
        tmp_path: Path, small: Path, rebuilds: Counter[str]) -> None:
    # Chunks of 50 (LOCK_CHUNK patched in the child); the kill falls in the third chunk.
    store, events = _kill(tmp_path, small, "leaf", 120, kind="bulk")
    done = [i for e in events if "chunk" in e for i in e["chunk"]]
    assert len(done) == 100, len(done)
    mem = Memory.open(store)
    last = mem._write_side.parts().recovery.last
    assert last["mode"] == "partial" and rebuilds["full"] == 0, last
    assert last["named"] == 50 and 0 < last["leaves"] <= 50, last
    for leaf_id in done:  # committed before the kill: all there
        assert mem.store.leaf_exists(leaf_id)
    ids = assert_consistent(mem)
    assert set(done) <= set(ids)
    assert len(ids) == 60 + 100 + last["leaves"]
    assert mem.save("One more after the bulk (bulkaftertok).").new == 1
    assert "bulkaftertok" in mem.search("bulkaftertok").best.text
    assert not _problems(store)
    mem.close()


def test_a_write_that_failed_in_process_is_finished_by_the_next_save(
        tmp_path: Path, small: Path, rebuilds: Counter[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A full disk at the trunk (the leaf is written, the save fails): the same process's
    next save finishes the first one, without a full rebuild."""
    import errno

    from ihmt.errors import StoreError
    from ihmt.store import files

    store = tmp_path / "s" / "ihmt_memory"
    shutil.copytree(small, store)
    mem = Memory.open(store)
    real = files.write_json

    def full(path: Path, *a: Any, **k: Any) -> None:
        if path.name == "root.json":
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(path, *a, **k)

    monkeypatch.setattr(files, "write_json", full)
    with pytest.raises(StoreError, match="disk is full"):
        mem.save("The printer on floor 3 needs toner (tonertok).")
    monkeypatch.setattr(files, "write_json", real)
    assert mem.store.interrupted()
    assert mem.save("The parking garage closes at 22:00 (garagetok).").new == 1
    assert mem._write_side.parts().recovery.last["mode"] == "partial"
    assert rebuilds["full"] == 0
    for tok in ("tonertok", "garagetok", "basetok00007"):
        assert tok in mem.search(tok).best.text
    assert_consistent(mem)
    assert not _problems(store)
    mem.close()
