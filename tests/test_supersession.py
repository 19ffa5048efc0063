"""Implicit supersession: a later statement of the same subject and attribute retires the
earlier one, without ``replaces``; unrelated statements never retire each other."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ihmt import Memory
from ihmt.model import Fact
from ihmt.render import compact_answer
from ihmt.timeline.facts import FactTimeline
from ihmt.timeline.supersede import find_statements, version_links
from ihmt.timeline.versions import asked_version

from .mcp_client import running_server

OKTA = "The login provider of Dylumou is Okta."
KEYCLOAK = "Dylumou switched its login provider to Keycloak."


BACKGROUND = [  # other memories, so that word weights are those of a real store
    "We chose Postgres for billing because invoices need transactions.",
    "The staging cluster runs Kubernetes; deploys go out on Tuesdays.",
    "Marta prefers small pull requests with a ticket id in the title.",
    "Post-mortem: the nightly export overlapped with the backup window.",
    "The mobile team ships a release every second Thursday.",
    "Luis set up the Grafana dashboards for the checkout service.",
]


@pytest.fixture
def mem(tmp_path: Path) -> Memory:
    m = Memory.open(tmp_path / "ihmt_memory", create=True, config={"branch_factor": 4})
    for i, text in enumerate(BACKGROUND):
        m.save(text, date=f"2025-0{i + 1}-01")
    return m


def _triples(text: str) -> list[tuple[str, str, str]]:
    return [(s.subject, s.attribute, s.value) for s in find_statements(text)]


# ----------------------------------------------------------------------------- the detector

@pytest.mark.parametrize(("text", "expected"), [
    (OKTA, ("dylumou", "login provider", "Okta")),
    (KEYCLOAK, ("dylumou", "login provider", "Keycloak")),
    ("As of today, Dylumou uses Auth0 for sign-in.", ("dylumou", "login provider", "Auth0")),
    ("Dylumou has finally switched its login provider from Okta to Keycloak.",
     ("dylumou", "login provider", "Keycloak")),
    ("Zorbit's rate limit is 250 requests per second.",
     ("zorbit", "rate limit", "250 requests per second")),
    ("Zorbit rate limit is now 400 requests per second, after the load test.",
     ("zorbit", "rate limit", "400 requests per second")),
    ("We raised Zorbit's rate limit to 900 requests per second.",
     ("zorbit", "rate limit", "900 requests per second")),
    ("The backup schedule of the Quasar ledger service is every night at 01:15.",
     ("quasar ledger", "backup schedule", "every night at 01:15")),
    ("Priya Patel now owns Zorbit.", ("zorbit", "owner", "Priya Patel")),
    ("Ownership of Zorbit went from Priya Patel to Omar Haddad in June.",
     ("zorbit", "owner", "Omar Haddad")),
    ("Zorbit is owned by Lena Kovacs.", ("zorbit", "owner", "Lena Kovacs")),
    ("The Quasar API listens on port 8443.", ("quasar api", "port", "8443")),
    ("Zorbit runs on Kubernetes 1.29 since the spring.", ("zorbit", "version", "Kubernetes 1.29")),
    ("Zorbit runs on host build-07.", ("zorbit", "host", "build-07")),
    ("Marta Ruiz se mudó a Bilbao.", ("marta ruiz", "city", "Bilbao")),
    ("Omar Haddad relocated to Lisbon last year.", ("omar haddad", "city", "Lisbon")),
    ("El proveedor de login de Dylumou es Okta.", ("dylumou", "login provider", "Okta")),
    ("Dylumou cambió su proveedor de login a Keycloak.",
     ("dylumou", "login provider", "Keycloak")),
    ("La base de datos del proyecto Zorbit está en pg-eu-3.", ("zorbit", "database", "pg-eu-3")),
    ("Lena Kovacs is the tech lead of Zorbit.", ("zorbit", "tech lead", "Lena Kovacs")),
])
def test_statements_in_natural_phrasing(text: str, expected: tuple[str, str, str]) -> None:
    assert expected in _triples(text)


@pytest.mark.parametrize("text", [
    "What is Dylumou's current login provider?",
    "Is the login provider of Dylumou still Okta?",
    "¿El proveedor de login de Dylumou es Okta?",
    "The login provider of Dylumou is not Keycloak.",
    "Dylumou no longer uses Okta for login.",
    "Dylumou doesn't use Keycloak for login.",
    "We might switch Dylumou's login provider to Keycloak.",
    "Dylumou might switch its login provider to Keycloak.",
    "If Dylumou switched its login provider to Keycloak, we would need new tokens.",
    "We plan to raise Zorbit's rate limit to 500 requests per second next quarter.",
    "Dylumou switched its login provider to Keycloak next month.",
    "Maybe the owner of Zorbit is Lena Kovacs.",
    "I think Dylumou's login provider is Okta.",
    "Dylumou used to use Okta for login.",
    "Dylumou's old login provider was Okta.",
    "The billing service listens on port 9090.",  # no name: not an entity
    "Local dev: the email-digest API listens on port 9200.",
    "Ana Smith moved to the Dylumou team.",
    "The one about Dylumou is here.",
])
def test_no_statement_from_questions_negations_plans_or_unnamed_subjects(text: str) -> None:
    assert _triples(text) == []


def test_version_links_skip_confirmations() -> None:
    f = [Fact("x", "port", v, d, s) for v, d, s in [
        ("8080", "2026-01-01", "a"), ("8080", "2026-02-01", "b"), ("9090", "2026-03-01", "c"),
        ("9090.", "2026-04-01", "d"), ("7070", "2026-05-01", "e")]]
    assert version_links(f) == [("a", "c", "2026-03-01"), ("b", "c", "2026-03-01"),
                                ("c", "e", "2026-05-01"), ("d", "e", "2026-05-01")]


# ----------------------------------------------------------------------------- false links

SUBJECTS = ["Dylumou", "Zorbit", "the Quasar ledger service", "Kestrel", "the Tamarind app",
            "Borealis", "Project Nandu", "the Ostrava gateway", "Wren", "Halvard"]
ATTRIBUTES = {
    "login provider": (["Okta", "Keycloak", "Auth0", "Cognito"],
                       ["The login provider of {s} is {v}.", "{S} uses {v} for login."]),
    "rate limit": (["100 requests per minute", "250 requests per minute", "1000 per hour"],
                   ["The rate limit of {s} is {v}.", "{S}'s rate limit is {v}."]),
    "backup schedule": (["every night at 02:00", "hourly", "weekly on Sundays"],
                        ["The backup schedule of {s} is {v}.",
                         "{S} moved its backup schedule to {v}."]),
    "port": (["8080", "9443", "5432"], ["{S} listens on port {v}.", "{S} now uses port {v}."]),
    "owner": (["Priya Patel", "Omar Haddad", "Lena Kovacs"],
              ["{v} owns {s}.", "Ownership of {s} passed to {v}."]),
    "version": (["Python 3.12", "Go 1.22", "Node 20.11"],
                ["{S} runs on {v}.", "Upgraded {s} to {v}."]),
    "database": (["pg-eu-3", "db-us-12", "mysql-ap-4"],
                 ["The database behind {s} is on {v}.", "The database of {s} is {v}."]),
    "tech lead": (["Marta Ruiz", "Liam Byrne"], ["{v} is the tech lead of {s}."]),
}


def _say(template: str, subject: str, value: str) -> str:
    upper = subject[:1].upper() + subject[1:]
    return template.format(s=subject, S=upper, v=value)


_NAMES = [p + q for p in ["Dy", "Zor", "Qua", "Kes", "Tam", "Bor", "Nan", "Ost", "Wre",
                            "Hal", "Vel", "Mir", "Sor", "Tev", "Cal", "Fen", "Gri", "Lum",
                            "Pax", "Rud"]
          for q in ["lumou", "bit", "sar", "trel", "rind", "ealis", "du", "rava", "nix", "vard"]]


def _subject(i: int) -> str:
    name = _NAMES[i]
    return [name, f"the {name} ledger service", f"Project {name}"][i % 3]


def _unrelated_pairs() -> list[tuple[str, str, str]]:
    """(kind, earlier, later): the same subject with another attribute, or the same attribute
    of another subject, always with different values. Every subject name is used by one
    pair only, so within a kind no two memories share both subject and attribute."""
    pairs: list[tuple[str, str, str]] = []
    attrs = sorted(ATTRIBUTES)
    combos = list(itertools.combinations(attrs, 2))
    for i in range(120):
        a1, a2 = combos[i % len(combos)]
        (v1s, t1s), (v2s, t2s) = ATTRIBUTES[a1], ATTRIBUTES[a2]
        pairs.append(("same subject", _say(t1s[i % len(t1s)], _subject(i), v1s[i % len(v1s)]),
                      _say(t2s[(i + 1) % len(t2s)], _subject(i), v2s[(i + 1) % len(v2s)])))
    for i in range(100):
        values, templates = ATTRIBUTES[attrs[i % len(attrs)]]
        pairs.append(("same attribute",
                      _say(templates[i % len(templates)], _subject(2 * i), values[0]),
                      _say(templates[(i + 1) % len(templates)], _subject(2 * i + 1), values[1])))
    return pairs


TRICKY = [  # (earlier, later): a later memory that must not retire the earlier one
    ("Dylumou listens on port 8080.", "Dylumou's port of call is Lisbon."),
    ("Dylumou listens on port 8080.", "The port of Rotterdam is busy this week."),
    ("The login provider of Dylumou is Okta.", "The login provider of Zorbit is Keycloak."),
    ("The login provider of Dylumou is Okta.", "Dylumou uses Keycloak for its admin console."),
    ("The login provider of Dylumou is Okta.",
     "We might switch Dylumou's login provider to Keycloak."),
    ("The login provider of Dylumou is Okta.", "Is the login provider of Dylumou Keycloak?"),
    ("The login provider of Dylumou is Okta.", "The login provider of Dylumou is not Auth0."),
    ("The login provider of Dylumou is Okta.",
     "Dylumou will switch its login provider to Keycloak next month."),
    ("The login provider of Dylumou is Okta.", "Dylumou's old login provider was Cognito."),
    ("Zorbit's rate limit is 100 requests per minute.",
     "We plan to raise Zorbit's rate limit to 500 requests per minute."),
    ("Zorbit's rate limit is 100 requests per minute.",
     "If Zorbit's rate limit were 500 requests per minute, the batch would finish."),
    ("Zorbit's rate limit is 100 requests per minute.",
     "The rate limit of the Zorbit sandbox is 5 requests per minute."),
    ("Priya Patel owns Zorbit.", "Priya Patel owns the Zorbit runbook."),
    ("Priya Patel owns Zorbit.", "Maybe the owner of Zorbit is Lena Kovacs."),
    ("Ana Smith lives in Madrid.", "Ana Smith moved to the Dylumou team."),
    ("Ana Smith lives in Madrid.", "Ana Lopez lives in Sevilla."),
    ("The billing service listens on port 8080.", "The billing service listens on port 9090."),
    ("El servicio Atlas de billing escucha en el puerto 8080.",
     "¿El servicio Atlas de billing escucha en el puerto 9090?"),
    ("El servicio Atlas de billing escucha en el puerto 8080.",
     "El servicio Atlas de billing no escucha en el puerto 9090."),
    ("The Quasar ledger service runs on Python 3.11.", "The Quasar search service runs on Go 1.22."),
]


def test_the_false_link_corpus_is_large_and_produces_no_link(tmp_path: Path) -> None:
    pairs = _unrelated_pairs() + [("tricky", a, b) for a, b in TRICKY]
    assert len(pairs) >= 200
    assert {k for k, _, _ in pairs} == {"same subject", "same attribute", "tricky"}
    # One store per kind of pair: within it every (subject, attribute) is stated once, so
    # any link would be a false one.
    for kind in ("same subject", "same attribute", "tricky"):
        m = Memory.open(tmp_path / kind.replace(" ", "_"), create=True)
        chosen = [(a, b) for k, a, b in pairs if k == kind]
        with m.bulk():
            for a, b in chosen:
                m.save(a, date="2026-01-01")
                m.save(b, date="2026-06-01")
        assert m.timeline.outdated_map() == {}, kind
        notices = [c for c in m.conflicts() if c.subject not in ("user", "patient")]
        assert notices == [], kind
        assert not any(h.outdated for h in m.search("login provider rate limit port").hits)
    # the generated pairs do state facts: the corpus exercises the detector
    assert sum(bool(find_statements(a)) and bool(find_statements(b))
               for k, a, b in pairs if k != "tricky") == len(pairs) - len(TRICKY)


# ----------------------------------------------------------------------------- through the store

def test_the_dylumou_example_links_the_versions_like_replaces(mem: Memory) -> None:
    old = mem.save(OKTA, date="2026-03-02").ids[0]
    rep = mem.save(KEYCLOAK, date="2026-09-10")
    new = rep.ids[0]
    assert rep.outdated == [old]
    assert rep.notices == ["On 2026-03-02 you said dylumou login provider = 'Okta', but on "
                           "2026-09-10 you updated to 'Keycloak'."]
    assert mem.get(old).extra["superseded_by"] == new  # in the old leaf's own header
    assert mem.timeline.outdated_by(old) == new
    res = mem.search("what is Dylumou's current login provider?")
    assert res.status == "FOUND" and res.best.id == new and not res.best.outdated
    flagged = next(h for h in res.hits if h.id == old)
    assert flagged.outdated and "Keycloak" in flagged.notices[0]
    text = compact_answer(res)
    lines = text.splitlines()
    assert lines[0].startswith("FOUND") and "[2026-09-10]" in lines[0] and lines[1] == KEYCLOAK
    old_line = next(i for i, line in enumerate(lines) if OKTA in line)
    assert "[2026-03-02]" in lines[old_line] and "OUTDATED" in lines[old_line]
    assert lines[old_line + 1].strip().startswith("OUTDATED:")
    assert [f.value for f in mem.timeline.timeline("dylumou", "login provider")] == \
        ["Okta", "Keycloak"]


def test_without_now_the_newest_version_still_comes_first(mem: Memory) -> None:
    mem.save(OKTA, date="2026-03-02")
    new = mem.save(KEYCLOAK, date="2026-09-10").ids[0]
    assert mem.search("Dylumou login provider").best.id == new


def test_a_repeated_value_is_a_confirmation_and_links_nothing(mem: Memory) -> None:
    mem.save(OKTA, date="2026-03-02")
    rep = mem.save("Dylumou uses Okta for login, as before.", date="2026-05-02")
    assert rep.notices == [] and rep.outdated == []
    assert mem.timeline.outdated_map() == {}
    assert not any(h.outdated for h in mem.search("Dylumou login provider Okta").hits)


def test_an_earlier_time_in_the_query_prefers_the_older_version(mem: Memory) -> None:
    old = mem.save(OKTA, date="2026-03-02").ids[0]
    new = mem.save("Dylumou migrated its login provider to Keycloak.", date="2026-09-10").ids[0]
    assert mem.search("Dylumou's login provider in March 2026").best.id == old
    res = mem.search("what was Dylumou's login provider before the migration?")
    assert res.best.id == old and res.best.outdated
    assert [h.id for h in res.hits[:2]] == [old, new]
    assert mem.search("what is Dylumou's login provider now?").best.id == new


def test_a_query_about_something_else_in_an_old_memory_still_finds_it(mem: Memory) -> None:
    old = mem.save(OKTA + " Marta reviewed the SAML metadata.", date="2026-03-02").ids[0]
    mem.save(KEYCLOAK, date="2026-09-10")
    res = mem.search("Marta SAML metadata")
    assert res.best.id == old and res.best.outdated  # found, and flagged


def test_chains_of_four_saved_out_of_order_link_each_version_to_the_next(mem: Memory) -> None:
    texts = [("2026-01-10", "The Quasar ledger service listens on port 8080."),
             ("2026-03-15", "Update: the Quasar ledger service moved to port 8181."),
             ("2026-06-01", "The Quasar ledger service now uses port 8282."),
             ("2026-09-20", "The Quasar ledger service listens on port 8383 after the cutover.")]
    ids = {}
    for i in (3, 0, 2, 1):  # newest first, then the oldest, then the middle ones
        d, t = texts[i]
        ids[i] = mem.save(t, date=d).ids[0]
    marks = mem.timeline.outdated_map()
    assert marks == {ids[0]: ids[1], ids[1]: ids[2], ids[2]: ids[3]}
    assert all(mem.get(ids[i]).extra["superseded_by"] == ids[i + 1] for i in range(3))
    res = mem.search("which port does the Quasar ledger service use now?")
    assert [h.id for h in res.hits[:4]] == [ids[3], ids[2], ids[1], ids[0]]
    assert [h.outdated for h in res.hits[:4]] == [False, True, True, True]


def test_a_question_about_now_naming_the_fact_leads_with_its_current_version(
        mem: Memory) -> None:
    mem.save("The Quasar ledger service runs on Python 3.11.", date="2026-01-10")
    new = mem.save("Upgraded the Quasar ledger service to Go 1.22 after the security advisory.",
                   date="2026-05-02").ids[0]
    mem.save("The launch of the Quasar ledger service slipped: new date is 3 June 2026. The "
             "version notes run long.", date="2026-05-20")
    res = mem.search("what version does the Quasar ledger service run today?")
    assert res.best.id == new and "Go 1.22" in res.best.text
    assert asked_version("which version does Quasar ledger run now", mem.timeline) == new
    assert asked_version("which version does Zorbit run now", mem.timeline) is None
    mem.save("The Quasar API runs on Node 20.", date="2026-02-01")  # another subject ...
    # ... named as specifically: the question is ambiguous, nothing is pinned
    assert asked_version("Quasar ledger or Quasar API version now", mem.timeline) is None


def test_rebuild_derives_the_same_links_from_the_leaves(mem: Memory) -> None:
    mem.save(OKTA, date="2026-03-02")
    mem.save(KEYCLOAK, date="2026-09-10")
    mem.save("Dylumou moved its login provider to Auth0.", date="2026-11-01")
    mem.save("Zorbit's rate limit is 100 requests per minute.", date="2026-01-01")
    mem.save("We raised Zorbit's rate limit to 300 requests per minute.", date="2026-02-01")
    before = mem.timeline.outdated_map()
    assert len(before) == 3
    (mem.path / "state" / "facts.jsonl").unlink()
    mem.rebuild()
    assert mem.timeline.outdated_map() == before
    assert all(mem.timeline.implicit(old) for old in before)
    fresh = Memory.open(mem.path)  # another process sees the same
    assert fresh.timeline.outdated_map() == before


def test_an_explicit_correction_is_never_overridden(mem: Memory) -> None:
    a = mem.save(OKTA, date="2026-03-02").ids[0]
    note = mem.save("Security review of the SSO setup, see the checklist.", date="2026-04-01")
    mem.mark_outdated(a, note.ids[0])
    mem.save(KEYCLOAK, date="2026-09-10")
    assert mem.timeline.outdated_by(a) == note.ids[0] and not mem.timeline.implicit(a)
    mem.rebuild()
    assert mem.timeline.outdated_by(a) == note.ids[0]


def test_bulk_saves_link_versions_too(mem: Memory) -> None:
    with mem.bulk():
        a = mem.save(OKTA, date="2026-03-02").ids[0]
        b = mem.save(KEYCLOAK, date="2026-09-10").ids[0]
    assert mem.timeline.outdated_map() == {a: b}
    assert mem.get(a).extra["superseded_by"] == b


def test_a_save_reads_only_the_keys_it_touches(mem: Memory, monkeypatch) -> None:
    for i in range(20):
        mem.save(f"The login provider of Service{i} is Okta.", date="2026-01-01")

    def whole_log(*a, **k):
        raise AssertionError("a save must not scan the whole timeline")

    for name in ("conflicts", "facts", "active_state", "state_at", "superseded_sources"):
        monkeypatch.setattr(FactTimeline, name, whole_log)
    rep = mem.save("Service7 switched its login provider to Keycloak.", date="2026-02-01")
    assert len(rep.outdated) == 1


# ----------------------------------------------------------------------------- faces

def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ihmt.faces.cli", *args], capture_output=True,
                          text=True, timeout=120)


def test_cli_reports_the_link_and_answers_current_first(tmp_path: Path) -> None:
    store = str(tmp_path / "mem")
    assert _cli("init", "--path", store).returncode == 0
    for i, text in enumerate(BACKGROUND):
        assert _cli("--path", store, "save", text, "--date", f"2025-0{i + 1}-01").returncode == 0
    r = _cli("--path", store, "save", OKTA, "--date", "2026-03-02")
    assert r.returncode == 0 and "OUTDATED" not in r.stdout
    r = _cli("--path", store, "save", KEYCLOAK, "--date", "2026-09-10")
    assert r.returncode == 0, r.stderr
    assert "flagged OUTDATED" in r.stdout and "'Keycloak'" in r.stdout
    r = _cli("--path", store, "search", "what is Dylumou's current login provider?")
    lines = r.stdout.splitlines()
    assert lines[0].startswith("FOUND") and "[2026-09-10]" in lines[0]
    assert any("[2026-03-02]" in line and "OUTDATED" in line for line in lines[2:])
    data = json.loads(_cli("--path", store, "facts", "--json").stdout)
    assert any("Keycloak" in json.dumps(x) for x in data)


def test_mcp_save_relays_the_change_and_search_leads_with_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {"PYTHONPATH": os.environ["PYTHONPATH"]} if os.environ.get("PYTHONPATH") else None
    with running_server(home, tmp_path / "server.log", env=env) as agent:
        for text in BACKGROUND:
            agent.text("save_memory", content=text)
        agent.text("save_memory", content="Zorbit's rate limit is 100 requests per minute.")
        reply = agent.text("save_memory",
                           content="We raised Zorbit's rate limit to 300 requests per minute.")
        assert "Flagged OUTDATED" in reply and "'300 requests per minute'" in reply
        answer = agent.text("search_memory", query="what is Zorbit's rate limit now?")
        lines = answer.splitlines()
        assert lines[0].startswith("FOUND") and "300 requests" in lines[1]
        assert any("100 requests" in line and "OUTDATED" in line for line in lines[2:])
