"""The local web interface (``ihmt gui``): its API through Starlette's TestClient, then the
page itself end to end in headless Chromium driven by Playwright.

Every test runs against a temporary HOME, so agent configuration files written by the
Set up screen land in a throwaway folder. The browser tests are skipped, with the reason,
when Playwright for Python or Debian's chromium is missing.

``IHMT_SCREENSHOTS=<dir>`` makes the browser tests save a PNG of each screen there.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from ihmt import Memory
from ihmt.faces.demo import DOCS
from ihmt.faces.gui import build_app
from ihmt.faces.gui.app import STATIC_DIR, bind_socket

TOKEN = "test-token-" + "x" * 24
PORT = 8765  # what TestClient puts in the Host header and the ASGI server tuple
BASE = f"http://127.0.0.1:{PORT}"
AUTH = {"X-IHMT-Token": TOKEN}


# ---------------------------------------------------------------------- fixtures
def make_demo_store(folder: Path) -> Path:
    """The demo documents in a small tree: a Luis ambiguity and a Madrid -> Valencia move."""
    mem = Memory.initialize(folder, branch_factor=4, target_tokens=400)
    data = resources.files("ihmt") / "demo_data"
    for name in DOCS:
        mem.ingest_text((data / name).read_text(encoding="utf-8"), source=name)
    mem.flush()
    mem.close()
    return folder


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_demo_store(tmp_path_factory.mktemp("demo"))


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    h = tmp_path / "home"
    for sub in ("projects/shop", "notes", "Documents", ".config"):
        (h / sub).mkdir(parents=True)
    (h / "notes" / "secret.txt").write_text("not for the folder browser")
    monkeypatch.setenv("HOME", str(h))
    monkeypatch.setenv("IHMT_INSTALL_NO_CLI", "1")
    monkeypatch.delenv("IHMT_HOME", raising=False)
    return h


def client_for(folder: Path | None, home: Path) -> TestClient:
    return TestClient(build_app(folder, TOKEN, home=home), base_url=BASE)


@pytest.fixture
def client(demo: Path, home: Path) -> TestClient:
    return client_for(demo, home)


def snapshot(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` with a hash of its bytes."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def leaf_snapshot(folder: Path) -> dict[str, tuple[str, int]]:
    return {str(p): (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
            for p in sorted((folder / "ihmt_memory" / "layer_0").rglob("*.txt"))}


# ---------------------------------------------------------------------- security
def test_api_requires_the_token(client: TestClient) -> None:
    r = client.get("/api/status")
    assert r.status_code == 401 and r.json()["error"] == "token_missing"
    r = client.get("/api/status", headers={"X-IHMT-Token": "wrong-" + "y" * 24})
    assert r.status_code == 403 and r.json()["error"] == "token_invalid"
    assert client.get("/api/status", headers=AUTH).status_code == 200
    assert client.get(f"/api/status?token={TOKEN}").status_code == 200
    for path in ("/api/tree", "/api/search?q=Luis", "/api/fs", "/api/timeline"):
        assert client.get(path).status_code == 401
    r = client.post("/api/store/preview", json={"path": "/tmp"})
    assert r.status_code == 401


def test_foreign_host_is_refused(client: TestClient) -> None:
    for host in ("evil.example", f"evil.example:{PORT}", "127.0.0.1", f"127.0.0.1:{PORT + 1}",
                 f"10.0.0.5:{PORT}"):
        for path in ("/", "/static/app.css", "/api/status"):
            r = client.get(path, headers={**AUTH, "host": host})
            assert r.status_code == 403, (host, path)
            assert r.json()["error"] == "forbidden_host"
    for host in (f"127.0.0.1:{PORT}", f"localhost:{PORT}", f"LOCALHOST:{PORT}"):
        assert client.get("/api/status", headers={**AUTH, "host": host}).status_code == 200


def test_no_cors_and_strict_headers(client: TestClient) -> None:
    # A foreign origin is refused outright now (issue 23), and never given CORS headers.
    r = client.get("/api/status", headers={**AUTH, "origin": "https://evil.example"})
    assert r.status_code == 403
    assert not [k for k in r.headers if k.lower().startswith("access-control-")]
    r = client.get("/api/status", headers=AUTH)
    assert r.status_code == 200
    assert not [k for k in r.headers if k.lower().startswith("access-control-")]
    assert r.headers["cache-control"] == "no-store"
    page = client.get("/")
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert page.headers["referrer-policy"] == "no-referrer"
    assert page.headers["x-frame-options"] == "DENY"
    pre = client.options("/api/status", headers={
        "origin": "https://evil.example", "access-control-request-method": "GET",
        "access-control-request-headers": "x-ihmt-token"})
    assert pre.status_code >= 400
    assert "access-control-allow-origin" not in pre.headers


def test_writes_need_a_json_body_and_no_other_methods(client: TestClient) -> None:
    r = client.post("/api/store/preview", content=b"path=/tmp",
                    headers={**AUTH, "content-type": "application/x-www-form-urlencoded"})
    assert r.status_code == 415
    r = client.post("/api/store/preview", content=b"{nope",
                    headers={**AUTH, "content-type": "application/json"})
    assert r.status_code == 400
    for method in ("PUT", "DELETE", "PATCH"):
        assert client.request(method, "/api/leaf?id=x", headers=AUTH).status_code == 405


def test_static_files_by_exact_name(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and "main.mjs" in page.text
    assert "http://" not in page.text and "https://" not in page.text  # no CDN
    js = client.get("/static/main.mjs")
    assert js.status_code == 200 and js.headers["content-type"].startswith("text/javascript")
    assert client.get("/static/i18n.json").status_code == 200
    assert client.get("/static/../app.py").status_code == 404
    assert client.get("/static/%2e%2e%2fapp.py").status_code == 404
    assert client.get("/static/nothing.mjs").status_code == 404


def test_build_app_refuses_a_short_token(demo: Path, home: Path) -> None:
    from ihmt.errors import InputError

    with pytest.raises(InputError):
        build_app(demo, "short", home=home)


def test_bind_socket_is_loopback_only() -> None:
    sock = bind_socket(0)
    try:
        host, port = sock.getsockname()
        assert host == "127.0.0.1" and port > 0
    finally:
        sock.close()


def test_serve_prints_the_url_and_opens_the_browser(
        demo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import uvicorn

    from ihmt.faces.gui import app as gui_app

    opened: list[str] = []
    served_on: list[tuple[str, int]] = []

    def fake_run(self: Any, sockets: Any = None) -> None:
        served_on.append(sockets[0].getsockname())
        self.started = True
        # The browser opens once the server has started: on the first call keep "serving"
        # until it has (at most 10 s); on the second, which must not open it, for 0.3 s.
        deadline = time.monotonic() + (10 if len(served_on) == 1 else 0.3)
        while not opened and time.monotonic() < deadline:
            time.sleep(0.01)

    monkeypatch.setattr(uvicorn.Server, "run", fake_run)
    monkeypatch.setattr(gui_app.webbrowser, "open", lambda url: opened.append(url))
    gui_app.serve(demo, 0, open_browser=True)
    err = capsys.readouterr().err
    url = re.search(r"http://127\.0\.0\.1:(\d+)/\?token=([\w-]+)", err)
    assert url and served_on == [("127.0.0.1", int(url.group(1)))]
    assert len(url.group(2)) >= 30
    assert opened == [url.group(0)]
    opened.clear()
    gui_app.serve(demo, 0, open_browser=False)
    time.sleep(0.1)
    assert opened == []


def test_serve_refuses_a_busy_port(demo: Path) -> None:
    from ihmt.errors import InputError
    from ihmt.faces.gui.app import serve

    busy = bind_socket(0)
    try:
        with pytest.raises(InputError, match="not available"):
            serve(demo, busy.getsockname()[1], open_browser=False)
    finally:
        busy.close()


# ---------------------------------------------------------------------- reading
def test_status_and_tree(client: TestClient, demo: Path) -> None:
    st = client.get("/api/status", headers=AUTH).json()
    assert st["exists"] is True
    assert st["store_path"] == str(demo / "ihmt_memory")
    assert st["stats"]["leaves"] == 13
    assert [a["agent"] for a in st["agents"]] == ["claude-code", "codex", "opencode"]
    tree = client.get("/api/tree", headers=AUTH).json()
    kinds = {c["kind"] for c in tree["children"]}
    assert kinds == {"leaf", "branch"}
    assert all("tf" not in c and "terms" not in c for c in tree["children"])
    branch = next(c for c in tree["children"] if c["kind"] == "branch" and c["layer"] == 2)
    node = client.get(f"/api/node?id={branch['id']}", headers=AUTH).json()
    assert node["layer"] == 2 and node["children"]
    assert sum(c["n_leaves"] or 1 for c in node["children"]) == branch["n_leaves"]
    assert client.get("/api/node?id=L-personal-nothing", headers=AUTH).status_code == 404
    assert client.get("/api/node?id=N1-x-..%2f..", headers=AUTH).status_code == 404


def test_leaf_text_header_and_notices(client: TestClient) -> None:
    res = client.get("/api/search?q=where do I live", headers=AUTH).json()
    madrid = next(h for h in res["hits"] if "Madrid" in h["excerpt"])
    leaf = client.get(f"/api/leaf?id={madrid['id']}", headers=AUTH).json()
    assert "Vivo en Madrid" in leaf["text"]
    assert leaf["date"] == "2024-03-11" and leaf["source"] == "journal.txt"
    assert leaf["outdated"] is True
    assert any("Valencia" in n for n in leaf["notices"])
    assert client.get("/api/leaf?id=L-personal-000000000000", headers=AUTH).status_code == 404
    assert client.get("/api/leaf?id=../../etc/passwd", headers=AUTH).status_code == 404


def test_search_found_with_full_paths(client: TestClient) -> None:
    res = client.get("/api/search?q=where do I live&k=5", headers=AUTH).json()
    assert res["status"] == "FOUND" and res["confidence"] > 0.5
    assert 0 < res["node_reads"] <= res["total_nodes"]
    assert res["total_leaves"] == 13
    assert "Valencia" in res["hits"][0]["text"]
    top = {c["id"] for c in client.get("/api/tree", headers=AUTH).json()["children"]}
    for h in res["hits"]:  # every path starts at the trunk, even for fact hits
        assert h["path"][0] == "root" and h["path"][1] in top and h["path"][-1] == h["id"]
    assert res["best_path"] == res["hits"][0]["path"]
    assert set(res["visited"]) <= {c for h in res["hits"] for c in h["path"]} | set(
        res["visited"])


def test_search_ambiguous_and_not_found(client: TestClient) -> None:
    res = client.get("/api/search?q=Luis", headers=AUTH).json()
    assert res["status"] == "AMBIGUOUS" and len(res["hits"]) >= 2
    assert "clue" in res["message"]
    assert res["visited"] and res["best_path"][0] == "root"
    res = client.get("/api/search?q=kubernetes helm chart for the staging cluster",
                     headers=AUTH).json()
    assert res["status"] == "NOT_FOUND" and res["message"]
    r = client.get("/api/search?q=", headers=AUTH)
    assert r.status_code == 400 and "empty" in r.json()["message"]


def test_timeline_and_state_at(client: TestClient) -> None:
    tl = client.get("/api/timeline", headers=AUTH).json()
    lanes = {lane["key"]: lane for lane in tl["lanes"]}
    loc = lanes["user::location"]
    assert [(p["value"], p["status"]) for p in loc["periods"]] == [
        ("Madrid", "HISTORICAL"), ("Valencia", "ACTIVE")]
    assert loc["periods"][0]["valid_to"] == "2026-02-03"
    assert any(c["old_value"] == "Madrid" and c["new_value"] == "Valencia"
               for c in tl["conflicts"])
    before = client.get("/api/state?date=2025-01-01", headers=AUTH).json()
    values = {f["key"]: f["value"] for f in before["facts"]}
    assert values["user::location"] == "Madrid"
    after = client.get("/api/state?date=2026-06-01", headers=AUTH).json()
    assert {f["key"]: f["value"] for f in after["facts"]}["user::location"] == "Valencia"
    assert client.get("/api/state?date=yesterday-ish", headers=AUTH).status_code == 400


def test_folder_browser_lists_only_folders(client: TestClient, home: Path,
                                           demo: Path) -> None:
    listing = client.get("/api/fs", headers=AUTH).json()
    assert listing["dir"] == str(home)
    names = [e["name"] for e in listing["entries"]]
    assert names == ["Documents", "notes", "projects"]  # no hidden, no files
    hidden = client.get("/api/fs?hidden=1", headers=AUTH).json()
    assert ".config" in [e["name"] for e in hidden["entries"]]
    notes = client.get(f"/api/fs?dir={home / 'notes'}", headers=AUTH).json()
    assert notes["entries"] == [] and "secret" not in json.dumps(notes)
    parent = client.get(f"/api/fs?dir={demo.parent}", headers=AUTH).json()
    assert any(e["store"] for e in parent["entries"] if e["name"] == demo.name)
    here = client.get(f"/api/fs?dir={demo}", headers=AUTH).json()
    assert here["store"]["exists"] and here["store"]["leaves"] == 13
    assert client.get("/api/fs?dir=relative/path", headers=AUTH).status_code == 400
    assert client.get(f"/api/fs?dir={home / 'nope'}", headers=AUTH).status_code == 404


def test_nothing_reachable_changes_a_leaf(client: TestClient, demo: Path) -> None:
    before = leaf_snapshot(demo)
    tree = client.get("/api/tree", headers=AUTH).json()
    ids = [c["id"] for c in tree["children"]]
    while ids:
        node_id = ids.pop()
        if node_id.startswith("N"):
            ids += [c["id"] for c in
                    client.get(f"/api/node?id={node_id}", headers=AUTH).json()["children"]]
        else:
            assert client.get(f"/api/leaf?id={node_id}", headers=AUTH).status_code == 200
    for q in ("Luis", "where do I live", "reserveStock soft hold", "tortilla"):
        client.get(f"/api/search?q={q}", headers=AUTH)
    client.get("/api/search?q=Luis&clue=escalada", headers=AUTH)
    client.get("/api/timeline", headers=AUTH)
    client.get("/api/state?date=2025-01-01", headers=AUTH)
    client.get("/api/status", headers=AUTH)
    # Choosing the store that is already open writes nothing either.
    assert client.post("/api/store/preview", json={"path": str(demo)},
                       headers=AUTH).json()["exists"] is True
    client.post("/api/store/open", json={"path": str(demo)}, headers=AUTH)
    assert leaf_snapshot(demo) == before


def test_no_store_yet(home: Path) -> None:
    c = client_for(home / "empty", home)
    st = c.get("/api/status", headers=AUTH).json()
    assert st["exists"] is False and "stats" not in st
    r = c.get("/api/tree", headers=AUTH)
    assert r.status_code == 409 and r.json()["error"] == "no_store"
    assert not (home / "empty").exists()


def test_default_memory_is_under_home(home: Path) -> None:
    st = client_for(None, home).get("/api/status", headers=AUTH).json()
    assert st["store_path"] == str(home / ".ihmt" / "ihmt_memory")


# ---------------------------------------------------------------------- writing
def test_create_store_only_after_confirm(home: Path) -> None:
    c = client_for(home / "unused", home)
    target = home / "Documents" / "memory"
    before = snapshot(home)
    pre = c.post("/api/store/preview", json={"path": str(target)}, headers=AUTH).json()
    assert pre["exists"] is False and pre["plan_id"]
    assert str(target / "ihmt_memory" / "root.json") in pre["creates"]
    assert snapshot(home) == before and not target.exists()
    assert c.post("/api/store/create", json={"plan_id": "made-up"},
                  headers=AUTH).status_code == 404
    assert not target.exists()
    done = c.post("/api/store/create", json={"plan_id": pre["plan_id"]}, headers=AUTH)
    assert done.status_code == 200 and done.json()["created"] is True
    assert (target / "ihmt_memory" / "root.json").is_file()
    again = c.post("/api/store/create", json={"plan_id": pre["plan_id"]}, headers=AUTH)
    assert again.status_code == 404  # a preview is confirmed once
    st = c.get("/api/status", headers=AUTH).json()
    assert st["exists"] and st["store_path"] == str(target / "ihmt_memory")
    assert st["memory_home"] == str(target)
    assert c.post("/api/store/preview", json={"path": "relative"},
                  headers=AUTH).status_code == 400


def test_open_switches_to_another_store(demo: Path, home: Path) -> None:
    c = client_for(home / "unused", home)
    assert c.get("/api/status", headers=AUTH).json()["exists"] is False
    assert c.post("/api/store/open", json={"path": str(home / "notes")},
                  headers=AUTH).status_code == 404
    r = c.post("/api/store/open", json={"path": str(demo)}, headers=AUTH)
    assert r.status_code == 200
    assert c.get("/api/status", headers=AUTH).json()["stats"]["leaves"] == 13


def test_register_agent_only_after_confirm(demo: Path, home: Path) -> None:
    c = client_for(demo, home)
    before = snapshot(home)
    pre = c.post("/api/setup/preview", json={"agent": "codex", "scope": "user"},
                 headers=AUTH).json()
    changes = {ch["what"]: ch for ch in pre["result"]["changes"]}
    entry = changes["mcp entry"]
    assert entry["action"] == "create" and entry["path"] == str(home / ".codex/config.toml")
    assert "[mcp_servers.ihmt-memory]" in entry["diff"] and str(demo) in entry["diff"]
    assert changes["instructions"]["path"] == str(home / ".codex/AGENTS.md")
    assert pre["result"]["dry_run"] is True
    assert snapshot(home) == before  # the preview wrote nothing
    applied = c.post("/api/setup/apply", json={"plan_id": pre["plan_id"]}, headers=AUTH)
    assert applied.status_code == 200, applied.text
    config = (home / ".codex" / "config.toml").read_text()
    assert "ihmt-memory" in config and f'IHMT_HOME = "{demo}"' in config
    assert "ihmt-memory:begin" in (home / ".codex" / "AGENTS.md").read_text()
    assert c.post("/api/setup/apply", json={"plan_id": pre["plan_id"]},
                  headers=AUTH).status_code == 404
    st = c.get("/api/status", headers=AUTH).json()
    codex = next(a for a in st["agents"] if a["agent"] == "codex")
    assert codex["registrations"] and codex["registrations"][0]["scope"] == "user"
    again = c.post("/api/setup/preview", json={"agent": "codex", "scope": "user"},
                   headers=AUTH).json()
    assert again["result"]["changed"] is False


def test_register_for_one_project(demo: Path, home: Path) -> None:
    c = client_for(demo, home)
    project = home / "projects" / "shop"
    r = c.post("/api/setup/preview", json={"agent": "opencode", "scope": "project"},
               headers=AUTH)
    assert r.status_code == 400  # the project folder is required
    pre = c.post("/api/setup/preview", json={"agent": "opencode", "scope": "project",
                                             "project": str(project)}, headers=AUTH).json()
    assert not (project / "opencode.json").exists()
    c.post("/api/setup/apply", json={"plan_id": pre["plan_id"]}, headers=AUTH)
    data = json.loads((project / "opencode.json").read_text())
    assert data["mcp"]["ihmt-memory"]["environment"]["IHMT_HOME"] == str(demo)
    assert not (home / ".config" / "opencode").exists()


def test_apply_refuses_when_files_changed_since_preview(demo: Path, home: Path) -> None:
    c = client_for(demo, home)
    cfg = home / ".claude.json"
    cfg.write_text('{"theme": "dark"}\n')
    pre = c.post("/api/setup/preview", json={"agent": "claude-code", "scope": "user"},
                 headers=AUTH).json()
    cfg.write_text('{"theme": "light"}\n')
    r = c.post("/api/setup/apply", json={"plan_id": pre["plan_id"]}, headers=AUTH)
    assert r.status_code == 409 and r.json()["error"] == "plan_changed"
    assert cfg.read_text() == '{"theme": "light"}\n'
    assert not (home / ".claude").exists()


def test_bad_setup_requests(client: TestClient) -> None:
    for body in ({"agent": "cursor", "scope": "user"}, {"agent": "codex", "scope": "global"},
                 {"agent": "codex", "scope": "project", "project": "relative"}):
        assert client.post("/api/setup/preview", json=body, headers=AUTH).status_code == 400
    r = client.post("/api/setup/apply", json={"plan_id": None}, headers=AUTH)
    assert r.status_code == 404


# ---------------------------------------------------------------------- translations
def _static_text() -> str:
    return "\n".join(p.read_text("utf-8") for p in sorted(STATIC_DIR.iterdir())
                     if p.suffix in (".html", ".mjs"))


def test_every_string_is_translated() -> None:
    strings = json.loads((STATIC_DIR / "i18n.json").read_text("utf-8"))
    en, es = strings["en"], strings["es"]
    assert set(en) == set(es)
    for key, value in en.items():
        assert value != es[key], f"{key} reads the same in English and Spanish"
        assert type(value) is type(es[key])
    text = _static_text()
    used = set(re.findall(r"data-i18n(?:-placeholder|-title|-aria-label)?=\"([\w.]+)\"", text))
    used |= set(re.findall(r"\b(?:i18n|title_i18n|tr|toast|t)\s*[:(]\s*'([\w.]+)'", text))
    used |= {f"status.{s}" for s in ("FOUND", "AMBIGUOUS", "NOT_FOUND")}
    used |= {f"action.{a}" for a in ("create", "update", "delete", "run", "unchanged")}
    used |= {f"setup.registered_{s}" for s in ("user", "project", "local")}
    used |= {f"timeline.status_{s}" for s in ("ACTIVE", "HISTORICAL")}
    missing = sorted(k for k in used if k not in en and k != "some.key")
    assert not missing, missing


# ---------------------------------------------------------------------- in a real browser
try:
    from playwright.sync_api import Browser, Page, sync_playwright
except ImportError:  # pragma: no cover - depends on the machine
    sync_playwright = None  # type: ignore[assignment]

CHROMIUM = shutil.which("chromium") or (
    "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
needs_browser = pytest.mark.skipif(
    sync_playwright is None or CHROMIUM is None,
    reason="browser tests need Playwright for Python (pip install playwright) and Debian's "
           "chromium (apt-get install -y chromium); do not run 'playwright install'")
SHOTS = os.environ.get("IHMT_SCREENSHOTS")


@contextlib.contextmanager
def served(app: Any) -> Iterator[str]:
    """Run ``app`` with uvicorn on a free 127.0.0.1 port in a background thread."""
    import uvicorn

    sock = bind_socket(0)
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False,
                                           lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@contextlib.contextmanager
def short_home() -> Iterator[Path]:
    """A temporary HOME with a short path, so screenshots show readable paths."""
    with tempfile.TemporaryDirectory(prefix="ihmt-") as tmp:
        home = Path(tmp) / "home"
        for sub in ("projects/shop", "notes", "Documents"):
            (home / sub).mkdir(parents=True)
        yield home


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with short_home() as home:
        make_demo_store(home / ".ihmt")
        with served(build_app(home / ".ihmt", TOKEN, home=home)) as url:
            yield url


def open_page(browser: Browser, url: str, tab: str = "explore", lang: str = "en") -> Page:
    ctx = browser.new_context(viewport={"width": 1360, "height": 900}, locale="en-US")
    page = ctx.new_page()
    page.set_default_timeout(10_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error"
            and not m.text.startswith("Failed to load resource") else None)
    page._ihmt_errors = errors  # type: ignore[attr-defined]
    pending: set[Any] = set()  # requests the page has sent and not had answered yet
    page.on("request", lambda r: pending.add(r))
    page.on("requestfinished", lambda r: pending.discard(r))
    page.on("requestfailed", lambda r: pending.discard(r))
    page._ihmt_pending = pending  # type: ignore[attr-defined]
    page.add_init_script("if (!localStorage.getItem('ihmt.lang')) "
                         f"localStorage.setItem('ihmt.lang', '{lang}')")
    page.goto(f"{url}/?token={TOKEN}#{tab}")
    page.wait_for_selector("body[data-ready=true]")
    return page


def quiet(page: Page, for_ms: int = 300, within_s: float = 20) -> None:
    """Wait until no request of the page has been in flight for ``for_ms``: every answer
    asked for so far has arrived and had that long to be painted."""
    pending = page._ihmt_pending  # type: ignore[attr-defined]
    deadline = time.monotonic() + within_s
    still = 0
    while still < for_ms:
        if time.monotonic() > deadline:
            raise AssertionError(f"requests still in flight: {[r.url for r in pending]}")
        page.wait_for_timeout(20)  # lets the request events arrive
        still = 0 if pending else still + 20


def shoot(page: Page, name: str) -> None:
    if not SHOTS:
        return
    out = Path(SHOTS)
    out.mkdir(parents=True, exist_ok=True)
    page.evaluate("window.scrollTo(0, 0); document.getElementById('toast').hidden = true")
    page.wait_for_timeout(150)
    page.screenshot(path=str(out / f"gui-{name}.png"), full_page=True)


def done(page: Page) -> None:
    errors = page._ihmt_errors  # type: ignore[attr-defined]
    page.context.close()
    assert not errors, errors


@needs_browser
def test_e2e_each_screen_loads(browser: Browser, site: str) -> None:
    page = open_page(browser, site)
    assert page.locator("#tab-explore").get_attribute("aria-selected") == "true"
    assert "token" not in page.url  # the key leaves the address bar
    page.wait_for_selector("#explore-tree .node.branch")
    assert page.locator(".stat-value").first.inner_text() == "13"
    page.locator('#explore-tree li[data-id^="N2-personal"] > .row').click()
    page.locator('#explore-tree li[data-id^="N1-personal"] > .row').click()
    page.locator("#explore-tree .node.leaf > .row", has_text="Vivo en Madrid").click()
    page.wait_for_selector("#explore-tree .leaf-body .leaf-text")
    body = page.locator("#explore-tree .leaf-body").inner_text()
    assert "Vivo en Madrid" in body and "Valencia" in body  # the text and its notice
    assert page.locator("#explore-tree .node.leaf .chip.warn").count() >= 1
    shoot(page, "explore")

    page.click("#tab-diagnose")
    page.wait_for_selector("#search-form input[name=q]")
    assert page.locator("#diagnose-body .muted-card").is_visible()

    page.click("#tab-timeline")
    page.wait_for_selector("#tl-chart svg.tl-svg")
    page.wait_for_selector("#tl-state table")
    assert page.locator("#tl-chart .seg.historical").count() >= 2
    page.fill("#asof-form input[name=date]", "2025-01-01")
    page.click("#asof-form button[type=submit]")
    page.wait_for_function(
        "() => document.querySelector('#tl-state').textContent.includes('Madrid')")
    assert page.locator("#tl-asof").get_attribute("visibility") == "visible"
    assert "Valencia" in page.locator(".conflicts").inner_text()
    shoot(page, "timeline")

    page.click("#tab-setup")
    page.wait_for_selector("#setup-browser .folder")
    names = page.locator("#setup-browser .folder-name").all_inner_texts()
    assert names == ["Documents", "notes", "projects"]
    assert page.locator("#setup-agents .agent").count() == 3
    done(page)


@needs_browser
def test_e2e_search_draws_its_path(browser: Browser, site: str) -> None:
    page = open_page(browser, site, "diagnose")
    page.fill("#search-form input[name=q]", "where do I live")
    page.click("#search-form button[type=submit]")
    page.wait_for_selector("#diag-status")
    assert page.locator("#diag-status").inner_text().strip().upper() == "FOUND"
    crumbs = page.locator(".best .crumb").all_inner_texts()
    assert crumbs[0] == "root" and len(crumbs) >= 3
    page.wait_for_function(
        f"() => document.querySelector('#diagnose-tree li[data-id=\"{crumbs[-1]}\"].on-path')")
    for node_id in crumbs:
        item = page.locator(f'#diagnose-tree li[data-id="{node_id}"]')
        assert "on-path" in (item.get_attribute("class") or ""), node_id
        assert item.locator(":scope > .row").is_visible()
    visited = page.locator("#diagnose-tree li.visited")
    assert visited.count() >= 1
    assert page.locator("#diagnose-tree li.on-path .rank:not([hidden])").first.inner_text() == "#1"
    assert page.locator(".hit").count() >= 2
    assert page.locator(".hit.outdated .notices").first.is_visible()
    shoot(page, "diagnose")

    page.fill("#search-form input[name=q]", "Luis")
    page.click("#search-form button[type=submit]")
    page.wait_for_function(
        "() => document.querySelector('#diag-status')?.textContent.toUpperCase() === 'AMBIGUOUS'")
    assert page.locator(".summary .libmsg").is_visible()
    assert "clue" in page.locator(".summary .explain").inner_text()
    done(page)


class HeldAnswer:
    """Holds back the first answer to requests matching ``pattern`` (and ``when``), so a
    test can make an older request finish after a newer one: ``wait()`` until it was
    asked for, then ``release()`` it."""

    def __init__(self, page: Page, pattern: str,
                 when: Callable[[str], bool] = lambda url: True) -> None:
        self.page, self.pattern, self.when = page, pattern, when
        self.routes: list[Any] = []
        page.route(pattern, self._route)

    def _route(self, route: Any) -> None:
        if not self.routes and self.when(route.request.url):
            self.routes.append(route)
        else:
            route.continue_()

    def wait(self, what: str) -> None:
        deadline = time.monotonic() + 20
        while not self.routes:
            if time.monotonic() > deadline:
                raise AssertionError(f"{what} was never asked for")
            self.page.wait_for_timeout(20)

    def release(self) -> None:
        """Send the held answer, let the page receive it and (not) paint it, stop holding."""
        route = self.routes[0]
        route.fulfill(response=route.fetch())
        quiet(self.page)
        self.page.unroute(self.pattern)


@needs_browser
def test_e2e_a_slow_older_search_never_replaces_a_newer_one(browser: Browser,
                                                           site: str) -> None:
    page = open_page(browser, site, "diagnose")
    held = HeldAnswer(page, "**/api/search?*")
    page.fill("#search-form input[name=q]", "where do I live")
    page.click("#search-form button[type=submit]")
    held.wait("the first search")
    page.fill("#search-form input[name=q]", "Luis")
    page.click("#search-form button[type=submit]")
    page.wait_for_function(
        "() => document.querySelector('#diag-status')?.textContent.toUpperCase() === 'AMBIGUOUS'")
    held.release()
    assert page.locator("#diag-status").inner_text().strip().upper() == "AMBIGUOUS"
    done(page)


@needs_browser
def test_e2e_a_slow_older_date_never_replaces_a_newer_one(browser: Browser, site: str) -> None:
    page = open_page(browser, site, "timeline")
    page.wait_for_selector("#tl-state table")
    held = HeldAnswer(page, "**/api/state?*")
    page.fill("#asof-form input[name=date]", "2025-01-01")
    page.click("#asof-form button[type=submit]")
    held.wait("the state on 2025-01-01")
    page.click("#asof-today")
    page.wait_for_selector("#tl-state table")
    today = page.locator("#tl-state").inner_text()
    held.release()
    assert page.locator("#tl-state").inner_text() == today
    assert "2025-01-01" not in today and "Madrid" not in page.locator("#tl-state tbody").inner_text()
    done(page)


@needs_browser
def test_e2e_language_switch_translates_every_label(browser: Browser, site: str) -> None:
    page = open_page(browser, site, "explore")
    page.wait_for_selector("#explore-tree .node.branch")
    page.click("#tab-diagnose")
    page.fill("#search-form input[name=q]", "where do I live")
    page.click("#search-form button[type=submit]")
    page.wait_for_selector("#diagnose-tree .on-path")
    page.click("#tab-timeline")
    page.wait_for_selector("#tl-state table")
    page.click("#tab-setup")
    page.wait_for_selector("#setup-agents .agent")
    page.click("#preview-codex")
    page.wait_for_selector("#agent-preview")
    quiet(page)  # every view of the tab has painted its answer
    grab = "Array.from(document.querySelectorAll('[data-i18n]'), e => [e.dataset.i18n, e.textContent])"
    english = page.evaluate(grab)
    assert len(english) > 80
    page.click("[data-lang=es]")
    spanish = page.evaluate(grab)
    assert [k for k, _ in spanish] == [k for k, _ in english]
    same = [(k, a) for (k, a), (_, b) in zip(english, spanish) if a == b]
    assert not same, same
    assert page.locator("#tab-setup").inner_text() == "Configurar"
    assert page.evaluate("document.documentElement.lang") == "es"
    page.reload()  # the choice is remembered (and the token survives the reload)
    page.wait_for_selector("body[data-ready=true]")
    assert page.locator("#tab-timeline").inner_text() == "Cronología"
    page.click("[data-lang=en]")
    assert page.evaluate(grab)[:10] == english[:10]
    done(page)


@needs_browser
def test_e2e_request_without_token_is_refused(browser: Browser, site: str) -> None:
    page = open_page(browser, site)
    statuses = page.evaluate("""async () => [
        (await fetch('/api/status')).status,
        (await fetch('/api/status', {headers: {'X-IHMT-Token': 'guess-' + 'x'.repeat(20)}})).status,
        (await fetch('/api/status', {headers: {'X-IHMT-Token': sessionStorage.getItem('ihmt.token')}})).status,
    ]""")
    assert statuses == [401, 403, 200]
    ctx = browser.new_context()
    bare = ctx.new_page()
    bare.goto(f"{site}/#explore")
    bare.wait_for_selector("#fatal:not([hidden])")
    assert bare.locator("#screen-explore").is_hidden()
    ctx.close()
    done(page)


@needs_browser
def test_e2e_setup_previews_then_writes_on_confirm(browser: Browser,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    with short_home() as home:
        monkeypatch.setenv("HOME", str(home))
        monkeypatch.setenv("IHMT_INSTALL_NO_CLI", "1")
        monkeypatch.delenv("IHMT_HOME", raising=False)
        make_demo_store(home / ".ihmt")
        setup_flow(browser, home)


@needs_browser
def test_e2e_folder_browser_paints_only_the_newest_listing(browser: Browser) -> None:
    """A slow, older folder listing must not overwrite the one asked for after it.

    The listing of home is held back while the user ticks "show hidden folders"; the toggle
    must apply to home (the folder being opened), and the held answer, released last, must
    not replace the hidden-folder listing. This is the race that once made the setup flow
    miss the `.ihmt` folder on a busy machine.
    """
    with short_home() as home:
        make_demo_store(home / ".ihmt")
        with served(build_app(None, TOKEN, home=home)) as url:
            page = open_page(browser, url, "setup")
            page.wait_for_selector('#setup-browser .folder[data-path$="/Documents"]')
            page.click('#setup-browser .folder[data-path$="/Documents"]')
            page.wait_for_selector('#setup-browser .chosen-path:text-is("%s")'
                                   % (home / "Documents"))
            held = HeldAnswer(page, "**/api/fs?*", lambda url: "hidden=0" in url
                              and "Documents" not in url.split("?", 1)[-1])
            page.click('#setup-browser button.crumb-btn:text-is("home")')
            held.wait("the listing of home")
            page.check("#setup-browser .toggle input")
            page.wait_for_selector('#setup-browser .folder[data-path$="/.ihmt"]')
            held.release()
            assert page.locator('#setup-browser .folder[data-path$="/.ihmt"]').count() == 1
            assert page.locator("#setup-browser .toggle input").is_checked()
            assert page.locator("#setup-browser .chosen-path").inner_text() == str(home)
            done(page)


@needs_browser
def test_e2e_a_slow_agent_preview_never_replaces_the_newer_one(browser: Browser,
                                                               monkeypatch: pytest.MonkeyPatch
                                                               ) -> None:
    """Preview Codex, then Claude Code while the Codex answer is still on its way: the
    preview shown, and the one its Apply button writes, is Claude Code's."""
    with short_home() as home:
        monkeypatch.setenv("HOME", str(home))
        monkeypatch.setenv("IHMT_INSTALL_NO_CLI", "1")
        make_demo_store(home / ".ihmt")
        with served(build_app(home / ".ihmt", TOKEN, home=home)) as url:
            page = open_page(browser, url, "setup")
            page.wait_for_selector("#preview-codex")
            held = HeldAnswer(page, "**/api/setup/preview")
            page.click("#preview-codex")
            held.wait("the Codex preview")
            page.click("#preview-claude-code")
            page.wait_for_selector("#agent-preview")
            held.release()
            assert ".claude.json" in page.locator("#agent-preview").inner_text()
            page.click("#setup-apply")
            page.wait_for_selector("#setup-applied")
            assert (home / ".claude.json").is_file()
            assert not (home / ".codex").exists()
            done(page)


