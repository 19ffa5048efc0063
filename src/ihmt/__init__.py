"""IHMT: long-term memory for AI coding agents, kept as a tree of plain files.

The public API::

    from ihmt import Memory
    mem = Memory.open(path, create=True)
"""

from .config import Config
from .errors import DamagedFileError, IHMTError, InputError, NotFoundError, StoreError
from .memory import Memory, SaveReport
from .model import Fact, Hit, Leaf, SearchResult

__all__ = [
    "Config", "DamagedFileError", "Fact", "Hit", "IHMTError", "InputError", "Leaf", "Memory",
    "NotFoundError", "SaveReport", "SearchResult", "StoreError",
]
__version__ = "0.1.0"
