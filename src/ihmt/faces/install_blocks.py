"""The usage instructions IHMT adds to an agent's instructions file (CLAUDE.md,
AGENTS.md), between two marker lines, so that they can be refreshed or removed alone."""

from __future__ import annotations

from importlib import resources

from .install_agents import InstallError

MARK_BEGIN = "<!-- ihmt-memory:begin"
MARK_END = "<!-- ihmt-memory:end -->"


def instructions_block() -> str:
    """The usage instructions, between their marker lines (package data)."""
    text = (resources.files("ihmt") / "templates" / "memory-instructions.md").read_text("utf-8")
    return text if text.endswith("\n") else text + "\n"


def _block_span(lines: list[str], where: str) -> tuple[int, int] | None:
    begin = next((i for i, ln in enumerate(lines) if ln.lstrip().startswith(MARK_BEGIN)), None)
    if begin is None:
        return None
    end = next((i for i in range(begin, len(lines)) if lines[i].strip() == MARK_END), None)
    if end is None:
        raise InstallError(f"{where}: the IHMT instructions block has a begin marker but no "
                           f"'{MARK_END}' line; fix it by hand")
    return begin, end


def _with_block(text: str | None, block: str) -> str:
    if text is None or not text.strip():
        return block
    lines = text.splitlines(keepends=True)
    span = _block_span(lines, "instructions")
    if span is not None:  # already there: refresh it in place (a newer template)
        b, e = span
        return "".join(lines[:b]) + block + "".join(lines[e + 1:])
    return text.rstrip("\n") + "\n\n" + block


def _without_block(text: str | None) -> str | None:
    if text is None:
        return None
    lines = text.splitlines(keepends=True)
    span = _block_span(lines, "instructions")
    if span is None:
        return text
    b, e = span
    before, after = lines[:b], lines[e + 1:]
    if before and not before[-1].strip() and (not after or not after[0].strip()):
        before = before[:-1]  # the blank line install put in front of the block
    new = "".join(before + after)
    return new if new.strip() else None


