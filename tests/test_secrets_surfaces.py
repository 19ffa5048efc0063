"""No face prints a value the secrets detector flags, whatever the store holds.

A store may hold secrets: saved with ``"secrets": "off"``, or before the detector knew
their kind. Every way out is tried: the CLI as a subprocess, the MCP server through the
SDK's stdio client, the GUI's API, and the project and session tools on files and logs.
What is stored beside a memory's text (tags, domain, source, the stated fact, a recorded
fact) is screened by the same policy as the text.

Every value is built at run time from a seeded generator: no real key is in this file.
"""

from __future__ import annotations

import json
import random
import string
from pathlib import Path

import pytest

from ihmt import Memory
from ihmt.errors import SecretError

from .mcp_client import running_server, text_of
from .test_cli import ihmt
from .test_gui import AUTH, client_for, home  # noqa: F401 - home is a fixture

RNG = random.Random(20261202)
B62 = string.ascii_letters + string.digits


def _rand(n: int) -> str:
    while True:
        s = "".join(RNG.choice(B62) for _ in range(n))
        if any(c.isdigit() for c in s) and any(c.isupper() for c in s):
            return s


PW_OLD = f"Falcon-{RNG.randrange(1000, 9999)}!"
PW_NEW = f"Harbor-{RNG.randrange(1000, 9999)}#"
TOKEN = "ghp_" + _rand(36)
STRIPE = "sk_live_" + _rand(32)
BEARER = _rand(40)
VALUES = (PW_OLD, PW_NEW, TOKEN, STRIPE, BEARER)


def leaks(text: str) -> list[str]:
    return [v for v in VALUES if v in text]


def make_store(folder: Path) -> Memory:
    """A store that holds secrets on purpose (policy off): a password stated twice (so the
    timeline has a change and OUTDATED notices) and a token in a note."""
    mem = Memory.open(folder, create=True, config={"secrets": "off", "branch_factor": 4})
    mem.save(f"Office wifi: the password is {PW_OLD}", date="2026-01-05",
             states=f"office wifi :: password = {PW_OLD}")
    mem.save(f"CI pushes release tags with the token {TOKEN}", date="2026-02-01")
    for i in range(6):  # enough for branches with titles and summaries
        mem.save(f"Deploy note {i}: CI release tags go out on Tuesdays from the main branch",
                 date=f"2026-02-{10 + i}")
    mem.save(f"Office wifi password changed, it is now {PW_NEW}", date="2026-03-01",
             states=f"office wifi :: password = {PW_NEW}")
    mem.consolidate(force=True)
    return mem


# ---------------------------------------------------------------------- CLI
def test_cli_tree_facts_conflicts_search_never_print_a_secret(tmp_path: Path) -> None:
    store = tmp_path / "s"
    make_store(store).close()
    runs = {
        "tree": ["tree"], "tree --json": ["tree", "--json"], "facts": ["facts"],
        "facts --json": ["facts", "--json"], "conflicts": ["conflicts"],
        "conflicts --json": ["conflicts", "--json"],
        "search": ["search", "office wifi password", "--full"],
        "search --json": ["search", "office wifi password", "--json"],
        "search token": ["search", "CI release tags token", "--full"],
        "forget --query": ["forget", "--query", "release tags token", "--json"],
    }
    for name, args in runs.items():
        r = ihmt("--path", str(store), *args)
        assert r.returncode == 0, (name, r.stderr)
        assert not leaks(r.stdout + r.stderr), (name, r.stdout)
    r = ihmt("--path", str(store), "facts")
    assert "[masked:password]" in r.stdout and "secret" in r.stdout  # said, not hidden
    r = ihmt("--path", str(store), "tree", "--json")
    assert json.loads(r.stdout)["secrets_masked"] >= 1


def test_cli_save_reply_masks_the_notice_it_relays(tmp_path: Path) -> None:
    store = tmp_path / "s"
    make_store(store).close()
    newest = f"Lakehouse-{RNG.randrange(1000, 9999)}%"
    r = ihmt("--path", str(store), "save", "Office wifi password rotated again",
             "--states", f"office wifi :: password = {newest}", "--date", "2026-04-01")
    assert r.returncode == 0, r.stderr
    assert "notice" in r.stdout and not leaks(r.stdout) and newest not in r.stdout