def setup_flow(browser: Browser, home: Path) -> None:
    with served(build_app(None, TOKEN, home=home)) as url:
        page = open_page(browser, url, "setup")
        page.wait_for_selector("#setup-browser .folder")
        page.click('#setup-browser .folder[data-path$="/Documents"]')
        page.wait_for_selector('#setup-browser .chosen-path:text-is("%s")' % (home / "Documents"))
        page.click("#setup-browser-choose")
        page.wait_for_selector("#store-preview")
        assert "root.json" in page.locator("#store-preview .file-list").inner_text()
        assert not (home / "Documents" / "ihmt_memory").exists()
        page.click("#setup-create")
        page.wait_for_selector("#store-created")
        assert (home / "Documents" / "ihmt_memory" / "root.json").is_file()
        assert "Documents" in page.locator("#store-path").inner_text()

        # Back to the demo memory for the agents (an existing memory opens, no write).
        page.click('#setup-browser button.crumb-btn:text-is("home")')
        page.wait_for_selector("#setup-browser .toggle input")
        page.check("#setup-browser .toggle input")
        page.click('#setup-browser .folder[data-path$="/.ihmt"]')
        page.wait_for_selector('#setup-browser .chosen-path:text-is("%s")' % (home / ".ihmt"))
        page.click("#setup-browser-choose")
        page.click("#setup-open")
        page.wait_for_function(
            "() => document.querySelector('#store-path').textContent.includes('.ihmt')")

        page.click("#preview-claude-code")
        page.wait_for_selector("#agent-preview")
        preview = page.locator("#agent-preview").inner_text()
        assert ".claude.json" in preview and "IHMT_HOME" in preview
        assert str(home / ".ihmt") in preview
        assert not (home / ".claude.json").exists()
        page.click('#setup-browser button:text-is("Home")')
        page.wait_for_selector('#setup-browser .folder[data-path$="/projects"]')
        shoot(page, "setup")
        page.click("#setup-apply")
        page.wait_for_selector("#setup-applied")
        data = json.loads((home / ".claude.json").read_text())
        assert data["mcpServers"]["ihmt-memory"]["env"]["IHMT_HOME"] == str(home / ".ihmt")
        assert (home / ".claude" / "CLAUDE.md").is_file()
        page.wait_for_selector('.agent[data-agent="claude-code"] .chip.good')
        done(page)


