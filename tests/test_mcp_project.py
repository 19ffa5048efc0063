"""The project and session tools as an agent sees them: a real server over stdio.

Like ``test_mcp_server.py``, every call goes through ``python -m ihmt.faces.mcp`` and the
SDK's ``ClientSession``, here started *inside* a small temporary project (the agent's
working folder) and with a client that declares one extra workspace root, so the roots
round trip, the read confinement and the per-process session state are exercised for real.
A second, plain client (no roots capability) is a second session: it must see none of the
first one's notes and none of its declared roots.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from mcp.client.session import ClientRequestContext
from mcp.types import INTERNAL_ERROR, ErrorData, ListRootsResult, Root

from .mcp_client import Agent, RootsCallback, running_server, text_of

MEMORY_TOOLS = {"search_memory", "save_memory", "mark_outdated", "forget_memory"}
PROJECT_TOOLS = {"project_map", "find_code", "read_file", "note", "recall", "digest_output"}

INVENTORY = '''\
"""Stock levels of the shop's warehouse."""


class InventoryService:
    """Keeps how many units of each product are on the shelf."""

    def __init__(self) -> None:
        self.levels: dict[str, int] = {}

    def reserve_stock(self, sku: str, quantity: int) -> bool:
        """Take units off the shelf for an order; False when there are not enough."""
        have = self.levels.get(sku, 0)
        if have < quantity:
            return False
        self.levels[sku] = have - quantity
        return True

    def release_stock(self, sku: str, quantity: int) -> None:
        """Put units of a cancelled order back on the shelf."""
        self.levels[sku] = self.levels.get(sku, 0) + quantity


def load_catalog(path: str) -> list[str]:
    """Read one product code per line from a catalog file."""
    with open(path, encoding="utf-8") as handle:
        return [line.strip() for line in handle if line.strip()]
'''

PRICING = '''\
"""Prices are kept in cents to avoid rounding surprises."""


def apply_discount(cents: int, percent: int) -> int:
    """Lower a price by a whole percentage, rounding down to the cent."""
    return cents - cents * percent // 100


def format_price(cents: int) -> str:
    """Show cents as euros with two decimals."""
    return f"{cents // 100}.{cents % 100:02d} EUR"
'''

UTIL = '''\
def parse_date(text: str) -> tuple[int, int, int]:
    """Split an ISO date into year, month and day."""
    year, month, day = text.split("-")
    return int(year), int(month), int(day)
'''

TEST_PRICING = '''\
from shop.pricing import apply_discount


def test_apply_discount() -> None:
    assert apply_discount(1000, 15) == 850
