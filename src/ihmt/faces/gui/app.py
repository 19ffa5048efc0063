"""The web application behind ``ihmt gui``: a JSON API over one memory plus the static page.

Every read goes through the same library calls as the CLI (``Memory.search``,
``Memory.tree``-style branch reads, the fact timeline), so what the page shows is what an
agent would get. Over the memory the API reads, with one exception: Forget, which removes
one memory for good (``Memory.forget``). The other writes are creating a store and
registering the MCP server with an agent. Each write takes two calls: a preview that
returns exactly what would be written or removed, and a confirm call carrying the
preview's one-time ``plan_id``; both are POSTs with a JSON body and the token, which a page
of another site cannot send (see :mod:`ihmt.faces.gui.guard`).
"""

from __future__ import annotations

import json
import logging
import os
import re
import secrets
import socket
import sys
import threading
import time
import webbrowser
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import iterate_in_threadpool, run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from ... import __version__
from ...errors import IHMTError, InputError, NotFoundError, StoreError, from_os_error
from ...memory import Memory
from ...model import Fact
from ...render import data_for_reader, result_dict
from ...store.store import STORE_DIRNAME, resolve_store_path
from ...text import clip_shown
from ...tree.prune import live_children
from .. import install as installer
from .guard import Guard
from .state import GuiState, memory_home_of, store_exists

log = logging.getLogger(__name__)

STATIC_DIR = Path(__file__).with_name("static")
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".json": "application/json; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
}
AGENT_LABELS = {"claude-code": "Claude Code", "codex": "Codex", "opencode": "opencode"}
MAX_FOLDERS = 1000  # entries listed per folder in the folder browser
_LAYER = re.compile(r"^N(\d+)-")

Query = Mapping[str, str]
Body = dict[str, Any]
Handler = Callable[[GuiState, Query, Body], Any]


class PlanChanged(IHMTError):
    """The files changed between the preview and its confirmation."""


# ---------------------------------------------------------------------- helpers
def _folder_arg(value: Any, what: str = "path") -> Path:
    """An absolute folder path from the page (never relative: the server's cwd means
    nothing to the user)."""
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{what} is missing: choose a folder")
    p = Path(value.strip()).expanduser()
    if not p.is_absolute():
        raise InputError(f"{what} must be an absolute path, not {value!r}")
    return Path(os.path.normpath(p))


def _int_arg(q: Query, name: str, default: int, lo: int, hi: int) -> int:
    raw = q.get(name)
    if raw in (None, ""):
        return default
    try:
        value = int(raw)
    except ValueError as exc:
        raise InputError(f"{name} must be a whole number") from exc
    return max(lo, min(hi, value))


def _fact(f: Fact) -> dict[str, Any]:
    return {**asdict(f), "key": f.key}


def _outdated_ids(state: GuiState) -> set[str]:
    tl = state.memory().timeline
    tl.refresh()
    return tl.superseded_sources() | set(tl.outdated_map())


_ENTRY_KEYS = ("id", "layer", "domain", "title", "n_leaves", "date_from", "date_to",
               "keywords", "tags", "source", "data_type")


def _entry(e: dict[str, Any], outdated: set[str]) -> dict[str, Any]:
    """What the tree view shows of a child entry (never its term statistics)."""
    out = {k: e.get(k) for k in _ENTRY_KEYS}
    leaf = int(e.get("layer") or 0) == 0
    out["kind"] = "leaf" if leaf else "branch"
    if leaf:
        out["excerpt"] = e.get("excerpt", "")
        out["outdated"] = e.get("id") in outdated
    return out