# ---------------------------------------------------------------------- forget
FORGET_WORD = "plumbobquartz"


def forget_store(folder: Path) -> tuple[Path, str]:
    m = Memory.open(folder, create=True)
    keep = m.save("The coffee machine on the third floor is broken", date="2025-01-02")
    gone = m.save(f"My old locker code was {FORGET_WORD} 4411", date="2025-01-03").ids[0]
    m.close()
    assert keep.ids
    return folder, gone


def test_forget_is_two_posts_behind_the_token(tmp_path: Path, home: Path) -> None:
    folder, gone = forget_store(tmp_path / "mem")
    client = client_for(folder, home)
    assert client.post("/api/forget/preview", json={"id": gone}).status_code == 401
    # A cross-site form can only send a simple body: refused before any route runs.
    form = client.post("/api/forget/preview", content=f"id={gone}", headers={
        **AUTH, "content-type": "application/x-www-form-urlencoded"})
    assert form.status_code in (400, 415)
    assert client.post("/api/forget", json={"plan_id": "made-up"}, headers=AUTH
                       ).status_code == 404
    assert client.post("/api/forget/preview", json={"id": "N1-x-y"}, headers=AUTH
                       ).status_code == 404
    plan = client.post("/api/forget/preview", json={"id": gone}, headers=AUTH).json()
    assert FORGET_WORD in plan["excerpt"]
    assert any(resolve_store(folder).rglob(f"{gone}.txt"))  # still there
    done_ = client.post("/api/forget", json={"plan_id": plan["plan_id"]}, headers=AUTH).json()
    assert done_["forgotten"] == [gone]
    assert client.post("/api/forget", json={"plan_id": plan["plan_id"]}, headers=AUTH
                       ).status_code == 404  # a plan confirms once
    res = client.get(f"/api/search?q={FORGET_WORD}", headers=AUTH).json()
    assert res["status"] == "NOT_FOUND"
    assert not any(FORGET_WORD.encode() in p.read_bytes()
                   for p in resolve_store(folder).rglob("*") if p.is_file())


