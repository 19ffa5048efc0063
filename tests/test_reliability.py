"""Reliability: load, crashes, damaged files, hostile input, and staying inside the store.

The heavy tests (``-m heavy``) run real processes against one store:

* many writers: MCP servers driven by the SDK client, library writers and CLI writers save
  at the same time while two readers search without pause; nothing may be lost, duplicated
  or left unreachable, and no search may fail;
* crashes: a writer is killed with SIGKILL at a random moment, over and over; everything it
  acknowledged must survive and the next open must leave the store consistent.

The fast tests damage each kind of file in turn, throw malformed input at the library and
at the MCP tools, and check that the store never writes or reads outside its folder.

The numbers these tests measured are recorded in RELIABILITY.md.
"""

from __future__ import annotations

import functools
import glob
import json
import logging
import os
import random
import selectors
import shutil
import signal
import stat
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ihmt import Memory
from ihmt.errors import IHMTError, InputError
from ihmt.store.store import Store

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable


def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("IHMT_LOG_LEVEL", "WARNING")
    env.update(extra)
    return env


# ---------------------------------------------------------------------- invariants
def leaf_ids(mem: Memory) -> set[str]:
    return {p.stem for p in mem.store.iter_leaf_paths()}


def walk_ids(mem: Memory) -> list[str]:
    return [path[-1] for path, _ in mem.walk()]


def assert_consistent(mem: Memory) -> list[str]:
    """Every leaf file reachable from the trunk exactly once, and nothing else reachable."""
    ids = walk_ids(mem)
    dup = [i for i, n in Counter(ids).items() if n > 1]
    assert not dup, f"leaves reachable twice: {dup[:5]}"
    files = leaf_ids(mem)
    assert set(ids) == files, (f"unreachable: {sorted(files - set(ids))[:5]}, "
                               f"dangling: {sorted(set(ids) - files)[:5]}")
    return ids


def assert_not_interrupted(mem: Memory) -> None:
    assert not mem.store.interrupted(), "the open left an unfinished write intent behind"
    assert not (mem.store.state_dir / "intent.json").exists()


def top_text(mem: Memory, query: str) -> str:
    res = mem.search(query, top_k=3)
    return res.hits[0].text if res.hits else ""


# ====================================================================== a. many writers
COMMON = r'''
import json, os, random, sys, time
from pathlib import Path

TOPICS = ["the nightly billing job", "the staging deploy", "the postgres upgrade",
          "the CI cache", "the search latency", "the release checklist", "the on-call rota"]
DOMAINS = [None, "work.billing", "ops"]

def token(wid, i):
    return f"uniqtok{wid}x{i:04d}"

def text(wid, i):
    topic = TOPICS[(wid * 7 + i) % len(TOPICS)]
    return (f"w{wid}m{i:04d} {token(wid, i)}: note {i} from writer {wid} about {topic}, "
            f"which now runs on host build-{i % 5} port {8000 + i % 50}.")

def wait_for(go):
    while not go.exists():
        time.sleep(0.005)
'''

LIB_WRITER = COMMON + r'''
from ihmt import Memory
store, wid, n, run = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), Path(sys.argv[4])
bulk = wid % 3 == 2  # one library writer batches its saves in bulk blocks of 10
mem = Memory.open(store)
(run / f"ready-{wid}").touch()
wait_for(run / "go")
i = 0
while i < n:
    if bulk:
        batch = []
        with mem.bulk():
            for j in range(i, min(n, i + 10)):
                batch.append((token(wid, j), mem.save(text(wid, j), domain=DOMAINS[wid % 3]).ids))
        for tok, ids in batch:  # acknowledged only once the block is committed
            print(json.dumps({"tok": tok, "ids": ids}), flush=True)
        i += len(batch)
    else:
        rep = mem.save(text(wid, i), domain=DOMAINS[wid % 3])
        print(json.dumps({"tok": token(wid, i), "ids": rep.ids}), flush=True)
        i += 1
'''

MCP_WRITER = COMMON + r'''
import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
home, wid, n, run = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), Path(sys.argv[4])

async def main():
    params = StdioServerParameters(command=sys.executable, args=["-m", "ihmt.faces.mcp"],
                                   env={**os.environ, "IHMT_HOME": home})
    with open(run / f"server-{wid}.log", "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=180) as session:
                await session.initialize()
                await session.call_tool("search_memory", {"query": "warm up"})  # opens it
                (run / f"ready-{wid}").touch()
                while not (run / "go").exists():
                    await anyio.sleep(0.005)
                for i in range(n):
                    domain = DOMAINS[i % 3] or "general"
                    res = await session.call_tool("save_memory",
                                                  {"content": text(wid, i), "domain": domain})
                    body = "\n".join(getattr(c, "text", "") for c in res.content)
                    print(json.dumps({"tok": token(wid, i), "error": bool(res.is_error),
                                      "body": body}), flush=True)

anyio.run(main)
'''

CLI_WRITER = COMMON + r'''
import subprocess
store, wid, n, run = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), Path(sys.argv[4])
(run / f"ready-{wid}").touch()
wait_for(run / "go")
for i in range(n):
    cmd = [sys.executable, "-m", "ihmt.faces.cli", "--path", store, "--json", "save",
           text(wid, i)]
    if DOMAINS[i % 3]:
        cmd += ["--domain", DOMAINS[i % 3]]
    p = subprocess.run(cmd, capture_output=True, text=True)
    ids = json.loads(p.stdout)["ids"] if p.returncode == 0 else []
    print(json.dumps({"tok": token(wid, i), "rc": p.returncode, "ids": ids,
                      "err": p.stderr[-2000:]}), flush=True)
'''

