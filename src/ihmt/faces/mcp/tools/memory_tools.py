"""Long-term memory tools: search_memory, save_memory, mark_outdated, forget_memory.

Each tool is one call into :class:`ihmt.Memory` plus a formatter. The docstrings are the
descriptions the agent reads when it decides whether to call a tool, so they say when to
call it, what comes back and how to react to each status, in the agent's terms.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel, Field

from ....errors import IHMTError, InputError
from ....memory import Memory, SaveReport
from ....model import SearchResult
from ....render import compact_answer, safe
from ....text import clip_shown
from ._common import ServerState, tool

STRUCTURED_HITS = 6  # hits in search_memory's structured content
TEXT_CHARS = 2000  # the best hit's text in the structured content, clipped


class SearchHitOut(BaseModel):
    """One memory in search_memory's structured content."""

    id: str = Field(description="The memory's id (for mark_outdated and citing).")
    date: str | None = Field(description="The content's date (YYYY-MM-DD), null if undated.")
    domain: str
    text: str = Field(description="The full text for the best hit, an excerpt for others.")
    outdated: bool = Field(description="Corrected by a later memory (kept as history).")
    notices: list[str] = Field(description="OUTDATED notices: what changed and when.")
    scope: str = Field(description="'global', or the project (repository) it belongs to.")
    other_project: bool = Field(description=(
        "It belongs to another project than the one searched from: say so before using it."))


class SearchOut(BaseModel):
    """search_memory's structured content, beside the compact text."""

    status: Literal["FOUND", "AMBIGUOUS", "NOT_FOUND"]
    confidence: float
    message: str
    hits: list[SearchHitOut]


