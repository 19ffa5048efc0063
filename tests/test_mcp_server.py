"""The MCP server as an agent sees it: a real process over stdio, driven by the SDK client.

Every test talks to ``python -m ihmt.faces.mcp`` through ``mcp.client.stdio.stdio_client``
and ``mcp.ClientSession``, so the tool schemas, the annotations, the error mapping and
stdout hygiene are exercised exactly as Claude Code or Codex would exercise them. Starting
a server costs a couple of seconds (importing the SDK), so one process serves most tests.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ihmt import Memory

from .mcp_client import Agent, running_server

MEMORY_TOOLS = {"search_memory", "save_memory", "mark_outdated", "forget_memory"}
SMALL_LIMIT = 3000  # max_input_bytes of the shared store, to test the size cap cheaply


@pytest.fixture(scope="module")
def agent(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Agent]:
    home = tmp_path_factory.mktemp("ihmt_home")
    # A store created beforehand with a small size cap, as a user's config would set it.
    Memory.initialize(home, max_input_bytes=SMALL_LIMIT).close()
    with running_server(home, home / "server.log") as client:
        yield client


# ---------------------------------------------------------------------- listing
def test_lists_the_memory_tools_with_annotations(agent: Agent) -> None:
    tools = agent.tools()
    assert MEMORY_TOOLS <= set(tools)
    search, save, mark = (tools[n] for n in ("search_memory", "save_memory", "mark_outdated"))
    assert search.annotations.read_only_hint is True
    assert search.annotations.idempotent_hint is True
    assert save.annotations.read_only_hint is False
    assert save.annotations.destructive_hint is False
    assert mark.annotations.read_only_hint is False
    assert mark.annotations.idempotent_hint is True
    for tool in tools.values():
        assert tool.annotations.open_world_hint is False
    # The descriptions tell the agent how to react to each status.
    for word in ("AMBIGUOUS", "NOT FOUND", "OUTDATED", "clue"):
        assert word in search.description
    assert "mark_outdated" in save.description
    assert search.input_schema["required"] == ["query"]
    assert set(save.input_schema["properties"]) == {"content", "domain", "content_type",
                                                    "replaces", "states", "scope"}


# ---------------------------------------------------------------------- answers
def test_save_then_search_finds_it(agent: Agent) -> None:
    saved = agent.text("save_memory", content="We chose Postgres for the billing service "
                                              "because invoices need real transactions.")
    assert saved.startswith("Saved 1 memory in ")
    assert "id L-" in saved and len(saved.splitlines()) <= 4
    again = agent.text("save_memory", content="We chose Postgres for the billing service "
                                              "because invoices need real transactions.")
    assert again.startswith("Already remembered")
    answer = agent.text("search_memory", query="postgres billing invoices")
    assert answer.startswith("FOUND")
    assert "invoices need real transactions" in answer
    assert "id L-" not in answer  # compact answers carry no ids


def test_full_detail_shows_ids_and_paths(agent: Agent) -> None:
    agent.text("save_memory", content="The deploy script lives in ops/deploy_fly.sh and "
                                      "needs the FLY_REGION variable.")
    answer = agent.text("search_memory", query="deploy_fly script FLY_REGION", detail="full")
    assert answer.startswith("FOUND")
    assert "id L-" in answer and "path root" in answer


def test_ambiguous_asks_for_a_clue(agent: Agent) -> None:
    agent.text("save_memory", content="Ambrosio is my brother; he lives in Sevilla and "
                                      "plays the cello.", content_type="generic")
    agent.text("save_memory", content="Ambrosio from the office works on the payments team "
                                      "and drinks cortados.", content_type="generic")
    answer = agent.text("search_memory", query="Ambrosio")
    assert answer.startswith("AMBIGUOUS")
    assert "cello" in answer and "cortados" in answer
    assert "clue" in answer
    chosen = agent.text("search_memory", query="Ambrosio", clue="cello Sevilla")
    assert chosen.startswith("FOUND")
    assert "plays the cello" in chosen.splitlines()[1]


def test_not_found_says_so(agent: Agent) -> None:
    answer = agent.text("search_memory", query="quantum chromodynamics telescope")
    assert answer.startswith("NOT FOUND")


def _id(reply: str) -> str:
    return reply.splitlines()[0].split("id ")[-1].rstrip(".")


def test_replaces_flags_the_old_memory(agent: Agent) -> None:
    old = _id(agent.text("save_memory", content="The team standup is at 09:30 in room Nimbus."))
    reply = agent.text("save_memory", content="The team standup moved to 10:15 in room "
                                              "Cirrus.", replaces="standup at 09:30")
    assert f"Flagged OUTDATED, replaced by this save: {old}" in reply
    answer = agent.text("search_memory", query="team standup room")
    assert answer.startswith("FOUND") and "10:15" in answer.splitlines()[1]
    assert "OUTDATED" in answer


def test_unclear_replaces_lists_candidates_for_mark_outdated(agent: Agent) -> None:
    first = _id(agent.text("save_memory", content="Bernardo works at Acme as a designer.",
                           content_type="generic"))
    second = _id(agent.text("save_memory", content="Bernardo from climbing works at Globex "
                                                    "as an engineer.", content_type="generic"))
    reply = agent.text("save_memory", content="Bernardo now works at Initech.",
                       replaces="Bernardo works")
    new = _id(reply)
    assert "call mark_outdated" in reply and first in reply and second in reply
    assert "old_id is empty" in agent.error("mark_outdated", old_id=" ", new_id=new)
    assert "cannot replace itself" in agent.error("mark_outdated", old_id=new, new_id=new)
    assert "no memory with id" in agent.error("mark_outdated", old_id="L-general-000000000000",
                                              new_id=new)
    done = agent.text("mark_outdated", old_id=first, new_id=new)
    assert done.startswith(f"Marked {first}") and "Acme" in done and "Initech" in done
    answer = agent.text("search_memory", query="Bernardo Acme designer")
    assert "OUTDATED" in answer


# ---------------------------------------------------------------------- errors
@pytest.mark.parametrize(("tool", "arguments", "expected"), [
    ("search_memory", {}, "Field required"),
    ("search_memory", {"query": 12}, "valid string"),
    ("search_memory", {"query": "   "}, "the query is empty"),
    ("search_memory", {"query": "postgres", "detail": "huge"}, "'compact' or 'full'"),
    ("save_memory", {"content": ""}, "nothing to save"),
    ("save_memory", {"content": ["a", "list"]}, "valid string"),
    ("save_memory", {"content": "hello there", "content_type": "poem"}, "content_type"),
    ("save_memory", {"content": "x" * (SMALL_LIMIT + 1)}, "byte limit"),
    ("save_memory", {"content": "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"}, "binary data"),
    ("mark_outdated", {"old_id": "L-general-000000000000"}, "Field required"),
])
def test_errors_are_tool_errors_and_the_server_keeps_serving(
        agent: Agent, tool: str, arguments: dict[str, Any], expected: str) -> None:
    message = agent.error(tool, **arguments)
    assert expected in message
    assert "Traceback" not in message
    # Still serving, and the store is intact.
    assert agent.text("search_memory", query="postgres billing").startswith(
        ("FOUND", "NOT FOUND", "AMBIGUOUS"))


def test_unwritable_store_gives_a_clear_error_on_every_call(tmp_path: Path) -> None:
    # Below a regular file nothing can be created, even by root (tests run as root in CI).
    blocker = tmp_path / "afile"
    blocker.write_text("not a folder")
    home = blocker / "sub"
    with running_server(home, tmp_path / "server.log") as client:
        assert MEMORY_TOOLS <= set(client.tools())  # the server starts anyway
        for _ in range(2):
            message = client.error("save_memory", content="Remember the milk.")
            assert "cannot create the memory folder" in message and str(home) in message
        assert "cannot create" in client.error("search_memory", query="milk")
        # Fixed while the server runs: the next call opens the store.
        blocker.unlink()
        blocker.mkdir()
        assert client.text("save_memory", content="Remember the oat milk.").startswith("Saved")
        assert "oat milk" in client.text("search_memory", query="oat milk")


# ---------------------------------------------------------------------- two processes
def test_two_servers_share_one_store(tmp_path: Path) -> None:
    home = tmp_path / "shared"
    with running_server(home, tmp_path / "a.log") as a, \
            running_server(home, tmp_path / "b.log") as b:
        # Both have the store open (and cached) before either writes.
        assert a.text("search_memory", query="staging database").startswith("NOT FOUND")
        assert b.text("search_memory", query="staging database").startswith("NOT FOUND")
        a.text("save_memory", content="The staging database listens on port 6543, agreed "
                                      "with Marta.")
        found = b.text("search_memory", query="staging database port")
        assert found.startswith("FOUND") and "6543" in found
        b.text("save_memory", content="Kubernetes namespaces follow the pattern team-env, "
                                      "for example billing-prod.")
        found = a.text("search_memory", query="kubernetes namespace pattern")
        assert found.startswith("FOUND") and "billing-prod" in found


# ---------------------------------------------------------------------- forget
def test_forget_memory_removes_it_through_the_real_client(agent: Agent) -> None:
    tool = agent.tools()["forget_memory"]
    assert tool.annotations.destructive_hint is True and tool.annotations.read_only_hint is False
    assert "Cannot be undone" in tool.description
    agent.text("save_memory", content="The quendalix relay listens on port 7141.")
    found = agent.text("search_memory", query="quendalix relay port", detail="full")
    leaf_id = next(w for w in found.replace("(", " ").replace(")", " ").split()
                   if w.startswith("L-"))
    done = agent.text("forget_memory", id=leaf_id)
    assert done.startswith(f"Forgot {leaf_id}") and "quendalix" in done
    after = agent.text("search_memory", query="quendalix relay port", detail="full")
    assert after.startswith("NOT FOUND") and leaf_id not in after
    assert "no memory with id" in agent.error("forget_memory", id=leaf_id)  # already gone
    assert "id is empty" in agent.error("forget_memory", id=" ")
    assert "not a memory id" in agent.error("forget_memory", id="../../etc/passwd")
