"""Summarizer backends: what a branch says about its children (title, summary, keywords).

The summary is for people and for the compact tree view; retrieval never depends on it
(routing uses the exact term statistics stored beside it), so a weak or failing model can
never lose an answer.
"""

from __future__ import annotations

import functools
import json
import logging
import os
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..text import STOPWORDS, clip, fold, words

log = logging.getLogger(__name__)


@dataclass
class NodeSummary:
    title: str
    summary: str
    keywords: list[str] = field(default_factory=list)


class SummarizerBackend(Protocol):
    name: str

    def summarize(self, children: list[dict[str, Any]], *, domain: str, layer: int) -> NodeSummary:
        """Condense child entries (each with title, excerpt, keywords) into one summary."""
        ...


def display_keywords(text: str, limit: int = 8) -> list[str]:
    """Readable keywords of a text: frequent content words, rare long ones first on ties."""
    counts: Counter[str] = Counter(f for f in map(_keyword, words(text)) if f)
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], -len(kv[0]), kv[0]))
    return [w for w, _ in ranked[:limit]]


@functools.lru_cache(maxsize=100_000)
def _keyword(word: str) -> str | None:
    f = fold(word)
    return f if len(f) > 2 and f not in STOPWORDS and not f.isdigit() else None


class HeuristicSummarizer:
    """Deterministic and offline: keyword votes among children, representative child title."""

    name = "heuristic"

    def summarize(self, children: list[dict[str, Any]], *, domain: str, layer: int) -> NodeSummary:
        votes: Counter[str] = Counter()
        for ch in children:
            for rank, kw in enumerate(ch.get("keywords") or []):
                votes[kw] += max(1, 8 - rank) * max(1, int(ch.get("n_leaves", 1)) ** 0.5)
        keywords = [w for w, _ in sorted(votes.items(), key=lambda kv: (-kv[1], kv[0]))[:10]]
        top = set(keywords[:5])
        best = max(
            children,
            key=lambda ch: (len(top & set(ch.get("keywords") or [])), -children.index(ch)),
        )
        n = sum(int(ch.get("n_leaves", 1)) for ch in children)
        dates = [d for ch in children for d in (ch.get("date_from"), ch.get("date_to")) if d]
        span = f"{min(dates)[:10]}..{max(dates)[:10]}" if dates else "undated"
        title = clip(best.get("title") or ", ".join(keywords[:4]) or domain, 80)
        summary = f"{n} memories in {domain} ({span}): " + ", ".join(keywords[:8])
        return NodeSummary(title=title, summary=summary, keywords=keywords)


class AnthropicSummarizer:
    """Uses Claude when selected and both the ``anthropic`` package and an API key exist.

    Every failure (no SDK, no key, network error, unparseable reply) falls back to the
    heuristic, so a consolidation never fails because a model was unreachable.
    """

    name = "anthropic"

    def __init__(self, model: str) -> None:
        self.model = model
        self.fallback = HeuristicSummarizer()

    def summarize(self, children: list[dict[str, Any]], *, domain: str, layer: int) -> NodeSummary:
        base = self.fallback.summarize(children, domain=domain, layer=layer)
        if not os.environ.get("ANTHROPIC_API_KEY"):
            return base
        try:
            import anthropic  # type: ignore[import-not-found]

            lines = "\n".join(f"- {c.get('title', '')}: {c.get('excerpt', '')}" for c in children)
            reply = anthropic.Anthropic().messages.create(
                model=self.model,
                max_tokens=200,
                messages=[{
                    "role": "user",
                    "content": "Summarize these memory entries for an index. Reply with JSON "
                    '{"title": "<= 10 words", "summary": "<= 40 words"}.\n' + lines,
                }],
            )
            parsed = json.loads(reply.content[0].text)
            return NodeSummary(
                title=clip(str(parsed["title"]), 80),
                summary=clip(str(parsed["summary"]), 300),
                keywords=base.keywords,
            )
        except Exception as exc:  # noqa: BLE001 - any failure means: use the heuristic
            log.info("anthropic summarizer unavailable (%s); using the heuristic", exc)
            return base


def make_summarizer(backend: str, model: str) -> SummarizerBackend:
    if backend == "anthropic":
        return AnthropicSummarizer(model)
    return HeuristicSummarizer()