SEARCHER = COMMON + r'''
import traceback
from ihmt import Memory
store, sid, run, writers, per = (sys.argv[1], int(sys.argv[2]), Path(sys.argv[3]),
                                 int(sys.argv[4]), int(sys.argv[5]))
mem = Memory.open(store)
(run / f"ready-s{sid}").touch()
wait_for(run / "go")
rng = random.Random(sid)
n = hits = 0
errors = []
while not (run / "stop").exists():
    if rng.random() < 0.7:
        q = token(rng.randrange(writers), rng.randrange(per))
    else:
        q = rng.choice(TOPICS) + " host build"
    try:
        res = mem.search(q, top_k=5)
        if res.hits:
            res.hits[0].text  # read the best leaf, as an answer does
            hits += q in res.hits[0].text
        n += 1
        if n % 200 == 0:  # a reader that opens the store afresh, as a new agent does
            Memory.open(store).search(q)
    except Exception:
        errors.append(traceback.format_exc())
print(json.dumps({"searches": n, "token_hits": hits, "errors": errors[:10],
                  "n_errors": len(errors)}))
'''

# The 1,600 saves: 8 writer processes, 200 saves each, as the issue asks (CLI writers pay a
# process start per save, which makes this the slowest test of the suite).
MCP_WRITERS, LIB_WRITERS, CLI_WRITERS = 3, 3, 2
MCP_SAVES, LIB_SAVES, CLI_SAVES = 200, 200, 200
TOTAL_SAVES = MCP_WRITERS * MCP_SAVES + LIB_WRITERS * LIB_SAVES + CLI_WRITERS * CLI_SAVES


@pytest.mark.heavy
def test_many_writers_and_readers_lose_nothing(tmp_path: Path) -> None:
    assert TOTAL_SAVES == 1600
    home = tmp_path / "home"
    store = home / "ihmt_memory"
    Memory.open(store, create=True, config={"branch_factor": 4}).close()
    run = tmp_path / "run"
    run.mkdir()
    scripts = {}
    for name, code in (("lib", LIB_WRITER), ("mcp", MCP_WRITER), ("cli", CLI_WRITER),
                       ("search", SEARCHER)):
        scripts[name] = tmp_path / f"{name}_driver.py"
        scripts[name].write_text(code)

    plan: list[tuple[str, int, int]] = []  # (kind, writer id, saves)
    wid = 0
    for kind, count, saves in (("mcp", MCP_WRITERS, MCP_SAVES), ("lib", LIB_WRITERS, LIB_SAVES),
                               ("cli", CLI_WRITERS, CLI_SAVES)):
        for _ in range(count):
            plan.append((kind, wid, saves))
            wid += 1
    procs: dict[str, subprocess.Popen[bytes]] = {}
    outs: dict[str, Path] = {}
    t_start = time.monotonic()
    try:
        for kind, w, saves in plan:
            target = str(home) if kind == "mcp" else str(store)
            outs[f"w{w}"] = run / f"out-w{w}.jsonl"
            procs[f"w{w}"] = subprocess.Popen(
                [PY, str(scripts[kind]), target, str(w), str(saves), str(run)],
                stdout=open(outs[f"w{w}"], "wb"), stderr=open(run / f"err-w{w}.txt", "wb"),
                env=_env())
        for s in range(2):
            outs[f"s{s}"] = run / f"out-s{s}.json"
            procs[f"s{s}"] = subprocess.Popen(
                [PY, str(scripts["search"]), str(store), str(s), str(run), str(len(plan)),
                 str(MCP_SAVES)],
                stdout=open(outs[f"s{s}"], "wb"), stderr=open(run / f"err-s{s}.txt", "wb"),
                env=_env())
        ready = [f"ready-{w}" for _, w, _ in plan] + ["ready-s0", "ready-s1"]
        _wait_until(lambda: all((run / r).exists() for r in ready), 180, procs, run,
                    "processes never got ready")
        t_go = time.monotonic()
        (run / "go").touch()
        writers = [k for k in procs if k.startswith("w")]
        _wait_until(lambda: all(procs[k].poll() is not None for k in writers), 900, procs, run,
                    "writers did not finish")
        t_saved = time.monotonic()
        (run / "stop").touch()
        for k in ("s0", "s1"):
            procs[k].wait(timeout=60)
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.kill()
                p.wait()
    for k, p in procs.items():
        assert p.returncode == 0, f"{k} failed: {(run / f'err-{k}.txt').read_text()[-3000:]}"

    # Every writer got an acknowledgement for every save, and no tool call failed.
    acked: dict[str, list[str]] = {}
    per_kind: Counter[str] = Counter()
    for kind, w, saves in plan:
        lines = [json.loads(x) for x in outs[f"w{w}"].read_text().splitlines() if x.strip()]
        assert len(lines) == saves, f"writer {w} ({kind}) acknowledged {len(lines)}/{saves}"
        for rec in lines:
            assert not rec.get("error") and rec.get("rc", 0) == 0, rec
            acked[rec["tok"]] = rec.get("ids", [])
            per_kind[kind] += 1
    assert len(acked) == TOTAL_SAVES

    mem = Memory.open(store)
    assert_not_interrupted(mem)
    missing = [tok for tok in acked if tok not in top_text(mem, tok)]
    assert not missing, f"{len(missing)} saved memories not found: {missing[:10]}"
    ids = assert_consistent(mem)
    assert len(ids) == TOTAL_SAVES
    # No memory was stored twice: each token is in exactly one leaf file.
    holders: Counter[str] = Counter()
    for p in mem.store.iter_leaf_paths():
        body = p.read_text(encoding="utf-8")
        holders.update(t for t in acked if t in body)
    assert all(holders[t] == 1 for t in acked), [t for t in acked if holders[t] != 1][:10]
    catalog = mem.store.catalog()
    assert set(ids) <= set(catalog), "leaves missing from the catalog"

    searches = 0
    for k in ("s0", "s1"):
        rep = json.loads(outs[k].read_text())
        assert rep["n_errors"] == 0, rep["errors"]
        assert rep["searches"] > 0
        searches += rep["searches"]
    summary = {"saves": dict(per_kind), "total": len(acked), "found": len(acked) - len(missing),
               "searches_during_writes": searches, "search_errors": 0,
               "setup_s": round(t_go - t_start, 1), "writes_s": round(t_saved - t_go, 1),
               "leaves": len(ids), "branches": mem.stats()["branches"]}
    print("\nmany-writers:", json.dumps(summary))


