"""One memory across machines: git history and sync, on real files and real git.

A local bare repository is the remote; two memory folders are two machines.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from ihmt import Memory
from ihmt.errors import InputError
from ihmt.store.leaves import read_leaf
from ihmt.sync import git as syncgit
from ihmt.sync import gitsync
from ihmt.sync.gitsync import SyncError

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


@pytest.fixture(autouse=True)
def fresh_git(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A machine where git has no user configuration at all (as in CI)."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.delenv("GIT_AUTHOR_NAME", raising=False)
    monkeypatch.delenv("GIT_AUTHOR_EMAIL", raising=False)
    monkeypatch.delenv("EMAIL", raising=False)


def ihmt(*args: str, env: dict[str, str] | None = None, input: str | None = None
         ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ihmt.faces.cli", *args], input=input,
                          capture_output=True, text=True, timeout=180,
                          env={**os.environ, **(env or {})})


def git(path: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(path), *args], capture_output=True, text=True,
                          check=True, env={**os.environ, "GIT_TERMINAL_PROMPT": "0"}).stdout


def bare(tmp_path: Path) -> Path:
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    return remote


def machine(tmp_path: Path, name: str, **config: object) -> Memory:
    return Memory.open(tmp_path / name / "ihmt_memory", create=True,
                       config={"branch_factor": 4, **config})


def leaves(m: Memory) -> set[str]:
    return {p.stem for p in m.store.iter_leaf_paths()}


def texts(m: Memory) -> set[str]:
    return {read_leaf(p).text for p in m.store.iter_leaf_paths()}


def clean(m: Memory) -> bool:
    return git(m.path, "status", "--porcelain") == ""


# ---------------------------------------------------------------------- init, commits
def test_init_tracks_the_truth_and_ignores_what_is_derived(tmp_path: Path) -> None:
    a = machine(tmp_path, "a")
    a.save("We chose Postgres for billing because we need transactions.", date="2026-01-05")
    rep = gitsync.init(a)
    assert rep["created"] and rep["status"]["enabled"] and rep["status"]["commits"] == 1
    tracked = set(git(a.path, "ls-files").split())
    leaf = next(iter(leaves(a)))
    assert f"layer_0/general/{leaf}.txt" in tracked
    assert {"ihmt.config.json", ".gitignore", ".gitattributes"} <= tracked
    assert not any(t.startswith(("layers/", "root.json", "state/catalog", "state/intent",
                                 "state/write.lock")) for t in tracked)
    assert clean(a)
    # the fixed identity was set locally because this machine has none
    assert git(a.path, "config", "--local", "user.email").strip() == "ihmt@localhost"
    # a second init is harmless
    assert gitsync.init(a)["created"] is False
    # the scanner, rebuild and doctor ignore .git and .gitignore
    from ihmt.doctor import check_store

    assert a.rebuild()["leaves"] == 1
    report = check_store(a.path)
    assert report["ok"], report["problems"]
    assert report["sync"]["enabled"] and report["sync"]["commits"] >= 1


def test_an_implicit_link_commits_the_old_memory_it_annotated(tmp_path: Path) -> None:
    a = machine(tmp_path, "a", branch_factor=8)
    gitsync.init(a)
    old = a.save("The login provider of Dylumou is Okta.", date="2026-03-02").ids[0]
    rep = a.save("Dylumou switched its login provider to Keycloak.", date="2026-09-10")
    assert rep.outdated == [old]
    assert git(a.path, "status", "--porcelain", "--", "layer_0") == ""
    assert "superseded_by" in git(a.path, "show", f"HEAD:layer_0/general/{old}.txt")


def test_saves_corrections_and_facts_are_committed(tmp_path: Path) -> None:
    a = machine(tmp_path, "a")
    gitsync.init(a)
    r1 = a.save("The staging host is db-eu-7.", date="2026-01-05")
    r2 = a.save("The staging host is now db-eu-9.", date="2026-02-01")
    a.mark_outdated(r1.ids[0], r2.ids[0])
    a.record_fact("team", "lead", "Ana", "2026-03-01")
    with a.bulk():
        for i in range(3):
            a.save(f"bulk memory number {i} about caches", date=f"2026-01-0{i + 1}")
    rows = gitsync.history(a.path)
    subjects = [r["subject"] for r in rows]
    assert subjects[0].startswith("bulk: ") and "(+2)" in subjects[0]
    assert subjects[1].startswith("fact team lead = Ana (2026-03-01)")
    assert subjects[2] == f"outdated by {r2.ids[0]}: {r1.ids[0]}"
    assert subjects[3].startswith(f"save: {r2.ids[0]} The staging host is now db-eu-9")
    assert subjects[-1].startswith("init")
    assert "team" in git(a.path, "show", "HEAD~1:state/facts.jsonl")
    # every memory is committed; what may remain is the parent stamp consolidation wrote
    # into older leaves (derived), committed by the next sync
    left = git(a.path, "status", "--porcelain", "--", "layer_0", "state/facts.jsonl")
    assert all(line.startswith(" M layer_0/") for line in left.splitlines()), left
    for line in left.splitlines():
        diff = git(a.path, "diff", "-U0", "--", line[3:])
        changed = [d for d in diff.splitlines() if d[:1] in "+-" and d[:3] not in ("+++", "---")]
        assert all('"parent_id"' in d for d in changed), diff
    assert gitsync.history(a.path, since="2999-01-01") == []
    assert len(gitsync.history(a.path, limit=2)) == 2
    with pytest.raises(InputError, match="limit must be a positive"):
        gitsync.history(a.path, limit=0)


def test_a_large_bulk_load_is_one_commit(tmp_path: Path, caplog: pytest.LogCaptureFixture
                                         ) -> None:
    a = machine(tmp_path, "a")
    gitsync.init(a)
    assert not (a.path / "state/facts.jsonl").exists()
    with a.bulk():
        for i in range(600):
            a.save(f"imported snippet {i} of the old wiki", content_type="code")
    assert "not committed" not in caplog.text
    assert len(git(a.path, "ls-files", "layer_0").split()) == 600
    assert gitsync.history(a.path)[0]["subject"].startswith("bulk: L-") and \
        "(+599)" in gitsync.history(a.path)[0]["subject"]


def test_window_and_off_modes_batch_commits(tmp_path: Path) -> None:
    a = machine(tmp_path, "a", sync_commit="window", sync_window_s=3600)
    gitsync.init(a)
    n0 = gitsync.status(a.path)["commits"]
    a.save("first memory of the window", date="2026-01-01")
    a.save("second memory of the window", date="2026-01-02")
    a.save("third memory of the window", date="2026-01-03")
    st = gitsync.status(a.path)
    assert st["commits"] == n0 + 1  # only the first save of the window made a commit
    assert st["uncommitted"] == 2
    # the first save after the window commits the ones waiting with it
    os.utime(a.path / gitsync.STAMP, (time.time() - 7200, time.time() - 7200))
    r4 = a.save("fourth memory, after the window", date="2026-01-04")
    st = gitsync.status(a.path)
    assert st["commits"] == n0 + 2
    assert "??" not in git(a.path, "status", "--porcelain")  # (parent stamps may remain)
    assert gitsync.history(a.path)[0]["subject"].startswith(f"save: {r4.ids[0]} (+2) fourth")
    a.save("fifth memory of the new window", date="2026-01-05")
    # what waits is committed by the next commit of any kind (here: a sync's commit step)
    assert gitsync.commit_all(a.path, "sync: commit pending changes")
    assert clean(a)
    b = machine(tmp_path, "b", sync_commit="off")
    gitsync.init(b)
    b.save("not committed until a sync", date="2026-01-01")
    assert gitsync.status(b.path)["commits"] == 1 and not clean(b)


def test_a_failing_git_never_fails_a_save(tmp_path: Path, caplog: pytest.LogCaptureFixture,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(syncgit, "LOCK_WAIT_S", 0.5)  # how long a young lock is waited for
    a = machine(tmp_path, "a")
    gitsync.init(a, str(bare(tmp_path)))
    lock = a.path / ".git" / "index.lock"
    lock.write_text("")  # a git process that died, or a git run by hand
    os.utime(lock, (time.time() - 60, time.time() - 60))
    rep = a.save("saved even though git is stuck", date="2026-01-01")
    assert rep.new == 1 and rep.ids[0] in leaves(a)
    assert "not committed to git" in caplog.text
    rep = gitsync.sync(a)  # removes the stale lock and commits what was pending
    assert "removed a stale .git/index.lock" in rep["recovered"]
    assert rep["committed"] and rep["pushed"] and clean(a)
    # a young lock may belong to a git the user is running: it is left alone
    lock.write_text("")
    a.save("saved while someone runs git by hand", date="2026-01-02")
    with pytest.raises(SyncError, match="index.lock"):
        gitsync.sync(a)
    assert lock.exists()
    lock.unlink()
    assert gitsync.sync(a)["committed"] and clean(a)


def test_a_sync_waits_for_a_git_still_finishing_what_a_killed_sync_began(
        tmp_path: Path) -> None:
    """A sync killed half way leaves its git child running with a lock held (here
    .git/config.lock, as in a CI run that failed): the next sync waits for it."""
    a = machine(tmp_path, "a")
    gitsync.init(a, str(bare(tmp_path)))
    a.save("saved before the sync that was killed", date="2026-01-01")
    config = (a.path / ".git" / "config").read_bytes()
    lock = a.path / ".git" / "config.lock"
    lock.write_bytes(config)
    threading.Timer(1.0, lock.unlink).start()  # the orphaned git finishes a second later
    start = time.monotonic()
    rep = gitsync.sync(a)
    assert time.monotonic() - start >= 0.9  # it waited: it neither failed nor removed it
    assert not any("config.lock" in note for note in rep["recovered"])
    assert rep["pushed"] and rep["ahead"] == 0 and clean(a)


def test_a_sync_removes_lock_files_no_git_holds_any_more(tmp_path: Path) -> None:
    a = machine(tmp_path, "a")
    gitsync.init(a, str(bare(tmp_path)))
    a.save("committed when the save wrote it", date="2026-01-01")
    gdir = a.path / ".git"
    left = [gdir / "config.lock", gdir / "HEAD.lock", gdir / "refs" / "heads" / "main.lock"]
    for lock in left:  # a crash (power cut) leaves git's lock files behind for good
        lock.write_text("")
        os.utime(lock, (time.time() - 60, time.time() - 60))
    a.save("saved while git was left locked: its commit fails", date="2026-01-02")
    rep = gitsync.sync(a)
    assert set(rep["recovered"]) >= {"removed a stale .git/config.lock",
                                     "removed a stale .git/HEAD.lock",
                                     "removed a stale .git/refs/heads/main.lock"}
    assert rep["committed"] and rep["pushed"] and clean(a)
    assert not any(lock.exists() for lock in left)


@pytest.mark.skipif(not Path("/proc/self/cwd").exists(), reason="needs /proc (Linux)")
def test_an_old_lock_is_kept_while_a_git_runs_in_the_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An old lock may be held by a git that is still running (an editor opened by
    'git commit' by hand): while one runs in the folder, the sync leaves it and says so."""
    monkeypatch.setattr(syncgit, "LOCK_WAIT_S", 0.5)
    a = machine(tmp_path, "a")
    gitsync.init(a, str(bare(tmp_path)))
    lock = a.path / ".git" / "index.lock"
    lock.write_text("")
    os.utime(lock, (time.time() - 60, time.time() - 60))
    hand = subprocess.Popen(["git", "-C", str(a.path), "hash-object", "--stdin"],
                            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
    try:  # a real git, waiting on its input, working in the memory folder
        deadline = time.monotonic() + 10
        while hand.pid not in syncgit._gits_running_in(a.path) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert hand.pid in syncgit._gits_running_in(a.path)
        assert hand.pid not in syncgit._gits_running_in(tmp_path / "elsewhere")
        with pytest.raises(SyncError, match="index.lock exists"):
            gitsync.sync(a)
        assert lock.exists()
    finally:
        hand.communicate(b"x", timeout=30)
    assert syncgit._gits_running_in(a.path) == []
    rep = gitsync.sync(a)  # that git has ended: the lock is left over
    assert "removed a stale .git/index.lock" in rep["recovered"] and clean(a)


def test_init_again_removes_a_config_lock_left_over_and_keeps_the_history(
        tmp_path: Path) -> None:
    a = machine(tmp_path, "a")
    a.save("committed by the first init", date="2026-01-01")
    gitsync.init(a)
    lock = a.path / ".git" / "config.lock"
    lock.write_text("")
    os.utime(lock, (time.time() - 60, time.time() - 60))
    a.save("saved before the second init", date="2026-01-02")
    rep = gitsync.init(a, str(bare(tmp_path)))  # adding a remote later
    assert not rep["created"] and not lock.exists()
    assert rep["status"]["remote"] == "origin" and clean(a)
    assert gitsync.status(a.path)["commits"] >= 2


def test_a_sync_leaves_the_repository_config_alone_once_it_is_set(tmp_path: Path) -> None:
    a = machine(tmp_path, "a")
    gitsync.init(a, str(bare(tmp_path)))
    config = a.path / ".git" / "config"
    before = config.stat()
    a.save("a later save", date="2026-01-02")
    gitsync.sync(a)
    after = config.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert git(a.path, "config", "merge.renames").strip() == "false"
    git(a.path, "config", "merge.renames", "true")  # changed by hand: set back
    gitsync.sync(a)
    assert git(a.path, "config", "merge.renames").strip() == "false"


# ---------------------------------------------------------------------- two machines
def _save_many(path: Path, prefix: str, n: int) -> subprocess.Popen[str]:
    code = ("import sys\nfrom ihmt import Memory\nm = Memory.open(sys.argv[1])\n"
            "for i in range(int(sys.argv[3])):\n"
            "    m.save(f'{sys.argv[2]} note {i}: the {sys.argv[2]} service uses port "
            "{8000 + i}', date='2026-01-%02d' % (1 + i % 28))\n")
    return subprocess.Popen([sys.executable, "-c", code, str(path), prefix, str(n)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_two_machines_converge_to_the_union(tmp_path: Path) -> None:
    remote = bare(tmp_path)
    a, b = machine(tmp_path, "a"), machine(tmp_path, "b")
    a.save("We chose Postgres for billing because we need transactions.", date="2025-12-01")
    gitsync.init(a, str(remote))
    gitsync.init(b, str(remote))
    assert leaves(a) == leaves(b)
    # concurrent saves: two processes on machine A, a thread on machine B meanwhile
    procs = [_save_many(a.path, "alpha", 12), _save_many(a.path, "beta", 12)]

    def on_b() -> None:
        for i in range(10):
            b.save(f"gamma note {i}: the gamma job runs at {i} am", date=f"2026-02-{i + 1:02d}")
    t = threading.Thread(target=on_b)
    t.start()
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    t.join()
    # facts said on each machine, in an order that is not their date order
    a.record_fact("user", "city", "Madrid", "2024-01-10")
    b.record_fact("user", "city", "Valencia", "2025-06-01")
    a.record_fact("user", "city", "Sevilla", "2026-03-01")
    b.record_fact("user", "job", "engineer", "2023-05-05")
    assert len(leaves(a)) == 25 and len(leaves(b)) == 11
    # every save was committed (what is left are derived parent stamps, see above)
    assert "??" not in git(a.path, "status", "--porcelain", "--", "layer_0")
    assert len(git(a.path, "ls-files", "layer_0").split()) == 25
    union = leaves(a) | leaves(b)

    ra = gitsync.sync(a)
    rb = gitsync.sync(b)
    ra2 = gitsync.sync(a)
    assert ra["pushed"] and rb["merged"] and rb["new_memories"] == 24
    assert ra2["fast_forward"] and ra2["new_memories"] == 10
    assert leaves(a) == leaves(b) == union
    assert clean(a) and clean(b)
    assert gitsync.status(a.path)["ahead"] == 0 == gitsync.status(b.path)["behind"]
    # the derived files were rebuilt: the same searches give the same answers
    for q in ("postgres billing", "alpha service port 8005", "gamma job", "beta note 3"):
        ha = [h.id for h in a.search(q, top_k=5).hits]
        hb = [h.id for h in b.search(q, top_k=5).hits]
        assert ha and ha == hb, q
    # the fact timeline is the union, ordered by date, the same on both machines
    fa = (a.path / "state/facts.jsonl").read_bytes()
    assert fa == (b.path / "state/facts.jsonl").read_bytes()
    dates = [json.loads(line)["date"] for line in fa.splitlines()]
    assert dates == sorted(dates)
    city = [(f.value, f.status) for f in a.facts("user") if f.attribute == "city"]
    assert city == [("Madrid", "HISTORICAL"), ("Valencia", "HISTORICAL"), ("Sevilla", "ACTIVE")]
    assert a.active_state()["user::city"].value == b.active_state()["user::city"].value
    assert a.state_at("2025-07-01")["user::city"].value == "Valencia"
    from ihmt.doctor import check_store

    assert check_store(a.path)["ok"] and check_store(b.path)["ok"]


def test_saves_during_a_sync_are_neither_lost_nor_left_behind(tmp_path: Path) -> None:
    remote = bare(tmp_path)
    a, b = machine(tmp_path, "a"), machine(tmp_path, "b")
    gitsync.init(a, str(remote))
    gitsync.init(b, str(remote))
    with a.bulk():
        for i in range(300):
            a.save(f"laptop import {i}: the delta cluster has {i} nodes", date="2026-01-01")
    gitsync.sync(a)
    writer = _save_many(b.path, "omega", 15)  # another process saves on B meanwhile
    rep = gitsync.sync(b)
    _, err = writer.communicate(timeout=120)
    assert writer.returncode == 0, err
    assert rep["new_memories"] == 300
    gitsync.sync(b)
    gitsync.sync(a)
    assert len(leaves(b)) == 315 and leaves(a) == leaves(b) and clean(a) and clean(b)
    for m in (a, b):
        assert Memory.open(m.path).stats()["leaves"] == 315
        assert m.search("omega note 14 port 8014", top_k=1).hits


def test_two_existing_memories_with_different_settings_join(tmp_path: Path) -> None:
    remote = bare(tmp_path)
    a = machine(tmp_path, "a", branch_factor=4)
    b = machine(tmp_path, "b", branch_factor=6)
    for i in range(5):
        a.save(f"laptop memory {i} about the kiwi garden", date="2026-01-01")
        b.save(f"workstation memory {i} about the lemon orchard", date="2026-01-02")
    gitsync.init(a, str(remote))
    rep = gitsync.init(b, str(remote))["sync"]  # unrelated histories, both with memories
    assert rep["merged"] and rep["new_memories"] == 5
    assert any(c.startswith("ihmt.config.json was changed on both machines")
               for c in rep["conflicts"])
    rep = gitsync.sync(a)
    assert rep["fast_forward"] and rep["new_memories"] == 5
    # one set of settings on both machines, applied at once in the running process too
    assert a.config.branch_factor == b.config.branch_factor == 6
    assert (a.path / "ihmt.config.json").read_bytes() == (b.path / "ihmt.config.json").read_bytes()
    assert leaves(a) == leaves(b) and len(leaves(a)) == 10 and clean(a) and clean(b)
    assert gitsync.sync(b)["merged"] is False


def test_the_same_memory_saved_on_both_machines_stays_one(tmp_path: Path) -> None:
    remote = bare(tmp_path)
    a, b = machine(tmp_path, "a"), machine(tmp_path, "b")
    gitsync.init(a, str(remote))
    gitsync.init(b, str(remote))
    ra = a.save("The backup runs nightly at 02:00.", date="2026-01-05", tags=["ops"])
    time.sleep(1.1)  # a later saved_at on B: the same file name, another header
    rb = b.save("The backup runs nightly at 02:00.", date="2026-01-05", tags=["backup"])
    assert ra.ids == rb.ids
    first = a.get(ra.ids[0]).saved_at
    assert b.get(rb.ids[0]).saved_at > first
    gitsync.sync(a)
    rep = gitsync.sync(b)
    gitsync.sync(a)
    assert rep["conflicts"] == []
    assert leaves(a) == leaves(b) == {ra.ids[0]}
    for m in (a, b):
        leaf = m.get(ra.ids[0])
        assert leaf.saved_at == first and set(leaf.tags) == {"ops", "backup"}
        assert m.stats()["leaves"] == 1


def _edit_text(m: Memory, leaf_id: str, text: str) -> None:
    p = m.store.leaf_path(leaf_id)
    raw = p.read_text(encoding="utf-8")
    head = raw[: raw.index("IHMT-META>>>\n") + len("IHMT-META>>>\n")]
    p.write_text(head + text, encoding="utf-8")


def test_a_conflicting_edit_of_one_leaf_is_kept_as_two_memories(tmp_path: Path) -> None:
    remote = bare(tmp_path)
    a, b = machine(tmp_path, "a"), machine(tmp_path, "b")
    rid = a.save("The office wifi password policy: rotate monthly.", date="2026-01-05").ids[0]
    gitsync.init(a, str(remote))
    gitsync.init(b, str(remote))
    _edit_text(a, rid, "The office wifi policy: rotate every quarter (edited on the laptop).")
    _edit_text(b, rid, "The office wifi policy: rotate weekly (edited on the workstation).")
    gitsync.sync(a)
    rep = gitsync.sync(b)
    gitsync.sync(a)
    assert len(rep["conflicts"]) == 1 and "kept both" in rep["conflicts"][0]
    assert rid in rep["conflicts"][0]
    for m in (a, b):
        assert len(leaves(m)) == 2
        assert {"The office wifi policy: rotate every quarter (edited on the laptop).",
                "The office wifi policy: rotate weekly (edited on the workstation)."} == texts(m)
        other = next(i for i in leaves(m) if i != rid)
        assert m.get(other).extra["conflict_of"] == rid
        assert m.search("wifi rotate every quarter laptop", top_k=3).hits
    assert leaves(a) == leaves(b) and clean(a) and clean(b)
    assert [h.id for h in a.search("wifi policy rotate", top_k=2).hits] == \
        [h.id for h in b.search("wifi policy rotate", top_k=2).hits]
    r = ihmt("sync", "--path", str(b.path))  # nothing new: no report of a conflict again
    assert r.returncode == 0 and "kept both" not in r.stdout


# ---------------------------------------------------------------------- interruptions
def test_a_sync_killed_mid_merge_recovers_on_the_next_run(tmp_path: Path) -> None:
    remote = bare(tmp_path)
    a, b = machine(tmp_path, "a"), machine(tmp_path, "b")
    gitsync.init(a, str(remote))
    gitsync.init(b, str(remote))
    for i in range(6):
        a.save(f"laptop memory {i} about the release train", date=f"2026-01-{i + 1:02d}")
    a.record_fact("release", "version", "1.4", "2026-01-20")
    gitsync.sync(a)
    b.save("workstation memory about the release train", date="2026-02-01")
    b.record_fact("release", "version", "1.3", "2026-01-10")
    # the sync process dies after writing two of the merged files
    r = ihmt("sync", "--path", str(b.path), env={"IHMT_SYNC_CRASH_AFTER": "2"})
    assert r.returncode == 137, r.stderr
    assert (b.path / gitsync.MARKER).exists()
    st = ihmt("sync", "--status", "--json", "--path", str(b.path))
    assert json.loads(st.stdout)["interrupted"] is True
    # the memory keeps working meanwhile, and saves made now are not lost either
    late = b.save("saved after the crash, before the next sync", date="2026-02-02").ids[0]
    r = ihmt("sync", "--json", "--path", str(b.path))
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert any("interrupted" in n for n in rep["recovered"]) and rep["pushed"]
    assert not (b.path / gitsync.MARKER).exists() and clean(b)
    gitsync.sync(a)
    assert leaves(a) == leaves(b) and len(leaves(b)) == 8 and late in leaves(a)
    b2 = Memory.open(b.path)
    assert b2.stats()["leaves"] == 8
    hist = [(f.value, f.date) for f in b2.facts("release")]
    assert hist == [("1.3", "2026-01-10"), ("1.4", "2026-01-20")]


def test_a_leftover_git_merge_is_finished_without_loss(tmp_path: Path) -> None:
    remote = bare(tmp_path)
    a, b = machine(tmp_path, "a"), machine(tmp_path, "b")
    rid = a.save("The coffee machine is on the second floor.", date="2026-01-01").ids[0]
    gitsync.init(a, str(remote))
    gitsync.init(b, str(remote))
    a.record_fact("user", "phone", "Pixel", "2026-01-01")
    ida = a.save("laptop only memory about tea", date="2026-01-02").ids[0]
    _edit_text(a, rid, "The coffee machine moved to the third floor.")
    gitsync.sync(a)
    b.record_fact("user", "phone", "iPhone", "2026-02-01")
    idb = b.save("workstation only memory about cocoa", date="2026-01-03").ids[0]
    _edit_text(b, rid, "The coffee machine is broken.")
    gitsync.commit_all(b.path, "edited by hand")
    # someone ran plain git in the folder: it stops on the leaf both sides edited
    git(b.path, "fetch", "-q", "origin")
    cp = subprocess.run(["git", "-C", str(b.path), "merge", "--no-edit", "origin/main"],
                        capture_output=True, text=True)
    assert cp.returncode != 0 and (b.path / ".git" / "MERGE_HEAD").exists()
    assert "<<<<<<<" in b.store.leaf_path(rid).read_text()
    lock = b.path / ".git" / "index.lock"
    lock.write_text("")  # and a git process died a minute ago
    os.utime(lock, (time.time() - 60, time.time() - 60))
    late = b.save("saved while the merge was left half done", date="2026-01-04").ids[0]
    r = ihmt("sync", "--path", str(b.path))
    assert r.returncode == 0, r.stderr
    assert "interrupted" in r.stdout and "kept both" in r.stdout
    assert not (b.path / ".git" / "MERGE_HEAD").exists() and clean(b)
    gitsync.sync(a)
    assert {rid, ida, idb, late} <= leaves(a) and leaves(a) == leaves(b)
    assert len(leaves(a)) == 5
    assert {"The coffee machine moved to the third floor.",
            "The coffee machine is broken."} <= texts(a)
    assert not any("<<<<<<<" in t for t in texts(b))
    data = (b.path / "state/facts.jsonl").read_text()
    assert "<<<<<<<" not in data and "Pixel" in data and "iPhone" in data
    assert Memory.open(b.path).active_state()["user::phone"].value == "iPhone"


# ---------------------------------------------------------------------- bad input
def test_clear_errors(tmp_path: Path) -> None:
    a = machine(tmp_path, "a")
    with pytest.raises(SyncError, match="not under git yet"):
        gitsync.sync(a)
    with pytest.raises(SyncError, match="not under git yet"):
        gitsync.history(a.path)
    assert gitsync.status(a.path) == {"enabled": False, "path": str(a.path)}
    gitsync.init(a)
    with pytest.raises(SyncError, match="no remote configured"):
        gitsync.sync(a)
    with pytest.raises(SyncError, match="no remote named 'elsewhere'"):
        gitsync.sync(a, "elsewhere")
    with pytest.raises(SyncError, match="not a remote"):
        gitsync.init(a, "--upload-pack=touch /tmp/x")
    with pytest.raises(SyncError, match="cannot reach remote 'origin'"):
        gitsync.init(a, str(tmp_path / "no-such-remote.git"))
    assert gitsync.status(a.path)["remote"] == "origin"  # registered, for when it is back
    a.save("this one stays committed locally", date="2026-01-01")
    with pytest.raises(SyncError, match="cannot reach remote 'origin'"):
        gitsync.sync(a)
    assert clean(a)


def test_cli_sync_history_and_errors_as_subprocesses(tmp_path: Path) -> None:
    remote = bare(tmp_path)
    pa, pb = str(tmp_path / "a"), str(tmp_path / "b")
    r = ihmt("sync", "--path", pa)
    assert r.returncode == 2 and "no memory at" in r.stderr
    assert ihmt("init", "--path", pa).returncode == 0
    r = ihmt("sync", "--path", pa)
    assert r.returncode == 2 and "not under git yet: run 'ihmt sync init'" in r.stderr
    r = ihmt("history", "--path", pa)
    assert r.returncode == 2 and "not under git yet" in r.stderr
    r = ihmt("sync", "--status", "--path", pa)
    assert r.returncode == 0 and "sync    off" in r.stdout
    afile = tmp_path / "a-file"
    afile.write_text("x")
    r = ihmt("sync", "init", "--path", str(afile))
    assert r.returncode == 2 and "ihmt:" in r.stderr and "Traceback" not in r.stderr
    r = ihmt("sync", "init", "--remote", str(remote), "--path", pa)
    assert r.returncode == 0, r.stderr
    assert "under git (new repository" in r.stdout and "pushed" in r.stdout
    assert ihmt("save", "Deploys happen on Fridays at 5pm.", "--date", "2026-01-09",
                "--path", pa).returncode == 0
    r = ihmt("history", "--path", pa)
    assert r.returncode == 0 and "save: L-general-" in r.stdout and "Deploys happen" in r.stdout
    r = ihmt("history", "--json", "--since", "2000-01-01", "--path", pa)
    rows = json.loads(r.stdout)["commits"]
    assert len(rows) >= 2 and rows[0]["subject"].startswith("save: ")
    r = ihmt("history", "--since", "yesterday-ish", "--path", pa)
    assert r.returncode == 2 and "invalid date" in r.stderr
    r = ihmt("sync", "--remote", "nope", "--path", pa)
    assert r.returncode == 2 and "no remote named 'nope'" in r.stderr
    r = ihmt("sync", "--json", "--path", pa)
    assert r.returncode == 0 and json.loads(r.stdout)["pushed"] is True
    r = ihmt("sync", "init", "--remote", str(remote), "--path", pb)  # the second machine
    assert r.returncode == 0, r.stderr
    assert "1 new memory," in r.stdout
    r = ihmt("search", "when do deploys happen", "--json", "--path", pb)
    assert "Fridays" in r.stdout
    r = ihmt("sync", "--status", "--json", "--path", pb)
    st = json.loads(r.stdout)
    assert st["ahead"] == 0 and st["behind"] == 0 and st["remote"] == "origin"
    assert st["last_sync"]["pushed"] is True
    r = ihmt("doctor", "--no-server", "--path", pb)
    assert "remote  origin" in r.stdout and "0 ahead / 0 behind" in r.stdout
    nogit = {"PATH": str(tmp_path / "empty-bin")}
    r = ihmt("sync", "--path", pa, env=nogit)
    assert r.returncode == 2 and "git is not installed" in r.stderr
    r = ihmt("save", "saving still works without git", "--path", pa, env=nogit)
    assert r.returncode == 0


@pytest.mark.heavy
def test_syncs_killed_at_random_moments_lose_nothing(tmp_path: Path) -> None:
    """Real SIGKILLs at random points of a sync (fetch, merge, file writes, rebuild, push)."""
    import random
    import signal

    remote = bare(tmp_path)
    a, b = machine(tmp_path, "a"), machine(tmp_path, "b")
    gitsync.init(a, str(remote))
    gitsync.init(b, str(remote))
    with a.bulk():
        for i in range(800):
            a.save(f"laptop import {i}: the sigma cluster has {i} nodes", date="2026-01-01")
    a.record_fact("cluster", "size", "800", "2026-01-01")
    gitsync.sync(a)
    for i in range(5):
        b.save(f"workstation note {i} about the tau queue", date="2026-01-02")
    b.record_fact("cluster", "size", "5", "2025-12-01")
    template = tmp_path / "b-template"
    shutil.copytree(b.path, template, symlinks=True)
    want = leaves(a) | leaves(b)

    def fresh_copy(name: str) -> Path:
        """Machine B and the remote as they were before any trial."""
        work = tmp_path / name / "ihmt_memory"
        shutil.copytree(template, work, symlinks=True)
        shutil.copytree(remote, tmp_path / name / "remote.git", symlinks=True)
        git(work, "remote", "set-url", "origin", str(tmp_path / name / "remote.git"))
        return work

    probe = fresh_copy("probe")
    start = time.monotonic()
    assert ihmt("sync", "--path", str(probe)).returncode == 0
    took = time.monotonic() - start  # kills land anywhere within a whole sync
    rnd = random.Random(3)
    killed = 0
    for trial in range(6):
        work = fresh_copy(f"b{trial}")
        proc = subprocess.Popen([sys.executable, "-m", "ihmt.faces.cli", "sync", "--path",
                                 str(work)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rnd.uniform(0.2, 0.9) * took)
        proc.send_signal(signal.SIGKILL)
        killed += proc.wait(timeout=60) == -signal.SIGKILL
        r = ihmt("sync", "--path", str(work))
        assert r.returncode == 0, (trial, r.stderr)
        m = Memory.open(work)
        assert leaves(m) == want, trial
        assert m.stats()["leaves"] == len(want)
        assert clean(m) and not (work / gitsync.MARKER).exists()
        assert [f.value for f in m.facts("cluster")] == ["5", "800"]
        assert m.search("sigma cluster 799 nodes", top_k=1).hits
    assert killed >= 3  # most trials really died half way


def test_memories_a_sync_brings_get_their_vectors_on_this_machine(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ihmt.semantic import missing_packages

    if missing_packages():
        pytest.skip("ihmt[semantic] not installed")
    monkeypatch.setenv("IHMT_SEMANTIC", "auto")
    remote = bare(tmp_path)
    a, b = machine(tmp_path, "a"), machine(tmp_path, "b")
    a.save("I adopted a small grey cat called Miso in March.")
    a.save("The CI pipeline runs on GitHub Actions with a matrix of Python versions.")
    gitsync.init(a, str(remote))
    gitsync.init(b, str(remote))  # B receives A's memories, not its vector files
    a.save("My sister Ana works as a nurse in Madrid.")
    gitsync.sync(a)
    gitsync.sync(b)
    assert leaves(a) == leaves(b)
    assert b.semantic.deferred.idle(timeout=120)
    health = b.semantic.health(dict.fromkeys(leaves(b), ""))
    assert health["missing"] == 0 and health["vectors"] == 3
    assert "cat called Miso" in b.search("what pet do I have", top_k=3).hits[0].text
    assert "nurse" in b.search("which relative is in healthcare", top_k=3).hits[0].text
    assert clean(b)  # vectors are derived and local: nothing for git to track
