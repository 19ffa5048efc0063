"""The per-project code index: sync never serves stale code, spans are byte-exact, ranking
honours scope/subpath and named files, the map comes from the manifest alone."""

from __future__ import annotations

import os
import shutil
import subprocess
import textwrap
import time
from pathlib import Path

import pytest

from ihmt.errors import InputError, NotFoundError
from ihmt.project import (
    ProjectIndex,
    find_code,
    is_test_path,
    list_source_files,
    open_project,
    project_map,
    sync_project,
)
from ihmt.project.index import parse_gitignore, store_name

PRICING = '''\
"""Prices and discounts."""

import math


def apply_discount(price: float, percent: float) -> float:
    """Lower a price by a percentage."""
    return round(price * (1 - percent / 100), 2)


def shipping_cost(weight_kg: float) -> float:
    return 4.5 + math.ceil(weight_kg) * 1.25


class Basket:
    """Items a customer is about to buy."""

    def __init__(self) -> None:
        self.items: list[tuple[str, float]] = []

    def add_item(self, sku: str, price: float) -> None:
        self.items.append((sku, price))

    def total_price(self) -> float:
        return sum(p for _, p in self.items)
'''

INVENTORY = '''\
package shop;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

public final class InventoryService {
    private final Map<String, Integer> stock = new HashMap<>();

    public Optional<String> reserveStock(String sku, int quantity) {
        int available = stock.getOrDefault(sku, 0);
        if (available < quantity) {
            return Optional.empty();
        }
        stock.put(sku, available - quantity);
        return Optional.of(sku + ":" + quantity);
    }

    public void restock(String sku, int quantity) {
        stock.merge(sku, quantity, Integer::sum);
    }
}
'''

TEST_PRICING = '''\
from shop.pricing import apply_discount


def test_apply_discount():
    assert apply_discount(100.0, 10) == 90.0


def shipping_cost_fixture():
    return {"weight_kg": 3}
'''

NORMALIZE = '''\
def normalize_sku(code: str) -> str:
    return code.strip().upper()
'''


def _write(root: Path, rel: str, text: str, age: float | None = 100.0) -> Path:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    if age is not None:  # old enough not to count as "modified during the last scan"
        t = time.time() - age
        os.utime(p, (t, t))
    return p


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    _write(root, "shop/pricing.py", PRICING)
    _write(root, "src/main/java/shop/InventoryService.java", INVENTORY)
    _write(root, "tests/test_pricing.py", TEST_PRICING)
    _write(root, "shop/a/util.py", NORMALIZE)
    _write(root, "shop/b/util.py", NORMALIZE)
    _write(root, "README.md", "# shop\n")
    _write(root, "node_modules/lib/index.js", "function vendored() { return 1; }\n")
    _write(root, "build/gen.py", "def generated():\n    return 2\n")
    return root


@pytest.fixture()
def index(project: Path, tmp_path: Path) -> ProjectIndex:
    ix = ProjectIndex(project, tmp_path / "projects")
    ix.sync()
    return ix


def _lines(root: Path, rel: str, first: int, last: int) -> str:
    text = (root / rel).read_text(encoding="utf-8")
    return "".join(text.splitlines(keepends=True)[first - 1:last])


def _first_code(answer: str) -> tuple[str, int, int, str]:
    """(path, first, last, code) of a FOUND answer."""
    head, rest = answer.split("\n", 1)
    where = head.split(" ", 1)[0]
    path, span = where.rsplit(":", 1)
    first, last = (int(x) for x in span.split("-"))
    code = rest.split("Other candidates: ", 1)[0]
    return path, first, last, code


# ---------------------------------------------------------------------- listing
def test_listing_skips_vendored_generated_and_non_code(project: Path) -> None:
    got = list_source_files(project)
    assert got == sorted(got)
    assert "shop/pricing.py" in got
    assert "src/main/java/shop/InventoryService.java" in got
    assert not any(p.startswith(("node_modules/", "build/")) for p in got)
    assert "README.md" not in got