def _wait_until(cond: Any, timeout: float, procs: dict[str, subprocess.Popen[bytes]],
                run: Path, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        dead = {k: p.returncode for k, p in procs.items()
                if p.poll() is not None and p.returncode != 0}
        if dead:
            k = next(iter(dead))
            pytest.fail(f"{k} exited with {dead[k]}: "
                        f"{(run / f'err-{k}.txt').read_text(errors='replace')[-3000:]}")
        if time.monotonic() > deadline:
            pytest.fail(f"{what} within {timeout:.0f} s")
        time.sleep(0.05)


# ====================================================================== b. crashes
CRASH_CHILD = r'''
import json, random, sys
from ihmt import Memory
store, trial, seed, bf = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
mem = Memory.open(store, create=True, config={"branch_factor": bf})
rng = random.Random(seed)
TOPICS = ["the deploy", "billing", "the VPN", "backups", "the test suite", "Valencia office"]
i = 0

def one():
    global i
    tok = f"crashtok{trial}x{i:04d}"
    i += 1
    text = f"trial {trial} memory {i}: {tok} is about {rng.choice(TOPICS)} on host h{i % 7}"
    return tok, mem.save(text, domain=rng.choice([None, "ops", "work.billing"])).ids

print("READY", flush=True)
while True:
    r = rng.random()
    if r < 0.5:
        tok, ids = one()
        print(json.dumps([[tok, ids]]), flush=True)  # acknowledged: save() returned
    elif r < 0.8:
        with mem.bulk():
            batch = [one() for _ in range(rng.randint(2, 12))]
        print(json.dumps(batch), flush=True)  # acknowledged once the block is committed
    elif r < 0.93:
        mem.consolidate()
    else:
        mem.flush()  # closes every domain: a burst of Summarization Events
'''

CRASH_TRIALS = 60  # half on one store that accumulates, half on a fresh store each


@pytest.mark.heavy
def test_sigkill_at_random_moments_loses_nothing_acknowledged(tmp_path: Path) -> None:
    child = tmp_path / "crash_child.py"
    child.write_text(CRASH_CHILD)
    rng = random.Random(20240611)
    shared = tmp_path / "shared" / "ihmt_memory"
    all_acked: dict[str, list[str]] = {}
    stats: Counter[str] = Counter()
    for trial in range(CRASH_TRIALS):
        reuse = trial % 2 == 0
        store = shared if reuse else tmp_path / f"fresh{trial}" / "ihmt_memory"
        bf = 3 if reuse else rng.randint(2, 5)
        delay = rng.uniform(0.0, 0.4)
        acked = _run_and_kill(child, store, trial, rng.randrange(1 << 30), bf, delay)
        stats["acknowledged"] += len(acked)
        was_interrupted = Store.open(store).interrupted()
        stats["killed_mid_write"] += was_interrupted
        mem = Memory.open(store)  # repairs whatever the kill left half done
        assert_not_interrupted(mem)
        for tok, ids in acked:
            for leaf_id in ids:
                assert mem.store.leaf_exists(leaf_id), f"trial {trial}: {leaf_id} ({tok}) lost"
            assert tok in top_text(mem, tok), f"trial {trial}: {tok} not found by search"
        assert_consistent(mem)
        if reuse:
            all_acked.update(acked)
        mem.close()
        stats["trials"] += 1
    mem = Memory.open(shared)  # the shared store kept every earlier trial's memories
    lost = [t for t in all_acked if t not in top_text(mem, t)]
    assert not lost, lost[:10]
    assert stats["acknowledged"] > 0 and stats["killed_mid_write"] > 0, stats
    stats["shared_store_leaves"] = len(assert_consistent(mem))
    print("\ncrash-trials:", json.dumps(dict(stats)))


def _run_and_kill(child: Path, store: Path, trial: int, seed: int, bf: int,
                  delay: float) -> list[tuple[str, list[str]]]:
    proc = subprocess.Popen([PY, str(child), str(store), str(trial), str(seed), str(bf)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env())
    try:
        assert proc.stdout is not None
        sel = selectors.DefaultSelector()
        sel.register(proc.stdout, selectors.EVENT_READ)
        if not sel.select(timeout=60):
            pytest.fail(f"trial {trial}: child never started")
        first = proc.stdout.readline()
        if first.strip() != b"READY":
            err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
            pytest.fail(f"trial {trial}: child failed to start: {first!r} {err[-2000:]}")
        time.sleep(delay)
        os.kill(proc.pid, signal.SIGKILL)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == -signal.SIGKILL, (
        f"trial {trial}: child died on its own: {err.decode(errors='replace')[-2000:]}")
    acked: list[tuple[str, list[str]]] = []
    for line in out.decode().splitlines():
        try:
            acked.extend((tok, ids) for tok, ids in json.loads(line))
        except ValueError:
            pass  # a line cut by the kill was never acknowledged
    return acked


# ====================================================================== c. damaged files
def _base_store(root: Path) -> Path:
    mem = Memory.open(root / "ihmt_memory", create=True, config={"branch_factor": 3})
    for i in range(24):
        mem.save(f"Note {i}: dmgtok{i} the build server runs job {i} every night",
                 date=f"2024-03-{i + 1:02d}")
    mem.save("I live in Valencia", date="2024-05-01")
    mem.save("I live in Madrid", date="2024-06-01")
    mem.close()
    return root / "ihmt_memory"


@pytest.fixture(scope="module")
def damage_base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _base_store(tmp_path_factory.mktemp("damage-base"))


def _leaf_texts(store: Path) -> dict[str, str]:
    from ihmt.store.leaves import read_leaf

    return {p.stem: read_leaf(p).text for p in Store.open(store).iter_leaf_paths()}


def _target(store: Path, what: str) -> Path:
    mem = Memory.open(store)
    paths = {p[-1]: p for p, _ in mem.walk()}
    leaf = mem.search("dmgtok7").hits[0].id
    mem.close()
    if what == "branch":  # the branch right above the leaf the test searches for
        parent = paths[leaf][-2]
        assert parent.startswith("N"), paths[leaf]
        return next(store.glob(f"layers/*/{parent}.json"))
    if what == "leaf":
        return next(store.glob(f"layer_0/*/{leaf}.txt"))
    return store / {"catalog": "state/catalog.jsonl", "trunk": "root.json",
                    "facts": "state/facts.jsonl", "config": "ihmt.config.json"}[what]


def _damage(path: Path, mode: str) -> bytes:
    raw = path.read_bytes()
    if mode == "truncate":
        cut = raw.find(b"\n", len(raw) // 2)
        new = raw[: (cut if cut > 0 else len(raw) // 2) - 3]  # cut inside a line
    else:
        new = b"\x00\xffgarbage{{[" * 20
    path.write_bytes(new)
    return new


# What the user is shown for each damaged file: in the search result's notices, or (for
# files a search does not depend on) a warning in the log.
EXPECTED_REPORT = {
    "trunk": ("notice", "root.json"),
    "branch": ("notice", "branch N"),
    "leaf": ("notice", "quarantine"),
    "catalog": ("log", "catalog"),
    "facts": ("log", "facts.jsonl"),
    "config": ("log", "config"),
}


@pytest.mark.parametrize("mode", ["truncate", "garbage"])
@pytest.mark.parametrize("what", list(EXPECTED_REPORT))
def test_damaged_file_is_survived_and_reported(damage_base: Path, tmp_path: Path, what: str,
                                               mode: str, caplog: pytest.LogCaptureFixture
                                               ) -> None:
    store = tmp_path / "ihmt_memory"
    shutil.copytree(damage_base, store)
    before = _leaf_texts(store)
    target = _target(store, what)
    damaged = _damage(target, mode)
    caplog.set_level(logging.WARNING)

    mem = Memory.open(store)  # a new process meeting the damage
    notices: list[str] = []
    res = mem.search("dmgtok7")
    notices += res.notices
    if what == "leaf":  # the answer shows the leaf is unavailable, never a crash
        assert res.hits and res.hits[0].text.startswith("[unavailable")
    else:
        assert res.hits and "dmgtok7" in res.hits[0].text
    res = mem.search("dmgtok3 build server")
    notices += res.notices
    assert "dmgtok3" in res.hits[0].text
    rep = mem.save(f"after the damage to the {what}: aftertok{what}")
    assert rep.new == 1
    res = mem.search(f"aftertok{what}")
    notices += res.notices
    assert f"aftertok{what}" in res.hits[0].text
    if what == "catalog":
        mem.store.catalog()  # the only reader of the catalog (tools, doctor)

    kind, needle = EXPECTED_REPORT[what]
    if kind == "notice":
        assert any(needle in n for n in notices), notices
    logged = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert any(needle in m for m in logged), logged

    # Leaf content is never deleted: every leaf is still on disk, or (a damaged header)
    # in quarantine/ with its bytes exactly as they were.
    after = _leaf_texts(store)
    for leaf_id, text in before.items():
        if what == "leaf" and target.stem == leaf_id:
            kept = store / "quarantine" / target.name
            assert kept.read_bytes() == damaged
            assert leaf_id not in after
        else:
            assert after.get(leaf_id) == text, f"{leaf_id} changed or vanished"
    if what != "leaf":
        assert_consistent(mem)


def test_quarantined_leaf_leaves_no_dangling_entry(damage_base: Path, tmp_path: Path) -> None:
    """The search that meets a damaged leaf says so; afterwards the tree no longer points at
    it (walk == leaf files) and later answers do not show it as '[unavailable]'."""
    store = tmp_path / "ihmt_memory"
    shutil.copytree(damage_base, store)
    _damage(_target(store, "leaf"), "garbage")
    mem = Memory.open(store)
    res = mem.search("dmgtok7")
    assert [h.text for h in res.hits]  # reading the answer meets the damage
    assert_consistent(mem)
    res = mem.search("dmgtok7")
    assert all(not h.text.startswith("[unavailable") for h in res.hits)
    assert_consistent(Memory.open(store))


def test_truncated_fact_log_keeps_the_current_answer(damage_base: Path, tmp_path: Path
                                                     ) -> None:
    store = tmp_path / "ihmt_memory"
    shutil.copytree(damage_base, store)
    mem = Memory.open(store)
    assert "Madrid" in top_text(mem, "where do I live")
    mem.close()
    _damage(store / "state" / "facts.jsonl", "truncate")
    mem = Memory.open(store)
    res = mem.search("where do I live")
    assert ("Madrid" in res.hits[0].text and res.status == "FOUND") or any(
        "fact" in n for n in res.notices), (res.status, res.hits[0].text, res.notices)


def test_deleted_derived_files_are_rebuilt(damage_base: Path, tmp_path: Path) -> None:
    """Losing every derived file at once (trunk, branches, catalog, facts) loses nothing."""
    store = tmp_path / "ihmt_memory"
    shutil.copytree(damage_base, store)
    before = _leaf_texts(store)
    (store / "root.json").unlink()
    shutil.rmtree(store / "layers")
    (store / "state" / "catalog.jsonl").unlink()
    mem = Memory.open(store)
    for i in range(24):
        assert f"dmgtok{i}" in top_text(mem, f"dmgtok{i}")
    assert set(assert_consistent(mem)) == set(before)


# ====================================================================== d. bad input
SMALL_LIMIT = 4000

_nasty_chars = st.sampled_from(["\x00", "\ud800", "\udfff", "\ud83d", "\u202e", "\r", "\x1b[31m",
                                "\ufeff", "\u0301", "\t", "\x7f", "\U0001f600", "İ", "ß", "\n"])
nasty_text = st.one_of(
    st.text(alphabet=st.characters(exclude_categories=()), max_size=300),
    st.lists(st.one_of(_nasty_chars, st.text(max_size=8)), max_size=40).map("".join),
    st.builds(lambda c, n: c * n, st.sampled_from(["(", "{", "[", "a ", "é", "\x00", " "]),
              st.integers(0, SMALL_LIMIT + 50)),
)
wrong_types = st.sampled_from([None, 0, -1, 3.5, True, b"bytes", ["list"], {"a": 1}, object()])
maybe_text = st.one_of(st.none(), nasty_text)
dates = st.one_of(
    st.none(),
    st.sampled_from(["2024-02-30", "2024-13-01", "0000-00-00", "99999-01-01", "", " ",
                     "yesterday-ish", "2024-1-1", "2024-01-01T25:61", "1.1.1", "\x00",
                     "2024-03-02", "March 11, 2024", "11 de marzo de 2024", "\ud800"]),
    st.text(max_size=20), wrong_types,
)
domains = st.one_of(st.none(), st.sampled_from(["../x", "/etc", "a/../../b", "..", ".", "a\x00b",
                                                 "C:\\win", "~", "ok.domain", "ÑandÚ", " "]),
                    st.text(max_size=30), wrong_types)
tags = st.one_of(st.lists(st.one_of(nasty_text, wrong_types), max_size=4), st.text(max_size=5),
                 wrong_types)
top_ks = st.one_of(st.integers(-10, 10**9), st.sampled_from([0, -1, 10**18, 2**63]), wrong_types,
                   st.floats(allow_nan=True))
sources = st.one_of(st.none(), st.sampled_from(
    ["x.py", "X.java", "a.js", "a.ts", "a.go", "a.rs", "a.c", "a.cpp", "a.cs", "a.php", "a.rb",
     "a.kt", "a.swift", "notes.md", "../../etc/passwd", "/abs/path.py", "a\x00.py", "", ".py"]),
    st.text(max_size=20))

OUTCOMES: Counter[str] = Counter()


def _call(kind: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
    """Run one API call: a result or an IHMTError are fine, anything else fails the test."""
    try:
        out = fn(*args, **kwargs)
    except IHMTError:
        OUTCOMES[f"{kind}: refused (IHMTError)"] += 1
        return None
    OUTCOMES[f"{kind}: accepted"] += 1
    return out


@pytest.fixture(scope="module")
def fuzz_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memory]:
    root = tmp_path_factory.mktemp("fuzz")
    mem = Memory.open(root / "ihmt_memory", create=True,
                      config={"branch_factor": 3, "max_input_bytes": SMALL_LIMIT})
    mem.save("A well-formed memory about the fuzzing store, so searches have something.")
    yield mem
    mem.close()
    again = Memory.open(root / "ihmt_memory")  # after all the abuse: reopens, consistent
    assert_not_interrupted(again)
    assert_consistent(again)
    print("\nbad-input outcomes:", json.dumps(dict(sorted(OUTCOMES.items()))))


FUZZ = settings(max_examples=120, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@FUZZ
@given(content=st.one_of(nasty_text, wrong_types), date=dates, domain=domains, tags=tags,
       content_type=st.one_of(st.sampled_from(["auto", "code", "PERSONAL", "nope", ""]),
                              nasty_text, wrong_types),
       replaces=st.one_of(st.none(), nasty_text, wrong_types))
def test_save_never_crashes_on_bad_input(fuzz_store: Memory, content: Any, date: Any,
                                         domain: Any, tags: Any, content_type: Any,
                                         replaces: Any) -> None:
    rep = _call("save", fuzz_store.save, content, date=date, domain=domain, tags=tags,
                content_type=content_type, replaces=replaces)
    if rep is not None:
        assert rep.ids and all(fuzz_store.store.leaf_exists(i) for i in rep.ids)


@FUZZ
@given(query=st.one_of(nasty_text, wrong_types), top_k=top_ks,
       clue=st.one_of(st.none(), nasty_text, wrong_types))
def test_search_never_crashes_on_bad_input(fuzz_store: Memory, query: Any, top_k: Any,
                                           clue: Any) -> None:
    res = _call("search", fuzz_store.search, query, top_k, clue=clue)
    if res is not None:
        assert res.status in ("FOUND", "AMBIGUOUS", "NOT_FOUND")
        for h in res.hits:
            assert isinstance(h.text, str)


@FUZZ
@given(text=st.one_of(nasty_text, wrong_types), source=st.one_of(sources, wrong_types),
       domain=domains, date=dates, tags=tags,
       data_type=st.one_of(st.none(), st.sampled_from(["code", "process", "x"]), nasty_text,
                           wrong_types))
def test_ingest_text_never_crashes_on_bad_input(fuzz_store: Memory, text: Any, source: Any,
                                                domain: Any, data_type: Any, date: Any,
                                                tags: Any) -> None:
    _call("ingest_text", fuzz_store.ingest_text, text, source=source, domain=domain,
          data_type=data_type, date=date, tags=tags)


@pytest.mark.parametrize(("call", "kwargs"), [
    pytest.param("save", {"tags": None}, id="save-tags-None"),
    pytest.param("save", {"tags": 3}, id="save-tags-int"),
    pytest.param("save", {"content_type": 3}, id="save-content_type-int"),
    pytest.param("save", {"content_type": None}, id="save-content_type-None"),
    pytest.param("ingest_text", {"data_type": 3}, id="ingest-data_type-int"),
    pytest.param("ingest_text", {"source": 3}, id="ingest-source-int"),
    pytest.param("ingest_text", {"source": b"x.py"}, id="ingest-source-bytes"),
    pytest.param("ingest_text", {"tags": True}, id="ingest-tags-bool"),
    pytest.param("save", {"date": 20240101}, id="save-date-int"),
    pytest.param("save", {"domain": 7}, id="save-domain-int"),
    pytest.param("save", {"replaces": ["x"]}, id="save-replaces-list"),
])
def test_wrong_argument_types_are_refused(fuzz_store: Memory, call: str,
                                          kwargs: dict[str, Any]) -> None:
    """A wrong type is refused with an InputError (or, for None, the default is used)."""
    fn = getattr(fuzz_store, call)
    try:
        rep = fn("A memory with one odd argument", **kwargs)
    except IHMTError:
        return
    assert rep.ids


def test_a_single_tag_string_is_not_split_into_letters(fuzz_store: Memory) -> None:
    """tags="urgent" is one tag (or refused), never the tags u, r, g, e, n, t."""
    try:
        rep = fuzz_store.save("A memory tagged with one string", tags="urgent")
    except IHMTError:
        return
    assert fuzz_store.get(rep.ids[0]).tags == ["urgent"]


# The tests above mostly meet a refusal (one bad argument is enough); these feed hostile text
# through otherwise valid calls, so the chunkers, the tree and the ranking see all of it.
FUZZ_TEXT = settings(FUZZ, max_examples=300)
CODE_SOURCES = ["x.py", "X.java", "a.js", "a.ts", "a.go", "a.rs", "a.c", "a.cpp", "a.cs",
                "a.php", "a.rb", "a.kt", "a.swift", "notes.md", "recipe.txt", None]


@FUZZ_TEXT
@given(content=nasty_text, date=st.sampled_from([None, "2024-03-02", "2023-12-31T10:00"]),
       domain=st.sampled_from([None, "work", "personal"]))
def test_any_text_is_saved_or_refused_cleanly(fuzz_store: Memory, content: str, date: Any,
                                              domain: Any) -> None:
    rep = _call("save(text)", fuzz_store.save, content, date=date, domain=domain)
    if rep is not None:
        for leaf_id in rep.ids:
            stored = fuzz_store.get(leaf_id).text
            assert "\x00" not in stored and stored.encode("utf-8")  # cleaned, encodable


@FUZZ_TEXT
@given(text=nasty_text, source=st.sampled_from(CODE_SOURCES))
def test_any_text_is_ingested_or_refused_cleanly(fuzz_store: Memory, text: str,
                                                 source: str | None) -> None:
    rep = _call("ingest_text(text)", fuzz_store.ingest_text, text, source=source)
    if rep is not None:
        assert all(fuzz_store.store.leaf_exists(i) for i in rep.ids)


@FUZZ_TEXT
@given(query=nasty_text, top_k=st.integers(1, 200), clue=st.one_of(st.none(), nasty_text))
def test_any_query_is_answered_or_refused_cleanly(fuzz_store: Memory, query: str, top_k: int,
                                                  clue: str | None) -> None:
    res = _call("search(text)", fuzz_store.search, query, top_k, clue=clue)
    if res is not None:
        assert len(res.hits) <= top_k
        for h in res.hits[:3]:
            assert isinstance(h.text, str)


@pytest.mark.parametrize("source", ["deep.py", "Deep.java", "deep.js", "deep.c", "deep.rs",
                                    "deep.go", "deep.rb", "deep.json", "deep.md"])
@pytest.mark.parametrize("opener", ["(", "{", "["])
def test_deeply_nested_code_is_stored_or_refused(fuzz_store: Memory, source: str,
                                                 opener: str) -> None:
    text = "x = " + opener * 10_000 if source.endswith(".py") else opener * 10_000
    closing = {"(": ")", "{": "}", "[": "]"}[opener]
    for body in (text[:SMALL_LIMIT - 200], text[:SMALL_LIMIT - 200] + closing * 100):
        rep = _call("ingest_text(deep)", fuzz_store.ingest_text, body, source=source)
        if rep is not None:
            assert "".join(fuzz_store.get(i).text for i in dict.fromkeys(rep.ids)).strip()


def test_deeply_nested_code_at_default_size(tmp_path: Path) -> None:
    """10,000 nested brackets under the default size cap (no small test limit)."""
    mem = Memory.open(tmp_path / "ihmt_memory", create=True)
    for source, text in (("deep.py", "x = " + "(" * 10_000 + ")" * 10_000),
                         ("Deep.java", "class A { int f() { return " + "(" * 10_000 + "1"
                          + ")" * 10_000 + "; } }"),
                         ("deep.js", "[" * 20_000)):
        rep = mem.ingest_text(text, source=source)
        assert rep.ids
        stored = "".join(mem.get(i).text for i in dict.fromkeys(rep.ids))
        assert stored.count("(") + stored.count("[") >= 10_000
    assert_consistent(mem)


def test_oversized_input_is_refused_everywhere(tmp_path: Path) -> None:
    mem = Memory.open(tmp_path / "ihmt_memory", create=True, config={"max_input_bytes": 1000})
    big = "word " * 300
    with pytest.raises(InputError, match="limit"):
        mem.save(big)
    with pytest.raises(InputError, match="limit"):
        mem.ingest_text(big, source="big.md")
    f = tmp_path / "big.txt"
    f.write_text(big)
    with pytest.raises(InputError, match="limit"):
        mem.ingest_file(f)
    with pytest.raises(InputError):
        mem.save("é" * 600)  # 1,200 bytes in UTF-8 although only 600 characters
    assert leaf_ids(mem) == set()


# ---------------------------------------------------------------------- MCP fuzz
def _mcp_values(rng: random.Random) -> Any:
    pool: list[Any] = [
        None, 0, -5, 3.14, True, False, [], ["a", 1], {}, {"nested": {"x": [1, 2]}}, "",
        " ", "\x00", "a" * 50_000, "../../etc/passwd", "'; DROP TABLE x;--",
        "{{template}}", "\u202e\u0301", "NOT FOUND", "compact", "full", "general", "auto",
        "code", "personal",
    ]
    if rng.random() < 0.6:  # text of the right type, with awkward characters
        return _mcp_text(rng)
    return rng.choice(pool)


def _mcp_text(rng: random.Random) -> str:
    return "".join(rng.choice("abc xyz(){}[]\n\t\"'\\é😀\x01\x1b.-_/") for _ in
                   range(rng.randint(1, 200)))


MCP_CHOICES = {"detail": ["compact", "full"], "content_type": ["auto", "code", "personal"]}


@asynccontextmanager
async def _client(home: Path, errlog: Any) -> Any:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=PY, args=["-m", "ihmt.faces.mcp"],
                                   env=_env(IHMT_HOME=str(home)))
    async with stdio_client(params, errlog=errlog) as (read, write):
        async with ClientSession(read, write, read_timeout_seconds=60) as session:
            await session.initialize()
            yield session


@contextmanager
def _server(home: Path, log: Path) -> Iterator[Any]:
    from anyio.from_thread import start_blocking_portal

    with open(log, "w") as errlog, start_blocking_portal() as portal:
        with portal.wrap_async_context_manager(_client(home, errlog)) as session:
            yield portal, session


MCP_FUZZ_CALLS = 160
MCP_ARGS = {"search_memory": ("query", "clue", "detail"),
            "save_memory": ("content", "domain", "content_type", "replaces")}


def test_mcp_tools_answer_every_malformed_call(tmp_path: Path) -> None:
    from mcp.shared.exceptions import MCPError

    home = tmp_path / "home"
    log = tmp_path / "server.log"
    rng = random.Random(7)
    answers: Counter[str] = Counter()
    generic: list[str] = []
    with _server(home, log) as (portal, session):
        def call(tool: str, args: dict[str, Any]) -> Any:
            return portal.call(functools.partial(session.call_tool, tool, args))

        call("save_memory", {"content": "The fuzz store remembers that the VPN is WireGuard."})
        for n in range(MCP_FUZZ_CALLS):
            tool = "search_memory" if n % 2 else "save_memory"
            names = MCP_ARGS[tool]
            if n % 4 < 2:  # well-typed calls whose text is hostile: they reach the library
                args = {names[0]: _mcp_text(rng)}
                for k in names[1:]:
                    if rng.random() < 0.5:
                        args[k] = _mcp_text(rng) if k in ("clue", "replaces", "domain") else \
                            rng.choice(MCP_CHOICES[k])
            else:  # anything at all, for every argument
                args = {k: _mcp_values(rng) for k in names if rng.random() < 0.8}
                if rng.random() < 0.1:
                    args["unexpected_argument"] = _mcp_values(rng)
            try:
                res = call(tool, args)
            except MCPError as exc:  # a protocol-level error is still an answer
                answers[f"{tool}: protocol error"] += 1
                assert str(exc)
                continue
            body = "\n".join(getattr(c, "text", "") for c in res.content)
            answers[f"{tool}: {'isError' if res.is_error else 'result'}"] += 1
            if res.is_error and body.strip() == f"Error executing tool {tool}":
                generic.append(f"{tool}({args!r:.200})")
        # Still alive and still right.
        listed = portal.call(session.list_tools)
        assert {"search_memory", "save_memory"} <= {t.name for t in listed.tools}
        res = call("search_memory", {"query": "VPN WireGuard"})
        assert not res.is_error and "WireGuard" in res.content[0].text
    print("\nmcp-fuzz answers:", json.dumps(dict(sorted(answers.items()))))
    assert sum(answers.values()) == MCP_FUZZ_CALLS
    # An error the agent can act on carries its message; the SDK's bare "Error executing
    # tool <name>" (and a traceback in the server's log) means an exception escaped the
    # library's own error types.
    assert not generic, generic[:5]
    assert "Traceback" not in log.read_text(errors="replace"), log.read_text()[-3000:]
    mem = Memory.open(home)
    assert_consistent(mem)


class _RawServer:
    """The MCP server spoken to in raw JSON-RPC lines, to send what the SDK client cannot
    (escaped lone surrogates, broken JSON)."""

    def __init__(self, home: Path, log: Path) -> None:
        import queue
        import threading

        self.proc = subprocess.Popen([PY, "-m", "ihmt.faces.mcp"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=open(log, "wb"),
                                     env=_env(IHMT_HOME=str(home)))
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)

    def send(self, raw: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(raw.encode() + b"\n")
        self.proc.stdin.flush()

    def recv(self, timeout: float) -> dict[str, Any] | None:
        import queue

        try:
            return json.loads(self.lines.get(timeout=timeout))
        except queue.Empty:
            return None

    def request(self, rid: int, method: str, params: dict[str, Any]) -> dict[str, Any] | None:
        self.send(json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}))
        return self.recv(60)

    def close(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            return self.proc.wait(timeout=20)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()


RAW_BAD_LINES = [
    '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"save_memory",'
    '"arguments":{"content":"lone \\ud800 surrogate"}}}',
    '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"search_memory",'
    '"arguments":{"query":"x","detail":"\\udfff"}}}',
    "this is not json %d",
    '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"save_memory",'
    '"arguments":{"content":"unterminated',
]


def _raw_session(tmp_path: Path) -> _RawServer:
    srv = _RawServer(tmp_path / "home", tmp_path / "raw.log")
    init = srv.request(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                         "clientInfo": {"name": "raw", "version": "0"}})
    assert init is not None and "result" in init, init
    srv.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
    return srv


def test_mcp_server_survives_undecodable_requests(tmp_path: Path) -> None:
    """Lines the SDK cannot parse do not kill the server: the next request is answered."""
    srv = _raw_session(tmp_path)
    try:
        for n, line in enumerate(RAW_BAD_LINES):
            srv.send(line % (10 + n) if "%d" in line else line)
        srv.recv(2)  # whatever (if anything) comes back for the bad lines
        ok = srv.request(50, "tools/call", {"name": "save_memory",
                                            "arguments": {"content": "still alive after junk"}})
        while ok is not None and ok.get("id") != 50:
            ok = srv.recv(30)
        assert ok is not None and not ok["result"]["isError"], ok
        res = srv.request(51, "tools/call", {"name": "search_memory",
                                             "arguments": {"query": "still alive junk"}})
        while res is not None and res.get("id") != 51:
            res = srv.recv(30)
        assert res is not None and "still alive" in res["result"]["content"][0]["text"]
    finally:
        assert srv.close() == 0


@pytest.mark.xfail(strict=True, reason=(
    "mcp SDK 2.3: a request whose JSON holds an escaped lone surrogate (\\ud800, which a "
    "JavaScript client can send) fails the transport's JSON parser and gets no response at "
    "all, so the agent waits for its timeout; the server itself stays alive"))
def test_mcp_request_with_lone_surrogate_gets_an_answer(tmp_path: Path) -> None:
    srv = _raw_session(tmp_path)
    try:
        srv.send(RAW_BAD_LINES[0] % 7)
        reply = srv.recv(5)
        assert reply is not None and reply.get("id") == 7, reply
    finally:
        srv.close()


# ====================================================================== e. staying in bounds
def _modes(root: Path) -> tuple[dict[str, str], dict[str, str]]:
    dirs, files = {}, {}
    for dirpath, _dirnames, filenames in os.walk(root):
        dirs[dirpath] = oct(stat.S_IMODE(os.stat(dirpath).st_mode))
        for f in filenames:
            p = os.path.join(dirpath, f)
            files[os.path.relpath(p, root)] = oct(stat.S_IMODE(os.lstat(p).st_mode))
    return dirs, files


def test_new_store_is_private(tmp_path: Path) -> None:
    old = os.umask(0o022)  # a typical umask: anything not created private would show
    try:
        mem = Memory.open(tmp_path / "ihmt_memory", create=True, config={"branch_factor": 2})
        for i in range(6):
            mem.save(f"I live in City{i}; private note {i}", date=f"2024-01-0{i + 1}")
        with mem.bulk():
            mem.save("bulk note")
        mem.flush()
        mem.search("private note")
        mem.rebuild()
        _damage(next(mem.path.glob("layer_0/*/L-*.txt")), "garbage")
        Memory.open(mem.path).rebuild()  # writes quarantine/
    finally:
        os.umask(old)
    dirs, files = _modes(mem.path)
    assert (mem.path / "quarantine").is_dir()
    bad_dirs = {d: m for d, m in dirs.items() if m != "0o700"}
    assert not bad_dirs, bad_dirs
    bad_files = {f: m for f, m in files.items() if m != "0o600"}
    assert not bad_files, bad_files


ESCAPES = ["../outside", "../../outside", "/tmp/outside", "a/../../outside", "..", "a\x00b",
           "..\\outside", "~/outside", "%2e%2e%2foutside", "\u2024\u2024/outside"]


def _snapshot(root: Path) -> dict[str, tuple[int, int]]:
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            st_ = os.lstat(p)
            out[p] = (st_.st_size, st_.st_mtime_ns)
    return out


def test_names_cannot_escape_the_store(tmp_path: Path) -> None:
    parent = tmp_path / "parent"
    store = parent / "inner" / "ihmt_memory"
    mem = Memory.open(store, create=True)
    mem.save("seed memory")
    outside_before = {k: v for k, v in _snapshot(tmp_path).items()
                      if not k.startswith(str(store))}
    tmp_before = sorted(Path("/tmp").glob("outside*"))
    refused = accepted = 0
    for bad in ESCAPES:
        for kwargs in ({"domain": bad}, {"tags": [bad]}):
            try:
                rep = mem.save(f"escape attempt {bad!r} {kwargs}", **kwargs)
            except IHMTError:
                refused += 1
                continue
            accepted += 1
            for leaf_id in rep.ids:
                path = mem.store.leaf_path(leaf_id)
                assert path.resolve().is_relative_to(store.resolve())
        try:
            mem.ingest_text(f"escape via source {bad!r}", source=bad + ".py")
            accepted += 1
        except IHMTError:
            refused += 1
        for probe in (bad, "L-" + bad, "N1-" + bad, f"L-general-{bad}"):
            with pytest.raises(IHMTError):
                mem.get(probe)
            with pytest.raises(IHMTError):
                mem.mark_outdated(probe, probe + "x")
    outside_after = {k: v for k, v in _snapshot(tmp_path).items()
                     if not k.startswith(str(store))}
    assert outside_after == outside_before, "something was written outside the store"
    assert refused and accepted
    print(f"\nescape attempts: {refused} refused, {accepted} stored inside the store, "
          f"{len(ESCAPES) * 8} id probes refused")
    assert sorted(Path("/tmp").glob("outside*")) == tmp_before  # the absolute attempts
    assert_consistent(mem)


def test_symlinks_in_the_store_are_not_followed_out(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    mem = Memory.open(tmp_path / "ihmt_memory", create=True, config={"branch_factor": 2})
    for i in range(4):
        mem.save(f"inside memory {i} insidetok{i}")
    # A leaf-looking file outside, reached through a symlinked domain folder and a
    # symlinked leaf file inside layer_0.
    fake = mem.store.read_leaf(next(iter(leaf_ids(mem))))
    from ihmt.store.leaves import format_leaf

    fake.id, fake.domain, fake.text = "L-evil-0123456789ab", "evil", "outsidetok secret notes"
    (outside / "L-evil-0123456789ab.txt").write_text(format_leaf(fake))
    fake2 = fake
    fake2.id, fake2.domain = "L-general-ba9876543210", "general"
    (outside / "L-general-ba9876543210.txt").write_text(format_leaf(fake2))
    layer0 = mem.path / "layer_0"
    (layer0 / "evil").symlink_to(outside, target_is_directory=True)
    general = next(d for d in layer0.iterdir() if d.is_dir() and not d.is_symlink())
    (general / "L-general-ba9876543210.txt").symlink_to(outside / "L-general-ba9876543210.txt")
    before = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in outside.iterdir()}

    paths = list(mem.store.iter_leaf_paths())
    assert all(p.resolve().is_relative_to(mem.path.resolve()) for p in paths)
    rep = mem.rebuild()
    mem2 = Memory.open(mem.path)
    res = mem2.search("outsidetok secret notes")
    assert all("outsidetok" not in h.text for h in res.hits)
    assert "insidetok2" in top_text(mem2, "insidetok2")
    assert rep["leaves"] == 4
    after = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in outside.iterdir()}
    assert after == before, "a file outside the store was modified"
    assert (general / "L-general-ba9876543210.txt").is_symlink()
    ids = walk_ids(mem2)
    assert "L-evil-0123456789ab" not in ids and "L-general-ba9876543210" not in ids


def test_store_files_are_plain_text_inside_the_folder(tmp_path: Path) -> None:
    """Nothing of a store lives elsewhere: all its files are under its folder."""
    mem = Memory.open(tmp_path / "a" / "ihmt_memory", create=True)
    mem.save("hello from the store")
    found = [Path(p) for p in glob.glob(str(tmp_path / "**"), recursive=True)]
    assert all(p == tmp_path or p.is_relative_to(tmp_path / "a") for p in found), found

