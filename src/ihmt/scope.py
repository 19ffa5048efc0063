"""Where a memory applies: to the user everywhere (global), or to one project.

A project is the git repository of the agent's working folder, named so that every clone
of it gets the same name: the remote's URL, normalised (``git@github.com:Owner/Repo.git``
and ``https://github.com/owner/repo`` are both ``github.com/owner/repo``), else the
repository's top-level folder. A folder outside any repository has no project.

The scope is kept in the leaf's own header, ``extra["scope"]``: absent or ``"global"``
means global, anything else is a project id. Memories saved before scopes existed have no
key and are global. Git is read with two local commands (no network); when git is missing
the folder simply has no project.

:class:`ScopeView` is what one search sees: the current project and the filter asked for.
:func:`default_scope` is the rule that files a save whose caller did not say where it
belongs (measured in BENCHMARKS.md, "Scopes").
"""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import InputError
from .lazy_re import lazy

log = logging.getLogger(__name__)

GLOBAL = "global"
SCOPE_KEY = "scope"  # leaf header (extra): absent or "global", else the project id
MODES = ("auto", "all", "project", "global")  # search filters; auto: ranked, see ScopeView
SAVE_SCOPES = ("auto", "project", "global")
PROJECT_ENV = "IHMT_PROJECT"  # the MCP server's project when its working folder is not it
GIT_TIMEOUT_S = 5.0
MAX_ID = 300


# ---------------------------------------------------------------------- project ids
_SCP = re.compile(r"^(?:[^@/\s]+@)?(?P<host>[^:/\s]+):(?P<path>(?!/).+)$")  # git@host:o/r


def normalise_remote(url: str, base: str | os.PathLike[str] | None = None) -> str | None:
    """The project id of a remote URL: ``host/path`` in lower case, without user,
    password, port or ``.git``. A local path remote (``/srv/git/app.git``, ``../app``,
    ``file://...``) becomes its absolute path, ``base`` being the folder it is relative
    to. None for an empty URL."""
    url = (url or "").strip()
    if not url:
        return None
    m = None if "://" in url else _SCP.match(url)
    if m and not re.match(r"^[A-Za-z]:[\\/]", url):  # (not a Windows drive letter)
        host, path = m.group("host"), m.group("path")
    elif "://" in url:
        scheme, rest = url.split("://", 1)
        if scheme.lower() == "file":
            return _local(rest, base)
        netloc, _, path = rest.partition("/")
        host = netloc.rsplit("@", 1)[-1]  # drop user:password@
        host = re.sub(r":\d*$", "", host) if not host.startswith("[") else host
    else:
        return _local(url, base)
    path = path.strip("/")
    path = path[:-4] if path.lower().endswith(".git") else path
    path = path.strip("/")
    if not host or not path:
        return None
    return f"{host.lower()}/{path.lower()}"


def _local(path: str, base: str | os.PathLike[str] | None) -> str:
    p = Path(path).expanduser()
    if not p.is_absolute() and base is not None:
        p = Path(base) / p
    text = str(Path(os.path.normpath(p.absolute())))
    return text[:-4] if text.lower().endswith(".git") else text


def _git(folder: Path, *args: str) -> str | None:
    import subprocess  # (with selectors: only when there is a repository to ask)

    try:
        done = subprocess.run(["git", "-C", str(folder), *args], capture_output=True,
                              text=True, timeout=GIT_TIMEOUT_S, check=False,
                              env={**os.environ, "GIT_TERMINAL_PROMPT": "0"})
    except (OSError, subprocess.SubprocessError) as exc:
        log.info("git could not be run in %s (%s): no project", folder, exc)
        return None
    out = done.stdout.strip()
    return out if done.returncode == 0 and out else None


def _may_be_in_repository(path: Path) -> bool:
    """False when no folder from ``path`` up holds a ``.git`` and no ``GIT_DIR`` is set:
    then git finds no repository either, and is not started (a hook outside any repository
    saves the few milliseconds of a process that would only fail)."""
    if os.environ.get("GIT_DIR") or os.environ.get("GIT_WORK_TREE"):
        return True
    try:
        here = path.resolve()
    except OSError:
        return True
    for folder in (here, *here.parents):
        if os.path.lexists(folder / ".git"):
            return True
    return False


def project_of(folder: str | os.PathLike[str] | None = None) -> str | None:
    """The project id of ``folder`` (default: the current folder), None outside a git
    repository. Raises InputError when the folder does not exist."""
    path = Path(folder if folder is not None else os.getcwd()).expanduser()
    if not path.is_dir():
        raise InputError(f"project folder {path} does not exist or is not a folder")
    if not _may_be_in_repository(path):
        return None
    top = _git(path, "rev-parse", "--show-toplevel")
    if top is None:
        return None
    url = _git(path, "config", "--get", "remote.origin.url")
    if url is None:
        names = (_git(path, "remote") or "").split()
        url = _git(path, "config", "--get", f"remote.{sorted(names)[0]}.url") if names else None
    ident = normalise_remote(url, top) if url else None
    return ident or _local(top, None)


def project_from_env(cwd: str | os.PathLike[str] | None = None) -> str | None:
    """The MCP server's project: ``$IHMT_PROJECT`` (a folder, whose repository it names, or
    a project id as it is), else the repository of the working folder."""
    value = os.environ.get(PROJECT_ENV, "").strip()
    if value:
        if Path(value).expanduser().is_dir():
            return project_of(value)
        return check_project_id(value)
    try:
        return project_of(cwd)
    except InputError:
        return None


