"""Optional semantic search: sentence vectors beside the leaves, fused with the lexical
descent so a question finds a memory that says the same thing in other words.

Everything here is optional. Without the ``ihmt[semantic]`` extra (``onnxruntime``,
``tokenizers``, ``numpy``, and the default model's files: :mod:`ihmt.semantic.loader`)
nothing in this package is imported by a save or a search and the store behaves exactly as
before. The switch is ``"semantic": "auto" | "off"`` in ``ihmt.config.json``; the
environment variable ``IHMT_SEMANTIC`` (``auto``/``on``/``off``) overrides it for one
process. ``"semantic_model"`` names the model (:mod:`ihmt.semantic.loader`).
"""

from __future__ import annotations

import importlib.util
import os
from typing import Any

INSTALL_HINT = "pip install 'ihmt[semantic]'"
REQUIRED = ("numpy", "onnxruntime", "tokenizers")  # to run any model


def missing_packages(*, default_model: bool = True) -> list[str]:
    """The extra's packages that are not installed (found without importing them); with
    ``default_model``, those of the packaged default model too."""
    from .loader import DEFAULT_PACKAGES

    out = []
    for name in REQUIRED + (DEFAULT_PACKAGES if default_model else ()):
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


def status(config_value: str | None, model_value: str | None = None) -> tuple[bool, str]:
    """(on, one sentence saying why, and how to turn it on when it is off)."""
    on, reason, _ = resolve(config_value, model_value)
    return on, reason


def resolve(config_value: str | None, model_value: str | None = None
            ) -> tuple[bool, str, Any]:
    """:func:`status` and the :class:`~ihmt.semantic.loader.ModelSpec` in use (None when
    off). ``model_value``: the store's ``semantic_model`` (a folder, or the default)."""
    from .loader import DEFAULT, ModelError
    from .loader import resolve as resolve_model

    if not wanted(config_value):
        if os.environ.get("IHMT_SEMANTIC", "").strip():
            return False, ("semantic search is off (IHMT_SEMANTIC=off in the environment); "
                           "unset it to use semantic search"), None
        return False, ("semantic search is off (\"semantic\": \"off\" in ihmt.config.json); "
                       "set it to \"auto\" to use it"), None
    default = (model_value or DEFAULT).strip().lower() in (DEFAULT, "all-minilm-l6-v2-int8")
    missing = missing_packages(default_model=default)
    if missing:
        return False, (f"semantic search is off: the extra is not installed "
                       f"(missing {', '.join(missing)}); turn it on with: {INSTALL_HINT}. "
                       f"{WHAT_IT_ADDS}"), None
    try:
        spec = resolve_model(model_value)
    except ModelError as exc:
        return False, f"semantic search is off: {exc}", None
    where = "packaged" if spec.packaged else f"folder {spec.folder}"
    return True, f"semantic search is on ({spec.name}, {where}, local, offline)", spec
