"""IHMT: long-term memory for AI coding agents, kept as a tree of plain files.

The public API::

    from ihmt import Memory
    mem = Memory.open(path, create=True)

The names below are imported on first use (PEP 562), so that importing one light module of
the package (``ihmt.faces.hook``, run by an agent on every prompt) does not load the whole
library first.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .errors import DamagedFileError, IHMTError, InputError, NotFoundError, StoreError

if TYPE_CHECKING:
    from .config import Config
    from .memory import Memory, SaveReport
    from .model import Fact, Hit, Leaf, SearchResult

_LAZY = {"Config": ".config", "Memory": ".memory", "SaveReport": ".memory", "Fact": ".model",
         "Hit": ".model", "Leaf": ".model", "SearchResult": ".model"}

__all__ = [
    "Config", "DamagedFileError", "Fact", "Hit", "IHMTError", "InputError", "Leaf", "Memory",
    "NotFoundError", "SaveReport", "SearchResult", "StoreError",
]
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'ihmt' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