def _leaf_count(folder: Path) -> int | None:
    try:
        root = json.loads((resolve_store_path(folder) / "root.json").read_text("utf-8"))
        return int(root["n_leaves"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _is_store_folder(p: Path) -> bool:
    try:
        return ((p / "root.json").is_file()
                or (p / STORE_DIRNAME / "root.json").is_file())
    except OSError:
        return False


def _install_fingerprint(result: installer.InstallResult) -> list[Any]:
    return [(c.what, c.action, c.path, c.diff, c.command) for c in result.changes]


# ---------------------------------------------------------------------- status, folders
def api_status(state: GuiState, q: Query, b: Body) -> dict[str, Any]:
    out: dict[str, Any] = {
        "version": __version__,
        "home": str(state.home),
        "folder": str(state.folder),
        "store_path": str(state.store_path),
        "memory_home": str(memory_home_of(state.folder)),
        "exists": store_exists(state.folder),
        "agents": _agents(state),
    }
    if out["exists"]:
        st = state.memory().stats()
        out["stats"] = {k: st[k] for k in ("leaves", "branches", "depth", "top_nodes",
                                           "domains")}
    return out


def _agents(state: GuiState) -> list[dict[str, Any]]:
    try:
        regs = installer.registered(state.home, None)
    except IHMTError as exc:  # an unreadable config must not hide the rest of the page
        log.warning("cannot list registrations: %s", exc)
        regs = []
    return [{
        "agent": agent,
        "label": AGENT_LABELS.get(agent, agent),
        "registrations": [asdict(r) for r in regs if r.agent == agent],
    } for agent in installer.WRITABLE_AGENTS]


def api_fs(state: GuiState, q: Query, b: Body) -> dict[str, Any]:
    """Subfolders of a folder (names only: the browser never reads file contents)."""
    folder = _folder_arg(q.get("dir") or str(state.home), "dir")
    if not folder.is_dir():
        raise NotFoundError(f"{folder} is not a folder")
    show_hidden = q.get("hidden") in ("1", "true")
    entries: list[dict[str, Any]] = []
    denied = False
    try:
        with os.scandir(folder) as it:
            for de in it:
                try:
                    if not de.is_dir():
                        continue
                except OSError:
                    continue
                hidden = de.name.startswith(".")
                if hidden and not show_hidden:
                    continue
                entries.append({"name": de.name, "path": str(folder / de.name),
                                "hidden": hidden})
    except PermissionError:
        denied = True
    entries.sort(key=lambda e: (e["hidden"], e["name"].lower()))
    truncated = len(entries) > MAX_FOLDERS
    entries = entries[:MAX_FOLDERS]
    for e in entries:
        e["store"] = _is_store_folder(Path(e["path"]))
    exists = store_exists(folder)
    return {
        "dir": str(folder),
        "parent": str(folder.parent) if folder.parent != folder else None,
        "home": str(state.home),
        "entries": entries,
        "truncated": truncated,
        "denied": denied,
        "store": {"path": str(resolve_store_path(folder)), "exists": exists,
                  "leaves": _leaf_count(folder) if exists else None},
    }


# ---------------------------------------------------------------------- creating a store
def api_store_preview(state: GuiState, q: Query, b: Body) -> dict[str, Any]:
    """What choosing ``path`` means: open the memory there, or create one (a plan)."""
    folder = _folder_arg(b.get("path"))
    spath = resolve_store_path(folder)
    if store_exists(folder):
        return {"folder": str(folder), "store_path": str(spath), "exists": True,
                "leaves": _leaf_count(folder)}
    if spath.exists() and not spath.is_dir():
        raise InputError(f"{spath} exists and is not a folder: choose another")
    missing = [p for p in [*reversed(spath.parents), spath] if not p.exists()]
    creates = [str(p) + os.sep for p in missing]
    creates += [str(spath / n) + os.sep for n in ("layer_0", "layers", "state")]
    creates += [str(spath / n) for n in ("ihmt.config.json", "root.json")]
    plan_id = state.add_plan("store", {"folder": str(folder)}, str(spath))
    return {"folder": str(folder), "store_path": str(spath), "exists": False,
            "creates": creates, "plan_id": plan_id}


def api_store_create(state: GuiState, q: Query, b: Body) -> dict[str, Any]:
    plan = state.take_plan(b.get("plan_id"), "store")
    folder = Path(plan.params["folder"])
    created = not store_exists(folder)
    if created:
        Memory.initialize(folder).close()
        log.info("created a memory at %s from the GUI", resolve_store_path(folder))
    state.use(folder)
    return {"created": created, "store_path": str(state.store_path)}


def api_store_open(state: GuiState, q: Query, b: Body) -> dict[str, Any]:
    """Show another existing memory (reading only; nothing is created here)."""
    state.use(_folder_arg(b.get("path")))
    return {"store_path": str(state.store_path)}


# ---------------------------------------------------------------------- reading the tree
def api_tree(state: GuiState, q: Query, b: Body) -> dict[str, Any]:
    mem = state.memory()
    root = mem.store.root()
    outdated = _outdated_ids(state)
    st = mem.stats()
    return {
        "id": "root",
        "stats": {k: st[k] for k in ("path", "leaves", "branches", "depth", "top_nodes",
                                     "domains")},
        "children": [_entry(e, outdated) for e in root["top"]],
    }


def api_node(state: GuiState, q: Query, b: Body) -> dict[str, Any]:
    node_id = q.get("id", "")
    m = _LAYER.match(node_id)
    if not m:
        raise NotFoundError(f"{node_id!r} is not a branch id")
    mem = state.memory()
    br, _ = mem.store.branch(node_id, int(m.group(1)))
    outdated = _outdated_ids(state)
    data = br.data
    return {
        "id": br.id, "layer": br.layer, "domain": br.domain, "title": data.get("title"),
        "summary": data.get("summary"), "keywords": data.get("keywords"),
        "n_leaves": br.n_leaves, "date_from": data.get("date_from"),
        "date_to": data.get("date_to"),
        "children": [_entry(c, outdated) for c in live_children(br.children)],
    }


def api_leaf(state: GuiState, q: Query, b: Body) -> dict[str, Any]:
    leaf_id = q.get("id", "")
    if not leaf_id.startswith("L-"):
        raise NotFoundError(f"{leaf_id!r} is not a leaf id")
    mem = state.memory()
    leaf = mem.get(leaf_id)
    tl = mem.timeline
    tl.refresh()
    notices = tl.notices_for_leaf(leaf_id)
    newer = tl.outdated_by(leaf_id) or leaf.extra.get("superseded_by")
    return {
        "id": leaf.id, "text": leaf.text, "domain": leaf.domain, "data_type": leaf.data_type,
        "date": leaf.date, "when": leaf.when, "saved_at": leaf.saved_at, "tags": leaf.tags,
        "source": leaf.source, "span": leaf.span, "parent": leaf.parent,
        "checksum": leaf.checksum, "extra": leaf.extra, "notices": notices,
        "superseded_by": newer,
        "outdated": bool(notices or newer or leaf_id in tl.superseded_sources()),
    }


def api_forget_preview(state: GuiState, q: Query, b: Body) -> dict[str, Any]:
    """What a Forget would remove (the memory's start), and the plan that confirms it."""
    leaf_id = b.get("id")
    if not isinstance(leaf_id, str) or not leaf_id.startswith("L-"):
        raise NotFoundError(f"{leaf_id!r} is not a memory id")
    leaf = state.memory().get(leaf_id)
    plan_id = state.add_plan("forget", {"id": leaf.id}, leaf.checksum or leaf.text[:200])
    return {"plan_id": plan_id, "id": leaf.id, "excerpt": clip_shown(leaf.text, 160),
            "date": leaf.date}


def api_forget(state: GuiState, q: Query, b: Body) -> dict[str, Any]:
    """Forget the memory a preview named: the GUI's one write to the memory itself."""
    plan = state.take_plan(b.get("plan_id"), "forget")
    rep = state.memory().forget([plan.params["id"]])
    log.info("forgot %s from the GUI", plan.params["id"])
    return {"forgotten": rep.ids, "current_again": rep.current_again,
            "warnings": rep.warnings}


def api_search(state: GuiState, q: Query, b: Body) -> dict[str, Any]:
    mem = state.memory()
    top_k = _int_arg(q, "k", 8, 1, 50)
    res = mem.search(q.get("q", ""), top_k, clue=q.get("clue") or None)
    out = result_dict(res)
    _complete_paths(mem, out["hits"])
    out["best_path"] = out["hits"][0]["path"] if out["hits"] else []
    return out


def _complete_paths(mem: Memory, hits: list[dict[str, Any]]) -> None:
    """Give every hit its full path from the trunk, so the page can draw it on the tree.

    Hits found through the fact timeline carry only ``root > parent > leaf``; their
    ancestors come from the catalog, which is read only when such a hit is present.
    """
    top = {e["id"] for e in mem.store.root()["top"]}
    broken = [h for h in hits if len(h["path"]) > 1 and h["path"][1] not in top]
    if not broken:
        return
    parent: dict[str, str] = {}
    for node_id, e in mem.store.catalog().items():
        if isinstance(e.get("parent"), str):
            parent[node_id] = e["parent"]
        for child in e.get("children") or []:
            if isinstance(child, str):
                parent.setdefault(child, node_id)
    for h in broken:
        chain = [h["id"]]
        while chain[-1] not in top and chain[-1] in parent and len(chain) < 64:
            chain.append(parent[chain[-1]])
        if chain[-1] in top:
            h["path"] = ["root", *reversed(chain)]


# ---------------------------------------------------------------------- the timeline
def api_timeline(state: GuiState, q: Query, b: Body) -> dict[str, Any]:
    mem = state.memory()
    subject = q.get("subject") or None
    facts = mem.facts(subject)
    lanes: dict[str, dict[str, Any]] = {}
    for f in facts:
        lane = lanes.setdefault(f.key, {"key": f.key, "subject": f.subject,
                                        "attribute": f.attribute, "statements": []})
        lane["statements"].append(_fact(f))
    for lane in lanes.values():
        lane["periods"] = [_fact(p) for p in
                           mem.timeline.timeline(lane["subject"], lane["attribute"])]
    return {
        "lanes": list(lanes.values()),
        "conflicts": [n.as_dict() for n in mem.conflicts(subject)],
        "today": time.strftime("%Y-%m-%d"),
    }


def api_state_at(state: GuiState, q: Query, b: Body) -> dict[str, Any]:
    when = q.get("date", "")
    facts = state.memory().state_at(when)
    return {"date": when, "facts": [_fact(f) for f in facts.values()]}


# ---------------------------------------------------------------------- agent setup
def _install_args(state: GuiState, b: Body) -> dict[str, Any]:
    agent = b.get("agent")
    scope = b.get("scope")
    if agent not in installer.WRITABLE_AGENTS:
        raise InputError(f"agent must be one of {', '.join(installer.WRITABLE_AGENTS)}")
    if scope not in installer.SCOPES:
        raise InputError("scope must be 'user' (every project) or 'project'")
    project = state.home
    if scope == "project":
        project = _folder_arg(b.get("project"), "the project folder")
        if not project.is_dir():
            raise NotFoundError(f"{project} is not a folder")
    return {"agent": agent, "scope": scope, "project": str(project),
            "memory_home": str(memory_home_of(state.folder))}


def _run_install(state: GuiState, args: dict[str, Any], dry_run: bool
                 ) -> installer.InstallResult:
    return installer.install(args["agent"], args["scope"], memory_home=args["memory_home"],
                             home=state.home, project=Path(args["project"]), dry_run=dry_run)


def api_setup_preview(state: GuiState, q: Query, b: Body) -> dict[str, Any]:
    """The exact commands and file contents a registration would write; writes nothing."""
    args = _install_args(state, b)
    result = _run_install(state, args, dry_run=True)
    plan_id = state.add_plan("install", args, _install_fingerprint(result))
    return {"plan_id": plan_id, "result": result.to_dict(), "lines": result.lines(),
            **args}


def api_setup_apply(state: GuiState, q: Query, b: Body) -> dict[str, Any]:
    plan = state.take_plan(b.get("plan_id"), "install")
    again = _run_install(state, plan.params, dry_run=True)
    if _install_fingerprint(again) != plan.fingerprint:
        raise PlanChanged("the files changed since the preview; nothing was written: "
                          "preview again")
    result = _run_install(state, plan.params, dry_run=False)
    log.info("registered IHMT with %s (%s scope) from the GUI", plan.params["agent"],
             plan.params["scope"])
    return {"result": result.to_dict(), "lines": result.lines(), **plan.params}


# ---------------------------------------------------------------------- wiring
def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": code, "message": message}, status_code=status)


def _endpoint(state: GuiState, fn: Handler) -> Callable[[Request], Awaitable[Response]]:
    """Run a handler in the thread pool (the library does blocking file I/O) and turn our
    exceptions into JSON errors whose message the page can show as is."""

    async def endpoint(request: Request) -> Response:
        body: Body = {}
        if request.method == "POST":
            try:
                raw = await request.json()
            except ValueError:
                return _error(400, "bad_json", "the request body is not valid JSON")
            if not isinstance(raw, dict):
                return _error(400, "bad_json", "the request body must be a JSON object")
            body = raw
        try:
            data = await run_in_threadpool(fn, state, request.query_params, body)
        except StoreError as exc:
            code = "no_store" if not store_exists(state.folder) else "store"
            return _error(409, code, str(exc))
        except NotFoundError as exc:
            return _error(404, "not_found", str(exc))
        except PlanChanged as exc:
            return _error(409, "plan_changed", str(exc))
        except IHMTError as exc:
            return _error(400, "invalid", str(exc))
        except OSError as exc:  # a path the system refuses (too long, denied ...): say so
            return _error(400, "os_error", str(from_os_error(exc, "the request")))
        # Every answer passes the secrets mask: the page never receives a flagged value.
        shown, n = data_for_reader(data)
        if n and isinstance(shown, dict):
            shown["secrets_masked"] = n
        return JSONResponse(shown)

    return endpoint


def _export_route(state: GuiState) -> Route:
    """``/api/export?format=jsonl|markdown&scope=...``: every memory as a download,
    streamed one leaf at a time (:meth:`ihmt.Memory.export`)."""

    async def export(request: Request) -> Response:
        fmt = request.query_params.get("format", "jsonl")
        scope = request.query_params.get("scope") or None
        try:
            exp = await run_in_threadpool(lambda: state.memory().export(scope=scope, fmt=fmt))
        except StoreError as exc:
            return _error(409, "store", str(exc))
        except IHMTError as exc:
            return _error(400, "invalid", str(exc))
        ext, media = ("jsonl", "application/x-ndjson") if fmt == "jsonl" else \
            ("md", "text/markdown")
        name = f"ihmt-export-{time.strftime('%Y-%m-%d')}.{ext}"
        return StreamingResponse(
            iterate_in_threadpool(chunk.encode("utf-8") for chunk in exp),
            media_type=f"{media}; charset=utf-8",
            headers={"content-disposition": f'attachment; filename="{name}"'})

    return Route("/api/export", export, methods=["GET"])


def _static_routes() -> list[Route]:
    """Only the files shipped in ``static/`` are served, by exact name: no directory
    listing, no path arithmetic on what the client asks for."""
    names = {p.name: p for p in STATIC_DIR.iterdir()
             if p.is_file() and p.suffix in CONTENT_TYPES} if STATIC_DIR.is_dir() else {}

    async def static(request: Request) -> Response:
        path = names.get(request.path_params["name"])
        if path is None:
            return _error(404, "not_found", "no such file")
        return FileResponse(path, media_type=CONTENT_TYPES[path.suffix],
                            headers={"cache-control": "no-cache"})

    async def index(request: Request) -> Response:
        path = names.get("index.html")
        if path is None:
            return _error(500, "missing", "the page is missing from the installation")
        return FileResponse(path, media_type=CONTENT_TYPES[".html"],
                            headers={"cache-control": "no-cache"})

    return [Route("/", index), Route("/static/{name}", static)]


def build_app(store_path: Path | None, token: str, home: Path | None = None) -> Starlette:
    """The application for the memory in ``store_path`` (default ``$IHMT_HOME`` or
    ``~/.ihmt``). ``token`` guards every ``/api/*`` call; ``home`` is the user's home
    (folder browser start, agent configuration files), a temporary folder in tests."""
    if not token or len(token) < 16:
        raise InputError("the access token must be at least 16 characters")
    state = GuiState(store_path, home)
    get = {
        "/api/status": api_status, "/api/fs": api_fs, "/api/tree": api_tree,
        "/api/node": api_node, "/api/leaf": api_leaf, "/api/search": api_search,
        "/api/timeline": api_timeline, "/api/state": api_state_at,
    }
    post = {
        "/api/store/preview": api_store_preview, "/api/store/create": api_store_create,
        "/api/store/open": api_store_open, "/api/setup/preview": api_setup_preview,
        "/api/setup/apply": api_setup_apply,
        "/api/forget/preview": api_forget_preview, "/api/forget": api_forget,
    }
    routes = [Route(p, _endpoint(state, fn), methods=["GET"]) for p, fn in get.items()]
    routes += [Route(p, _endpoint(state, fn), methods=["POST"]) for p, fn in post.items()]
    routes += [_export_route(state), *_static_routes()]
    app = Starlette(routes=routes, middleware=[Middleware(Guard, token=token)])
    app.state.gui = state
    return app


# ---------------------------------------------------------------------- serving
def bind_socket(port: int) -> socket.socket:
    """A listening socket on 127.0.0.1 (``port`` 0 picks a free one)."""
    if not 0 <= port <= 65535:
        raise InputError(f"port must be between 0 and 65535, not {port}")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind(("127.0.0.1", port))
    except OSError as exc:
        sock.close()
        raise InputError(f"port {port} on 127.0.0.1 is not available ({exc.strerror}); "
                         "choose another with --port, or 0 for a free one") from exc
    sock.listen(64)
    sock.set_inheritable(True)
    return sock


def serve(path: Path | None = None, port: int = 0, open_browser: bool = True) -> None:
    """Serve the interface until Ctrl+C, printing its address (with the token) to stderr."""
    import uvicorn

    token = secrets.token_urlsafe(24)
    app = build_app(path, token)
    sock = bind_socket(port)
    port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/?token={token}"
    # No access log: it would write the token of the first page load to the terminal.
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
    server = uvicorn.Server(config)
    sys.stderr.write(f"IHMT interface: {url}\n(only this computer can reach it; "
                     "press Ctrl+C to stop)\n")
    sys.stderr.flush()
    if open_browser:
        threading.Thread(target=_open_when_ready, args=(server, url), daemon=True).start()
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()


def _open_when_ready(server: Any, url: str) -> None:
    for _ in range(200):
        if server.started:
            break
        time.sleep(0.05)
    try:
        webbrowser.open(url)
    except webbrowser.Error as exc:
        log.warning("could not open a browser (%s): open %s yourself", exc, url)
