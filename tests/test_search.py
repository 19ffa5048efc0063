"""The descent returns exactly what a flat BM25 scan over every leaf returns."""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ihmt import Memory
from ihmt.errors import InputError
from ihmt.store.store import best_common, fold_mask
from ihmt.text import tokenize


def flat_scores(texts: dict[str, str], query: str, k: int = 10) -> list[tuple[float, str]]:
    """Lucene BM25 (k1=1.5, b=0.75) over every text, computed by brute force."""
    docs = {i: Counter(tokenize(t)) for i, t in texts.items()}
    n = len(docs)
    avg = sum(sum(c.values()) for c in docs.values()) / n
    df = Counter(t for c in docs.values() for t in c)
    q = list(dict.fromkeys(tokenize(query)))
    out = []
    for i, c in docs.items():
        length = sum(c.values())
        s = sum(math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
                * c[t] / (c[t] + 1.5 * (1 - 0.75 + 0.75 * length / avg)) for t in q if t in c)
        if s > 0:
            out.append((s, i))
    out.sort(key=lambda x: -x[0])
    return out[:k]


def build(tmp_path, n: int, seed: int, bf: int = 4) -> tuple[Memory, dict[str, str]]:
    rng = random.Random(seed)
    vocab = [f"word{i}" for i in range(150)] + ["deploy", "billing", "postgres", "luis"]
    m = Memory.open(tmp_path / f"s{seed}", create=True, config={"branch_factor": bf})
    texts: dict[str, str] = {}
    with m.bulk():
        for i in range(n):
            t = " ".join(rng.choice(vocab) for _ in range(rng.randint(3, 25))) + f" rare{i}"
            texts[m.save(t, date="2025-01-01").ids[0]] = t
    if seed % 2:
        m.flush()
    return m, texts


@pytest.mark.parametrize("n,seed,bf", [(30, 1, 4), (200, 2, 4), (600, 3, 4), (900, 4, 8),
                                       (400, 6, 3)])
def test_descent_equals_flat_scan(tmp_path, n: int, seed: int, bf: int) -> None:
    m, texts = build(tmp_path, n, seed, bf)
    rng = random.Random(seed)
    for _ in range(40):
        words = rng.choice(list(texts.values())).split()
        q = " ".join(rng.sample(words, min(len(words), rng.randint(1, 4))))
        got = m.search(q, top_k=10).hits
        everything = flat_scores(texts, q, k=len(texts))
        want = everything[:10]
        assert len(got) == len(want), q
        assert all(abs(h.score - s) < 1e-9 for h, (s, _) in zip(got, want)), q
        # Same leaves wherever scores are not tied.
        for h, (s, i) in zip(got, want):
            if sum(1 for s2, _ in everything if abs(s2 - s) < 1e-9) == 1:
                assert h.id == i, (q, h.score, s)


def test_rare_word_is_found_at_any_depth(tmp_path) -> None:
    m, texts = build(tmp_path, 800, 5, bf=3)
    res = m.search("rare777")
    assert res.best is not None and res.best.text.endswith("rare777")
    assert res.node_reads < m.stats()["branches"] / 10  # read a small part of the tree


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(corpus=st.lists(st.text(alphabet="abcde fgh", min_size=1, max_size=40), min_size=1,
                       max_size=40), query=st.text(alphabet="abcde fgh", min_size=1, max_size=12))
def test_parity_on_arbitrary_corpora(tmp_path_factory, corpus, query) -> None:
    m = Memory.open(tmp_path_factory.mktemp("p") / "s", create=True, config={"branch_factor": 2})
    texts = {}
    for t in corpus:
        if t.strip():
            texts.update({i: t for i in m.save(t).ids})
    if not texts or not query.strip():
        return
    got = [h.score for h in m.search(query, top_k=5).hits]
    want = [s for s, _ in flat_scores(texts, query, 5)]
    assert len(got) == len(want) and all(abs(a - b) < 1e-9 for a, b in zip(got, want))


def test_hits_carry_path_date_and_lazy_text(mem: Memory) -> None:
    mem.save("The VPN config lives in /etc/wireguard/wg0.conf", date="2025-06-01")
    res = mem.search("wireguard config")
    hit = res.best
    assert hit.path[0] == "root" and hit.path[-1] == hit.id
    assert hit.when == "2025-06-01"
    assert res.leaf_reads == 0
    assert "wg0.conf" in hit.text and res.leaf_reads == 1


@pytest.mark.parametrize("query", ["", "   ", None, 42])
def test_bad_queries_are_refused_clearly(mem: Memory, query) -> None:
    with pytest.raises(InputError):
        mem.search(query)


