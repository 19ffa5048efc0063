"""Memory that comes to the agent unasked: what the agent hooks inject, and when they stay quiet.

Two entry points, both called through :class:`ihmt.Memory` (``recall_for_prompt`` and
``session_digest``):

* :func:`prompt_recall` - for the text a user just submitted. It searches only when the
  prompt reads as a question or request about something remembered (:func:`is_recall_prompt`),
  and injects only a FOUND answer whose confidence reaches the gate (:data:`GATE`, chosen
  on LoCoMo by ``bench/hooks.py``). AMBIGUOUS, NOT FOUND and weak answers inject nothing.
  OUTDATED notices of the answer are kept: they say the memory was corrected.
* :func:`session_digest` - a short list of the decisions, conventions and preferences on
  record, for the start of a session. An empty store, or one with none of those, gives "".

Both keep to a token budget (~300) and show each memory's date and id, so the agent can cite
or correct it. Neither writes to the store.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from .lazy_re import lazy
from .model import Hit, SearchResult
from .text import clip, count_tokens

GATE = 0.7  # lowest confidence of a FOUND answer that is injected (see BENCHMARKS.md)
MAX_TOKENS = 300  # budget of one injection or digest
MAX_PROMPT_CHARS = 800  # longer prompts are pasted code, logs or specs, not recall questions
EXTRA_HITS = 4  # other current matches shown as one line each, after the answer
BODY_SHARE = 0.55  # of the budget the answer itself may take, leaving room for the others


class _Searchable(Protocol):
    def search(self, query: str, top_k: int = 10, *, clue: str | None = None) -> SearchResult:
        ...


@dataclass
class Injection:
    """What a prompt-submit hook adds to the agent's context ("" when it stays quiet)."""

    text: str = ""
    reason: str = ""  # why it injected or stayed quiet: the log and the benchmark read it
    status: str | None = None  # the search's status, None when no search was made
    confidence: float = 0.0
    ids: list[str] = field(default_factory=list)  # memories injected, answer first

    @property
    def injected(self) -> bool:
        return bool(self.text)


# ---------------------------------------------------------------------- the prompt filter
_CUE = lazy(
    r"\b(remember|recall|remind me|forgot|forget|we (?:decided|agreed|chose|picked|said|"
    r"discussed|settled|talked)|did (?:we|i|you)\b|last (?:time|week|month|year)|previously|"
    r"earlier|back when|what (?:was|were) (?:our|my|the)|our (?:convention|policy|decision|"
    r"rule|choice|standard)s?|my (?:preference|favou?rite)s?|i (?:told|mentioned|said))",
    re.IGNORECASE)
_QUESTION_START = lazy(
    r"^(?:what|when|where|who|whom|whose|why|how|which|did|do|does|is|are|was|were|has|have|"
    r"had|can|could|would|should|will|tell me|remind me|any idea)\b", re.IGNORECASE)
# A prompt about the code or output in front of the agent, not about the past.
_HERE = lazy(
    r"\b(?:this|these|that|the) (?:file|function|method|class|module|import|error|exception|"
    r"test|tests|code|bug|line|lines|diff|patch|snippet|script|output|log|stack ?trace|"
    r"traceback|warning|branch|commit|pr|query|endpoint|component|regex|loop|build|"
    r"variable|type|signature|config)\b"
    r"|```|traceback \(most recent call last\)|\b\w+\.(?:py|js|ts|tsx|jsx|go|rs|java|rb|c|h|"
    r"cpp|toml|ya?ml|json|md|sh|sql|css|html)\b|\bline \d+\b|\w+\(\)|\bhere\b",
    re.IGNORECASE)
_IMPERATIVE = lazy(
    r"^(?:please\s+)?(?:add|fix|write|implement|refactor|rename|remove|delete|create|update|"
    r"run|make|change|move|build|install|bump|format|lint|debug|optimi[sz]e|convert|generate|"
    r"set up|setup|migrate|clean|split|merge|rebase|revert|extract|inline|replace|document|"
    r"explain|review|check|profile|benchmark|test|deploy|publish|release|upgrade|downgrade|"
    r"port|rewrite|simplify|speed up|wire|hook up|mock|stub|type|annotate|sort|drop)\b",
    re.IGNORECASE)


def is_recall_prompt(prompt: str) -> bool:
    """Whether ``prompt`` reads as a question or request about something remembered.

    A memory cue ("what did we decide", "remember", "last time") always qualifies. Otherwise
    a question qualifies unless it is about the code or output at hand ("why does this
    import fail", a file name, a pasted traceback); an instruction ("add a test for the
    parser") never does. Long prompts (pasted code, logs, specs) never do.
    """
    text = " ".join((prompt or "").split())
    if not text or len(text) > MAX_PROMPT_CHARS or len(text.split()) < 2:
        return False
    if _CUE.search(text):
        return True
    if _IMPERATIVE.match(text) or _HERE.search(text):
        return False
    return text.endswith("?") or bool(_QUESTION_START.match(text))


