"""Project and session tools: project_map, find_code, read_file, note, recall, digest_output.

These are optional token savers for the session in progress, not part of the long-term
memory: an agent that prefers grep and sed loses nothing by ignoring them, so their
descriptions say what they save and when they are worth a call rather than pushing them.

State, all per server process (one process = one agent session):

* the project indexes live on disk under the projects folder and are cached by the library;
* one :class:`SessionFiles` remembers what read_file handed out, so a repeated read can
  answer UNCHANGED or a diff;
* its :class:`Roots` confine all three file tools alike (project_map, find_code,
  read_file): the server's working folder (unless it is ``/`` or the home folder),
  ``$IHMT_PROJECT``, ``$IHMT_ROOTS`` (``ihmt mcp --root``) and the roots the client
  declares through the MCP roots capability, asked for on every call so a folder the user
  adds mid-session is honoured at once;
* one :class:`SessionMemory` keeps notes and digested outputs; it is never written to disk,
  so a new session (a new process) starts empty on purpose.
"""

from __future__ import annotations

import logging
import os
import warnings
from pathlib import Path
from typing import Annotated, Literal
from urllib.parse import unquote, urlparse
from urllib.request import url2pathname

import anyio
import anyio.from_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp.types import ListRootsResult
from pydantic import Field

from ....errors import IHMTError, InputError
from ....project import Roots, SessionFiles, SessionMemory
from ....project import find_code as _find_code
from ....project import project_map as _project_map
from ._common import ServerState, tool

log = logging.getLogger(__name__)

PROJECTS_SUBDIR = "ihmt_projects"
ROOTS_TIMEOUT = 5.0  # seconds a client gets to answer roots/list before we read without them

ProjectPath = Annotated[str, Field(description=(
    "The project's root folder, absolute or relative to the server's working folder "
    "(usually the folder the agent was started in, so '.' is the current project). "
    "Folders outside it and the configured or declared roots are refused."))]
Subpath = Annotated[str, Field(description=(
    "Optional folder or file inside the project to restrict to, e.g. 'src/billing'. "
    "Empty (default) = the whole project."))]