def test_gitignore_subset_in_a_plain_folder(project: Path) -> None:
    _write(project, ".gitignore", "*.gen.py\n/generated/\n!keep.gen.py\nsecret_*\n")
    _write(project, "shop/models.gen.py", "X = 1\n")
    _write(project, "shop/keep.gen.py", "Y = 1\n")
    _write(project, "generated/out.py", "Z = 1\n")
    _write(project, "shop/generated/ok.py", "W = 1\n")  # anchored rule: only the top one
    _write(project, "shop/secret_keys.py", "K = 1\n")
    got = list_source_files(project)
    assert "shop/models.gen.py" not in got
    assert "shop/keep.gen.py" in got
    assert "generated/out.py" not in got
    assert "shop/generated/ok.py" in got
    assert "shop/secret_keys.py" not in got


def test_gitignore_patterns() -> None:
    rules = parse_gitignore("# c\n\ndocs/**/tmp\n**/cache/\n", "")
    assert len(rules) == 2
    assert rules[0].regex.match("docs/a/b/tmp") and rules[0].regex.match("docs/tmp")
    assert rules[1].dir_only and rules[1].regex.match("x/cache")


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_git_work_tree_uses_git_ignore_rules(project: Path) -> None:
    _write(project, ".gitignore", "shop/b/\n")
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    _write(project, "shop/untracked.py", "def fresh():\n    return 0\n")
    got = list_source_files(project)
    assert "shop/b/util.py" not in got
    assert "shop/untracked.py" in got  # untracked but not ignored still counts


def test_is_test_path() -> None:
    for p in ("tests/test_x.py", "pkg/test/Foo.java", "a/b_test.go", "src/FooTest.java",
              "web/app.spec.ts", "web/app.test.js", "conftest.py", "x/__tests__/y.js",
              "src/TestUtils.java"):
        assert is_test_path(p), p
    for p in ("src/contest.py", "src/attest.py", "src/Testament.java", "latest/x.py",
              "src/shop/pricing.py"):
        assert not is_test_path(p), p


# ---------------------------------------------------------------------- sync
def test_cold_sync_then_noop_opens_nothing(project: Path, tmp_path: Path) -> None:
    ix = ProjectIndex(project, tmp_path / "projects")
    first = ix.sync()
    assert first.files == 5 and first.reindexed == 5 and first.added == 5
    again = ix.sync()
    assert again.hashed == 0 and again.reindexed == 0 and again.unchanged == 5
    assert ix.path.parent == tmp_path / "projects"
    assert ix.path.name == store_name(project.resolve())
    # One leaf per symbol, all of them on disk and referenced by the manifest.
    man = ix._load_manifest()
    ids = {s["leaf"] for f in man["files"].values() for s in f["symbols"]}
    on_disk = {p.stem for p in ix.store.iter_leaf_paths()}
    assert ids == on_disk
    names = {s["name"] for s in man["files"]["shop/pricing.py"]["symbols"]}
    assert {"apply_discount", "shipping_cost", "Basket.add_item", "Basket.total_price"} <= names


def test_edit_is_seen_and_old_code_is_gone(index: ProjectIndex, project: Path) -> None:
    before = index.find_code("apply_discount")
    assert "round(price * (1 - percent / 100), 2)" in before
    _write(project, "shop/pricing.py",
           PRICING.replace("round(price * (1 - percent / 100), 2)",
                           "max(0.0, round(price - price * percent / 100, 2))"), age=None)
    rep = index.sync()
    assert rep.hashed == 1 and rep.reindexed == 1 and rep.added == 0
    after = index.find_code("apply_discount")
    assert "max(0.0, round(price - price * percent / 100, 2))" in after
    assert "round(price * (1 - percent / 100), 2)" not in after
    man = index._load_manifest()
    ids = {s["leaf"] for f in man["files"].values() for s in f["symbols"]}
    assert ids == {p.stem for p in index.store.iter_leaf_paths()}  # stale leaves deleted


def test_quick_edit_keeping_size_and_mtime_is_still_seen(project: Path, tmp_path: Path) -> None:
    """A file changed in the same clock tick as the scan (same size, same mtime) is hashed
    again on the next sync, as git does for 'racily clean' files."""
    p = _write(project, "shop/flags.py", "def flag():\n    return 'AAAA'\n", age=None)
    ix = ProjectIndex(project, tmp_path / "projects")
    ix.sync()
    st = p.stat()
    p.write_text("def flag():\n    return 'BBBB'\n", encoding="utf-8")
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert "BBBB" in ix.find_code("flag")