def resolve_store(folder: Path) -> Path:
    from ihmt.store.store import resolve_store_path

    return resolve_store_path(folder)


@needs_browser
def test_e2e_forget_button_asks_then_removes(browser: Browser, tmp_path: Path) -> None:
    folder, gone = forget_store(tmp_path / "mem")
    with served(build_app(folder, TOKEN, home=tmp_path)) as url:
        page = open_page(browser, url, "explore")
        row = page.locator(f'#explore-tree li[data-id="{gone}"] > .row')
        row.click()
        page.wait_for_selector(f'#explore-tree li[data-id="{gone}"] .forget-start')
        page.click(f'#explore-tree li[data-id="{gone}"] .forget-start')
        confirm = page.locator(f'#explore-tree li[data-id="{gone}"] .forget-confirm')
        confirm.wait_for()
        assert FORGET_WORD in confirm.locator("blockquote").inner_text()
        page.click(f'#explore-tree li[data-id="{gone}"] .forget-no')  # Cancel keeps it
        assert resolve_store(folder).joinpath("layer_0").exists()
        assert any(resolve_store(folder).rglob(f"{gone}.txt"))
        page.click(f'#explore-tree li[data-id="{gone}"] .forget-start')
        page.click(f'#explore-tree li[data-id="{gone}"] .forget-yes')
        page.wait_for_selector(f'#explore-tree li[data-id="{gone}"].forgotten .forgotten-note')
        quiet(page)
        assert not any(resolve_store(folder).rglob(f"{gone}.txt"))
        shoot(page, "forget")
        done(page)