def register(server: MCPServer, state: ServerState) -> None:
    """Add the project and session tools to ``server``; they share per-process objects."""

    def session_files() -> SessionFiles:
        return state.lazy("project.session_files", _new_session_files)

    def session_memory() -> SessionMemory:
        return state.lazy("project.session_memory", SessionMemory)

    def allowed(ctx: Context | None) -> Roots:
        """The session's roots, with whatever the client declares by now."""
        files = session_files()
        if ctx is not None:
            _adopt_client_roots(ctx, files)
        return files.allowed

    # ------------------------------------------------------------------ project index
    @tool(server, read_only=True, idempotent=True, title="Map a project's code")
    def project_map(
        path: ProjectPath,
        detail: Annotated[Literal["files", "symbols"], Field(description=(
            "'files' (default): one line per source file with its size in tokens. "
            "'symbols': also each function/class/method with its kind and line span."))]
            = "files",
        subpath: Subpath = "",
        ctx: Context | None = None,
    ) -> str:
        """Optional helper: a compact map of a codebase, to orient yourself in an
        unfamiliar project without listing and opening files one by one.

        Returns a header line (project, number of files, total tokens), then one line per
        source file with its size in tokens; with detail="symbols", each file's functions,
        classes and methods indented under it as "name kind first-last" (line numbers you
        can pass to read_file). Vendored, generated and git-ignored files are left out.
        "NOT FOUND" means no source file is under that folder.

        Worth it at the start of work on a project or a subfolder; if you already know
        where things are, `ls`/`grep` do just as well. The first call on a large project
        builds a private index (a few seconds); later calls only re-read changed files.
        """
        return _project_map(_project_root(path), detail, subpath,
                            projects_dir=_projects_dir(state), roots=allowed(ctx))

    @tool(server, read_only=True, idempotent=True, title="Find one symbol's code")
    def find_code(
        query: Annotated[str, Field(description=(
            "What you are looking for: a symbol name ('reserve_stock'), words of the "
            "behaviour ('retry failed payment'), optionally a file name ('util.py "
            "parse_date')."))],
        path: ProjectPath,
        scope: Annotated[Literal["main", "test", "all"], Field(description=(
            "'main' (default): application code only; 'test': tests only; 'all': both."))]
            = "main",
        subpath: Subpath = "",
        clue: Annotated[str | None, Field(description=(
            "Only after an AMBIGUOUS answer: a file, class or words from the code that "
            "tell the candidates apart."))] = None,
        max_tokens: Annotated[int, Field(ge=50, description=(
            "Most tokens of code to return (default 1500); a longer symbol is cut with a "
            "note saying which lines to read for the rest."))] = 1500,
        ctx: Context | None = None,
    ) -> str:
        """Optional helper: return only the function, class or method that answers a
        query, instead of grepping and then reading whole files.

        The answer starts with a status:
        - FOUND: a line "file:first-last name (kind)", then that symbol's exact current
          code, then a few other candidates as file:first-last lines.
        - AMBIGUOUS: several symbols fit equally well, listed as file:first-last; call
          again with `clue`, or read the one you mean with read_file.
        - NOT FOUND: no code matches; lines listed as closest are not answers. A note
          may say a closer match is in test (or main) code and which scope finds it.

        The index is brought up to date before every answer, so edits made a moment ago
        are seen. For an exact string or a regex, plain grep is the better tool.
        """
        return _find_code(query, _project_root(path), scope, subpath, clue or None,
                          max_tokens, projects_dir=_projects_dir(state), roots=allowed(ctx))

    # ------------------------------------------------------------------ reading
    # Not idempotent: the second identical call answers UNCHANGED instead of the content.
    @tool(server, read_only=True, idempotent=False, title="Read a file (session-aware)")
    def read_file(
        path: Annotated[str, Field(description=(
            "File to read: relative to the project folder, or absolute inside it or inside "
            "a workspace root declared by the client."))],
        force: Annotated[bool, Field(description=(
            "True re-sends the full content even if this session already received it "
            "(use it after a context compaction lost the earlier copy)."))] = False,
        start_line: Annotated[int, Field(ge=0, description=(
            "First line to return, 1-based; 0 (default) = from the start."))] = 0,
        end_line: Annotated[int, Field(ge=0, description=(
            "Last line to return, inclusive; 0 (default) = to the end."))] = 0,
        ctx: Context | None = None,
    ) -> str:
        """Optional helper: read a text file, without paying again for content this session
        already received. Your own file reading tool works too; this one saves tokens on
        files you read repeatedly.

        - First read: a header "path (N lines, T tok)" then the content (or the requested
          lines, headed "path:first-last").
        - Read again and nothing changed: one line "UNCHANGED: ...". The copy you received
          earlier is still exact; pass force=true only if you no longer have it.
        - Read again after the file changed: "CHANGED: ..." with a unified diff against the
          copy you received (or the full content when that is shorter).

        Only files inside the project folder (the server's working folder), the
        configured roots and the client's declared workspace roots can be read; anything
        else, a '..' that climbs out, or a symlink leading outside is refused. Binary files
        and files over 1 MB are refused too: read a line range, or use find_code for one
        symbol.
        """
        allowed(ctx)
        return session_files().read_file(path, force=force, start_line=start_line,
                                          end_line=end_line)

    # ------------------------------------------------------------------ session notes
    # Not read-only: a note changes what later recall calls answer (in this process only;
    # nothing is written to disk). Not idempotent: the same note twice is two entries.
    @tool(server, read_only=False, idempotent=False, destructive=False,
          title="Note for this session")
    def note(
        text: Annotated[str, Field(description=(
            "What to keep, written to make sense on its own: 'API runs on port 8042', "
            "'failing test: test_refund_rounding, cause: float cents'."))],
    ) -> str:
        """Optional helper: keep a working fact for the rest of THIS session (a port, the
        failing test, the command that finally built the project), so it survives a
        context compaction. Get it back with recall.

        Session notes live in the server process only: they are gone in the next session.
        Durable facts (decisions, setup, preferences) belong in save_memory instead.
        Returns a one-line acknowledgement with the note's number.
        """
        return session_memory().note(text)

    @tool(server, read_only=True, idempotent=True, title="Recall from this session")
    def recall(
        query: Annotated[str, Field(description=(
            "A few words from the note or output, a digest label (returns that output in "
            "full), or '#N' for entry N."))],
        clue: Annotated[str | None, Field(description=(
            "Only after an AMBIGUOUS answer: a detail that tells the entries apart."))]
            = None,
    ) -> str:
        """Find a note or digested output kept earlier in THIS session (by note or
        digest_output), e.g. after a context compaction summarised it away.

        Returns the best matching note in full, or the matching lines of a kept output;
        recall('<label>') returns that output's full text. AMBIGUOUS lists tied entries:
        call again with `clue`. NOT FOUND means nothing of this session matches; earlier
        sessions are in the long-term memory (search_memory), not here.
        """
        return session_memory().recall(query, clue=clue or None)

    # Not idempotent: each digest keeps the text under a fresh label (output, output-2...).
    @tool(server, read_only=False, idempotent=False, destructive=False,
          title="Digest a long output")
    def digest_output(
        text: Annotated[str, Field(description=(
            "The long output itself: a test run, a build log, a stack trace."))],
        label: Annotated[str, Field(description=(
            "Short name to recall the full text by later, e.g. 'pytest-run-1' "
            "(made unique if already used)."))] = "output",
    ) -> str:
        """Optional helper: condense a long command output (test run, build log) into what
        matters and keep the full text for this session.

        Returns a digest of at most about 600 tokens: the first lines, error and failure
        lines, the test totals and the last lines, in their original order with "…" for
        what was left out. The full text stays recallable with recall('<label>') or by
        words inside it, until the session ends. Only worth it for outputs of hundreds of
        lines you may need to look back into.
        """
        return session_memory().digest_output(text, label=label)


