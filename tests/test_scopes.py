"""Scopes in the library: project ids from real git repositories, saves filed to a scope,
searches ranked and filtered by it, moves, counts, old stores and rebuilds."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from ihmt import Memory
from ihmt.errors import InputError, NotFoundError
from ihmt.scope import GLOBAL, default_scope, normalise_remote, project_of
from ihmt.search.descent import ScopeFilter, descend
from ihmt.tree.refile import MOVES, entry_scope

PNPM = "we use pnpm in this repo"
NPM = "we use npm in this repo"
TABS = "I prefer tabs"
QUESTION = "Which package manager do we use?"


def git_repo(path: Path, remote: str | None = None) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    if remote:
        subprocess.run(["git", "-C", str(path), "remote", "add", "origin", remote], check=True)
    return path


# ---------------------------------------------------------------------- project ids
@pytest.mark.parametrize("url", [
    "git@github.com:Owner/Repo.git",
    "https://github.com/owner/repo",
    "https://github.com/owner/repo.git/",
    "ssh://git@github.com:22/Owner/Repo.git",
    "https://someone:s3cret@GitHub.com/owner/repo",
    "git://github.com/owner/repo.git",
])
def test_remote_urls_of_one_repository_normalise_alike(url: str) -> None:
    assert normalise_remote(url) == "github.com/owner/repo"


def test_a_nested_group_and_a_local_remote_keep_their_path(tmp_path: Path) -> None:
    assert normalise_remote("git@gitlab.com:Team/Sub/App.git") == "gitlab.com/team/sub/app"
    assert normalise_remote(str(tmp_path / "srv" / "app.git")) == str(tmp_path / "srv" / "app")
    assert normalise_remote("../app.git", tmp_path / "work") == str(tmp_path / "app")
    assert normalise_remote("file://" + str(tmp_path / "app.git")) == str(tmp_path / "app")
    assert normalise_remote("") is None


def test_project_of_real_repositories(tmp_path: Path) -> None:
    ssh = git_repo(tmp_path / "one", "git@github.com:Acme/Shop.git")
    https = git_repo(tmp_path / "two", "https://github.com/acme/shop")
    (ssh / "src" / "deep").mkdir(parents=True)
    assert project_of(ssh) == project_of(https) == "github.com/acme/shop"  # two clones
    assert project_of(ssh / "src" / "deep") == "github.com/acme/shop"
    bare = git_repo(tmp_path / "bare")
    assert project_of(bare / ".") == str(bare.resolve())  # no remote: its top-level folder
    outside = tmp_path / "plain"
    outside.mkdir()
    assert project_of(outside) is None
    with pytest.raises(InputError, match="does not exist"):
        project_of(tmp_path / "missing")


def test_outside_every_repository_git_is_not_started(tmp_path: Path, monkeypatch) -> None:
    calls: list[list[str]] = []
    real = subprocess.run

    def spy(args, *a, **k):  # noqa: ANN001, ANN002, ANN003
        calls.append(list(args))
        return real(args, *a, **k)

    monkeypatch.setattr(subprocess, "run", spy)
    monkeypatch.delenv("GIT_DIR", raising=False)
    monkeypatch.delenv("GIT_WORK_TREE", raising=False)
    outside = tmp_path / "plain" / "deep"
    outside.mkdir(parents=True)
    assert project_of(outside) is None
    assert calls == []  # no .git from here up: nothing to ask
    repo = git_repo(tmp_path / "repo", "git@github.com:Acme/Shop.git")
    (repo / "sub").mkdir()
    calls.clear()
    assert project_of(repo / "sub") == "github.com/acme/shop"
    assert calls and calls[0][0] == "git"
    # A worktree or submodule has a .git *file*: git is asked as well.
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / ".git").write_text(f"gitdir: {repo / '.git'}\n")
    calls.clear()
    project_of(linked)
    assert calls
    # GIT_DIR names a repository from anywhere: git is asked.
    monkeypatch.setenv("GIT_DIR", str(repo / ".git"))
    calls.clear()
    project_of(outside)
    assert calls


def test_two_local_clones_of_one_repository_share_a_scope(tmp_path: Path) -> None:
    origin = git_repo(tmp_path / "origin")
    subprocess.run(["git", "-C", str(origin), "commit", "-q", "--allow-empty", "-m", "x"],
                   check=True, env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
                                    "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
                                    "PATH": "/usr/bin:/bin"})
    for name in ("c1", "c2"):
        subprocess.run(["git", "clone", "-q", str(origin), str(tmp_path / name)], check=True)
    assert project_of(tmp_path / "c1") == project_of(tmp_path / "c2") == str(origin.resolve())


# ---------------------------------------------------------------------- saving
def test_save_files_to_the_scope_asked_and_records_it_in_the_header(tmp_path: Path) -> None:
    with Memory.open(tmp_path / "m", create=True, project="github.com/acme/a") as m:
        here = m.save("The API listens on port 8080.", scope="project")
        there = m.save("The API listens on port 9090.", scope="github.com/acme/b")
        mine = m.save("My name is Ana.", scope="global")
        assert (here.scope, there.scope, mine.scope) == (
            "github.com/acme/a", "github.com/acme/b", GLOBAL)
        assert m.get(here.ids[0]).extra["scope"] == "github.com/acme/a"
        assert "scope" not in m.get(mine.ids[0]).extra  # global: no key, as old leaves
        raw = m.store.leaf_path(there.ids[0]).read_text()
        assert '"scope": "github.com/acme/b"' in raw
        with pytest.raises(InputError, match="scope must be"):
            m.save("x y z", scope="  ")
    with Memory.open(tmp_path / "m") as m:  # no project
        with pytest.raises(InputError, match="needs a project"):
            m.save("The API listens on port 7070.", scope="project")
        assert m.save("The API listens on port 7070.").scope == GLOBAL


def test_the_same_text_in_two_projects_is_two_memories(tmp_path: Path) -> None:
    with Memory.open(tmp_path / "m", create=True) as m:
        a = m.save("Run the tests with make check.", scope="github.com/acme/a")
        b = m.save("Run the tests with make check.", scope="github.com/acme/b")
        assert a.ids != b.ids and b.new == 1
        again = m.save("Run the tests with make check.", scope="github.com/acme/a")
        assert again.duplicates == 1


def test_default_scope_by_content() -> None:
    p = "github.com/acme/a"
    assert default_scope("I prefer tabs over spaces", "GENERIC", p) == GLOBAL
    assert default_scope("we use pnpm in this repo", "GENERIC", p) == p
    assert default_scope("def f():\n    return 1\n", "CODE", p) == p
    assert default_scope("we use pnpm in this repo", "GENERIC", None) == GLOBAL


# ---------------------------------------------------------------------- the example
def test_each_repository_gets_its_own_answer_and_global_ones_everywhere(tmp_path: Path) -> None:
    a = project_of(git_repo(tmp_path / "a", "git@github.com:acme/a.git"))
    b = project_of(git_repo(tmp_path / "b"))
    store = tmp_path / "m"
    with Memory.open(store, create=True, project=a) as m:
        assert m.save(PNPM).scope == a
    with Memory.open(store, project=b) as m:
        assert m.save(NPM).scope == b
    with Memory.open(store) as m:
        assert m.save(TABS).scope == GLOBAL
    for project, answer in ((a, PNPM), (b, NPM)):
        with Memory.open(store, project=project) as m:
            res = m.search(QUESTION)
            assert res.status == "FOUND" and res.best.text == answer
            assert [h.text for h in res.hits] == [answer]  # the other project stays out
            assert not res.best.foreign
            assert m.search("tabs").best.text == TABS
            assert m.search("do I prefer tabs or spaces").best.scope == GLOBAL


def test_filters(tmp_path: Path) -> None:
    with Memory.open(tmp_path / "m", create=True, project="p/a") as m:
        m.save(PNPM, scope="project")
        m.save(NPM, scope="p/b")
        m.save("we use yarn in every repo I own", scope="global")
        texts = {s: {h.text for h in m.search("we use", scope=s).hits}
                 for s in ("auto", "project", "global", "all")}
        assert texts["project"] == {PNPM}
        assert texts["global"] == {"we use yarn in every repo I own"}
        assert texts["auto"] == {PNPM, "we use yarn in every repo I own"}
        assert texts["all"] == {PNPM, NPM, "we use yarn in every repo I own"}
        labelled = {h.text: h.foreign for h in m.search("we use", scope="all").hits}
        assert labelled == {PNPM: False, NPM: True, "we use yarn in every repo I own": False}
        with pytest.raises(InputError, match="scope must be one of"):
            m.search("we use", scope="everything")
    with Memory.open(tmp_path / "m") as m, pytest.raises(InputError, match="needs a project"):
        m.search("we use", scope="project")


def test_another_projects_memory_appears_only_when_much_better_and_labelled(
        tmp_path: Path) -> None:
    with Memory.open(tmp_path / "m", create=True, project="p/b") as m:
        m.save("The kafka consumer of the billing service retries three times.", scope="p/a")
        m.save("The billing service is written in Go.", scope="project")
        res = m.search("kafka consumer retries")  # only project a knows about kafka
        assert res.best.scope == "p/a" and res.best.foreign
        assert res.status == "NOT_FOUND" and "other projects" in res.message  # not an answer
        every = m.search("kafka consumer retries", scope="all")
        assert every.status == "FOUND" and every.best.foreign
        from ihmt.render import compact_answer, result_dict

        assert "from project p/a" in compact_answer(res)
        assert result_dict(res)["hits"][0]["other_project"] is True
        # A query both match about as well: only the memory in scope is shown.
        res = m.search("billing service")
        assert [h.scope for h in res.hits] == ["p/b"]
        assert m.search("kafka consumer retries", scope="project").status == "NOT_FOUND"


def test_one_projects_facts_do_not_supersede_anothers(tmp_path: Path) -> None:
    with Memory.open(tmp_path / "m", create=True, project="p/a") as m:
        m.save("We use pnpm for package management.", scope="project", date="2026-01-02")
        rep = m.save("We use npm for package management.", scope="p/b", date="2026-02-02")
        assert not rep.notices and not rep.outdated
        res = m.search("package management")
        assert res.best.text.startswith("We use pnpm") and not res.best.outdated


# ---------------------------------------------------------------------- the descent
def test_the_scoped_descent_is_the_filtered_flat_ranking(tmp_path: Path) -> None:
    words = ["alpha", "beta", "gamma", "delta", "omega", "sigma", "kappa", "zeta"]
    scopes = [GLOBAL, "p/a", "p/b", "p/c"]
    with Memory.open(tmp_path / "m", create=True, config={"branch_factor": 4}) as m:
        with m.bulk():
            for i in range(120):
                text = " ".join(words[(i * j + i // 3) % len(words)] for j in range(1, 5 + i % 4))
                m.save(f"{text} note {i}", scope=scopes[i % 4], date="2026-01-01")
        m.flush()
        root = m.store.root()
        assert any(e.get("scopes") for e in root["top"] if int(e["layer"]) > 0)
        terms = ["alpha", "omega", "kappa"]
        everything = descend(m.store, terms, 200).candidates
        for allowed in ({GLOBAL, "p/a"}, {"p/c"}):
            flt = ScopeFilter(leaf=lambda e, a=allowed: entry_scope(e, None) in a,
                              node=lambda e, a=allowed: bool(set(e.get("scopes") or [GLOBAL]) & a))
            got = descend(m.store, terms, 7, scope=flt)
            want = [c for c in everything if entry_scope(c.entry, None) in allowed][:7]
            assert [round(c.score, 9) for c in got.candidates] == \
                [round(c.score, 9) for c in want]
            assert got.node_reads <= descend(m.store, terms, 200).node_reads


# ---------------------------------------------------------------------- moves and counts
def test_move_refiles_a_memory_even_inside_a_branch(mem: Memory) -> None:
    mem.project = "p/a"
    ids = [mem.save(f"Deploy note {i}: the worker {w} restarts nightly.", scope="project",
                    date="2026-01-01").ids[0]
           for i, w in enumerate(["ares", "zeus", "hera", "iris", "eos"])]
    assert mem.get(ids[0]).parent is not None  # consolidated into an (immutable) branch
    assert mem.scopes() == {GLOBAL: 0, "p/a": 5}
    rep = mem.move(ids[0], "global")
    assert rep == {"id": ids[0], "from": "p/a", "to": GLOBAL}
    assert "scope" not in mem.get(ids[0]).extra
    assert mem.store.root()[MOVES] == {ids[0]: GLOBAL}
    assert mem.scopes() == {GLOBAL: 1, "p/a": 4}
    assert mem.search("worker ares", scope="global").best.id == ids[0]
    assert mem.search("worker ares", scope="project").status == "NOT_FOUND"
    mem.move(ids[0], "p/z")
    mem.project = "p/z"
    assert mem.search("worker ares", scope="project").best.id == ids[0]
    assert mem.move(ids[0], "project")["from"] == "p/z"  # already there: nothing written
    # A rebuild derives the same scopes from the headers and forgets the moves.
    mem.rebuild()
    assert MOVES not in mem.store.root()
    assert mem.scopes() == {GLOBAL: 0, "p/a": 4, "p/z": 1}
    assert mem.search("worker ares", scope="project").best.id == ids[0]


def test_a_bad_move_says_why_and_changes_nothing(mem: Memory) -> None:
    mem.save("The cache lives in redis.", scope="p/a")
    before = {p.name: p.read_bytes() for p in mem.store.iter_leaf_paths()}
    root = json.dumps(mem.store.root(), sort_keys=True)
    with pytest.raises(NotFoundError, match="no memory with id L-general-000000000000"):
        mem.move("L-general-000000000000", "global")
    with pytest.raises(NotFoundError):
        mem.move("not-an-id", "global")
    leaf_id = next(iter(mem.store.iter_leaf_paths())).stem
    with pytest.raises(InputError, match="needs a project"):
        mem.move(leaf_id, "project")
    with pytest.raises(InputError, match="not a project id"):
        mem.move(leaf_id, "p/a\nb")
    assert {p.name: p.read_bytes() for p in mem.store.iter_leaf_paths()} == before
    assert json.dumps(mem.store.root(), sort_keys=True) == root


def test_a_move_killed_before_the_trunk_is_written_is_finished_from_the_header(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "m"
    with Memory.open(path, create=True) as m:
        leaf_id = m.save("The cron job runs at midnight.", scope="p/a").ids[0]
        monkeypatch.setattr(m.store, "write_root", lambda data: (_ for _ in ()).throw(
            OSError("killed")))
        with pytest.raises(OSError):
            m.move(leaf_id, "global")
    monkeypatch.undo()
    with Memory.open(path) as m:  # the interrupted write is repaired from the leaves
        assert m.scopes() == {GLOBAL: 1}
        assert m.search("cron job midnight", scope="global").best.id == leaf_id


def test_old_leaves_without_a_scope_are_global(tmp_path: Path) -> None:
    path = tmp_path / "m"
    with Memory.open(path, create=True) as m:
        leaf_id = m.save("The printer is on the second floor.").ids[0]
        raw = m.store.leaf_path(leaf_id).read_text()
    assert '"scope"' not in raw  # what a store from before scopes holds
    with Memory.open(path, project="p/a") as m:
        assert m.scopes() == {GLOBAL: 1}
        assert m.search("printer floor").best.id == leaf_id
        assert m.search("printer floor", scope="global").best.id == leaf_id
        assert m.search("printer floor", scope="project").status == "NOT_FOUND"


def test_rebuild_keeps_scopes(mem: Memory) -> None:
    mem.project = "p/a"
    for i in range(6):
        mem.save(f"Service {i} deploys to region eu-{i}.", scope="project" if i % 2 else "p/b")
    mem.save("I like green tea.", scope="global")
    before = mem.scopes()
    answer = [h.id for h in mem.search("service deploys region").hits]
    (mem.path / "root.json").unlink()
    mem.rebuild()
    assert mem.scopes() == before == {GLOBAL: 1, "p/a": 3, "p/b": 3}
    assert [h.id for h in mem.search("service deploys region").hits] == answer


def test_the_bleed_benchmark_small_run(capsys: pytest.CaptureFixture[str]) -> None:
    from bench import scopes

    assert scopes.main(["--projects", "4", "--notes", "5", "--seed", "2", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    scoped, unscoped = result["systems"]["scoped"], result["systems"]["unscoped"]
    assert scoped["bleed"] == 0.0 and unscoped["other_project_in_answer"] > 0
    assert scoped["recall_in_scope"] >= unscoped["recall_in_scope"]
    assert scoped["other_projects_labelled"] == 1.0
    rules = result["default_scope"]
    assert rules["ihmt default_scope"]["accuracy"] > rules["always project"]["accuracy"]


def test_a_version_group_holds_one_scope(tmp_path: Path) -> None:
    """A team's CI is the repository's own: the user's side projects neither lead it nor
    outdate it, and a repository's CI outdates nothing of the user's; where the user works
    is the user's own, answered from global memories in every repository."""
    store = tmp_path / "m"
    a, b = "github.com/acme/a", "github.com/acme/b"
    with Memory.open(store, create=True, project=a) as m:
        m.save("This repo's CI runs on Jenkins.", date="2025-03-01", scope="project")
        m.save("I moved all my personal side projects' CI to GitHub Actions.",
               date="2026-05-01", scope="global")
        m.save("I work at Globex as a backend developer.", date="2025-01-01", scope="global")
    with Memory.open(store, project=b) as m:
        m.save("In this repo CI runs on Buildkite.", date="2026-06-01", scope="project")
        m.save("The Hooli offer letter for this repo's contractor role came today.",
               date="2026-07-01", scope="project")
    with Memory.open(store, project=a) as m:
        res = m.search("what CI do we use?")
        assert res.status == "FOUND" and "Jenkins" in res.best.text
        assert not any(h.outdated for h in res.hits)
    with Memory.open(store, project=b) as m:
        res = m.search("what CI do we use?")
        assert res.status == "FOUND" and "Buildkite" in res.best.text
        mine = next(h for h in res.hits if "side projects" in h.text)
        assert not mine.outdated
        res = m.search("where do I work?")
        assert "Globex" in res.best.text and not res.best.outdated
