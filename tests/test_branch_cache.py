"""The packed copy of large branch files (state/cache/branches): derived, checked against the
JSON it came from, rebuilt when missing, stale or damaged, and never a reason for a search to
fail or to answer differently."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ihmt import Memory
from ihmt.store import branch_cache
from ihmt.store.branch import Branch
from ihmt.store.branch_file import is_branch_file
from ihmt.store.branches import BranchFiles

QUERIES = ["which port does the staging server use?", "billing database decision",
           "who reviews the deploys on friday?", "nothing matches zzyzx"]


@pytest.fixture(autouse=True)
def first_format(monkeypatch: pytest.MonkeyPatch) -> None:
    """The packed copies are of first-format (JSON) branch files: the stores here are
    written as IHMT wrote them before the current format (a forget still rewrites the
    branches it takes a memory out of in the current one)."""
    monkeypatch.setattr(BranchFiles, "legacy_branches", True)


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("IHMT_SEMANTIC", "off")
    monkeypatch.setattr(branch_cache, "MIN_BYTES", 0)  # a small store: cache every branch
    path = tmp_path / "ihmt_memory"
    with Memory.open(path, create=True, config={"branch_factor": 4}) as m, m.bulk():
        for i in range(60):
            m.save(f"Note {i}: service s{i % 7} runs on port {8000 + i} and team t{i % 5} "
                   f"reviews its deploys on {['monday', 'friday'][i % 2]}.")
        m.save("The staging server runs on port 8443 behind nginx.")
        m.save("We decided to use Postgres for billing because we need transactions.")
    return path


def answers(path: Path) -> list[tuple]:
    """What a fresh process would answer (a new Memory reads every branch from disk)."""
    out = []
    with Memory.open(path) as m:
        for q in QUERIES:
            r = m.search(q, top_k=5)
            out.append((r.status, r.confidence, [(h.id, round(h.score, 9)) for h in r.hits],
                        r.notices))
    return out


def cache_files(path: Path) -> list[Path]:
    return sorted(branch_cache.folder(path / "state").glob("*.bin"))


def test_the_cache_is_written_on_first_read_and_answers_the_same(store: Path) -> None:
    branch_cache.clear(store / "state")
    cold = answers(store)
    written = cache_files(store)
    assert written  # the first reads kept the packed form
    warm = answers(store)  # read back from the cache this time
    assert warm == cold
    branch_cache.clear(store / "state")
    assert answers(store) == cold


def test_a_cached_branch_equals_the_one_parsed_from_json(store: Path) -> None:
    answers(store)
    for cached in cache_files(store):
        node_id = cached.stem
        source = next((store / "layers").glob(f"*/{node_id}.json")).read_bytes()
        b = branch_cache.load(store / "state", node_id, source)
        assert b is not None
        ref = Branch(json.loads(source))
        # looked up one by one first (a search's way, nothing turned into a dict yet)
        assert all(b.terms.get(t) == code and t in b.terms for t, code in ref.terms.items())
        assert b.terms.get("zz-not-a-term") is None and "zz-not-a-term" not in b.terms
        assert len(b.terms) == len(ref.terms) and b.weight() == ref.weight()
        for t in list(ref.terms)[:50]:
            assert list(b.groups(t)) == list(ref.groups(t))
            assert b.band_signatures(t) == ref.band_signatures(t)
        assert b.terms == ref.terms and b.packed()[1] == ref.packed()[1]
        masks, ref_masks = b.packed()[2], ref.packed()[2]
        assert (bytes(masks) if masks is not None else None) == ref_masks
        assert b.data == ref.data and dict(b.terms.items()) == ref.terms
        assert list(b.terms) == list(ref.terms)  # the file order, for a writer walking it
        assert (b.band_bits, b.mask_bytes, b.slot_widths, b.n_leaves, b.total_len) == \
            (ref.band_bits, ref.mask_bytes, ref.slot_widths, ref.n_leaves, ref.total_len)


@pytest.mark.parametrize("damage", ["garbage", "truncated", "flipped", "empty"])
def test_a_damaged_cache_is_ignored_and_rewritten(store: Path, damage: str) -> None:
    expected = answers(store)
    for f in cache_files(store):
        blob = f.read_bytes()
        f.write_bytes({"garbage": b"\x00\xff" * 50, "truncated": blob[: len(blob) // 2],
                       "flipped": blob[:-10] + bytes([blob[-10] ^ 0x40]) + blob[-9:],
                       "empty": b""}[damage])
    assert answers(store) == expected
    for f in cache_files(store):  # rewritten whole
        node_id = f.stem
        source = next((store / "layers").glob(f"*/{node_id}.json")).read_bytes()
        assert branch_cache.load(store / "state", node_id, source) is not None


def test_a_stale_cache_is_not_used(store: Path) -> None:
    answers(store)
    old = {f.stem: f.read_bytes() for f in cache_files(store)}
    with Memory.open(store) as m:  # a forget rewrites the branches above the memory
        deep = next(path[-1] for path, _ in m.walk() if len(path) > 3)
        m.forget([deep])
    rewritten = {p.stem for p in (store / "layers").glob("*/*.json")
                 if is_branch_file(p.read_bytes())}
    assert rewritten & set(old)  # (in the current format, their packed copies gone)
    assert not [f for f in cache_files(store) if f.stem in rewritten]
    # A JSON file changed under its packed copy: a word taken out of its term table.
    edited = 0
    for p in (store / "layers").glob("*/*.json"):
        if p.stem in old and not is_branch_file(p.read_bytes()):
            data = json.loads(p.read_bytes())
            if "port" in data["terms"] and not data.get("masks"):
                del data["terms"]["port"]
                p.write_text(json.dumps(data))
                edited += 1
    assert edited
    with Memory.open(store) as m:
        m.store.clear_cache()
    for node_id, blob in old.items():  # put the old cache files back
        branch_cache.folder(store / "state").mkdir(parents=True, exist_ok=True)
        (branch_cache.folder(store / "state") / f"{node_id}.bin").write_bytes(blob)
    with_stale = answers(store)
    branch_cache.clear(store / "state")
    assert with_stale == answers(store)


def test_no_writable_cache_folder_is_no_harm(store: Path) -> None:
    expected = answers(store)
    branch_cache.clear(store / "state")
    (store / "state" / "cache").mkdir(exist_ok=True)
    (store / "state" / "cache" / "branches").write_text("not a folder")
    assert answers(store) == expected


def test_small_branch_files_are_not_cached(store: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(branch_cache, "MIN_BYTES", 10**9)
    branch_cache.clear(store / "state")
    answers(store)
    assert cache_files(store) == []


def test_rebuild_and_forget_drop_the_cache_files(store: Path) -> None:
    answers(store)
    assert cache_files(store)
    with Memory.open(store) as m:
        m.rebuild()
    assert cache_files(store) == []
    answers(store)
    with Memory.open(store) as m:
        ids = [h.id for h in m.search("Note service port", top_k=100).hits]
        m.forget(ids[:40])
    branches = {p.stem for p in (store / "layers").glob("*/*.json")}
    assert {f.stem for f in cache_files(store)} <= branches  # no file of a removed branch
    answers(store)  # and the store still answers from what is left


def test_a_hook_call_writes_the_cache_after_answering_and_answers_the_same(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os
    import subprocess
    import sys

    monkeypatch.setenv("IHMT_SEMANTIC", "off")
    path = tmp_path / "ihmt_memory"
    with Memory.open(path, create=True) as m, m.bulk():
        for i in range(900):  # enough distinct words for top branches past MIN_BYTES
            m.save(f"Ticket T{i} about host h{i}x{i % 13} in zone z{i % 17}: the "
                   f"{['cache', 'queue', 'proxy', 'index'][i % 4]} of w{i}q was moved.")
        m.save("The staging server runs on port 8443 behind nginx.")
    with Memory.open(path) as m:
        m.flush()  # one top branch over everything
    assert max(p.stat().st_size for p in (path / "layers").glob("*/*.json")) >= \
        branch_cache.MIN_BYTES
    payload = json.dumps({"hook_event_name": "UserPromptSubmit", "cwd": str(tmp_path),
                          "prompt": "which port does the staging server run on?"})

    def hook() -> str:
        proc = subprocess.run([sys.executable, "-m", "ihmt.faces.cli", "--path", str(path),
                               "hook", "prompt-submit"], input=payload, capture_output=True,
                              text=True, timeout=120, env={**os.environ, "IHMT_HOOK_TIMEOUT":
                                                           "60"})
        assert proc.returncode == 0 and proc.stderr == "", proc.stderr
        return proc.stdout

    branch_cache.clear(path / "state")
    first = hook()
    assert "8443" in first
    assert cache_files(path)  # written by the call, once it had answered
    assert hook() == first  # read from the cache this time
    assert not (path / "state" / "hook.log").exists()


def test_a_packed_copy_left_half_written_is_cleaned_up(store: Path) -> None:
    answers(store)
    folder = branch_cache.folder(store / "state")
    left = folder / ".N9-general-000000000000.bin.999999999.1.part"  # a dead writer's
    left.write_bytes(b"half")
    with Memory.open(store) as m:
        assert m.store.remove_partial_files() >= 1
    assert not left.exists() and cache_files(store)


def stale_copies(path: Path) -> list[str]:
    """Packed copies on disk not made from the branch file there now (or of no file)."""
    import struct
    import zlib

    out = []
    sources = {p.stem: p for p in (path / "layers").glob("*/*.json")}
    for f in cache_files(path):
        blob = f.read_bytes()
        size, crc = struct.unpack_from("<QI", blob, len(branch_cache.MAGIC))
        source = sources.get(f.stem)
        data = source.read_bytes() if source is not None else None
        if data is None or (len(data), zlib.crc32(data)) != (size, crc):
            out.append(f.stem)
    return out


def fresh_answers(path: Path, scope: str | None = None) -> tuple[list, list]:
    """The answers read through the packed copies on disk, then with none at all."""
    def run() -> list:
        with Memory.open(path, project="proj-x") as m:
            return [[(h.id, round(h.score, 9), h.scope) for h in
                     m.search(q, top_k=5, scope=scope).hits] for q in QUERIES]
    cached = run()
    branch_cache.clear(path / "state")
    return cached, run()


def test_no_write_leaves_a_stale_packed_copy_behind(store: Path) -> None:
    """Forget, move, save and consolidate, rebuild: after each, every packed copy left on
    disk was made from the branch file there now, and searches through the copies answer
    what they answer without any."""
    steps = []

    def check(what: str) -> None:
        assert stale_copies(store) == [], what  # the write removed what it replaced
        for scope in (None, "all", "project", "global"):
            cached, plain = fresh_answers(store, scope)
            assert cached == plain, (what, scope)
        answers(store)
        steps.append(what)

    answers(store)  # a packed copy of every branch the searches read
    check("start")
    with Memory.open(store) as m:
        deep = [path[-1] for path, _ in m.walk() if len(path) > 3]
        m.forget(deep[:3])
    check("forget")
    with Memory.open(store) as m:
        moved = [path[-1] for path, _ in m.walk() if len(path) > 3][:2]
        for leaf_id in moved:
            m.move(leaf_id, "proj-x")
    check("move")
    with Memory.open(store) as m:
        for i in range(12):
            m.save(f"Extra {i}: service s{i % 3} now runs on port {9000 + i}.")
        m.flush()
    check("save and flush")
    with Memory.open(store) as m:
        m.rebuild()
    assert cache_files(store) == []
    check("rebuild")
    assert len(steps) == 5


@pytest.mark.skipif(__import__("shutil").which("git") is None, reason="git is not installed")
def test_a_sync_leaves_no_stale_packed_copy(tmp_path: Path, store: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    import subprocess

    from ihmt.sync import gitsync

    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    with Memory.open(store) as a:
        gitsync.init(a, str(remote))
    with Memory.open(tmp_path / "b" / "ihmt_memory", create=True,
                     config={"branch_factor": 4}) as b:
        gitsync.init(b, str(remote))
        for i in range(15):
            b.save(f"From b {i}: the billing worker w{i} runs on port {7000 + i}.")
        gitsync.sync(b)
    answers(store)
    assert cache_files(store)
    with Memory.open(store) as a:
        rep = gitsync.sync(a)
        assert rep["new_memories"] == 15
    assert stale_copies(store) == []
    cached, plain = fresh_answers(store)
    assert cached == plain
    with Memory.open(store) as a:
        assert "7003" in a.search("which port does billing worker w3 use?").hits[0].text