def test_add_delete_rename(index: ProjectIndex, project: Path) -> None:
    _write(project, "shop/returns.py", "def refund_order(order_id: str) -> bool:\n"
                                       "    return bool(order_id)\n", age=None)
    rep = index.sync()
    assert rep.added == 1 and rep.reindexed == 1 and rep.hashed == 1
    assert index.find_code("refund_order").startswith("shop/returns.py:1-2 refund_order")

    os.rename(project / "shop/returns.py", project / "shop/refunds.py")
    rep = index.sync()
    assert rep.removed == 1 and rep.added == 1
    assert index.find_code("refund_order").startswith("shop/refunds.py:1-2 refund_order")
    assert "shop/returns.py" not in index.project_map()

    (project / "shop/refunds.py").unlink()
    rep = index.sync()
    assert rep.removed == 1 and rep.leaves_deleted >= 1
    assert index.find_code("refund_order").startswith("NOT FOUND")
    man = index._load_manifest()
    assert not [p for p in man["files"] if "refund" in p]
    ids = {s["leaf"] for f in man["files"].values() for s in f["symbols"]}
    assert ids == {p.stem for p in index.store.iter_leaf_paths()}


def test_one_changed_file_costs_one_file_and_few_branches(tmp_path: Path) -> None:
    root = tmp_path / "big"
    for i in range(60):
        funcs = "\n\n".join(f"def func_{i}_{j}(x):\n    return x + {i * 10 + j}\n"
                            for j in range(6))
        _write(root, f"pkg/mod_{i:03d}.py", funcs)
    ix = ProjectIndex(root, tmp_path / "projects")
    cold = ix.sync()
    assert cold.branches_written > 20
    _write(root, "pkg/mod_030.py", (root / "pkg/mod_030.py").read_text()
           .replace("return x + 300", "return x * 300"), age=None)
    rep = ix.sync()
    assert rep.hashed == 1 and rep.reindexed == 1
    assert rep.branches_written <= 8 and rep.branches_kept > 20
    assert "return x * 300" in ix.find_code("func_30_0")
    # The tree is still complete: every leaf reachable through the descent.
    assert ix.mem.stats()["leaves"] == 360
    # More edits, an addition and a removal: the incrementally maintained tree is the very
    # tree a cold index of the same files builds (same branch ids, same trunk).
    _write(root, "pkg/mod_000.py", "def first_again(x):\n    return x\n", age=None)
    _write(root, "pkg/mod_100.py", "def appended(x):\n    return -x\n", age=None)
    (root / "pkg/mod_045.py").unlink()
    ix.sync()
    cold_ix = ProjectIndex(root, tmp_path / "projects-cold")
    cold_ix.sync()
    top = [e["id"] for e in ix.store.root()["top"]]
    assert top == [e["id"] for e in cold_ix.store.root()["top"]]
    assert sorted(p.name for p in ix.store.iter_branch_paths()) == sorted(
        p.name for p in cold_ix.store.iter_branch_paths())
    assert ix.store.root()["total_len"] == cold_ix.store.root()["total_len"]


def test_damaged_manifest_reindexes_without_orphans(index: ProjectIndex) -> None:
    index.manifest_path.write_text("{not json", encoding="utf-8")
    rep = index.sync()
    assert rep.reindexed == 5
    man = index._load_manifest()
    ids = {s["leaf"] for f in man["files"].values() for s in f["symbols"]}
    assert ids == {p.stem for p in index.store.iter_leaf_paths()}
    assert index.find_code("restock").startswith("src/main/java/shop/InventoryService.java:")


def test_binary_and_oversized_sources_are_skipped(project: Path, tmp_path: Path) -> None:
    (project / "shop/blob.py").write_bytes(b"\x00\x01binary")
    _write(project, "shop/huge.py", "X = 1\n" * 50)
    ix = ProjectIndex(project, tmp_path / "projects", max_file_bytes=200)
    rep = ix.sync()
    assert any("blob.py" in s for s in rep.skipped)
    assert any("huge.py" in s for s in rep.skipped)


def test_missing_project_folder(tmp_path: Path) -> None:
    with pytest.raises(NotFoundError):
        ProjectIndex(tmp_path / "nope", tmp_path / "projects")


# ---------------------------------------------------------------------- find_code
def test_symbol_spans_are_byte_exact(index: ProjectIndex, project: Path) -> None:
    man = index._load_manifest()
    for rel, f in man["files"].items():
        for s in f["symbols"]:
            leaf = index.store.read_leaf(s["leaf"])
            assert leaf.text == _lines(project, rel, s["start"], s["end"]), (rel, s["name"])
    path, first, last, code = _first_code(index.find_code("total_price of the Basket"))
    assert path == "shop/pricing.py"
    assert code == _lines(project, path, first, last)
    assert "def total_price" in code