def register(server: MCPServer, state: ServerState) -> None:
    """Add the memory tools to ``server``; they share the process's one memory."""

    @tool(server, read_only=True, idempotent=True, title="Search long-term memory",
          structured=True)
    def search_memory(
        query: Annotated[str, Field(description=(
            "A few distinctive words: names, tools, places, error messages "
            "(e.g. 'postgres billing decision'), not a whole sentence."))],
        clue: Annotated[str | None, Field(description=(
            "Only after an AMBIGUOUS answer: a detail that tells the candidates apart "
            "(a place, date, project or person)."))] = None,
        detail: Annotated[Literal["compact", "full"], Field(description=(
            "'compact' (default) or 'full': full adds ids and tree paths, needed to call "
            "mark_outdated."))] = "compact",
        scope: Annotated[Literal["auto", "all", "project", "global"], Field(description=(
            "'auto' (default): this project's memories and global ones, another project's "
            "only when it matches much better (labelled 'from project ...'); 'project' or "
            "'global' only those; 'all' every project alike."))] = "auto",
    ) -> Annotated[CallToolResult, SearchOut]:
        """Search the user's long-term memory (what earlier sessions and other agents saved).

        Call it before answering anything that may depend on an earlier session: the
        user's setup, preferences, past decisions and their reasons, people, projects,
        "what did we decide about X", "like last time".

        The answer starts with a status:
        - FOUND: the best memory in full with its date, then one line per other match.
        - AMBIGUOUS: several memories fit equally well. Do not guess: ask the user which
          one, or call again with `clue`.
        - NOT FOUND: nothing relevant is remembered; say so, never invent a past
          conversation. Entries listed under it are not answers.
        - OUTDATED lines: a remembered fact was later corrected. Always tell the user
          what changed and when, and use the current value.
        - "from project X": the memory belongs to another repository than the one you
          work in; it may not apply here.
        """
        mem = state.memory()
        result = mem.search(query, clue=clue or None, scope=scope)
        text = compact_answer(result, mem.config.output_max_tokens, full=detail == "full")
        return CallToolResult(content=[TextContent(type="text", text=text)],
                              structured_content=structured_search(result))

    # Not idempotent: a save is dated, so the same text saved on another day is a new
    # memory (the same text on the same day is recognised as a duplicate).
    @tool(server, read_only=False, idempotent=False, destructive=False,
          title="Save to long-term memory")
    def save_memory(
        content: Annotated[str, Field(description=(
            "The fact or decision, written to make sense on its own later, with its date "
            "when it is about a particular day. Never secrets."))],
        domain: Annotated[str, Field(description=(
            "Leave 'general' to let IHMT file it; or a short area such as 'personal', "
            "'work.billing', 'software.python'."))] = "general",
        content_type: Annotated[str, Field(description=(
            "'auto' (default), or one of personal, narrative, process, code, clinical, "
            "generic."))] = "auto",
        replaces: Annotated[str, Field(description=(
            "When this corrects something remembered earlier: a few words describing the "
            "old memory (e.g. 'lives in Madrid'). The old one is flagged OUTDATED."))] = "",
        states: Annotated[str, Field(description=(
            "When the memory states a value that may change later (employer, home city, "
            "manager, a tool, a version, a schedule, an owner): name it as "
            "'subject :: attribute = value', e.g. 'user :: employer = Initech' or "
            "'billing-api :: ci = GitHub Actions'. Searches then answer with the newest "
            "value and flag earlier ones."))] = "",
        scope: Annotated[Literal["auto", "project", "global"], Field(description=(
            "'project': it applies to the repository you work in (its conventions, "
            "commands, decisions, code); 'global': to the user everywhere (preferences, "
            "people, their machine). 'auto' (default) chooses from the content; say it "
            "when you know."))] = "auto",
    ) -> str:
        """Save something to the user's long-term memory, for future sessions and agents.

        Save what will still matter in a month: decisions and their reasons, how the
        user's environment is set up, preferences and conventions, people and projects,
        corrections (with `replaces`). One fact or decision per call. When it states a
        value that can change (a job, a city, a manager, a tool or version), also pass
        `states` so later searches know which value is current. Do not save small
        talk, temporary task state, or anything readable from the code; never save
        passwords, keys or tokens (save where they live instead).

        The reply says how it was filed (domain, type, date, id). If it contains a line
        starting "Tell the user:", relay it: the save contradicts an earlier memory. With
        `replaces`, it says which memory was flagged OUTDATED, or lists candidate ids:
        then pick the right one and call mark_outdated(old_id, new_id).
        """
        mem = state.memory()
        dom = domain.strip() if isinstance(domain, str) else domain
        report = mem.save(content, domain=None if not dom or dom.lower() == "general" else dom,
                          content_type=content_type, replaces=replaces.strip() or None,
                          states=states.strip() or None, scope=scope)
        return format_save(report, replaces.strip(), mem)

    @tool(server, read_only=False, idempotent=True, destructive=False,
          title="Mark a memory as outdated")
    def mark_outdated(
        old_id: Annotated[str, Field(description="Id of the memory that is no longer true.")],
        new_id: Annotated[str, Field(description="Id of the memory that corrects it.")],
    ) -> str:
        """Flag one memory as corrected by another: searches then answer with the new one
        and show the old one as OUTDATED (it is kept as history, never deleted).

        Use it after save_memory(..., replaces=...) listed several candidate ids, or when
        search_memory(detail="full") shows a memory that a newer one contradicts. Ids look
        like "L-personal-3f1c0a9e2b4d".
        """
        old, new = _memory_id("old_id", old_id), _memory_id("new_id", new_id)
        return format_marked(state.memory().mark_outdated(old, new), old, new)

    @tool(server, read_only=False, idempotent=True, destructive=True,
          title="Forget a memory for good")
    def forget_memory(
        id: Annotated[str, Field(description=(
            "Id of the memory to remove, as search_memory(detail='full') shows it "
            "(e.g. 'L-personal-3f1c0a9e2b4d')."))],
    ) -> str:
        """Remove one memory for good: its text, its place in the tree, its vectors and
        the facts it stated. Cannot be undone.

        Only when the user asks to forget or delete something ("forget that", "remove my
        old address"), after confirming which memory with them: find its id with
        search_memory(detail="full"). For a fact that merely changed, save the new value
        instead (the old one stays as history, flagged OUTDATED). The memory folder's git
        history, if any, keeps it until the user runs `ihmt forget ID --purge-history`.
        """
        leaf_id = _memory_id("id", id)
        rep = state.memory().forget([leaf_id])
        lines = [f'Forgot {leaf_id} ("{rep.excerpts.get(leaf_id, "")}"). No search returns it '
                 "any more."]
        if rep.current_again:
            lines.append("No longer outdated (what it had corrected): "
                         + ", ".join(rep.current_again) + ".")
        lines += [f"Note: {w}" for w in rep.warnings]
        return "\n".join(lines)


