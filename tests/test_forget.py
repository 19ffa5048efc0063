"""Forgetting: a memory removed from every file of the store (issue 19, Forget)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ihmt import Memory
from ihmt.errors import InputError, NotFoundError
from ihmt.semantic import missing_packages

from .conftest import leaf_files, reachable

MARKER = "zorblatquix"  # a word no other memory holds


@pytest.fixture(autouse=True)
def fresh_git(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A machine where git has no user configuration at all (as in CI)."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for var in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "EMAIL"):
        monkeypatch.delenv(var, raising=False)


def holders(folder: Path, needle: str = MARKER) -> list[str]:
    """Files under the memory folder (git's own folder aside) whose bytes hold ``needle``."""
    out = []
    for p in folder.rglob("*"):
        if ".git" in p.relative_to(folder).parts or not p.is_file():
            continue
        if needle.encode() in p.read_bytes():
            out.append(str(p.relative_to(folder)))
    return out


def filled(path: Path, n: int = 300, **config: object) -> tuple[Memory, dict[int, str]]:
    """A store whose memories sit deep in the tree (bulk, branch factor 4): memory ``i``
    holds the unique word ``tokNNN``; memory 137 (37 in a store under 138) also holds
    MARKER."""
    m = Memory.open(path, create=True, config={"branch_factor": 4, **config})
    ids: dict[int, str] = {}
    with m.bulk():
        for i in range(n):
            extra = f" the {MARKER} gateway" if i == (137 if n > 137 else 37) else ""
            ids[i] = m.save(f"note tok{i:03d} about subject{i % 17} and area{i % 5}{extra}",
                            date=f"2025-{1 + i % 12:02d}-{1 + i % 27:02d}").ids[0]
    return m, ids


def test_forget_removes_the_memory_from_every_file_and_keeps_the_tree_whole(tmp_path):
    m, ids = filled(tmp_path / "s")
    target = ids[137]
    assert m.search(MARKER).best.id == target
    assert m.get(target).parent is not None  # deep in the tree, not at the trunk
    assert holders(m.path)  # the leaf, its parent's excerpt and terms, ...
    rep = m.forget(target)
    assert rep.ids == [target] and MARKER in rep.excerpts[target] and not rep.rebuilt
    assert holders(m.path) == []
    assert target not in leaf_files(m) and target not in reachable(m)
    assert target not in m.store.catalog()
    res = m.search(MARKER)
    assert res.status == "NOT_FOUND" and all(h.id != target for h in res.hits)
    assert MARKER not in str(m.tree())
    assert m.stats()["leaves"] == 299
    # Every other memory is still found first by its own word: the rewritten branches
    # route exactly as before.
    for i in range(0, 300, 7):
        if i != 137:
            assert m.search(f"tok{i:03d}").best.id == ids[i], i
    # A rebuild from the leaves agrees.
    m.rebuild()
    assert m.stats()["leaves"] == 299 and holders(m.path) == []


def test_other_processes_stop_serving_it(tmp_path):
    m, ids = filled(tmp_path / "s", n=120)
    other = Memory.open(m.path)
    assert other.search(MARKER).best.id == ids[37]  # its branches are now cached
    m.forget(ids[37])
    res = other.search(MARKER)
    assert all(h.id != ids[37] for h in res.hits) and res.status == "NOT_FOUND"
    cli = subprocess.run([sys.executable, "-m", "ihmt.faces.cli", "--path", str(m.path),
                          "search", "gateway"], capture_output=True, text=True, timeout=120)
    assert cli.returncode == 0 and ids[37] not in cli.stdout and MARKER not in cli.stdout


def test_forgetting_several_at_once_and_the_last_of_a_branch(tmp_path):
    m, ids = filled(tmp_path / "s", n=40)
    gone = [ids[i] for i in range(8)]  # whole branches of four empty out
    m.forget(gone)
    assert m.stats()["leaves"] == 32 and not set(gone) & set(reachable(m))
    for i in range(8, 40):
        assert m.search(f"tok{i:03d}").best.id == ids[i]
    assert not any(g.encode() in p.read_bytes() for p in (m.path / "layers").rglob("*")
                   if p.is_file() for g in gone)
    from ihmt.doctor import check_store

    report = check_store(m.path)
    assert not report.get("problems"), report.get("problems")


def test_after_many_forgets_search_ranks_exactly_as_a_rebuilt_tree(tmp_path):
    import random

    m, ids = filled(tmp_path / "s", n=300)
    rng = random.Random(5)
    gone = rng.sample(sorted(ids), 40)
    for i in gone[:25]:
        m.forget(ids[i])  # one by one
    m.forget([ids[i] for i in gone[25:]])  # and several at once
    queries = [f"subject{a} area{b}" for a in range(17) for b in range(5)][:60]
    queries += [f"note tok{i:03d}" for i in range(0, 300, 11)]

    def ranked() -> list[list[tuple[str, float]]]:
        return [[(h.id, round(h.score, 6)) for h in m.search(q, top_k=5).hits] for q in queries]

    def tiers(rows: list[list[tuple[str, float]]]) -> list[tuple[list[float], set[str]]]:
        """Scores in order, and the ids above the last score (ties at the cut-off may
        differ with the tree's order)."""
        return [([sc for _, sc in r], {i for i, sc in r if sc > r[-1][1]}) if r else ([], set())
                for r in rows]

    before = ranked()
    assert all(ids[i] not in {h for r in before for h, _ in r} for i in gone)
    m.rebuild()
    assert tiers(ranked()) == tiers(before)


def test_a_forgotten_fact_neither_answers_nor_supersedes(mem):
    old = mem.save("I live in Madrid", date="2024-01-10").ids[0]
    new = mem.save("I moved to Valencia", date="2025-06-01",
                   states="user :: location = Valencia").ids[0]
    assert mem.active_state()["user::location"].value == "Valencia"
    rep = mem.forget(new)
    assert rep.facts_removed >= 1
    assert mem.active_state()["user::location"].value == "Madrid"
    assert all("Valencia" not in f.value for f in mem.facts("user"))
    hit = mem.search("where do I live").best
    assert hit.id == old and not hit.outdated
    assert holders(mem.path, "Valencia") == []


def test_replaces_link_is_undone(mem):
    old = mem.save("The staging database is on port 5433", date="2025-01-01").ids[0]
    new = mem.save("The staging database moved to port 6543", date="2025-03-01",
                   replaces="staging database port").ids[0]
    assert mem.get(old).extra.get("superseded_by") == new
    rep = mem.forget([new])
    assert rep.current_again == [old]
    assert "superseded_by" not in mem.get(old).extra
    best = mem.search("staging database port").best
    assert best.id == old and not best.outdated
    mem.rebuild()  # the header and the timeline agree: nothing brings the link back
    assert not mem.search("staging database port").best.outdated


def test_a_fact_recorded_directly_about_it_goes_too(mem):
    leaf = mem.save("Meeting notes about the quarterly plan", date="2025-02-02").ids[0]
    mem.record_fact("team", "plan", "Q3 launch", "2025-02-02", source=leaf)
    mem.record_fact("team", "budget", "small", "2025-02-02")
    mem.forget(leaf)
    assert [f.attribute for f in mem.facts("team")] == ["budget"]
    assert "Q3 launch" not in (mem.path / "state" / "facts.primary.jsonl").read_text()
    mem.rebuild()
    assert [f.attribute for f in mem.facts("team")] == ["budget"]


def test_bad_ids_lose_nothing(mem):
    a = mem.save("alpha memory", date="2025-01-01").ids[0]
    with pytest.raises(NotFoundError):
        mem.forget([a, "L-general-000000000000"])
    assert mem.get(a).text == "alpha memory"  # nothing removed: all ids or none
    for bad in ([], [""], ["../etc/passwd"], "N1-general-abc", [3]):
        with pytest.raises(InputError):
            mem.forget(bad)
    assert mem.stats()["leaves"] == 1


def test_forgotten_memory_can_be_saved_again(mem):
    a = mem.save("a memory that comes back", date="2025-01-01").ids[0]
    mem.forget(a)
    assert mem.save("a memory that comes back", date="2025-01-01").ids[0] == a
    assert mem.search("memory that comes back").best.id == a


CRASH = """
import os, sys
from ihmt import Memory
import ihmt.forgetting as fg
step = sys.argv[2]
real = getattr(fg.Forgetter, step)
def dying(self, *a, **k):
    out = real(self, *a, **k)
    os._exit(137)
setattr(fg.Forgetter, step, dying)
m = Memory.open(sys.argv[1])
m.forget(sys.argv[3])
"""


@pytest.mark.parametrize("step", ["_clean_timeline", "_leaf"])
def test_a_killed_forget_leaves_it_fully_gone_or_fully_there(tmp_path, step):
    m, ids = filled(tmp_path / "s", n=60)
    m.close()
    target = ids[37]
    script = tmp_path / "crash.py"
    script.write_text(CRASH)
    cp = subprocess.run([sys.executable, str(script), str(m.path), step, target],
                        capture_output=True, text=True, timeout=120)
    assert cp.returncode == 137, cp.stderr
    again = Memory.open(m.path)
    word = "tok037"
    if step == "_leaf":  # died before anything was removed (the first leaf read)
        assert again.search(word).best.id == target
        assert again.stats()["leaves"] == 60
    else:  # died half way: the next open finished the forget
        assert target not in leaf_files(again)
        assert again.search(word).status == "NOT_FOUND"
        assert holders(again.path, word) == []
        assert not (again.path / "state" / "forgetting.json").exists()
        assert again.stats()["leaves"] == 59
    for i in (0, 10, 59):
        assert again.search(f"tok{i:03d}").best.id == ids[i]


KILL_MID_TREE = """
import os, sys
from ihmt import Memory
from ihmt.store.branches import BranchFiles
real = BranchFiles.write_branch_file
written = []
def dying(self, *a, **k):
    out = real(self, *a, **k)
    written.append(a[0])
    if len(written) == 2:  # the leaf's parent and one branch above it are rewritten
        os._exit(137)
    return out
BranchFiles.write_branch_file = dying
m = Memory.open(sys.argv[1])
m.forget(sys.argv[2])
"""


def test_a_forget_killed_between_two_branch_files_is_finished(tmp_path):
    m, ids = filled(tmp_path / "s", n=200)
    m.close()
    target = ids[137]
    script = tmp_path / "kill.py"
    script.write_text(KILL_MID_TREE)
    cp = subprocess.run([sys.executable, str(script), str(m.path), target],
                        capture_output=True, text=True, timeout=120)
    assert cp.returncode == 137, cp.stderr
    assert (m.path / "state" / "forgetting.json").exists()  # it died half way
    again = Memory.open(m.path)
    assert again.search(MARKER).status == "NOT_FOUND"
    assert holders(again.path) == [] and target not in leaf_files(again)
    assert again.stats()["leaves"] == 199 and not (again.path / "state" /
                                                   "forgetting.json").exists()
    for i in (0, 50, 199):
        assert again.search(f"tok{i:03d}").best.id == ids[i]


needs_extra = pytest.mark.skipif(bool(missing_packages()), reason="ihmt[semantic] not installed")


@needs_extra
def test_vectors_are_erased(tmp_path, monkeypatch):
    monkeypatch.setenv("IHMT_SEMANTIC", "auto")
    m = Memory.open(tmp_path / "s", create=True, config={"branch_factor": 4})
    ids = [m.save(t, date="2025-01-01").ids[0] for t in (
        "My sister Ana works as a nurse in Madrid.",
        "I adopted a small grey cat called Miso in March.",
        "The frontend uses React with TypeScript.")]
    m.semantic.wait()
    other = Memory.open(m.path)
    assert other.search("what pet do I have").best.id == ids[1]
    vec = next(p for p in (m.path / "state" / "vectors").glob("*.vec")
               if ids[1].encode() in p.read_bytes())
    before = vec.read_bytes()
    m.forget(ids[1])
    assert not m.semantic.vectors.has(ids[1])
    # its records are zeroed in place: the bytes of its vector are nowhere in the file
    after = vec.read_bytes()
    assert len(after) > len(before)  # + the tombstone other processes read
    rec_start = before.index(ids[1].encode())
    body = before[rec_start + 84: rec_start + 84 + 768]
    assert body not in after
    res = other.search("what pet do I have")
    assert all(h.id != ids[1] for h in res.hits)
    assert not other.semantic.vectors.has(ids[1])


# ---------------------------------------------------------------------- the CLI
def ihmt(*args: str, input: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ihmt.faces.cli", *args], input=input,
                          capture_output=True, text=True, timeout=180)


def test_cli_forget_asks_lists_and_removes(tmp_path):
    path = str(tmp_path / "s")
    ihmt("--path", path, "init")
    ihmt("--path", path, "save", f"the {MARKER} gateway listens on port 9911",
         "--date", "2025-01-01")
    ihmt("--path", path, "save", "coffee is on the third floor", "--date", "2025-01-02")
    found = ihmt("--path", path, "--json", "forget", "--query", "gateway port")
    assert found.returncode == 0
    cands = __import__("json").loads(found.stdout)["candidates"]
    assert MARKER in cands[0]["text"]
    leaf_id = cands[0]["id"]
    listed = ihmt("--path", path, "forget", "--query", "gateway port")
    assert "nothing removed yet" in listed.stdout and leaf_id in listed.stdout
    refused = ihmt("--path", path, "forget", leaf_id)  # not a terminal, no --yes
    assert refused.returncode == 2 and "--yes" in refused.stderr
    missing = ihmt("--path", path, "forget", leaf_id, "L-general-000000000000", "--yes")
    assert missing.returncode == 2 and "nothing was removed" in missing.stderr
    assert leaf_id in ihmt("--path", path, "search", "--full", "gateway").stdout
    done = ihmt("--path", path, "forget", leaf_id, "--yes")
    assert done.returncode == 0 and done.stdout.startswith("forgot 1 memory: ")
    assert holders(tmp_path / "s") == []
    assert ihmt("--path", path, "search", "gateway").stdout.startswith("NOT FOUND")
    assert "coffee" in ihmt("--path", path, "search", "coffee").stdout
    helped = ihmt("forget", "--help")
    assert helped.returncode == 0 and "--purge-history" in helped.stdout


# ---------------------------------------------------------------------- git sync
def test_a_forget_travels_with_sync_and_is_not_brought_back(tmp_path):
    from ihmt.sync import gitsync

    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    a = Memory.open(tmp_path / "a" / "ihmt_memory", create=True, config={"branch_factor": 4})
    b = Memory.open(tmp_path / "b" / "ihmt_memory", create=True, config={"branch_factor": 4})
    gitsync.init(a, str(remote))
    x = a.save(f"the {MARKER} gateway listens on port 9911", date="2025-01-01",
               states="gateway :: port = 9911").ids[0]
    keep = a.save("coffee is on the third floor", date="2025-01-02").ids[0]
    gitsync.sync(a)
    gitsync.init(b, str(remote))
    assert b.search(MARKER).best.id == x and "9911" in str(b.facts("gateway"))
    a.forget(x)
    log = subprocess.run(["git", "-C", str(a.path), "log", "-1", "--stat", "--format=%s"],
                         capture_output=True, text=True).stdout
    assert log.startswith(f"forget: {x}") and "deletion" in log and MARKER not in log
    gitsync.sync(a)
    b.save("tea is in the kitchen", date="2025-01-03")  # b moved on meanwhile
    rep = gitsync.sync(b)
    assert rep["merged"]
    assert x not in {p.stem for p in b.store.iter_leaf_paths()}
    assert b.search(MARKER).status == "NOT_FOUND" and b.facts("gateway") == []
    assert holders(b.path) == [] and b.search("coffee floor").best.id == keep
    gitsync.sync(a)  # and back: a's next sync does not bring it back either
    gitsync.sync(b)
    for m in (a, b):
        assert x not in {p.stem for p in m.store.iter_leaf_paths()} and holders(m.path) == []
    # and the other way round: b forgets a memory that a still has
    b.forget(keep)
    gitsync.sync(b)
    gitsync.sync(a)
    assert keep not in {p.stem for p in a.store.iter_leaf_paths()}


def test_purge_history_removes_the_text_from_every_commit(tmp_path):
    from ihmt.sync import gitsync

    path = tmp_path / "s" / "ihmt_memory"
    m = Memory.open(path, create=True)
    gitsync.init(m)
    x = m.save(f"the {MARKER} gateway listens on port 9911", date="2025-01-01",
               states="gateway :: port = 9911").ids[0]
    m.save("coffee is on the third floor", date="2025-01-02")
    m.close()

    def in_history() -> int:
        return subprocess.run(["git", "-C", str(path), "log", "--all", "-p"],
                              capture_output=True, text=True).stdout.count(MARKER)

    cp = ihmt("--path", str(path), "forget", x, "--yes")
    assert "git history still holds them" in cp.stdout and in_history() > 0
    cp = ihmt("--path", str(path), "forget", x, "--purge-history", "--yes")
    assert cp.returncode == 0 and "git history rewritten without 1 memory" in cp.stdout
    assert in_history() == 0
    objects = subprocess.run(["git", "-C", str(path), "rev-list", "--all", "--objects"],
                             capture_output=True, text=True).stdout.split()
    blobs = subprocess.run(["git", "-C", str(path), "cat-file", "--batch"],
                           input="\n".join(o for o in objects if len(o) == 40) + "\n",
                           capture_output=True, text=True, errors="replace").stdout
    assert MARKER not in blobs and "9911" not in blobs
    status = subprocess.run(["git", "-C", str(path), "status", "--porcelain"],
                            capture_output=True, text=True).stdout
    assert status == ""
    assert Memory.open(path).search("coffee").best is not None


def test_forgetting_a_project_memory_keeps_the_scope_counts_true(tmp_path):
    m = Memory.open(tmp_path / "s", create=True, config={"branch_factor": 4})
    a = m.save("we use pnpm in this repo", scope="github.com/acme/shop").ids[0]
    m.save("we use yarn in this repo", scope="github.com/acme/shop")
    m.save("I prefer tabs", scope="global")
    assert m.scopes() == {"global": 1, "github.com/acme/shop": 2}
    m.forget(a)
    assert m.scopes() == {"global": 1, "github.com/acme/shop": 1}
    m.rebuild()
    assert m.scopes() == {"global": 1, "github.com/acme/shop": 1}