# ---------------------------------------------------------------------- prompt submit
def prompt_recall(mem: _Searchable, prompt: str, *, gate: float = GATE,
                  max_tokens: int = MAX_TOKENS, check_prompt: bool = True) -> Injection:
    """The injection for ``prompt``: a confident answer from memory, or nothing."""
    if check_prompt and not is_recall_prompt(prompt):
        return Injection(reason="not a question about remembered things")
    query = " ".join(prompt.split())[:MAX_PROMPT_CHARS]
    if not query:
        return Injection(reason="empty prompt")
    res = mem.search(query, top_k=1 + EXTRA_HITS)
    quiet = Injection(status=res.status, confidence=res.confidence)
    if res.status != "FOUND" or not res.hits:
        quiet.reason = f"search said {res.status}"
        return quiet
    if res.confidence < gate:
        quiet.reason = f"confidence {res.confidence:.2f} below the gate {gate:.2f}"
        return quiet
    text, ids = render_injection(res, max_tokens)
    return Injection(text=text, reason="FOUND above the gate", status=res.status,
                     confidence=res.confidence, ids=ids)


def _safe(text: str) -> str:
    from .render import safe

    return safe(text)


def _head(h: Hit) -> str:
    src = f" · {h.source}" if h.source else ""
    return f"[{h.when}] id {h.id} · {h.domain}{src}"


def render_injection(res: SearchResult, max_tokens: int = MAX_TOKENS) -> tuple[str, list[str]]:
    """The answer in at most ``max_tokens``: header, the memory (clipped), its OUTDATED
    notices, then other current matches on one line each while they fit."""
    best = res.hits[0]
    lines = [f"From IHMT memory (FOUND, confidence {res.confidence:.2f}); cite the id, and "
             "correct the memory if it is wrong:", _head(best)]
    notices = [f"OUTDATED: {clip(n, 200)}" for n in best.notices[:2]]
    others = [h for h in res.hits[1 : 1 + EXTRA_HITS] if not h.outdated]
    budget = int(max_tokens * BODY_SHARE) - count_tokens("\n".join(lines + notices))
    body = _safe(best.text.strip())
    if count_tokens(body) > budget:
        body = body[: max(80, budget * 4 - 2)].rstrip() + " […]"
    out = lines + [body] + notices
    ids = [best.id]
    for h in others:
        line = f"also: {_head(h)}: {clip(_safe(h.excerpt or h.title), 120)}"
        if count_tokens("\n".join(out + [line])) > max_tokens:
            break
        out.append(line)
        ids.append(h.id)
    return "\n".join(out), ids


# ---------------------------------------------------------------------- session start
# Memories that state how things are done: decisions, conventions, preferences.
_RULE = lazy(
    r"\b(?:we (?:decided|chose|agreed|use|always|never|prefer|settled|switched|moved)|"
    r"decided|decision|convention|policy|always|never|prefer(?:s|red)?|preference|"
    r"must|do not|don't|standard|rule)\b", re.IGNORECASE)
DIGEST_QUERY = "decided decision convention policy always never prefer preference rule standard"


def session_digest(mem: _Searchable, *, cwd: str | None = None, n_leaves: int,
                   max_tokens: int = MAX_TOKENS) -> str:
    """Up to ``max_tokens`` of decisions, conventions and preferences, the current project's
    first (the working folder's name), newest first, corrected ones left out. "" when
    nothing qualifies."""
    if n_leaves <= 0:
        return ""
    project = Path(cwd).name if cwd else ""
    found: dict[str, tuple[int, Hit]] = {}
    queries = ([f"{project} {DIGEST_QUERY}"] if project else []) + [DIGEST_QUERY]
    for rank, q in enumerate(queries):
        try:
            res = mem.search(q, top_k=20)
        except Exception:  # noqa: BLE001 - a query the store cannot answer adds nothing
            continue
        for h in res.hits:
            if h.outdated or h.id in found:
                continue
            text = h.excerpt or h.title
            if not _RULE.search(text):
                continue
            mine = bool(project) and project.lower() in (text + " " + " ".join(h.tags)).lower()
            found[h.id] = (0 if mine else 1 + rank, h)
    if not found:
        return ""
    ordered = sorted(found.values(), key=lambda p: (p[0], -_day(p[1].date)))
    head = "From IHMT memory: decisions and preferences on record (search_memory for more):"
    out = [head]
    for _, h in ordered:
        line = f"- [{h.when}] id {h.id}: {clip(_safe(h.excerpt or h.title), 160)}"
        if count_tokens("\n".join(out + [line])) > max_tokens:
            break
        out.append(line)
    return "\n".join(out) if len(out) > 1 else ""


def _day(date: str | None) -> int:
    return int(re.sub(r"\D", "", date[:10]) or 0) if date else 0


def describe(inj: Injection) -> dict[str, Any]:
    """A JSON-ready view (for ``ihmt hook --explain`` and the benchmark)."""
    return {"injected": inj.injected, "reason": inj.reason, "status": inj.status,
            "confidence": inj.confidence, "ids": inj.ids, "tokens": count_tokens(inj.text)
            if inj.text else 0, "text": inj.text}
