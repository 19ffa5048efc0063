"""Plain data carried between the modules: chunks, leaves, branches, facts, search results."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# Data types a document can be classified as.
DATA_TYPES = ("CODE", "NARRATIVE", "CLINICAL", "PERSONAL", "PROCESS", "GENERIC")


@dataclass
class Chunk:
    """One logical block cut out of a document by a chunker.

    ``text`` is a verbatim slice of the source: concatenating a document's chunks in order
    gives the document back byte for byte (chunkers guarantee this).
    """

    text: str
    start_line: int = 1  # 1-based, inclusive
    end_line: int = 1  # 1-based, inclusive
    kind: str = "block"  # imports, class, function, method, paragraph, entry, step, section ...
    name: str | None = None  # symbol name for code, heading for process/narrative
    date: str | None = None  # ISO date (YYYY-MM-DD) found in the text, if any
    oversized: bool = False  # a block larger than max_tokens, kept whole
    tags: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class Leaf:
    """A stored memory: raw text plus the header that lets it describe itself."""

    id: str
    text: str
    domain: str
    data_type: str = "GENERIC"
    date: str | None = None  # when the content is about; None when the text carries no date
    saved_at: str = ""  # ISO-8601 UTC time of the save (never used as the content's date)
    tags: list[str] = field(default_factory=list)
    parent: str | None = None
    span: dict[str, int] | None = None
    checksum: str = ""
    source: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def when(self) -> str:
        """The date shown to a reader: the content's date, or 'undated'."""
        return self.date[:10] if self.date else "undated"


@dataclass
class Hit:
    """One ranked leaf in a search result.

    ``text`` is read from the leaf file only when first asked for: a compact answer shows
    the best memory in full and the others by their excerpt, so most hits never cost a read.
    """

    id: str
    score: float
    domain: str = ""
    date: str | None = None
    path: list[str] = field(default_factory=list)  # root -> ... -> leaf id
    title: str = ""
    excerpt: str = ""
    source: str | None = None
    tags: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    outdated: bool = False
    matched: list[str] = field(default_factory=list)  # query terms found in the leaf
    scope: str = "global"  # "global" or the project id (ihmt.scope)
    foreign: bool = False  # another project's memory than the searcher's: labelled
    # A later memory that says this one's value changed (ihmt.search.changes): whatever
    # re-ranks the hits afterwards (the semantic blend) keeps that one before this one.
    superseded_by: str | None = field(default=None, repr=False, compare=False)
    # A later memory put first because it may have changed the answer after it, on ground
    # too weak to call it the answer, or a first answer that a later memory among the
    # answers may have changed (ihmt.search.changes): no FOUND answer.
    unsettled: bool = field(default=False, repr=False, compare=False)
    _text: str | None = field(default=None, repr=False)
    _loader: Callable[[Hit], str] | None = field(default=None, repr=False, compare=False)

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = self._loader(self) if self._loader else self.excerpt
        return self._text

    @property
    def when(self) -> str:
        return self.date[:10] if self.date else "undated"


@dataclass
class SearchResult:
    """What a search returns: ranked hits plus how the descent got there."""

    query: str
    hits: list[Hit] = field(default_factory=list)
    status: str = "FOUND"  # FOUND | AMBIGUOUS | NOT_FOUND
    confidence: float = 0.0
    node_reads: int = 0  # branch files visited
    leaf_reads: int = 0  # leaf files opened (only the results shown)
    total_nodes: int = 0  # branch files in the store
    total_leaves: int = 0
    visited: list[str] = field(default_factory=list)  # branch ids in the order opened
    capped: bool = False  # the descent hit its file cap; the answer may be incomplete
    notices: list[str] = field(default_factory=list)
    message: str = ""

    @property
    def best(self) -> Hit | None:
        return self.hits[0] if self.hits else None


@dataclass
class Fact:
    """(subject, attribute, value) as stated on a date, with where it was said."""

    subject: str
    attribute: str
    value: str
    date: str  # ISO date or datetime
    source: str | None = None  # leaf id
    status: str = "ACTIVE"  # ACTIVE | HISTORICAL
    valid_from: str | None = None
    valid_to: str | None = None
    superseded_by: str | None = None

    @property
    def key(self) -> str:
        return f"{self.subject}::{self.attribute}"


@dataclass
class SaveReport:
    """How a save or an ingest was filed."""

    ids: list[str] = field(default_factory=list)  # every leaf of the input, new or not
    new: int = 0
    duplicates: int = 0
    domain: str = ""
    data_type: str = ""
    date: str | None = None
    scope: str = "global"  # where it was filed: "global" or a project id (ihmt.scope)
    events: int = 0  # Summarization Events fired
    notices: list[str] = field(default_factory=list)  # contradictions to relay
    warnings: list[str] = field(default_factory=list)
    outdated: list[str] = field(default_factory=list)  # ids flagged by `replaces`
    candidates: list[str] = field(default_factory=list)  # `replaces` was unclear: choose


@dataclass
class ForgetReport:
    """What a forget removed: the memories, and what became current again."""

    ids: list[str] = field(default_factory=list)  # memories removed
    excerpts: dict[str, str] = field(default_factory=dict)  # id -> the start of its text
    current_again: list[str] = field(default_factory=list)  # no longer outdated by them
    facts_removed: int = 0  # statements of theirs the timeline dropped
    rebuilt: bool = False  # the tree had to be rebuilt from the leaves (slow path)
    warnings: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"forgotten": self.ids, "excerpts": self.excerpts,
                "current_again": self.current_again, "facts_removed": self.facts_removed,
                "rebuilt": self.rebuilt, "warnings": self.warnings}


@dataclass
class IngestItem:
    """One file of a directory ingest: filed, or skipped with its reason."""

    path: str
    report: SaveReport | None = None
    skipped: str | None = None