def test_named_file_wins(index: ProjectIndex) -> None:
    out = index.find_code("reserve stock in InventoryService.java")
    assert out.startswith("src/main/java/shop/InventoryService.java:")
    assert "InventoryService.reserveStock (method)" in out.split("\n", 1)[0]
    assert "public Optional<String> reserveStock" in out


def test_tests_are_skipped_unless_asked(index: ProjectIndex) -> None:
    main = index.find_code("test_apply_discount")
    assert main.startswith("(a closer match is in test code: tests/test_pricing.py:")
    assert "scope='all'" in main
    only_tests = index.find_code("apply discount", scope="test")
    assert only_tests.startswith("tests/test_pricing.py:")
    every = index.find_code("shipping_cost_fixture", scope="all")
    assert every.startswith("tests/test_pricing.py:")
    assert index.find_code("apply_discount", scope="main").startswith("shop/pricing.py:")


def test_subpath_filter(index: ProjectIndex) -> None:
    out = index.find_code("normalize_sku", subpath="shop/b")
    assert out.startswith("shop/b/util.py:1-2 normalize_sku")
    assert index.find_code("apply_discount", subpath="src/").startswith("NOT FOUND")
    with pytest.raises(InputError):
        index.find_code("x", subpath="../etc")


def test_tie_is_ambiguous_and_a_clue_or_file_resolves_it(index: ProjectIndex) -> None:
    out = index.find_code("normalize_sku")
    assert out.startswith("AMBIGUOUS")
    assert "shop/a/util.py:1-2 normalize_sku" in out and "shop/b/util.py:1-2" in out
    assert "clue=" in out
    assert index.find_code("normalize_sku", clue="b").startswith("shop/b/util.py")
    assert index.find_code("normalize_sku in shop/a/util.py").startswith("shop/a/util.py")


def test_imports_are_demoted(index: ProjectIndex) -> None:
    out = index.find_code("Optional reserveStock")
    assert "(imports)" not in out.split("\n", 1)[0]


def test_not_found_and_bad_arguments(index: ProjectIndex) -> None:
    assert index.find_code("quantum entanglement teleporter").startswith("NOT FOUND")
    with pytest.raises(InputError):
        index.find_code("   ")
    with pytest.raises(InputError):
        index.find_code("x", scope="everything")


def test_budget_truncates_with_a_pointer_to_the_rest(index: ProjectIndex) -> None:
    out = index.find_code("reserveStock", max_tokens=60)
    assert "truncated" in out and "read_file(" in out
    assert len(out) < 60 * 4 + 200


# ---------------------------------------------------------------------- project_map
def test_project_map_from_manifest_only(index: ProjectIndex, monkeypatch) -> None:
    def boom(*a, **k):
        raise AssertionError("project_map must not open leaves")

    monkeypatch.setattr(index.store, "read_leaf", boom)
    files = index.project_map()
    lines = files.splitlines()
    assert lines[0].startswith("shop: 5 files")
    assert "shop/pricing.py (" in files and " tok)" in lines[1]
    syms = index.project_map("symbols", subpath="shop/pricing.py")
    assert "  Basket.total_price method " in syms
    assert "  apply_discount function 6-" in syms
    assert "InventoryService" not in syms
    assert index.project_map(subpath="nowhere").startswith("NOT FOUND")
    with pytest.raises(InputError):
        index.project_map("everything")


# ---------------------------------------------------------------------- faces
def test_module_functions_share_one_index(project: Path, tmp_path: Path,
                                          monkeypatch) -> None:
    monkeypatch.setenv("IHMT_PROJECTS_DIR", str(tmp_path / "envprojects"))
    # The project is not below the working folder: a configured root lets it in.
    monkeypatch.setenv("IHMT_ROOTS", str(project))
    rep = sync_project(project)
    assert rep["files"] == 5 and rep["index"].startswith(str(tmp_path / "envprojects"))
    assert open_project(project) is open_project(str(project) + "/")
    assert "shop/pricing.py" in project_map(project)
    out = find_code("restock", project)
    assert out.startswith("src/main/java/shop/InventoryService.java:")
    assert textwrap.dedent("""\
        public void restock(String sku, int quantity) {""") in textwrap.dedent(out)
