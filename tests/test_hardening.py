"""Hardening against a hostile environment: the write lock survives its file being deleted
or replaced, and one process's clean-up never removes another's temporary file."""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from ihmt import Memory
from ihmt.errors import StoreError
from ihmt.store import files
from ihmt.store.lock import WriteLock

ROOT = Path(__file__).resolve().parents[1]


def _hold(lock_path: str, ready: str, release: str) -> None:
    lock = WriteLock(Path(lock_path))
    with lock.hold():
        Path(ready).touch()
        while not Path(release).exists():
            time.sleep(0.01)


def _ctx() -> multiprocessing.context.BaseContext:
    return multiprocessing.get_context(
        "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")


@pytest.mark.parametrize("how", ["deleted", "replaced"])
def test_a_deleted_or_replaced_lock_file_lets_no_second_writer_in(tmp_path: Path,
                                                                  how: str) -> None:
    state = tmp_path / "state"
    state.mkdir()
    lock_path = state / "write.lock"
    ready, release = tmp_path / "ready", tmp_path / "release"
    p = _ctx().Process(target=_hold, args=(str(lock_path), str(ready), str(release)))
    p.start()
    try:
        while not ready.exists():
            time.sleep(0.01)
        if lock_path.exists():
            lock_path.unlink()
        if how == "replaced":
            lock_path.write_text("")
        other = WriteLock(lock_path, timeout=0.5)
        with pytest.raises(StoreError) as err:
            other.acquire()
        assert "delete that" not in str(err.value)  # never advise deleting the lock
        assert "stop that process" in str(err.value)
    finally:
        release.touch()
        p.join(10)
    other = WriteLock(lock_path, timeout=5)
    with other.hold():  # free again once the holder is gone
        assert other.owned()


def test_the_lock_is_reentrant_in_one_thread_and_exclusive_between_threads(
        tmp_path: Path) -> None:
    lock = WriteLock(tmp_path / "state" / "write.lock", timeout=5)
    order: list[str] = []
    with lock.hold(), lock.hold():
        t = threading.Thread(target=lambda: (lock.acquire(), order.append("t"), lock.release()))
        t.start()
        time.sleep(0.1)
        order.append("main")
    t.join(5)
    assert order == ["main", "t"]


def test_clean_up_leaves_a_live_process_temporary_file_alone(tmp_path: Path) -> None:
    mem = Memory.open(tmp_path / "s", create=True)
    mem.save("a first memory so the store has folders")
    # A temporary file another live process is writing (this test's parent is alive).
    live = mem.store.path / "state" / f".catalog.json.{os.getppid()}.1.part"
    live.write_text("{}")
    dead = mem.store.path / "state" / ".catalog.json.999999999.1.part"
    dead.write_text("{}")
    with mem.store.lock.hold():
        mem.store.remove_partial_files()
    assert live.exists()
    assert not dead.exists()
    mem.close()


def test_a_vanished_temporary_file_is_written_again(tmp_path: Path, monkeypatch) -> None:
    target = tmp_path / "f.json"
    real_replace = os.replace
    calls = {"n": 0}

    def flaky(src, dst):  # the first rename finds its temporary file removed
        calls["n"] += 1
        if calls["n"] == 1:
            os.unlink(src)
        return real_replace(src, dst)

    monkeypatch.setattr(files.os, "replace", flaky)
    files.atomic_write(target, "hello")
    assert target.read_text() == "hello"
    assert not list(tmp_path.glob(".*.part"))


WRITER = r'''
import json, sys
from pathlib import Path
from ihmt import Memory
store, wid, n, go = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), Path(sys.argv[4])
mem = Memory.open(store)
while not go.exists():
    pass
for i in range(n):
    rep = mem.save(f"writer {wid} note {i} uniqtok{wid}x{i:04d} about the build host")
    print(json.dumps(rep.ids), flush=True)
'''