'''


# ---------------------------------------------------------------------- client plumbing
def declaring(*roots: Path) -> RootsCallback:
    """A client's answer to roots/list: these folders as file:// roots."""

    async def list_roots(context: ClientRequestContext) -> ListRootsResult:
        return ListRootsResult(roots=[Root(uri=r.as_uri(), name=r.name) for r in roots])

    return list_roots


async def _refusing(context: ClientRequestContext) -> ErrorData:
    """A client that advertises roots but fails to list them."""
    return ErrorData(code=INTERNAL_ERROR, message="workspace not ready")


def project_server(home: Path, cwd: Path, log: Path, list_roots: RootsCallback | None = None,
                   extra_env: dict[str, str] | None = None) -> AbstractContextManager[Agent]:
    """A server started in ``cwd`` (as an agent starts it in its project) on memory ``home``.

    It gets this process's environment (less IHMT_PROJECTS_DIR) plus ``extra_env``.
    ``list_roots`` is the client's roots/list handler; without it the client does not
    advertise the roots capability at all.
    """
    env = {k: v for k, v in os.environ.items() if k != "IHMT_PROJECTS_DIR"}
    env.update(extra_env or {})
    return running_server(home, log, cwd=cwd, list_roots=list_roots, env=env)


# ---------------------------------------------------------------------- fixtures
@dataclass
class Layout:
    home: Path  # IHMT_HOME of the servers
    project: Path  # the servers' working folder
    shared: Path  # a folder the roots-aware client declares as a workspace root
    outside: Path  # neither: must never be readable


@pytest.fixture(scope="module")
def layout(tmp_path_factory: pytest.TempPathFactory) -> Layout:
    base = tmp_path_factory.mktemp("mcp_project").resolve()
    project = base / "proj"
    for rel, text in {
        "shop/__init__.py": "",
        "shop/inventory.py": INVENTORY,
        "shop/pricing.py": PRICING,
        "shop/a/util.py": UTIL,
        "shop/b/util.py": UTIL,
        "tests/test_pricing.py": TEST_PRICING,
        "notes/todo.txt": "one\ntwo\nthree\n",
    }.items():
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text(text, encoding="utf-8")
    outside = base / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("the launch code is 0000\n", encoding="utf-8")
    (project / "leak.txt").symlink_to(outside / "secret.txt")
    shared = base / "shared docs"  # a space, to check the file:// URI is decoded
    shared.mkdir()
    (shared / "guide.md").write_text("# Guide\nDeploy with `make ship`.\n", encoding="utf-8")
    return Layout(home=base / "home", project=project, shared=shared, outside=outside)


@pytest.fixture(scope="module")
def agent(layout: Layout) -> Iterator[Agent]:
    """The session most tests share: a client that declares ``layout.shared`` as a root."""
    with project_server(layout.home, layout.project, layout.home.parent / "server.log",
                        list_roots=declaring(layout.shared)) as client:
        yield client


# ---------------------------------------------------------------------- listing
def test_lists_all_nine_tools_with_annotations(agent: Agent) -> None:
    tools = agent.tools()
    assert set(tools) == MEMORY_TOOLS | PROJECT_TOOLS
    expected = {  # name: (readOnly, idempotent)
        "project_map": (True, True),
        "find_code": (True, True),
        "read_file": (True, False),
        "note": (False, False),
        "recall": (True, True),
        "digest_output": (False, False),
    }
    for name, (read_only, idempotent) in expected.items():
        hints = tools[name].annotations
        assert hints.read_only_hint is read_only, name
        assert hints.idempotent_hint is idempotent, name
        assert hints.destructive_hint is False, name
        assert hints.open_world_hint is False, name
        assert "Optional helper" in tools[name].description or name == "recall"
    schema = tools["find_code"].input_schema
    assert schema["required"] == ["query", "path"]
    assert schema["properties"]["scope"]["enum"] == ["main", "test", "all"]
    assert tools["project_map"].input_schema["properties"]["detail"]["enum"] == [
        "files", "symbols"]
    # The injected context is not an argument the agent sees.
    assert set(tools["read_file"].input_schema["properties"]) == {
        "path", "force", "start_line", "end_line"}
    for word in ("UNCHANGED", "CHANGED", "force"):
        assert word in tools["read_file"].description
    for word in ("FOUND", "AMBIGUOUS", "NOT FOUND", "clue"):
        assert word in tools["find_code"].description


# ---------------------------------------------------------------------- project index
def test_project_map_shows_files_then_symbols(agent: Agent, layout: Layout) -> None:
    files = agent.text("project_map", path=".")  # relative to the server's working folder
    first, *rest = files.splitlines()
    assert first.startswith("proj: ") and "files" in first
    listed = {line.split(" (")[0] for line in rest}
    assert {"shop/inventory.py", "shop/pricing.py", "tests/test_pricing.py"} <= listed
    assert "reserve_stock" not in files
    symbols = agent.text("project_map", path=str(layout.project), detail="symbols")
    assert "  InventoryService.reserve_stock method 10-17" in symbols
    assert "  apply_discount function 4-" in symbols
    assert "  test_apply_discount function 4-5" in symbols
    narrowed = agent.text("project_map", path=".", detail="symbols", subpath="shop/a")
    assert "parse_date" in narrowed and "inventory" not in narrowed
    # The private index lives under the server's memory folder, not in the project.
    indexes = list((layout.home / "ihmt_projects").iterdir())
    assert [p.name.startswith("proj-") for p in indexes] == [True]
    assert not list(layout.project.glob("ihmt_*"))


def _span(answer: str) -> tuple[str, int, int]:
    where = answer.splitlines()[0].split(" ")[0]
    path, lines = where.rsplit(":", 1)
    first, last = lines.split("-")
    return path, int(first), int(last)


def test_find_code_returns_the_exact_symbol(agent: Agent, layout: Layout) -> None:
    answer = agent.text("find_code", query="reserve_stock", path=".")
    path, first, last = _span(answer)
    assert (path, first, last) == ("shop/inventory.py", 10, 17)
    lines = (layout.project / path).read_text(encoding="utf-8").splitlines(keepends=True)
    assert "".join(lines[first - 1:last]).rstrip("\n") in answer
    assert "load_catalog" not in answer.split("Other candidates")[0]


def test_find_code_scope_separates_tests(agent: Agent) -> None:
    main = agent.text("find_code", query="apply_discount", path=".")
    assert _span(main)[0] == "shop/pricing.py"
    tests = agent.text("find_code", query="apply_discount", path=".", scope="test")
    assert "tests/test_pricing.py:4-5 test_apply_discount" in tests
    assert "assert apply_discount(1000, 15) == 850" in tests
    assert "rounding down to the cent" not in tests


def test_find_code_ambiguous_then_clue_and_not_found(agent: Agent) -> None:
    tied = agent.text("find_code", query="parse_date", path=".")
    assert tied.startswith("AMBIGUOUS")
    assert "shop/a/util.py:1-4" in tied and "shop/b/util.py:1-4" in tied
    chosen = agent.text("find_code", query="parse_date", path=".", clue="b")
    assert _span(chosen)[0] == "shop/b/util.py"
    missing = agent.text("find_code", query="quantum telescope", path=".")
    assert missing.startswith("NOT FOUND")


# ---------------------------------------------------------------------- reading
def test_read_file_sends_once_then_unchanged_diff_and_force(agent: Agent,
                                                           layout: Layout) -> None:
    target = layout.project / "shop" / "scratch.py"
    target.write_text("".join(f"value_{i} = {i}\n" for i in range(40)), encoding="utf-8")
    first = agent.text("read_file", path="shop/scratch.py")
    assert first.startswith("shop/scratch.py (40 lines")
    assert "value_0 = 0\n" in first and "value_39 = 39" in first
    again = agent.text("read_file", path="shop/scratch.py")
    assert again.startswith("UNCHANGED: shop/scratch.py") and "value_" not in again
    text = target.read_text(encoding="utf-8").replace("value_20 = 20", "value_20 = 2000")
    target.write_text(text, encoding="utf-8")
    changed = agent.text("read_file", path=str(target))  # absolute works the same
    assert changed.startswith("CHANGED: shop/scratch.py")
    assert "-value_20 = 20\n" in changed and "+value_20 = 2000" in changed
    assert "value_0 = 0" not in changed  # only the diff's context, not the whole file
    assert agent.text("read_file", path="shop/scratch.py").startswith("UNCHANGED")
    forced = agent.text("read_file", path="shop/scratch.py", force=True)
    assert "value_0 = 0" in forced and "value_20 = 2000" in forced


def test_read_file_line_ranges(agent: Agent) -> None:
    part = agent.text("read_file", path="notes/todo.txt", start_line=2, end_line=3)
    assert part.startswith("notes/todo.txt:2-3") and part.endswith("two\nthree\n")
    assert "one" not in part
    assert agent.text("read_file", path="notes/todo.txt", start_line=2,
                      end_line=3).startswith("UNCHANGED")
    assert "past the end" in agent.error("read_file", path="notes/todo.txt", start_line=9)


@pytest.mark.parametrize(("path", "expected"), [
    ("/etc/hostname", "outside the allowed folders"),
    ("../outside/secret.txt", "outside the allowed folders"),
    ("leak.txt", "symlink"),
    ("shop/missing.py", "no such file"),
    ("shop", "not a regular file"),
])
def test_read_file_refuses_outside_the_project(agent: Agent, path: str, expected: str) -> None:
    message = agent.error("read_file", path=path)
    assert expected in message
    assert "launch code" not in message and "Traceback" not in message
    assert agent.text("read_file", path="shop/pricing.py", force=True).startswith(
        "shop/pricing.py")


def test_client_declared_root_is_readable(agent: Agent, layout: Layout) -> None:
    guide = layout.shared / "guide.md"
    answer = agent.text("read_file", path=str(guide))
    assert "Deploy with `make ship`." in answer
    assert agent.text("read_file", path=str(guide)).startswith("UNCHANGED")
    # Declaring one folder does not open its neighbours.
    assert "outside the allowed" in agent.error("read_file",
                                                path=str(layout.outside / "secret.txt"))


# ---------------------------------------------------------------------- session memory
def test_note_then_recall(agent: Agent) -> None:
    assert agent.text("note", text="The API under test listens on port 8042.").startswith(
        "noted #")
    agent.text("note", text="Build with make ship after setting RELEASE=1.")
    found = agent.text("recall", query="port api")
    assert "8042" in found and "RELEASE" not in found.splitlines()[0]
    assert "RELEASE=1" in agent.text("recall", query="build command release")
    assert agent.text("recall", query="kubernetes helm chart").startswith("NOT FOUND")


def _pytest_log(n: int = 600) -> str:
    lines = ["============================= test session starts ==============================",
             "platform linux -- Python 3.11.9, pytest-8.2.0, pluggy-1.5.0",
             f"collected {n} items", ""]
    lines += [f"tests/test_mod{i // 50}.py::test_case_{i} PASSED{'':>20}[{i * 100 // n:3d}%]"
              for i in range(n - 1)]
    lines += ["tests/test_pay.py::test_refund_rounding FAILED                       [100%]", "",
              "=================================== FAILURES ===================================",
              "____________________________ test_refund_rounding _____________________________",
              "",
              "    def test_refund_rounding():",
              ">       assert refund(1099, 3) == 366",
              "E       assert 367 == 366",
              "E        +  where 367 = refund(1099, 3)",
              "",
              "tests/test_pay.py:42: AssertionError",
              "=========================== short test summary info ============================",
              "FAILED tests/test_pay.py::test_refund_rounding - assert 367 == 366",
              f"======================== 1 failed, {n - 1} passed in 12.34s ========================"]
    return "\n".join(lines) + "\n"


def test_digest_output_keeps_totals_and_failures(agent: Agent) -> None:
    log = _pytest_log()
    digest = agent.text("digest_output", text=log, label="pytest-run")
    assert digest.startswith("DIGEST 'pytest-run'")
    assert "1 failed, 599 passed in 12.34s" in digest
    assert "FAILED tests/test_pay.py::test_refund_rounding - assert 367 == 366" in digest
    assert "E       assert 367 == 366" in digest
    assert len(digest) < len(log) / 5
    whole = agent.text("recall", query="pytest-run")
    assert whole.startswith("#") and "'pytest-run'" in whole.splitlines()[0]
    assert "test_case_1 PASSED" in whole
    by_words = agent.text("recall", query="refund rounding")
    assert "test_refund_rounding" in by_words


# ---------------------------------------------------------------------- errors
@pytest.mark.parametrize(("tool", "arguments", "expected"), [
    ("project_map", {}, "Field required"),
    ("project_map", {"path": 3}, "valid string"),
    ("project_map", {"path": "  "}, "path is empty"),
    ("project_map", {"path": ".", "detail": "everything"}, "'files' or 'symbols'"),
    ("project_map", {"path": "no/such/project/folder"}, "does not exist"),
    ("project_map", {"path": "/no/such/project/folder"}, "outside the allowed folders"),
    ("project_map", {"path": "notes/todo.txt"}, "not a folder"),
    ("project_map", {"path": ".", "subpath": "../x"}, "stay inside the project"),
    ("find_code", {"query": "parse_date"}, "Field required"),
    ("find_code", {"query": "x", "path": ".", "scope": "tests"}, "'main', 'test' or 'all'"),
    ("find_code", {"query": "   ", "path": "."}, "the query is empty"),
    ("find_code", {"query": "parse", "path": ".", "max_tokens": 10}, "greater than or equal"),
    ("find_code", {"query": "parse", "path": ".", "max_tokens": "many"}, "valid integer"),
    ("read_file", {}, "Field required"),
    ("read_file", {"path": ["shop/pricing.py"]}, "valid string"),
    ("read_file", {"path": "shop/pricing.py", "start_line": -1}, "greater than or equal to 0"),
    ("read_file", {"path": "shop/pricing.py", "end_line": -5}, "greater than or equal to 0"),
    ("read_file", {"path": "shop/pricing.py", "start_line": 5, "end_line": 2}, "before"),
    ("read_file", {"path": "shop/pricing.py", "force": "perhaps"}, "valid boolean"),
    ("note", {}, "Field required"),
    ("note", {"text": "   "}, "the note is empty"),
    ("recall", {"query": ""}, "the query is empty"),
    ("digest_output", {"text": {"a": 1}}, "valid string"),
    ("digest_output", {"text": "\n\n"}, "the output is empty"),
])
def test_bad_arguments_are_tool_errors_and_the_server_keeps_serving(
        agent: Agent, tool: str, arguments: dict[str, Any], expected: str) -> None:
    message = agent.error(tool, **arguments)
    assert expected in message
    assert "Traceback" not in message
    assert agent.text("project_map", path=".").startswith("proj: ")


# ---------------------------------------------------------------------- a new session
def test_a_new_session_starts_empty_and_without_declared_roots(agent: Agent,
                                                               layout: Layout) -> None:
    agent.text("note", text="Session one: the staging token lives in vault path kv/stage.")
    with project_server(layout.home, layout.project,
                        layout.home.parent / "server2.log") as fresh:
        assert fresh.text("recall", query="staging vault token").startswith("NOT FOUND")
        # Its own hand-outs start afresh: content, not UNCHANGED.
        assert "apply_discount" in fresh.text("read_file", path="shop/pricing.py")
        # A client without the roots capability reads only below the working folder.
        assert "outside the allowed" in fresh.error("read_file",
                                                    path=str(layout.shared / "guide.md"))
        # Both processes share one project index on disk.
        assert "reserve_stock" in fresh.text("find_code", query="reserve_stock", path=".")
    assert "vault path kv/stage" in agent.text("recall", query="staging vault token")


def test_a_client_that_fails_to_list_roots_still_reads_the_project(layout: Layout) -> None:
    with project_server(layout.home, layout.project, layout.home.parent / "server3.log",
                        list_roots=_refusing) as client:
        assert "reserve_stock" in client.text("read_file", path="shop/inventory.py")
        assert "outside the allowed" in client.error("read_file",
                                                     path=str(layout.shared / "guide.md"))


def test_a_server_started_in_the_home_folder_reads_only_declared_roots(
        layout: Layout, tmp_path: Path) -> None:
    # Launched from the user's home (here a stand-in), the working folder would open
    # ~/.ssh to the model: only the client's declared roots are readable then.
    home = tmp_path.resolve()
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_ed25519").write_text("PRIVATE KEY\n", encoding="utf-8")
    with project_server(layout.home, home, tmp_path / "server4.log",
                        extra_env={"HOME": str(home)}) as bare:
        assert "no folder is allowed" in bare.error("read_file", path=".ssh/id_ed25519")
    with project_server(layout.home, home, tmp_path / "server5.log",
                        list_roots=declaring(layout.project),
                        extra_env={"HOME": str(home)}) as rooted:
        assert "PRIVATE KEY" not in text_of(rooted.call("read_file", path=".ssh/id_ed25519"))
        # Relative paths now resolve against the first declared root.
        assert "apply_discount" in rooted.text("read_file", path="shop/pricing.py")
