"""Compact text for agents and terminals: an answer costs a few hundred tokens, not more.

Every face (CLI, MCP server) prints search results through these functions, so what an
agent reads and what a person reads at the terminal are the same.
"""

from __future__ import annotations

from typing import Any

from .model import Hit, SearchResult
from .text import clip, count_tokens


def safe(text: str) -> str:
    """Text for output with anything that looks like a credential masked. Used before a
    text is clipped (a cut key is no longer recognisable); the faces apply
    :func:`for_reader` to all they print as well."""
    from .secrets import mask

    return mask(text).text


MASK_MARK = "[masked:"


def for_reader(text: str) -> str:
    """The one gate text passes on its way to a person or an agent (CLI, MCP tools, hooks):
    every flagged value masked, and a last line saying how many were, so the reader knows
    the memory (or the file) holds more than is shown."""
    from .secrets import mask, masked_note

    if not isinstance(text, str) or not text:
        return text
    out = mask(text).text
    n = out.count(MASK_MARK)
    return f"{out}\n{masked_note(n)}" if n else out


def data_for_reader(data: Any) -> tuple[Any, int]:
    """:func:`for_reader` for JSON-like data (CLI ``--json``, the GUI's API): every string
    masked, a fact's value judged beside its attribute; and how many values are masked."""
    from .secrets import mask_data

    out, _ = mask_data(data)
    return out, _count_marks(out)


def _count_marks(obj: Any) -> int:
    if isinstance(obj, str):
        return obj.count(MASK_MARK)
    if isinstance(obj, dict):
        return sum(_count_marks(v) for v in obj.values())
    if isinstance(obj, (list, tuple)):
        return sum(_count_marks(v) for v in obj)
    return 0


def project_label(h: Hit) -> str:
    """`` · from project <id>`` for another project's memory, else ""."""
    return f" · from project {h.scope}" if h.foreign else ""


def _line(h: Hit, width: int = 110) -> str:
    src = f" {h.source}" if h.source else ""
    flag = " OUTDATED" if h.outdated else ""
    return (f"[{h.when}] {h.domain}{src}{flag}{project_label(h)} · "
            f"{clip(safe(h.excerpt or h.title), width)}")


CLUE_HINT = "<a place, date, project or other detail>"


def compact_answer(result: SearchResult, max_tokens: int = 900, *, full: bool = False,
                   others: int = 5, clue_syntax: str = "clue='{}'") -> str:
    """The answer an agent reads: status, the best memory in full (clipped to the budget),
    its notices, then one line per other match. ``full`` adds ids, paths and excerpts.
    ``clue_syntax`` is how the reader passes a clue: the tool's argument by default, a
    command line for the CLI."""
    if result.status == "NOT_FOUND":
        lines = [f"NOT FOUND: {result.message or 'nothing in memory matches'}."]
        if result.hits:
            lines.append("Closest entries (not answers):")
            lines += [f"- {_line(h, 90)}" for h in result.hits[:3]]
        return "\n".join(lines)
    if result.status == "AMBIGUOUS":
        lines = [f"AMBIGUOUS: {result.message}.", "Candidates:"]
        for i, h in enumerate(result.hits[:6], 1):
            ident = f" (id {h.id})" if full else ""
            lines.append(f"{i}. {_line(h, 100)}{ident}")
        lines.append(f"Call again with {clue_syntax.format(CLUE_HINT)} to choose; do not guess.")
        return "\n".join(lines)
    best = result.hits[0]
    head = f"[{best.when}] {best.domain}" + (f" · {best.source}" if best.source else "") \
        + project_label(best)
    lines = [f"FOUND (confidence {result.confidence:.2f}) {head}"]
    for n in best.notices:
        lines.append(f"OUTDATED: {safe(n)}")
    rest: list[str] = []
    for h in result.hits[1 : 1 + others]:
        rest.append(f"- {_line(h)}" + (f"\n  id {h.id} path {' > '.join(h.path)}" if full else ""))
        for n in h.notices[:1]:
            rest.append(f"  OUTDATED: {clip(safe(n), 160)}")
    for n in result.notices:
        lines.append(f"note: {safe(n)}")
    if full:
        lines.append(f"id {best.id} path {' > '.join(best.path)}")
    budget = max_tokens - count_tokens("\n".join(lines + rest)) - 20
    body = safe(best.text.strip())
    if count_tokens(body) > budget:
        body = body[: max(200, budget * 4)].rstrip() + " […]"

    def assemble(rest_lines: list[str]) -> str:
        out = lines[:1] + [body] + lines[1:]
        if rest_lines:
            out += ["Other matches:"] + rest_lines
        return "\n".join(out)

    text = assemble(rest)
    while count_tokens(text) > max_tokens and rest:
        rest.pop()
        text = assemble(rest)
    return text


def result_dict(result: SearchResult, *, with_text: bool = True) -> dict[str, Any]:
    """A JSON-ready view of a search result (CLI --json, GUI)."""
    return {
        "query": result.query,
        "status": result.status,
        "confidence": result.confidence,
        "message": result.message,
        "node_reads": result.node_reads,
        "leaf_reads": result.leaf_reads,
        "total_nodes": result.total_nodes,
        "total_leaves": result.total_leaves,
        "capped": result.capped,
        "visited": result.visited,
        "notices": result.notices,
        "hits": [
            {
                "id": h.id, "score": h.score, "date": h.date, "domain": h.domain,
                "source": h.source, "tags": h.tags, "path": h.path, "outdated": h.outdated,
                "scope": h.scope, "other_project": h.foreign,
                "notices": [safe(n) for n in h.notices], "matched": h.matched,
                "excerpt": safe(h.excerpt),
                **({"text": safe(h.text)} if with_text and i == 0 else {}),
            }
            for i, h in enumerate(result.hits)
        ],
    }
