"""Settings of one store, read from ``<store>/ihmt.config.json`` with defaults for the rest.

A damaged or partial config never stops the store: unknown keys are ignored, bad values fall
back to their defaults, and the problem is logged once.
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

CONFIG_NAME = "ihmt.config.json"


@dataclass
class Config:
    branch_factor: int = 16  # children per branch; the log base of retrieval cost (see README)
    target_tokens: int = 2000  # leaf size the splitters aim for
    max_tokens: int = 3000  # a block above this is kept whole and flagged oversized
    beam_width: int = 3  # kept for compatibility; the descent is best-first (see search/)
    confidence_threshold: float = 0.45  # below this an answer is AMBIGUOUS
    ambiguity_margin: float = 0.18  # relative score gap under which rivals count as tied
    max_clue_rounds: int = 3
    summarizer_backend: str = "heuristic"  # heuristic | anthropic
    summarizer_model: str = "claude-sonnet-4-5"
    code_chunk_mode: str = "pack"  # pack | symbol (one leaf per class member)
    stemmer: str = "english"  # english | spanish | none: applied to every indexed word
    max_input_bytes: int = 2_000_000  # one save or one ingested file above this is refused
    max_files_per_search: int = 400  # branch files one search may open before it stops
    output_max_tokens: int = 900  # cap on a compact answer printed for an agent
    secrets: str = "refuse"  # refuse | redact | off
    sync_commit: str = "save"  # save | window | off: git commits of a folder under 'ihmt sync'
    sync_window_s: int = 60  # with "window": at most one commit per this many seconds
    semantic: str = "auto"  # auto (on when the ihmt[semantic] extra is installed) | off
    semantic_model: str = "default"  # the packaged model, or a model folder (ihmt semantic model)

    @classmethod
    def load(cls, store: Path) -> Config:
        path = Path(store) / CONFIG_NAME
        if not path.exists():
            return cls()
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(raw, dict):
                raise ValueError("not a JSON object")
        except (OSError, ValueError) as exc:
            log.warning("config %s is damaged (%s); using defaults", path, exc)
            return cls()
        return cls.from_dict(raw)

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> Config:
        cfg = cls()
        for f in fields(cls):
            if f.name not in raw:
                continue
            value = raw[f.name]
            default = getattr(cfg, f.name)
            try:
                if isinstance(default, bool):
                    ok = isinstance(value, bool)
                elif isinstance(default, int):
                    ok = isinstance(value, int) and not isinstance(value, bool) and value > 0
                elif isinstance(default, float):
                    ok = isinstance(value, (int, float)) and 0 <= value <= 1
                else:
                    ok = isinstance(value, str) and bool(value)
            except TypeError:
                ok = False
            if ok:
                setattr(cfg, f.name, type(default)(value))
            else:
                log.warning("config key %s=%r is invalid; using %r", f.name, value, default)
        cfg.branch_factor = min(max(cfg.branch_factor, 2), 1024)
        return cfg

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def set_value(store: Path, key: str, value: Any) -> None:
    """Write one setting into ``<store>/ihmt.config.json``, keeping the others as they are
    (atomically: a crash leaves the old file or the new one). A damaged file is replaced
    by the defaults plus this setting."""
    import os
    import tempfile

    path = Path(store) / CONFIG_NAME
    raw: dict[str, Any] = {}
    if path.exists():
        try:
            got = json.loads(path.read_text(encoding="utf-8"))
            raw = got if isinstance(got, dict) else {}
        except (OSError, ValueError) as exc:
            log.warning("config %s is damaged (%s); rewriting it with defaults", path, exc)
    if not raw:
        raw = Config().to_dict()
    raw[key] = value
    fd, tmp = tempfile.mkstemp(prefix=".config-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(raw, indent=2, ensure_ascii=False) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