def test_empty_store_and_unknown_words_answer_not_found(mem: Memory) -> None:
    assert mem.search("anything").status == "NOT_FOUND"
    mem.save("The release train leaves every second Tuesday")
    assert mem.search("xylophone quantum").status == "NOT_FOUND"


def test_a_rare_word_is_found_even_when_the_file_cap_stops_the_search(tmp_path) -> None:
    m, texts = build(tmp_path, 600, 7, bf=3)
    m.config.max_files_per_search = 3
    res = m.search("rare421 word3 word7 word11 deploy billing")
    assert res.capped
    assert any(h.text.endswith("rare421") for h in res.hits[:3])


def test_fold_mask_merges_blocks_of_slots() -> None:
    rng = random.Random(11)
    for width, sub in ((512, 64), (256, 32), (64, 8), (512, 32), (100, 7), (64, 21), (8, 8)):
        block = -(-width // sub)
        for _ in range(300):
            m = rng.getrandbits(width) & rng.getrandbits(width) & rng.getrandbits(width)
            want = 0
            for i in range(sub):
                if any(m >> (i * block + j) & 1 for j in range(block)):
                    want |= 1 << i
            assert fold_mask(m, width, sub) == (m if width <= sub else want), (width, sub)


def test_best_common_is_the_best_sum_over_one_slot() -> None:
    rng = random.Random(12)
    for _ in range(500):
        n = rng.randint(1, 7)
        items = [(rng.uniform(0.1, 5), rng.getrandbits(8) << rng.choice((0, 8, 300)) or 1)
                 for _ in range(n)]
        want = max(sum(w for w, m in items if m >> bit & 1) for bit in range(512))
        assert best_common(items) == pytest.approx(max(want, 0.0) if n > 1 else items[0][0])


def test_slot_masks_open_fewer_branches_and_old_files_still_work(tmp_path) -> None:
    """The same tree, searched with and without its slot masks: same answers, the masked
    descent never opens more branches and opens fewer overall."""
    m, texts = build(tmp_path, 700, 8, bf=4)
    m.flush()
    rng = random.Random(8)
    queries = [" ".join(rng.sample(rng.choice(list(texts.values())).split(), 3))
               for _ in range(40)]
    queries = [q for q in queries if q]
    with_masks = [m.search(q, top_k=10) for q in queries]
    assert any(b.has_masks for b in m.store._branches.values())
    for b in m.store._branches.values():  # as if every branch file were an older one
        b._masked = False
    without = [m.search(q, top_k=10) for q in queries]
    for q, a, b in zip(queries, with_masks, without):
        assert [round(h.score, 9) for h in a.hits] == [round(h.score, 9) for h in b.hits], q
        assert a.node_reads <= b.node_reads, q
    assert sum(r.node_reads for r in with_masks) < sum(r.node_reads for r in without)


def _garbled_masks(blob: bytes) -> bytes | None:
    """A branch file whose masks cannot be decompressed, every check sum right (as a
    faulty writer would leave it), or None when it keeps no masks."""
    import json as _json

    from ihmt.store import branch_file

    br = branch_file.PackedBranch(blob)
    if not br.has_masks:
        return None
    parts = []
    for b in range(br.n_buckets):
        obj = _json.loads(bytes(br.bucket_bytes(b)))
        if obj.get("masks"):
            obj["masks"] = "Z2FyYmFnZQ=="  # base64 all right, no zlib stream inside
        parts.append(_json.dumps(obj, separators=(",", ":")).encode())
    return branch_file.encode(br.meta(), parts, br.term_count())


@pytest.mark.parametrize("first_format", [False, True])
def test_damaged_slot_masks_are_repaired_like_any_damaged_branch(tmp_path, monkeypatch,
                                                                 first_format) -> None:
    import json as _json

    from ihmt.store.branches import BranchFiles

    monkeypatch.setattr(BranchFiles, "legacy_branches", first_format)
    m, texts = build(tmp_path, 300, 9, bf=4)
    m.flush()
    monkeypatch.setattr(BranchFiles, "legacy_branches", False)
    damaged = 0
    for p in m.store.iter_branch_paths():
        if first_format and '"masks"' in p.read_text():
            data = _json.loads(p.read_text())
            data["masks"] = "not base64 at all!"
            p.write_text(_json.dumps(data))
            damaged += 1
        elif not first_format and (bad := _garbled_masks(p.read_bytes())) is not None:
            p.write_bytes(bad)
            damaged += 1
    assert damaged
    m.store.clear_cache()
    word = next(iter(texts.values())).split()[0]
    res = m.search(word)
    assert res.hits and any("rebuilt" in n for n in res.notices)
    assert m.search("rare17").best.text.endswith("rare17")


def test_length_bands_are_fixed_and_grow_with_length() -> None:
    from ihmt.store.store import BAND_BASE, length_band

    bands = [length_band(n) for n in range(1, 20_000)]
    assert bands[: BAND_BASE] == [0] * BAND_BASE  # up to 8 tokens: band 0
    assert bands == sorted(bands)  # longer never falls in a lower band
    # About three bands per doubling: 8 -> 0, 16 -> 3, 32 -> 6, 64 -> 9.
    assert [length_band(n) for n in (8, 16, 32, 64)] == [0, 3, 6, 9]
    assert max(bands) == length_band(10**9)  # the last band is open-ended


def build_varied(tmp_path, name: str, n: int, seed: int, bf: int) -> tuple[Memory, dict]:
    """Memories from 2 to 400 words: many length bands in every branch."""
    rng = random.Random(seed)
    vocab = [f"w{i}" for i in range(60)] + ["deploy", "billing", "postgres"]
    m = Memory.open(tmp_path / name, create=True, config={"branch_factor": bf})
    texts: dict[str, str] = {}
    with m.bulk():
        for i in range(n):
            size = int(2 * 200 ** rng.random())
            t = " ".join(rng.choice(vocab) for _ in range(size)) + f" rare{i}"
            texts[m.save(t, date="2025-01-01").ids[0]] = t
    m.flush()
    return m, texts


@pytest.mark.parametrize("bf", [3, 4, 16])
def test_descent_with_length_bands_equals_flat_scan(tmp_path, bf: int) -> None:
    m, texts = build_varied(tmp_path, "s", 500, 21 + bf, bf)
    rng = random.Random(bf)
    for _ in range(30):
        q = " ".join(rng.sample([f"w{i}" for i in range(60)] + ["deploy"], rng.randint(1, 5)))
        got = [h.score for h in m.search(q, top_k=10).hits]
        want = [s for s, _ in flat_scores(texts, q, 10)]
        assert len(got) == len(want) and all(abs(a - b) < 1e-9 for a, b in zip(got, want)), q


def _without_bands(monkeypatch) -> None:
    """Write branch files as before length bands: one group per child, no 'bands' key."""
    import ihmt.tree.consolidate as cons

    monkeypatch.setattr(cons, "BAND_BITS", 0)
    monkeypatch.setattr(cons, "length_band", lambda length: 0)


def test_length_bands_open_fewer_branches_and_files_without_them_still_work(
        tmp_path, monkeypatch) -> None:
    """The same memories with and without bands: same answers, fewer branches opened with
    bands; a tree of older files (no bands) still answers exactly."""
    banded, texts = build_varied(tmp_path, "banded", 700, 5, 4)
    with monkeypatch.context() as mp:
        _without_bands(mp)
        plain, texts2 = build_varied(tmp_path, "plain", 700, 5, 4)
    assert texts == texts2
    assert any(b.band_bits for b in banded.store._branches.values())
    assert not any(b.band_bits for b in plain.store._branches.values())
    rng = random.Random(5)
    queries = [" ".join(rng.sample([f"w{i}" for i in range(60)], rng.randint(2, 4)))
               for _ in range(40)]
    reads = {"banded": 0, "plain": 0}
    for q in queries:
        a, b = banded.search(q, top_k=10), plain.search(q, top_k=10)
        want = [round(s, 9) for s, _ in flat_scores(texts, q, 10)]
        assert [round(h.score, 9) for h in a.hits] == want, q
        assert [round(h.score, 9) for h in b.hits] == want, q
        reads["banded"] += a.node_reads
        reads["plain"] += b.node_reads
    assert reads["banded"] < reads["plain"], reads


def test_a_banded_branch_over_older_children_stays_exact(tmp_path, monkeypatch) -> None:
    """An old store (no bands) that keeps growing: new branches take older ones as
    children, and the descent stays exact over the mix."""
    rng = random.Random(9)
    vocab = [f"w{i}" for i in range(40)]
    m = Memory.open(tmp_path / "mix", create=True, config={"branch_factor": 4})
    texts: dict[str, str] = {}

    def add(count: int) -> None:
        for _ in range(count):
            t = " ".join(rng.choice(vocab) for _ in range(int(2 * 100 ** rng.random())))
            t += f" z{len(texts)}"
            texts.update({i: t for i in m.save(t).ids})

    with monkeypatch.context() as mp:
        _without_bands(mp)
        add(100)
    add(160)
    m.flush()
    kinds = {b.band_bits for b in m.store._branches.values()}
    assert kinds == {0, 5}, kinds  # both formats in one tree
    for _ in range(30):
        q = " ".join(rng.sample(vocab, rng.randint(1, 4)))
        got = [h.score for h in m.search(q, top_k=8).hits]
        want = [s for s, _ in flat_scores(texts, q, 8)]
        assert len(got) == len(want) and all(abs(a - b) < 1e-9 for a, b in zip(got, want)), q


def test_band_statistics_match_the_leaves_below(tmp_path) -> None:
    """Per branch, term and band: the largest count, shortest length and number of leaves,
    recomputed by walking the leaves below; each band's mask has a slot per leaf at most."""
    from ihmt.store.store import length_band

    m, texts = build_varied(tmp_path, "s", 400, 3, 3)
    store = m.store

    def leaves_below(entry) -> list[str]:
        if int(entry["layer"]) == 0:
            return [entry["id"]]
        br, _ = store.branch(entry["id"], int(entry["layer"]))
        return [i for c in br.children for i in leaves_below(c)]

    tfs = {i: Counter(tokenize(t)) for i, t in texts.items()}
    checked = 0
    for entry in store.root()["top"]:
        stack = [entry]
        while stack:
            e = stack.pop()
            if int(e["layer"]) == 0:
                continue
            br, _ = store.branch(e["id"], int(e["layer"]))
            stack.extend(br.children)
            want: dict[tuple[str, int], list[int]] = {}
            for leaf in leaves_below(e):
                length = sum(tfs[leaf].values())
                for term, tf in tfs[leaf].items():
                    w = want.setdefault((term, length_band(length)), [0, 10**9, 0])
                    w[0], w[1], w[2] = max(w[0], tf), min(w[1], length), w[2] + 1
            got = {(term, band): list(stats[:3]) + [stats[3]]
                   for term, per_band in br.all_band_signatures()
                   for band, *stats in per_band}
            assert set(got) == set(want), br.id
            for key, (mx, mn, df, mask) in got.items():
                assert [mx, mn, df] == want[key], (br.id, key)
                assert 0 < bin(mask).count("1") <= df
                assert br.band_signatures(key[0])[key[1]] == (mx, mn, df, mask)
            checked += 1
    assert checked > 20


FIRST_MEMORIES = ["We chose Postgres for billing because invoices need transactions.",
                  "The team lunch is on Fridays at noon.",
                  "Deploys run from the main branch every Tuesday."]


@pytest.mark.parametrize("n", [1, 2, 3])
def test_not_found_holds_at_one_two_and_three_memories(mem: Memory, n: int) -> None:
    # The save tool's own example query: idf cannot rank words among so few memories.
    for text in FIRST_MEMORIES[:n]:
        mem.save(text)
    found = mem.search("postgres billing decision")
    assert found.status == "FOUND", found.message
    assert "Postgres" in found.hits[0].text
    assert mem.search("kafka tuning for postgres").status == "NOT_FOUND"
    assert mem.search("xylophone quantum").status == "NOT_FOUND"


def test_a_memory_is_found_through_its_tags_before_and_after_a_rebuild(tmp_path) -> None:
    m = Memory.open(tmp_path / "s", create=True, config={"branch_factor": 2})
    tagged = m.save("We moved the job queue to RabbitMQ last sprint.",
                    tags=["decision", "on-call"]).ids[0]
    for i in range(6):
        m.save(f"Routine note {i}: the plants on floor {i} were watered.")
    m.consolidate(force=True)
    for _ in range(2):
        res = m.search("decision")
        assert res.status == "FOUND" and res.hits[0].id == tagged
        assert m.search("on-call").hits[0].id == tagged
        assert m.search("rabbitmq decision").hits[0].id == tagged
        m.rebuild()  # the derived index is rebuilt from the leaves with the same words
    m.close()


def test_a_weak_answer_without_rivals_does_not_claim_several_matches() -> None:
    from ihmt.config import Config
    from ihmt.model import Hit, SearchResult
    from ihmt.search.rank import assess

    res = SearchResult(query="q", hits=[Hit(id="a", score=1.0, matched=["alpha", "beta"]),
                                        Hit(id="b", score=0.8, matched=["alpha"])])
    idf = {"alpha": 1.0, "beta": 1.0, "gamma": 1.0, "delta": 0.9}
    assess(res, ["alpha", "beta", "gamma", "delta"], idf, 200, Config())
    assert res.status == "AMBIGUOUS", res.message
    assert "1 memories" not in res.message and "only in part" in res.message