@pytest.mark.heavy
def test_saves_lose_nothing_while_the_lock_file_is_deleted_every_few_ms(
        tmp_path: Path) -> None:
    store = tmp_path / "s"
    Memory.open(store, create=True).close()
    go = tmp_path / "go"
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    env["IHMT_LOG_LEVEL"] = "ERROR"
    n = 120
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(store), str(w), str(n),
                               str(go)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              env=env) for w in range(4)]
    stop = threading.Event()

    def vandal() -> None:
        lock = store / "state" / "write.lock"
        while not stop.is_set():
            try:
                lock.unlink()
            except OSError:
                pass
            time.sleep(0.001)

    t = threading.Thread(target=vandal)
    t.start()
    go.touch()
    acknowledged: list[str] = []
    errors = []
    try:
        for p in procs:
            out, err = p.communicate(timeout=55)
            for line in out.decode().splitlines():
                acknowledged.extend(json.loads(line))
            if p.returncode:
                errors.append(err.decode()[-2000:])
    finally:
        stop.set()
        t.join()
    assert not errors, errors
    assert len(acknowledged) == 4 * n
    mem = Memory.open(store)
    reachable = [path[-1] for path, _ in mem.walk()]
    assert not [i for i, c in Counter(reachable).items() if c > 1]
    missing = set(acknowledged) - set(reachable)
    assert not missing, f"{len(missing)} acknowledged saves unreachable"
    mem.close()


# ---------------------------------------------------------------------- facts recorded directly
def test_a_sourced_fact_recorded_directly_survives_a_rebuild(tmp_path: Path) -> None:
    mem = Memory.open(tmp_path / "s", create=True)
    leaf = mem.save("Met the supplier on Tuesday about the new contract").ids[0]
    mem.record_fact("supplier", "contact", "Ana Ruiz", "2024-05-02", source=leaf)
    mem.rebuild()
    assert [f.value for f in mem.facts("supplier")] == ["Ana Ruiz"]
    mem.close()
    again = Memory.open(tmp_path / "s")
    again.rebuild()
    assert [f.value for f in again.facts("supplier")] == ["Ana Ruiz"]
    again.close()


def test_half_a_truncated_fact_log_loses_no_fact_recorded_directly(tmp_path: Path) -> None:
    mem = Memory.open(tmp_path / "s", create=True)
    mem.save("a memory so the store has a trunk")
    for i in range(20):
        mem.record_fact(f"service{i}", "port", str(8000 + i), "2024-01-01")
    log = mem.store.state_dir / "facts.jsonl"
    mem.close()
    data = log.read_bytes()
    log.write_bytes(data[: len(data) // 2])
    again = Memory.open(tmp_path / "s")
    again.search("port")  # notices the shrunk log and rebuilds it
    got = {f.subject: f.value for f in again.facts()}
    assert got == {f"service{i}": str(8000 + i) for i in range(20)}
    again.close()


# ---------------------------------------------------------------------- read errors
def test_an_unreadable_leaf_is_reported_not_quarantined(tmp_path: Path, monkeypatch) -> None:
    mem = Memory.open(tmp_path / "s", create=True)
    keep = mem.save("The staging database moved to host pg-stage-7 in March").ids[0]
    mem.save("Lunch order for the team offsite: twelve sandwiches")
    path = next(p for p in mem.store.iter_leaf_paths() if p.stem == keep)
    real = Path.read_text

    def denied(self: Path, *a, **k):  # what chmod 000 does (the tests may run as root)
        if self == path:
            raise PermissionError(13, "Permission denied", str(self))
        return real(self, *a, **k)

    monkeypatch.setattr(Path, "read_text", denied)
    rep = mem.rebuild()
    assert path.exists()
    assert not (mem.store.path / "quarantine").exists()
    assert rep["quarantined"] == []
    assert rep["unreadable"] == [path.name]
    assert any("cannot be read" in p for p in mem.store.problems)
    monkeypatch.setattr(Path, "read_text", real)  # the permission is fixed
    mem.rebuild()
    assert keep in [h.id for h in mem.search("staging database host").hits]
    mem.close()


def test_a_search_meeting_an_unreadable_leaf_rebuilds_nothing(tmp_path: Path,
                                                             monkeypatch) -> None:
    mem = Memory.open(tmp_path / "s", create=True)
    keep = mem.save("The staging database moved to host pg-stage-7 in March").ids[0]
    mem.save("Lunch order for the team offsite: twelve sandwiches")
    path = next(p for p in mem.store.iter_leaf_paths() if p.stem == keep)
    real = Path.read_text
    mem.store.clear_cache()

    def denied(self: Path, *a, **k):
        if self == path:
            raise PermissionError(13, "Permission denied", str(self))
        return real(self, *a, **k)

    rebuilt = []
    monkeypatch.setattr(mem, "_rebuild_locked", lambda: rebuilt.append(1) or {})
    monkeypatch.setattr(Path, "read_text", denied)
    res = mem.search("staging database host")
    text = res.best.text
    assert res.best.id == keep and "unavailable" in text
    assert rebuilt == [] and path.exists()
    assert any("cannot be read" in n for n in res.notices)
    mem.close()