# ---------------------------------------------------------------------- MCP
def test_mcp_search_save_reply_and_notices_are_masked(tmp_path: Path) -> None:
    home_dir = tmp_path / "home"
    make_store(home_dir / "ihmt_memory").close()
    newest = f"Lakehouse-{RNG.randrange(1000, 9999)}%"
    with running_server(home_dir, tmp_path / "server.log") as agent:
        found = agent.call("search_memory", query="office wifi password", detail="full")
        body = text_of(found) + json.dumps(found.structured_content)
        assert "OUTDATED" in body and not leaks(body), body
        token_hit = agent.text("search_memory", query="CI release tags token")
        assert not leaks(token_hit) and "secret masked" in token_hit
        reply = agent.text("save_memory", content="Office wifi password rotated again",
                           states=f"office wifi :: password = {newest}")
        assert "Tell the user" in reply and newest not in reply and not leaks(reply), reply


def test_mcp_project_and_session_tools_mask_what_files_and_logs_hold(tmp_path: Path) -> None:
    home_dir, project = tmp_path / "home", tmp_path / "shop"
    project.mkdir()
    (project / "billing.py").write_text(
        "def charge_customer(amount_cents):\n"
        f"    stripe_key = \"{STRIPE}\"\n"
        "    return post_charge(stripe_key, amount_cents)\n")
    log = "\n".join([f"step {i}: ok" for i in range(200)]
                    + [f"curl -H 'Authorization: Bearer {BEARER}' https://api.example.com",
                       "FAILED test_charge - 401 Unauthorized"])
    with running_server(home_dir, tmp_path / "server.log", cwd=project) as agent:
        code = agent.text("find_code", query="charge_customer", path=str(project))
        assert "charge_customer" in code and STRIPE not in code
        assert "[1 secret masked]" in code, code
        read = agent.text("read_file", path="billing.py")
        assert STRIPE not in read and "[1 secret masked]" in read, read
        digest = agent.text("digest_output", text=log, label="pytest-run")
        assert BEARER not in digest
        full = agent.text("recall", query="pytest-run")
        assert BEARER not in full and "secret masked" in full, full[-300:]
        agent.text("note", text=f"the staging token for now is {TOKEN}")
        noted = agent.text("recall", query="staging token")
        assert TOKEN not in noted and "secret masked" in noted


# ---------------------------------------------------------------------- GUI
def test_gui_leaf_node_tree_search_and_timeline_views_are_masked(tmp_path: Path,
                                                                  home: Path) -> None:  # noqa: F811
    folder = tmp_path / "gui"
    mem = make_store(folder / "ihmt_memory")
    leaf_ids = [k for k in mem.store.catalog() if k.startswith("L-")]
    mem.close()
    client = client_for(folder, home)
    tree = client.get("/api/tree", headers=AUTH)
    assert tree.status_code == 200, tree.text
    bodies = [tree.text]
    for e in tree.json()["children"]:
        if e["kind"] == "branch":
            bodies.append(client.get(f"/api/node?id={e['id']}", headers=AUTH).text)
    for leaf_id in leaf_ids:
        r = client.get(f"/api/leaf?id={leaf_id}", headers=AUTH)
        assert r.status_code == 200, r.text
        bodies.append(r.text)
    bodies.append(client.get("/api/search?q=office+wifi+password", headers=AUTH).text)
    bodies.append(client.get("/api/timeline", headers=AUTH).text)
    assert len(bodies) > len(leaf_ids) + 2
    for body in bodies:
        assert not leaks(body), body[:400]
    assert any("[masked:" in b for b in bodies)


# ---------------------------------------------------------------------- what is stored
@pytest.mark.parametrize("field", ["tags", "domain", "source", "states", "record_fact"])
def test_what_is_stored_beside_the_text_is_screened(tmp_path: Path, field: str) -> None:
    mem = Memory.open(tmp_path / "s", create=True)  # the default policy: refuse
    with pytest.raises(SecretError) as err:
        if field == "tags":
            mem.save("deploy notes for the release", tags=["ci", TOKEN])
        elif field == "domain":
            mem.save("deploy notes for the release", domain=f"work.{TOKEN}")
        elif field == "source":
            mem.ingest_text("deploy notes for the release", source=f"{TOKEN}.md")
        elif field == "states":
            mem.save("the office wifi password changed today",
                     states=f"office wifi :: password = {PW_NEW}")
        else:
            mem.record_fact("office wifi", "password", PW_NEW, "2026-03-01")
    assert not leaks(str(err.value))
    assert mem.stats()["leaves"] == 0 and mem.facts() == []


def test_redact_policy_redacts_tags_and_stated_values(tmp_path: Path) -> None:
    mem = Memory.open(tmp_path / "s", create=True, config={"secrets": "redact"})
    rep = mem.save("the office wifi password changed today", tags=["ci", TOKEN],
                   states=f"office wifi :: password = {PW_NEW}")
    leaf = mem.get(rep.ids[0])
    stored = json.dumps([leaf.tags, leaf.extra, [f.value for f in mem.facts()]])
    assert not leaks(stored) and "REDACTED" in stored
    assert any("redacted" in w for w in rep.warnings)