# ---------------------------------------------------------------------- helpers
def _projects_dir(state: ServerState) -> Path:
    """Where project indexes live: ``$IHMT_PROJECTS_DIR``, else beside this server's memory.

    Passed explicitly because the library's default follows ``$IHMT_HOME``, while a server
    built with an explicit home must keep its indexes under that home.
    """
    env = os.environ.get("IHMT_PROJECTS_DIR")
    return Path(env).expanduser() if env else state.home / PROJECTS_SUBDIR


def _project_root(path: str) -> str:
    """``path`` checked for the one mistake the library would silently accept: blank text,
    which resolves to the working folder and would map a project the agent did not name."""
    if not path.strip():
        raise InputError("path is empty: give the project's root folder ('.' for the "
                         "current project)")
    return path.strip()


def _new_session_files() -> SessionFiles:
    """The session's reader, with the roots of :meth:`Roots.from_environment`.

    The working folder is the project when an agent launches the server, but a server
    started from the file-system root or the home folder would otherwise open the whole
    disk or ``~/.ssh`` to the model: then only configured and client-declared roots are.
    """
    roots = Roots.from_environment()
    log.info("project tools confined to %s", ", ".join(map(str, roots.folders)) or
             "the roots the client declares")
    return SessionFiles(roots)


def _adopt_client_roots(ctx: Context, files: SessionFiles) -> None:
    """Ask the client for its workspace roots and allow reading below each.

    Runs on the tool's worker thread and hops to the event loop for the request. A client
    without the roots capability, or one that fails or is slow to answer, is not an error:
    the read goes ahead with the roots already known (at least the working folder).
    """
    try:
        caps = ctx.session.client_capabilities
    except (ValueError, AttributeError):  # no request context (called outside a request)
        return
    if caps is None or caps.roots is None:
        return
    try:
        result = anyio.from_thread.run(_list_roots, ctx)
    except Exception as exc:  # noqa: BLE001 - any failure just means no extra roots
        log.info("client did not list its roots (%s: %s); reading with the known roots",
                 type(exc).__name__, exc)
        return
    for root in result.roots:
        uri = str(root.uri)
        folder = path_of_file_uri(uri)
        if folder is None:
            log.info("ignoring root %s: not a local file:// URI", uri)
            continue
        try:
            files.add_root(folder)
        except IHMTError as exc:  # a root that does not exist (yet) or is a file
            log.info("ignoring root %s: %s", uri, exc)


async def _list_roots(ctx: Context) -> ListRootsResult:
    # Roots are deprecated from protocol 2026-07-28 on, but they are how today's clients
    # name their workspaces; the SDK's warning would only add noise to the server log.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        pending = ctx.session.list_roots()
    with anyio.fail_after(ROOTS_TIMEOUT):
        return await pending


def path_of_file_uri(uri: str) -> Path | None:
    """The local path a ``file://`` URI names (None for any other kind of URI)."""
    parsed = urlparse(uri)
    if parsed.scheme.lower() != "file" or parsed.netloc not in ("", "localhost"):
        return None
    raw = url2pathname(parsed.path) if os.name == "nt" else unquote(parsed.path)
    return Path(raw) if raw else None