def test_a_foreign_origin_is_refused_even_with_the_token(tmp_path: Path, home: Path) -> None:
    folder, gone = forget_store(tmp_path / "mem")
    client = client_for(folder, home)
    for origin in ("http://evil.example", "null", "http://127.0.0.1.evil.example",
                   "https://127.0.0.1:1"):
        r = client.post("/api/forget/preview", json={"id": gone},
                        headers={**AUTH, "origin": origin})
        assert r.status_code == 403 and r.json()["error"] == "forbidden_origin", origin
        assert client.get("/api/status", headers={**AUTH, "origin": origin}).status_code == 403
    assert any(resolve_store(folder).rglob(f"{gone}.txt"))
    own = client.base_url.netloc.decode() if isinstance(client.base_url.netloc, bytes) \
        else client.base_url.netloc
    ok = client.get("/api/status", headers={**AUTH, "origin": f"http://{own}"})
    assert ok.status_code == 200, (own, ok.text)


# ---------------------------------------------------------------------- export, scope
def test_export_downloads_every_memory(tmp_path: Path, home: Path) -> None:
    folder, gone = forget_store(tmp_path / "mem")
    client = client_for(folder, home)
    assert client.get("/api/export").status_code == 401
    r = client.get("/api/export?format=jsonl", headers=AUTH)
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    lines = [json.loads(x) for x in r.text.splitlines()]
    assert lines[0]["ihmt_export"] == 1 and lines[-1]["memories"] == 2
    assert {x["id"] for x in lines[1:-1]} >= {gone}
    md = client.get("/api/export?format=markdown", headers=AUTH)
    assert md.status_code == 200 and FORGET_WORD in md.text
    bad = client.get("/api/export?format=pdf", headers=AUTH)
    assert bad.status_code == 400 and "pdf" in bad.json()["message"]


@needs_browser
def test_e2e_export_button_and_scope_of_a_memory(browser: Browser, tmp_path: Path) -> None:
    folder = tmp_path / "mem"
    m = Memory.open(folder, create=True)
    pid = m.save("We use pnpm in this repo", scope="github.com/acme/shop", date="2025-01-01").ids[0]
    m.close()
    with served(build_app(folder, TOKEN, home=tmp_path)) as url:
        page = open_page(browser, url, "explore")
        page.locator(f'#explore-tree li[data-id="{pid}"] > .row').click()
        body = page.locator(f'#explore-tree li[data-id="{pid}"] .meta-grid')
        body.wait_for()
        assert "github.com/acme/shop" in body.inner_text()
        with page.expect_download() as got:
            page.click("button.export-jsonl")
        saved = tmp_path / "export.jsonl"
        got.value.save_as(saved)
        rows = [json.loads(x) for x in saved.read_text().splitlines()]
        assert rows[1]["id"] == pid and rows[1]["scope"] == "github.com/acme/shop"
        assert got.value.suggested_filename.endswith(".jsonl")
        done(page)
