"""What the GUI server remembers between requests: the open memory and pending previews.

One :class:`Memory` is opened per app, lazily (starting the server must not fail or
write anything because the folder is not set up yet), and swapped when the user chooses
another folder in Set up.

Writes happen in two calls: a preview that computes exactly what would be written and
returns a one-time ``plan_id``, then a confirm call carrying that id. The plan is
recomputed at confirm time and refused if it no longer matches what the user saw.
"""

from __future__ import annotations

import logging
import os
import secrets
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import NotFoundError, StoreError
from ...memory import Memory
from ...store.store import STORE_DIRNAME, resolve_store_path

log = logging.getLogger(__name__)

PLAN_TTL = 15 * 60.0  # seconds a preview stays confirmable


@dataclass
class Plan:
    """A previewed write waiting for its confirmation."""

    kind: str  # "store" | "install"
    params: dict[str, Any]
    fingerprint: Any
    created: float = field(default_factory=time.monotonic)


def default_memory_home(home: Path) -> Path:
    """Where the memory is when nothing says otherwise: ``$IHMT_HOME``, else ``~/.ihmt``."""
    env = os.environ.get("IHMT_HOME")
    return Path(env).expanduser() if env else home / ".ihmt"


def store_exists(folder: Path) -> bool:
    spath = resolve_store_path(folder)
    return (spath / "root.json").exists() or (spath / "layer_0").exists()


def memory_home_of(folder: Path) -> Path:
    """The folder to put in ``IHMT_HOME``: the parent of a folder named ``ihmt_memory``."""
    spath = resolve_store_path(folder)
    return spath.parent if spath.name == STORE_DIRNAME else spath


class GuiState:
    """The open memory (lazily), the user's home, and the previews awaiting confirmation."""

    def __init__(self, store_path: Path | None, home: Path | None) -> None:
        self.home = Path(home).expanduser().absolute() if home else Path.home()
        folder = store_path if store_path is not None else default_memory_home(self.home)
        self.folder = Path(folder).expanduser().absolute()
        self._mem: Memory | None = None
        self._lock = threading.RLock()
        self._plans: dict[str, Plan] = {}

    # ------------------------------------------------------------------ memory
    @property
    def store_path(self) -> Path:
        return resolve_store_path(self.folder)

    def memory(self) -> Memory:
        """The open memory; StoreError when the chosen folder holds none yet."""
        with self._lock:
            if self._mem is None:
                if not store_exists(self.folder):
                    raise StoreError(f"no memory at {self.store_path} yet: create it in Set up")
                self._mem = Memory.open(self.folder)
            return self._mem

    def use(self, folder: Path) -> None:
        """Switch to the memory in ``folder`` (which must exist): nothing is written."""
        folder = Path(folder).expanduser().absolute()
        if not store_exists(folder):
            raise NotFoundError(f"no memory at {resolve_store_path(folder)}")
        with self._lock:
            mem = Memory.open(folder)
            old, self._mem, self.folder = self._mem, mem, folder
        if old is not None:
            old.close()
        log.info("GUI now shows the memory at %s", mem.path)

    def close(self) -> None:
        with self._lock:
            if self._mem is not None:
                self._mem.close()
                self._mem = None

    # ------------------------------------------------------------------ plans
    def add_plan(self, kind: str, params: dict[str, Any], fingerprint: Any) -> str:
        plan_id = secrets.token_urlsafe(12)
        with self._lock:
            now = time.monotonic()
            for key in [k for k, p in self._plans.items() if now - p.created > PLAN_TTL]:
                del self._plans[key]
            self._plans[plan_id] = Plan(kind, params, fingerprint)
        return plan_id

    def take_plan(self, plan_id: Any, kind: str) -> Plan:
        """Remove and return a pending plan: each preview can be confirmed once."""
        with self._lock:
            plan = self._plans.get(plan_id) if isinstance(plan_id, str) else None
            if plan is None or plan.kind != kind:
                raise NotFoundError("this preview is unknown or was already used: "
                                    "preview again")
            del self._plans[plan_id]
        if time.monotonic() - plan.created > PLAN_TTL:
            raise NotFoundError("this preview has expired: preview again")
        return plan
