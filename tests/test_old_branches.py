"""A store whose branches were written before the current branch format (one JSON object
per branch, ``layers/<N>/<id>.json``): searched as it is, forgets rewrite the branches they
touch in the current format, saves build new branches over old ones, a rebuild rewrites
them all; and every answer is the one a tree rebuilt from the leaves gives."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from ihmt import Memory
from ihmt.store.branch_file import PackedBranch, is_branch_file
from ihmt.store.branches import BranchFiles

from .test_forget import MARKER, filled, holders


def formats(m: Memory) -> dict[str, int]:
    """Branch files of the first format ("json") and of the current one ("branch")."""
    out = {"json": 0, "branch": 0}
    for p in (m.path / "layers").rglob("N*.json"):
        out["branch" if is_branch_file(p.read_bytes()) else "json"] += 1
    return out


def ranked(m: Memory, queries: list[str]) -> list[tuple[list[float], set[str]]]:
    """Scores in order, and the ids above the last score, per query (ties at the cut-off
    may differ with the tree's order)."""
    out = []
    for q in queries:
        hits = [(h.id, round(h.score, 6)) for h in m.search(q, top_k=5).hits]
        out.append(([s for _, s in hits], {i for i, s in hits if s > hits[-1][1]})
                   if hits else ([], set()))
    return out


QUERIES = ([f"subject{a} area{b}" for a in range(17) for b in range(5)][:40]
           + [f"note tok{i:03d}" for i in range(0, 300, 13)] + [f"{MARKER} gateway"])


@pytest.fixture
def old(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, dict[int, str]]:
    monkeypatch.setattr(BranchFiles, "legacy_branches", True)
    m, ids = filled(tmp_path / "s", n=300)
    m.close()
    monkeypatch.setattr(BranchFiles, "legacy_branches", False)  # today's IHMT from here on
    return m.path, ids


def test_an_old_store_is_read_as_it_is(old: tuple[Path, dict[int, str]]) -> None:
    path, ids = old
    m = Memory.open(path)
    counts = formats(m)
    assert counts["json"] > 20 and counts["branch"] == 0
    assert m.search(MARKER).best.id == ids[137]
    for i in range(0, 300, 17):
        assert m.search(f"tok{i:03d}").best.id == ids[i]
    assert formats(m) == counts  # reading changes no file
    cli = subprocess.run([sys.executable, "-m", "ihmt.faces.cli", "--path", str(path),
                          "search", "tok042"], capture_output=True, text=True, timeout=120)
    assert cli.returncode == 0 and "tok042" in cli.stdout


def test_forgets_and_saves_on_an_old_store_answer_as_a_rebuilt_tree(
        old: tuple[Path, dict[int, str]]) -> None:
    path, ids = old
    m = Memory.open(path)
    before = formats(m)
    rng = random.Random(3)
    gone = [137] + rng.sample([i for i in range(300) if i != 137], 24)
    for i in gone[:15]:
        m.forget(ids[i])  # one by one
    m.forget([ids[i] for i in gone[15:]])  # and several at once
    after = formats(m)
    # the branches above the forgotten memories were rewritten in the current format, and
    # their old files went with them; the others are still the old files
    assert after["branch"] > 0 and after["json"] == before["json"] - after["branch"] > 0
    assert holders(m.path) == []
    for i in gone:
        assert not holders(m.path, f"tok{i:03d}")
    # saves: new branches, some of them over old children (consolidated with old top nodes)
    known = {p.stem for p in (m.path / "layers").rglob("N*")}
    for k in range(40):
        m.save(f"later note tok{300 + k} about subject{k % 17} and area{k % 5}",
               date="2026-01-02")
    assert formats(m)["branch"] > after["branch"]
    made = [PackedBranch(p.read_bytes()) for p in (m.path / "layers").rglob("N*.json")
            if p.stem not in known]
    assert any(not is_branch_file(m.store.branch_path(c["id"], int(c["layer"])).read_bytes())
               for br in made for c in br.children if int(c["layer"]) > 0)
    want = ranked(m, QUERIES)
    assert all(ids[i] not in {h.id for h in m.search(f"tok{i:03d}").hits} for i in gone)
    other = Memory.open(path)  # a fresh process answers the same
    assert ranked(other, QUERIES) == want
    m.rebuild()  # rewrites every branch in the current format
    assert formats(m)["json"] == 0
    assert ranked(m, QUERIES) == want
    from ihmt.doctor import check_store

    assert not check_store(m.path).get("problems")
