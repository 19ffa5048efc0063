"""search_memory's structured content and output schema, and the fixed tool order, as a
client sees them over stdio."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ihmt import Memory

from .mcp_client import Agent, running_server

TOOL_ORDER = ["search_memory", "save_memory", "mark_outdated", "forget_memory", "project_map",
              "find_code",
              "read_file", "note", "recall", "digest_output"]


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("ihmt_home")


@pytest.fixture(scope="module")
def agent(home: Path) -> Iterator[Agent]:
    with Memory.open(home, create=True) as m:
        m.save("The staging server runs on port 8443 behind nginx.", date="2026-01-05")
        m.save("The staging server now runs on port 9443.", date="2026-02-01",
               replaces="staging server port 8443")
        m.save("The cat's name is Miso.", date="2026-03-04")
        m.save("The dog's name is Miso too.", date="2026-03-05")
    with running_server(home, home / "server.log") as client:
        yield client


def test_tools_are_listed_in_a_fixed_order(agent: Agent) -> None:
    listed = agent.portal.call(agent.session.list_tools)
    assert [t.name for t in listed.tools] == TOOL_ORDER


def test_search_publishes_an_output_schema(agent: Agent) -> None:
    schema = agent.tools()["search_memory"].output_schema
    assert schema is not None
    assert set(schema["required"]) == {"status", "confidence", "message", "hits"}
    hit = schema["$defs"]["SearchHitOut"]["properties"]
    assert {"id", "date", "text", "outdated", "notices"} <= set(hit)
    assert agent.tools()["save_memory"].output_schema is None  # plain text only


def test_found_answer_has_structured_content_beside_the_text(agent: Agent, home: Path) -> None:
    res = agent.call("search_memory", query="which port does the staging server run on")
    assert not res.is_error
    text = res.content[0].text
    data = res.structured_content
    assert text.startswith("FOUND") and data["status"] == "FOUND"
    assert data["confidence"] == pytest.approx(float(text.split("confidence ")[1][:4]), abs=0.01)
    best = data["hits"][0]
    assert "9443" in best["text"] and best["date"] == "2026-02-01" and not best["outdated"]
    old = [h for h in data["hits"] if "8443" in h["text"]]
    assert old and old[0]["outdated"] is True
    with Memory.open(home) as m:
        assert m.get(best["id"]).text.startswith("The staging server now runs")


def test_ambiguous_and_not_found_are_structured_too(agent: Agent) -> None:
    amb = agent.call("search_memory", query="miso name").structured_content
    assert amb["status"] == "AMBIGUOUS" and len(amb["hits"]) >= 2
    nf = agent.call("search_memory", query="kubernetes helm chart").structured_content
    assert nf["status"] == "NOT_FOUND"


def test_errors_stay_tool_errors(agent: Agent) -> None:
    assert "empty" in agent.error("search_memory", query="   ")
