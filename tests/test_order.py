"""Similar memories are grouped together by bulk loads."""

from __future__ import annotations

import random
from pathlib import Path

from ihmt import Memory
from ihmt.tree.order import similarity_order


def test_order_is_a_deterministic_permutation_that_keeps_topics_together() -> None:
    rng = random.Random(3)
    topics = [["postgres", "billing", "invoice"], ["kubernetes", "deploy", "helm"],
              ["luis", "benidorm", "paella"], ["redis", "cache", "session"]]
    docs = []
    for i in range(200):
        t = topics[i % 4]
        docs.append({*rng.sample(t, 2), f"rare{i}", rng.choice(["note", "todo", "fact"])})
    order = similarity_order(docs)
    assert sorted(order) == list(range(200)) and order == similarity_order(docs)
    groups = [order[i:i + 8] for i in range(0, 200, 8)]
    pure = sum(1 for g in groups if len({j % 4 for j in g}) == 1)
    assert pure >= 10  # in save order no group of 8 holds a single topic (measured: 13)


def test_bulk_reports_are_complete_when_the_block_exits(tmp_path: Path) -> None:
    m = Memory.open(tmp_path / "s", create=True, config={"branch_factor": 4})
    with m.bulk():
        reps = [m.save(f"memory {i} about topic{i % 3}", date="2025-01-01") for i in range(30)]
        dup = m.save("memory 0 about topic0", date="2025-01-01")
        assert all(r.ids for r in reps)
    assert sum(r.new for r in reps) == 30 and dup.duplicates == 1
    assert m.stats()["leaves"] == 30
    found = {path[-1] for path, _ in m.walk()}
    assert found == {r.ids[0] for r in reps}


def test_every_batch_of_a_bulk_load_is_journalled_in_the_catalog(tmp_path: Path,
                                                                 monkeypatch) -> None:
    """The last batch commits while the bulk is still open, like the ones before it: its
    leaves are in the catalog and 'ihmt doctor' finds nothing missing."""
    import ihmt.writing as writing_module
    from ihmt.doctor import check_store

    monkeypatch.setattr(writing_module, "BULK_BATCH", 16)  # three batches of 16, then 2
    m = Memory.open(tmp_path / "s", create=True, config={"branch_factor": 4})
    with m.bulk():
        ids = [m.save(f"memory {i} about topic{i % 5}").ids[0] for i in range(50)]
    leaves = {i for i, e in m.store.catalog().items() if e.get("kind") == "leaf"}
    assert leaves == set(ids)
    report = check_store(m.store.path)
    assert not any("catalog" in p for p in report["problems"]), report["problems"]