def _memory_id(name: str, value: str) -> str:
    """A memory id argument, stripped; an empty one is an error naming the argument."""
    if not value.strip():
        raise InputError(f"{name} is empty: pass a memory id such as L-general-3f1c0a9e2b4d")
    return value.strip()


# ---------------------------------------------------------------------- formatters
def structured_search(result: SearchResult) -> dict[str, Any]:
    """The structured content of a search: status, confidence, and per hit its id, date,
    text (the best hit's, clipped) or excerpt, outdated flag and notices."""
    hits = []
    for i, h in enumerate(result.hits[:STRUCTURED_HITS]):
        body = safe(h.text if i == 0 and result.status == "FOUND" else (h.excerpt or h.title))
        if len(body) > TEXT_CHARS:  # masked before the cut: half a key is not recognisable
            body = body[:TEXT_CHARS].rstrip() + " […]"
        hits.append({"id": h.id, "date": h.date[:10] if h.date else None, "domain": h.domain,
                     "text": body, "outdated": h.outdated,
                     "notices": [safe(n) for n in h.notices], "scope": h.scope,
                     "other_project": h.foreign})
    return {"status": result.status, "confidence": result.confidence,
            "message": result.message, "hits": hits}


def format_save(report: SaveReport, replaces: str, mem: Memory) -> str:
    """Between one and four short lines: filing, notices to relay, warnings, corrections."""
    kind = (report.data_type or "generic").lower()
    when = f"dated {report.date}" if report.date else "undated"
    first = report.ids[0] if report.ids else "?"
    more = f" (+{len(report.ids) - 1} more)" if len(report.ids) > 1 else ""
    kind += ", global" if report.scope == "global" else f", project {report.scope}"
    if report.new == 0:
        lines = [f"Already remembered, nothing new saved: {report.domain}, {kind}, {when}, "
                 f"id {first}{more}."]
    else:
        pieces = "1 memory" if report.new == 1 else f"{report.new} pieces"
        dup = f"; {report.duplicates} already known" if report.duplicates else ""
        lines = [f"Saved {pieces} in {report.domain} ({kind}, {when}){dup}, id {first}{more}."]
    if report.notices:
        lines.append("Tell the user: " + " ".join(report.notices))
    if report.warnings:
        lines.append("Note: " + "; ".join(report.warnings))
    if replaces:
        lines.append(_replaces_line(report, replaces, first, mem))
    elif report.outdated:  # same subject and attribute, new value: found without replaces
        lines.append(f"Flagged OUTDATED, superseded by this save: {', '.join(report.outdated)}.")
    return "\n".join(lines)


def _replaces_line(report: SaveReport, replaces: str, new_id: str, mem: Memory) -> str:
    if report.outdated:
        return (f"Flagged OUTDATED, replaced by this save: {', '.join(report.outdated)}. "
                "Searches now answer with the new memory.")
    if report.candidates:
        options = "; ".join(f"{cid} \"{_excerpt(mem, cid)}\"" for cid in report.candidates[:5])
        return (f"replaces={replaces!r} fits several memories, none was flagged. Pick one and "
                f"call mark_outdated(old_id, new_id={new_id!r}): {options}")
    hint = "Find it with search_memory(detail='full') and call mark_outdated if needed."
    if any("replaces" in w for w in report.warnings):  # the library already said so
        return hint
    return f"replaces={replaces!r} matched no earlier memory, nothing was flagged. {hint}"


def _excerpt(mem: Memory, leaf_id: str) -> str:
    try:
        return clip_shown(mem.get(leaf_id).text, 70)
    except (IHMTError, OSError):
        return "?"


def format_marked(outcome: Any, old_id: str, new_id: str) -> str:
    """One line naming both memories, so the agent can tell the user what was corrected."""
    if isinstance(outcome, str) and outcome.strip():
        return outcome.strip()
    old_x = new_x = ""
    if isinstance(outcome, dict):
        old_x = f' ("{outcome["old_excerpt"]}")' if outcome.get("old_excerpt") else ""
        new_x = f' ("{outcome["new_excerpt"]}")' if outcome.get("new_excerpt") else ""
    return (f"Marked {old_id}{old_x} as OUTDATED, corrected by {new_id}{new_x}. Searches now "
            "answer with the new memory and flag the old one.")
