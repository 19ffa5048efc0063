"""Branch files of the current format (ihmt.store.branch_file): what is written is read
back term for term, an edit changes exactly the terms it names whichever way the new file
is read, a file of the first format converts without a difference, and any damaged byte
is found, never read as something else."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ihmt.errors import DamagedFileError
from ihmt.store import branch_file
from ihmt.store.branch import Branch, pack_masks
from ihmt.store.branch_file import BranchEdit, PackedBranch

WORDS = st.text(alphabet="abcdéxyz_0129", min_size=1, max_size=12)


def table(rng: random.Random, n_terms: int, children: int, masked: bool
          ) -> tuple[dict[str, list[int]], dict[str, list[int]] | None]:
    """A random term table as the consolidator builds one (codes with 5 band bits)."""
    terms: dict[str, list[int]] = {}
    masks: dict[str, list[int]] | None = {} if masked else None
    words = {f"w{rng.randrange(10**6)}{rng.choice(['', 'é', 'ß', '_x'])}" for _ in range(n_terms)}
    for word in sorted(words):
        groups: list[int] = []
        ms: list[int] = []
        for ci in sorted(rng.sample(range(children), rng.randint(1, children))):
            groups.extend((ci << 5 | rng.randrange(32), rng.randint(1, 9),
                           rng.randint(1, 500), rng.randint(1, 40)))
            ms.append(rng.getrandbits(rng.choice([1, 16, 200, 512])) | 1)
        terms[word] = groups
        if masks is not None:
            masks[word] = ms
    return terms, masks


def data_of(terms: dict[str, list[int]], masks: dict[str, list[int]] | None,
            children: int) -> dict:
    top = max((m for ms in (masks or {}).values() for m in ms), default=1)
    data = {"id": "N3-notes-abc", "layer": 3, "domain": "notes", "title": "t", "summary": "s",
            "keywords": [], "n_leaves": 99, "total_len": 999, "date_from": None,
            "date_to": None, "bands": 5,
            "children": [{"id": f"N2-notes-{i}", "layer": 2, "domain": "notes",
                          "n_leaves": 3, "total_len": 30} for i in range(children)],
            "terms": terms}
    if masks is not None:
        data.update(masks=masks, mask_bytes=max(1, -(-top.bit_length() // 8)),
                    slot_widths=[40] * children)
    return data


def legacy(data: dict) -> Branch:
    """The same branch as the first format held it."""
    old = {k: (dict(v) if k == "terms" else v) for k, v in data.items()}
    if data.get("masks") is not None:
        old["masks"], old["mask_bytes"] = pack_masks(
            [m for ms in data["masks"].values() for m in ms])
    return Branch(old)


def rows_of(br) -> dict[str, tuple[list[int], bytes | None]]:
    return {t: (list(g), None if m is None else bytes(m)) for t, g, m in br._rows()}


@pytest.mark.parametrize("n_terms", [0, 1, 63, 64, 65, 700, 3000])
@pytest.mark.parametrize("masked", [False, True])
def test_written_and_read_back_as_the_first_format_reads_it(n_terms: int, masked: bool) -> None:
    rng = random.Random(n_terms * 2 + masked)
    terms, masks = table(rng, n_terms, 12, masked)
    data = data_of(terms, masks, 12)
    ref = legacy(data)
    br = PackedBranch(branch_file.encode_data(dict(data)))
    assert br.term_count() == len(terms) == ref.term_count()
    assert br.n_buckets == max(1, -(-len(terms) // branch_file.BUCKET_TERMS))
    assert rows_of(br) == rows_of(ref)
    for t in list(terms)[:200]:
        assert list(br.groups(t)) == list(ref.groups(t))
        assert br.band_signatures(t) == ref.band_signatures(t)
        assert br.self_stats(t) == ref.self_stats(t)
    assert br.groups("not-a-term") is None and br.band_signatures("not-a-term") == {}
    assert (br.has_masks, br.mask_bytes if masked else 0, br.slot_widths, br.slot_width()) == \
        (ref.has_masks, ref.mask_bytes if masked else 0, ref.slot_widths, ref.slot_width())
    assert sorted(br.all_band_signatures()) == sorted(ref.all_band_signatures())
    assert br.data == ref.data and br.weight() == ref.weight()
    # and a first-format branch converted (what a forget does the first time) is the same
    assert rows_of(branch_file.convert(ref)) == rows_of(ref)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), n_terms=st.integers(0, 400), masked=st.booleans(),
       n_edits=st.integers(0, 40))
def test_an_edit_changes_exactly_the_terms_it_names(seed: int, n_terms: int, masked: bool,
                                                     n_edits: int) -> None:
    rng = random.Random(seed)
    children = 6
    terms, masks = table(rng, n_terms, children, masked)
    data = data_of(terms, masks, children)
    before = PackedBranch(branch_file.encode_data(dict(data)))
    expected = rows_of(PackedBranch(branch_file.encode_data(dict(data))))
    edit = BranchEdit(before)
    for t in rng.sample(sorted(terms), min(n_edits, len(terms))) + ["brand-new"] * (seed % 2):
        if rng.random() < 0.5:
            before.term_masks(t)  # its bucket decoded in the old file first, or not
        ci = rng.randrange(children)
        new = [(b, rng.randint(1, 9), rng.randint(1, 99), rng.randint(1, 5),
                rng.getrandbits(8 * (before.mask_bytes if masked else 1)) >> 1 | 1)
               for b in sorted(rng.sample(range(32), rng.randint(0, 2)))]
        edit.replace(t, ci, new)
        w = before.mask_bytes if masked else 0
        old_g, old_m = expected.get(t, ([], b"" if w else None))
        keep = [k for k in range(0, len(old_g), 4) if old_g[k] >> 5 != ci]
        g = [x for k in keep for x in old_g[k:k + 4]]
        m = b"".join(old_m[k // 4 * w:(k // 4 + 1) * w] for k in keep) if w else None
        for band, mx, mn, df, sig in new:
            g.extend((ci << 5 | band, mx, mn, df))
            if w:
                m += sig.to_bytes(w, "little")  # type: ignore[operator]
        if g:
            expected[t] = (g, m)
        else:
            expected.pop(t, None)
    edit.data["title"] = "edited"
    blob = edit.encode()
    fresh = PackedBranch(blob)  # another process, reading the file
    known = PackedBranch(blob, decoded=edit.decoded)  # the writer, with what it decoded
    for br in (fresh, known):
        assert rows_of(br) == expected
        assert br.term_count() == len(expected) and br.data["title"] == "edited"
        for t in expected:
            assert list(br.groups(t)) == expected[t][0]


def test_any_damaged_byte_is_found() -> None:
    rng = random.Random(4)
    terms, masks = table(rng, 300, 8, True)
    blob = branch_file.encode_data(data_of(terms, masks, 8))
    good = rows_of(PackedBranch(blob))
    for at in sorted(rng.sample(range(len(blob)), 300)) + list(range(40)):
        bad = bytearray(blob)
        bad[at] ^= 1 << rng.randrange(8)
        with pytest.raises(DamagedFileError):
            br = PackedBranch(bytes(bad))
            assert rows_of(br) != good  # (reading it all must raise before this)
    for cut in (0, 5, len(branch_file.PREFIX) + 3, len(blob) // 2, len(blob) - 1):
        with pytest.raises(DamagedFileError):
            rows_of(PackedBranch(blob[:cut]))


@given(words=st.lists(WORDS, min_size=1, max_size=50, unique=True))
def test_any_word_round_trips(words: list[str]) -> None:
    terms = {w: [0 << 5 | 1, 2, 3, 1] for w in words}
    br = PackedBranch(branch_file.encode_data(data_of(terms, None, 1)))
    assert {t: list(g) for t, g, _ in br._rows()} == terms
    assert all(br.groups(w) is not None for w in words)


def test_wide_statistics_round_trip() -> None:
    """Each group column is stored in the narrowest type its values fit: wide values
    (a long leaf, a word in 70,000 memories, child 1,023) come back as they were."""
    terms = {"a": [1023 << 5 | 31, 70_000, 300_000, 2**31 - 1], "b": [0, 1, 1, 1],
             "c": [5, 255, 256, 65_535], "d": [6, 65_536, 65_535, 256]}
    br = PackedBranch(branch_file.encode_data(data_of(terms, None, 1)))
    assert {t: list(g) for t, g, _ in br._rows()} == terms
    with pytest.raises(ValueError):
        branch_file.encode_data(data_of({"a": [0, 1, 2**31, 1]}, None, 1))


def test_masks_fold_as_their_definition_says() -> None:
    from ihmt.store.branch import fold_mask

    def plain(mask: int, width: int, sub: int) -> int:
        if width <= sub:
            return mask
        block = -(-width // sub)
        return sum(1 << i for i in range(sub) if (mask >> (i * block)) & ((1 << block) - 1))

    rng = random.Random(2)
    for _ in range(5000):
        sub = rng.choice([1, 2, 4, 8, 16, 32, 64, 128, 3, 5, 12, 21, 42])
        width = rng.randint(1, 512)
        mask = rng.choice([0, 1 << rng.randrange(width), rng.getrandbits(width)])
        assert fold_mask(mask, width, sub) == plain(mask, width, sub), (mask, width, sub)
