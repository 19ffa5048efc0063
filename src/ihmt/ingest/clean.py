"""The check every text passes before it is saved or searched for (kept apart from
:mod:`ihmt.ingest.prepare` so that a search does not import the chunkers and detectors)."""

from __future__ import annotations

from typing import Any

from ..errors import InputError


def clean_text(content: Any, max_bytes: int) -> tuple[str, list[str]]:
    """Validate text for storage: a str, not empty, within the size cap, encodable.

    Lone surrogates (unencodable halves of a UTF-16 pair) become U+FFFD, with a warning,
    instead of crashing the save. Text holding NUL characters is binary data (an image, an
    archive): refused, as a binary file given by its path is.
    """
    if not isinstance(content, str):
        raise InputError(f"content must be text, not {type(content).__name__}")
    warnings: list[str] = []
    try:
        size = len(content.encode("utf-8"))
    except UnicodeEncodeError:
        content = "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in content)
        size = len(content.encode("utf-8"))
        warnings.append("lone surrogate characters were replaced by U+FFFD")
    if "\x00" in content:
        raise InputError("content is binary data (it holds NUL characters), not text; "
                         "only text can be saved")
    if size > max_bytes:
        raise InputError(
            f"content is {size:,} bytes, over the {max_bytes:,}-byte limit for one save; "
            "split it, or raise max_input_bytes in ihmt.config.json"
        )
    if not content.strip():
        raise InputError("nothing to save: the content is empty or only whitespace")
    return content, warnings


MAX_QUERY_BYTES = 20_000  # a query or clue past this is a document, not a question


def clean_query(text: str, what: str = "query") -> str:
    """A query or a clue checked like saved text, with a message about searching: a long
    text is refused because it is not a question, whatever ``max_input_bytes`` says."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_QUERY_BYTES:
        raise InputError(
            f"the {what} is {size:,} bytes, over the {MAX_QUERY_BYTES:,}-byte limit for a "
            f"search; search with a question or a few key words, not a whole document")
    try:
        clean, _ = clean_text(text, MAX_QUERY_BYTES)
    except InputError as exc:
        raise InputError(str(exc).replace("content", f"the {what}", 1)
                         .replace("only text can be saved", "only text can be searched")
                         ) from exc
    return clean