def check_project_id(value: Any) -> str:
    """A project id given by hand (``ihmt move --scope github.com/owner/repo``)."""
    if not isinstance(value, str) or not value.strip():
        raise InputError("a project id is text such as github.com/owner/repo")
    value = value.strip()
    if len(value) > MAX_ID or any(c in value for c in "\n\r\t\x00"):
        raise InputError(f"{value[:80]!r} is not a project id (one line, under {MAX_ID} "
                         "characters, such as github.com/owner/repo)")
    return value


# ---------------------------------------------------------------------- leaves and entries
def scope_of(extra: Any) -> str:
    """The scope a leaf header's ``extra`` records (no key: global)."""
    value = extra.get(SCOPE_KEY) if isinstance(extra, dict) else None
    return value if isinstance(value, str) and value.strip() else GLOBAL


def is_global(scope: str | None) -> bool:
    return not scope or scope == GLOBAL


def resolve(scope: Any, project: str | None, *, allow_auto: bool = False) -> str:
    """``"global"``, ``"project"`` (the current project), or a project id -> a scope.
    ``"auto"`` passes through when ``allow_auto``."""
    if not isinstance(scope, str) or not scope.strip():
        raise InputError("scope must be 'project', 'global' or a project id")
    scope = scope.strip()
    if scope == "auto" and allow_auto:
        return scope
    if scope == GLOBAL:
        return GLOBAL
    if scope == "project":
        if project is None:
            raise InputError("scope 'project' needs a project, and this folder is in no git "
                             "repository: run it inside the repository, pass --project "
                             "PATH (MCP server: set IHMT_PROJECT), or use scope 'global'")
        return project
    return check_project_id(scope)


@dataclass(frozen=True)
class ScopeView:
    """What one search sees.

    - ``auto`` (default): memories of the current project and global ones; another
      project's memory appears only when it scores at least :data:`CROSS` times the best
      match in scope (or nothing in scope matches), and it is labelled with its project.
    - ``all``: every memory, ranked alike (other projects' labelled).
    - ``project``: only the current project's memories; ``global``: only global ones.
    """

    project: str | None = None
    mode: str = "auto"

    @classmethod
    def make(cls, project: str | None, mode: str | None) -> ScopeView:
        mode = (mode or "auto").strip() if isinstance(mode, str) or mode is None else mode
        if mode not in MODES:
            raise InputError(f"scope must be one of {', '.join(MODES)}, got {mode!r}")
        if mode == "project" and project is None:
            resolve("project", None)  # raises the explanation
        return cls(project, mode)

    def admits(self, scope: str) -> bool:
        """In scope: ranked and shown without restriction."""
        if self.mode == "all":
            return True
        if self.mode == "global":
            return scope == GLOBAL
        if self.mode == "project":
            return scope == self.project
        return scope == GLOBAL or scope == self.project

    @property
    def crosses(self) -> bool:
        """Whether other projects' memories may appear when they match much better."""
        return self.mode == "auto"

    def foreign(self, scope: str) -> bool:
        """A memory of a project other than the current one (labelled in answers)."""
        return scope != GLOBAL and scope != self.project

    @property
    def filtering(self) -> bool:
        return self.mode != "all"


CROSS = 2.0  # another project's memory shows only at this many times the best score in scope


# ---------------------------------------------------------------------- the default at save
_GLOBAL_CUES = lazy(
    r"\b(?:i|i'm|i've|i'd|my|me|mine|myself|prefer|preferred|preference|favou?rite|"
    r"always|never|hate|love|like|dislike|wife|husband|partner|daughter|son|friend|"
    r"colleague|manager|boss|birthday|home|live|lives|moved|allergic|"
    r"yo|mi|mis|prefiero|siempre|nunca)\b", re.IGNORECASE)
_PROJECT_CUES = lazy(
    r"\b(?:this|our|we|we're|we've|repo|repository|codebase|project|module|package|"
    r"service|api|endpoint|branch|branches|merge|commit|deploy|deploys|deployed|release|"
    r"ci|pipeline|build|tests?|lint|linter|formatter|migration|schema|database|config|"
    r"staging|production|dockerfile|makefile|script|dependency|dependencies|"
    r"este|nuestro|nuestra|usamos|repositorio|proyecto)\b"
    r"|[\w./-]+\.(?:py|js|ts|tsx|go|rs|java|rb|json|toml|ya?ml|md|sql|sh)\b"
    r"|`[^`]+`", re.IGNORECASE)


def default_scope(text: str, data_type: str, project: str | None) -> str:
    """Where a save goes when the caller does not say: global outside a repository;
    inside one, code and procedures go to the project, and a statement goes to the
    project when it speaks of the project's things ("this repo", "we", a file, a
    branch, the tests...) at least as much as of the user ("I", "my", "prefer", a
    person...). Measured on a labelled set (bench.scopes, BENCHMARKS.md)."""
    if project is None:
        return GLOBAL
    if data_type in ("CODE", "PROCESS"):
        return project
    if data_type in ("PERSONAL", "CLINICAL"):
        return GLOBAL
    g = len(_GLOBAL_CUES.findall(text))
    p = len(_PROJECT_CUES.findall(text))
    return project if p and p >= g else GLOBAL
