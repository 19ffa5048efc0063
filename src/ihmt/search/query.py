"""One search, assembled: the query read, the exact descent, then time, facts, corrections,
versions, confidence and (when on) the semantic blend.

:class:`Searcher` holds what a search reads (the store, the fact timeline, the optional
vectors) and the two repairs it may need (a damaged branch, a damaged fact log), so that
:meth:`ihmt.Memory.search` is a call into it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from datetime import date as _date
from typing import TypeVar

from ..config import Config
from ..errors import DamagedFileError, NotFoundError, UnreadableFileError
from ..ingest.dates import query_time_range, strip_time_words
from ..model import Hit, SearchResult
from ..scope import GLOBAL, ScopeView, scope_of
from ..semantic.index import SemanticIndex
from ..store.store import Store
from ..text import clip_shown, fold, tokenize
from ..timeline.facts import FactTimeline
from ..timeline.versions import versions_together
from . import scoped
from .aliases import ALIAS_WEIGHT, acronyms, compounds, expand
from .answer import annotate, corrections_first, finish, rerank
from .asked import answer_type_terms, context_terms, frame_terms
from .asker import not_theirs, ours_first
from .change_hits import FLAGS, earlier_versions, quote, version_head
from .change_notes import use_verbs
from .changes import FOLLOW_MAX_WORDS, FOLLOW_TERMS, changes_first, no_rival, rarest
from .descent import Descent, ScopeFilter, descend, frequencies
from .hybrid import blend, keep_semantic_first, lexical_coverage
from .intent import (
    asks_about_event,
    asks_about_past,
    asks_for_current,
    fact_intent,
    now_terms,
)
from .kinds import KIND_WEIGHT, products
from .related import RELATED_WEIGHT, related

T = TypeVar("T")  # what a read of the tree returns (:meth:`Searcher._reading`)
_YEAR = re.compile(r"(?:1[6-9]|2[0-9])[0-9]{2}")


class Searcher:
    def __init__(self, store: Store, config: Config, timeline: FactTimeline,
                 semantic: SemanticIndex, repair: Callable[[str], None],
                 check_timeline: Callable[[], None]) -> None:
        self.store = store
        self.config = config
        self.timeline = timeline
        self.semantic = semantic
        self._repair = repair  # rebuild the derived files (a damaged branch or leaf)
        self._check_timeline = check_timeline  # rebuild a damaged fact log first

    def search(self, query: str, top_k: int, clue: str | None,
               view: ScopeView | None = None) -> SearchResult:
        """See :meth:`ihmt.Memory.search` (arguments already checked and cleaned).
        ``view``: the project searched from and the scope filter (:mod:`ihmt.search.scoped`)."""
        today = _date.today().isoformat()
        current = asks_for_current(query)
        period = query_time_range(query, today)
        if period and current and period[1] >= today:
            period = None  # "today"/"now" asks for the current state, not for a date
        base = (strip_time_words(query) if period else query).strip() or query
        stem = self.config.stemmer
        frame = frame_terms(base, stem)
        words = [w for w in tokenize(base, stem) if w not in frame] or tokenize(base, stem)
        words += tokenize(clue, stem) if clue else []
        terms = words + (absolute_time_terms(query, words, stem) if period else [])
        # A clue, a period or the semantic blend re-weights candidates, so look deeper than
        # the answer; a question about "now" only reorders versions, which the fact
        # timeline finds.
        fetch = max(top_k * 3, 30) if (clue or period or self.semantic.active) else top_k
        root = self.store.root()
        flt = scoped.scope_filter(view, root)
        alias = expand(words, stem)  # "prod" for "production", "retro" for "retrospectives"
        for joined, t in compounds(base, words, stem).items():  # "login" for "log in"
            alias.setdefault(joined, t)
        # "ADR" for "architecture decision records": a memory holding it matches all three
        initials = {a: ts for a, ts in acronyms(base, stem).items()
                    if a not in alias and a not in words}
        # "manager" for "boss", "memory" for "RAM": looser, so weighed less, and only for a
        # question word that no memory holds (one that finds its own memories keeps them)
        df = self.frequencies(words) if related(words, stem) else {}
        near = {t: w for t, w in related([w for w in words if not df.get(w)], stem).items()
                if t not in alias and t not in initials}
        # "Sentry" for "errors", "Postmark" for "emails": a product of the kind a query word
        # names, as loose as a related word (it makes a likely answer, not a sure one)
        kinds = {p: t for p, t in products(words, stem).items()
                 if p not in alias and p not in initials and p not in near}
        near.update(kinds)
        d = self.descend(terms + list(alias) + list(initials) + list(near), fetch, flt,
                         weights={**dict.fromkeys(near, RELATED_WEIGHT),
                                  **dict.fromkeys([*alias, *initials], ALIAS_WEIGHT),
                                  **dict.fromkeys(kinds, KIND_WEIGHT)})
        result = SearchResult(query=query, node_reads=d.node_reads, visited=d.visited,
                              total_nodes=int(root.get("n_branches", 0)),
                              total_leaves=int(root["n_leaves"]), capped=d.capped)
        loader = self._loader(result)
        hits = scoped.label(_hits(d, loader) + _hits(d, loader, d.outside), view, root)
        # (the query words each hit holds only in another word of their group: "memory"
        # for "RAM"; they count, for less, in the test for NOT FOUND)
        loose = {h.id: frozenset(near[t] for t in h.matched if t in near) for h in hits}
        for h in hits:  # found by another word of a query word's group: found by that word
            # (a related word helped it rank; it is not a word of the question, for the
            # confidence nor for the rule of changes)
            h.matched = list(dict.fromkeys(w for t in h.matched if t not in near
                                           for w in initials.get(t, [alias.get(t, t)])))
        self._check_timeline()
        annotate(hits, self.timeline, self.excerpt)

        def hit_for(leaf_id: str) -> Hit | None:
            return self.hit_for(leaf_id, result, view)

        value = None
        intent = fact_intent(query)
        types = answer_type_terms(base, stem)
        grouped = self._topic(intent, hits, period, loader, hit_for, flt, view, root,
                              asked=(words, types)) if intent else None
        if grouped is not None:
            hits, conf, note, before = grouped
            value = note
        else:
            rerank(hits, query=base, clue=clue, period=period, stemmer=stem, current=current,
                   idf=d.idf, loosely=frozenset(i for i, ws in loose.items() if ws))
            if not period:
                hits = corrections_first(hits, self.timeline, hit_for)
            hits = versions_together(hits, self.timeline, hit_for, query=base, period=period,
                                     stemmer=stem, current=current)

        def later(found_by: list[list[str]], k: int, since: str) -> list[Hit]:
            """The memories dated ``since`` or later, in the view searched, that the rarest
            of ``found_by`` (the words of each answer) find best (the rarest words are the
            names and the subject; a descent over every word of a memory would open the
            whole tree)."""
            df = self.frequencies([t for g in found_by for t in g])
            d = self.descend(rarest(found_by, df, FOLLOW_TERMS), k,
                             _dated_since(flt, since))
            more = scoped.label(_hits(d, loader), view, root)
            annotate(more, self.timeline, self.excerpt)
            return more

        def changed(hs: list[Hit], meaning: bool = False) -> list[Hit]:
            return changes_first(hs, terms=set(words), stemmer=stem, saved_at=self._saved_at,
                                 excerpt=quote, facts_of=self.timeline.keys_of,
                                 find=None if asks_about_event(base)
                                 or len(set(words)) > FOLLOW_MAX_WORDS
                                 else later,
                                 successor=lambda i: self.timeline.outdated_by(i)
                                 or self.timeline.changed_by(i),
                                 now=not asks_about_past(base), meaning=meaning,
                                 held=self.frequencies)

        def follow(leaf_id: str) -> list[Hit]:
            """The model's answer (found by meaning alone) and what became of it: a later
            memory that the change rule reads as its new version comes first."""
            h = hit_for(leaf_id)
            return changed([h], meaning=True) if h is not None and h.date else []

        if not period:  # a change said in words leads what it changed (and is flagged)
            lead_id = hits[0].id if grouped is not None and hits else None
            hits = changed(hits)
            if lead_id is not None and hits and (hits[0].id != lead_id or hits[0].outdated
                                                   or hits[0].unsettled):
                # a later change moved above the version group's newest, or flagged it: the
                # group does not decide this answer, the ordinary confidence does, and its
                # flags go
                grouped = value = None
                _unflag(hits, before)
        result.hits = scoped.in_scope_first(hits)
        # (what the question calls the kind of its answer, and its verb of use: how it asks)
        asks = types | (frozenset(words) & use_verbs(stem))
        slack: frozenset[str] = frozenset()
        inherited: frozenset[str] = frozenset()
        versions: Counter[str] = Counter()
        agrees = None
        if not period and result.hits and version_head(result.hits[0], result.hits[:top_k],
                                                       flagged=False):
            # The newest of versions a change linked: what the question calls the kind of
            # its answer and its verb of use are how it asks, not what the answer must say;
            # a runner-up naming the same value, or only a plan, is no rival answer.
            slack = asks
            agrees = no_rival(set(words), stem)
            prior = earlier_versions(result.hits[0], result.hits[:top_k])
            inherited = frozenset(t for h in prior for t in h.matched)
            versions = Counter(t for h in prior for t in set(h.matched))
        # What the answer is judged by: not the words that ask about the present ("which
        # proxy ... today?"), and the words of the query's context ("I need to add a
        # route") weigh as little as the kind of answer where the best memory lacks them.
        asked_now = now_terms(base, stem)
        judged = [t for t in terms if t not in asked_now] or terms
        slack = slack | context_terms(base, stem)
        if value is None:
            ours_first(result, base)
        finish(result, terms=judged, idf=d.idf, n_leaves=d.n_leaves, cfg=self.config,
               top_k=top_k, answer_value=value,
               types=asks, stemmer=stem,
               no_rival=agrees, slack=slack, inherited=inherited, versions=versions,
               loose=loose.get(result.hits[0].id, frozenset()) if result.hits else frozenset(),
               now=not period and not asks_about_past(base))
        if grouped is not None:
            from . import topic  # already loaded by self._topic

            result.confidence = conf
            if conf < topic.LEAD_AGREES:  # shown with the answer: the agent should check
                result.notices.append(value.split("; ", 1)[-1])
        # The model reads the whole question: the words of a period ("in the autumn") are
        # meaning too, even where the lexical side turns them into a preference.
        close = self.semantic.query(query, max(top_k * 3, 30), [h.id for h in hits]) \
            if self.semantic.active else None
        if close and flt is not None:
            close = scoped.in_view(close, view, {h.id for h in hits}, self._scope_of)
        if close and value is None:
            # the newest of versions a change linked, or one that may have changed the
            # answer, leads whatever the model prefers: meaning cannot tell now from then
            lead = result.hits[0] if result.hits else None
            settled = lead is not None and (lead.unsettled
                                            or version_head(lead, result.hits[:top_k]))
            blend(result, hits, *close, hit_for,
                  lambda new: annotate(new, self.timeline, self.excerpt), top_k,
                  current or settled, lexical_coverage(hits, words, d.idf, d.n_leaves),
                  follow=None if period or asks_about_past(base) else follow)
            result.hits = scoped.in_scope_first(result.hits)
        elif close:  # answered from a version group: its order stands, plus the model's best
            keep_semantic_first(result, close[0], hit_for,
                                lambda new: annotate(new, self.timeline, self.excerpt), top_k)
        not_theirs(result, base)
        scoped.settle(result, view)
        scoped.mark(result.hits, view)
        if self.store.problems:
            result.notices.extend(self.store.problems)
            self.store.problems.clear()
        return result

    def _topic(self, attribute: str, hits: list[Hit], period: tuple[str, str] | None,
               loader: Callable[[Hit], str], hit_for: Callable[[str], Hit | None],
               flt: ScopeFilter | None, view: ScopeView | None, root: dict,
               asked: tuple[list[str], frozenset[str]] = ([], frozenset())
               ) -> tuple[list[Hit], float, str, dict[str, tuple[bool, list[str]]]] | None:
        """A question about the user's own state, answered from its version group
        (:mod:`ihmt.search.topic`): the timeline's sources and the memories holding the
        attribute's vocabulary. None when no dated memory speaks about it, or when the
        newest that may lead holds none of the words the question asks about besides the
        attribute (``asked``: the question's terms and those of the kind of its answer)."""
        # Imported here: its lexicon costs a hook process ~13 ms, and only a question about
        # the user's own state (intent.fact_intent) needs it.
        from . import topic

        stem = self.config.stemmer
        vocab = topic.vocabulary_terms(attribute, stem)
        extra = scoped.label(_hits(self.descend(vocab, topic.MAX_GROUP, flt), loader), view,
                             root) if vocab else []
        words = set(vocab)
        about = [h for h in hits if words & set(h.matched)] + extra
        stmts = self.timeline.statements("user", attribute)
        # The statements around the time asked about, not all of them: a long history must
        # not cost a leaf read per statement.
        cut = len(stmts) if not period else sum(1 for f in stmts if f.date[:10] <= period[1])
        near = stmts[max(0, cut - topic.MAX_GROUP // 2): cut + topic.MAX_GROUP // 2] \
            if period else stmts[-topic.MAX_GROUP:]
        sources = list(dict.fromkeys(f.source for f in near if f.source))
        vset = frozenset(vocab)
        group = topic.version_group(about, sources, hit_for, self._saved_at,
                                    attribute=attribute, vocab=vset,
                                    ambiguous=topic.ambiguous_terms(attribute, stem),
                                    weak=topic.weak_terms(attribute, stem), stemmer=stem)
        personal = attribute in topic.PERSONAL
        group = scoped.one_scope(group, view, personal)
        if not group:
            return None
        annotate(group, self.timeline, self.excerpt)
        can = topic.leaders(group, set(sources), vset, attribute)
        # The names the members give find the versions said without the attribute's
        # words: a later change ("Said goodbye to Pied Piper; now I'm at Aviato"), or for
        # a question about a time before every member, the memory of then.
        named = topic.names(group)
        found = scoped.label(_hits(self.descend(tokenize(" ".join(named), stem),
                                                topic.MAX_GROUP, flt), loader), view, root) \
            if named else []
        scopes = {h.scope for h in group}
        if view is not None and view.project and len(scopes) == 1:  # and so the versions
            found = [h for h in found if h.scope in scopes]  # found by name: one scope
        newer = topic.later_by_name(group, can, found)
        if newer:
            annotate(newer, self.timeline, self.excerpt)
            group = sorted(group + newer, key=lambda h: (h.date or "", h.id))
            can = topic.leaders(group, set(sources), vset, attribute)
        if not period and not topic.sure_of_thing(group, can, attribute, stem):
            topic.doubt_older(group, can)  # (the ordinary ranking answers, not as sure)
            return None
        lead = topic.lead_of(group, period, can=can)
        older: list[Hit] = []
        if period and lead is not None and (lead.date or "")[:10] > period[1]:
            # Nothing of the group is dated then: an older memory may name the value the
            # members replaced ("Me fui de Stark Analytics ...") without the attribute's
            # words ("En Stark Analytics hago paneles internos").
            older = topic.earlier_by_name(group, found, named)
            if older:
                annotate(older, self.timeline, self.excerpt)
                group = older + group
                can = topic.leaders(group, set(sources), vset, attribute)
                lead = topic.lead_of(group, period, can=can)
        if lead is None or topic.answers_else(
                lead, topic.asked_beyond(asked[0], vset, attribute, stem, asked[1]),
                hits + group, stem):
            return None  # (a lead about another thing than the one asked: no group answer)
        before = {h.id: (h.outdated, list(h.notices)) for h in group}
        ordered = topic.order_group(group, lead, period, attribute, can)
        now_value = fold(stmts[-1].value) if stmts else None
        current = {f.source for f in stmts if f.source and fold(f.value) == now_value}
        if period and (lead.date or "")[:10] > period[1]:
            conf = topic.NOTHING_THEN  # nothing dated then: the earliest known, said so
            note = (f"the earliest memory about your {attribute}; no memory about it is "
                    "dated that early")
        elif period and any(lead is h for h in older):
            conf = topic.LEAD_DISAGREES
            note = (f"the memory of then that names what a later memory about your "
                    f"{attribute} replaced; check with the user")
        elif period:
            conf, note = topic.LEAD_AGREES, f"the memory about your {attribute} in force then"
        else:
            conf = topic.LEAD_AGREES if not stmts or lead.id in current else \
                topic.LEAD_DISAGREES
            note = (f"the one memory about your {attribute}" if len(group) == 1 else
                    f"the newest of {len(group)} memories about your {attribute}")
            if conf < topic.LEAD_AGREES:
                note += (f"; the fact timeline still holds '{stmts[-1].value}' "
                         f"({stmts[-1].date[:10]}): check with the user")
        ids = {h.id for h in ordered}
        return ordered + [h for h in hits if h.id not in ids], conf, note, before

    def _saved_at(self, leaf_id: str) -> str:
        try:
            return self.store.read_leaf(leaf_id).saved_at or ""
        except (NotFoundError, DamagedFileError):
            return ""

    def descend(self, terms: list[str], k: int, flt: ScopeFilter | None = None,
                weights: dict[str, float] | None = None) -> Descent:
        """The exact descent; a damaged branch is looked at again (another process may have
        just rebuilt the tree), then repaired."""
        return self._reading(lambda: descend(self.store, terms, k,
                                             max_files=self.config.max_files_per_search,
                                             scope=flt, weights=weights))

    def frequencies(self, terms: list[str]) -> dict[str, int]:
        """How many memories hold each of ``terms`` (the trunk's nodes), read as
        :meth:`descend` reads."""
        return self._reading(lambda: frequencies(self.store, terms))

    def _reading(self, read: Callable[[], T]) -> T:
        """``read()``; a damaged branch is looked at again, then repaired."""
        for attempt in (0, 1, 2):
            try:
                return read()
            except DamagedFileError as exc:
                if attempt == 2:
                    raise
                if attempt == 0:
                    self.store.clear_cache()
                else:
                    self._repair(str(exc))
        raise AssertionError("unreachable")

    def hit_for(self, leaf_id: str, result: SearchResult,
                view: ScopeView | None = None) -> Hit | None:
        """A hit read from the leaf file itself (a memory the descent did not rank); None
        for a memory the ``view`` does not show."""
        try:
            leaf = self.store.read_leaf(leaf_id)
        except (NotFoundError, DamagedFileError):
            return None
        result.leaf_reads += 1
        scope = scope_of(leaf.extra)
        if view is not None and view.filtering and not view.admits(scope):
            return None
        path = ["root"] + ([leaf.parent] if leaf.parent else []) + [leaf.id]
        return Hit(id=leaf.id, score=0.0, domain=leaf.domain, date=leaf.date, path=path,
                   title=clip_shown(leaf.text, 80), excerpt=clip_shown(leaf.text, 160),
                   source=leaf.source,
                   tags=leaf.tags, scope=scope,
                   foreign=bool(view and view.crosses and view.foreign(scope)),
                   _text=leaf.text)

    def _scope_of(self, leaf_id: str) -> str | None:
        try:
            return scope_of(self.store.read_leaf(leaf_id).extra)
        except (NotFoundError, DamagedFileError):
            return None

    def excerpt(self, leaf_id: str) -> str:
        try:
            return clip_shown(self.store.read_leaf(leaf_id).text, 100)
        except (NotFoundError, DamagedFileError):
            return "(not available)"

    def _loader(self, result: SearchResult) -> Callable[[Hit], str]:
        def load(hit: Hit) -> str:
            result.leaf_reads += 1
            try:
                return self.store.read_leaf(hit.id, hit.domain).text
            except UnreadableFileError as exc:
                # Not damaged, only unreadable now (permissions): say so, rebuild nothing.
                result.notices.append(str(exc))
                return f"[unavailable: {exc}]"
            except DamagedFileError as exc:
                # The leaf went to quarantine: re-derive the tree so nothing points at it.
                self._repair(str(exc))
                # Shown on this result (if read after the text) and on the next one.
                result.notices.extend(self.store.problems)
                return f"[unavailable: {exc}]"
            except NotFoundError as exc:
                return f"[unavailable: {exc}]"
        return load


def _dated_since(flt: ScopeFilter | None, since: str) -> ScopeFilter:
    """``flt`` narrowed to memories dated ``since`` (an ISO day) or later: a branch whose
    newest memory is older is not opened."""
    def leaf(entry: dict) -> bool:
        return (entry.get("date_from") or "")[:10] >= since and (flt is None or flt.leaf(entry))

    def node(entry: dict) -> bool:
        return (entry.get("date_to") or "")[:10] >= since and (flt is None or flt.node(entry))

    return ScopeFilter(leaf=leaf, node=node)


def _unflag(hits: list[Hit], before: dict[str, tuple[bool, list[str]]]) -> None:
    """Take back what a version group's ordering flagged (``before``: each member's flag
    and notices until then); what the changes rule flagged since stays."""
    for h in hits:
        if h.id not in before:
            continue
        was, notes = before[h.id]
        h.notices = [n for n in h.notices if n in notes or n.startswith(FLAGS)
                     or not n.startswith("possibly outdated")]
        h.outdated = was or any(n.startswith(FLAGS) for n in h.notices)


def _hits(d: Descent, loader: Callable[[Hit], str], cands: list | None = None) -> list[Hit]:
    out = []
    for c in d.candidates if cands is None else cands:
        e = c.entry
        out.append(Hit(id=e["id"], score=c.score, domain=e.get("domain", ""),
                       date=e.get("date_from"), path=c.path, title=e.get("title", ""),
                       excerpt=e.get("excerpt", ""), source=e.get("source"),
                       tags=list(e.get("tags") or []), matched=c.matched,
                       scope=e.get("scope") or GLOBAL, _loader=loader))
    return out


def absolute_time_terms(query: str, kept: list[str], stem: str) -> list[str]:
    """The words of an absolute time the query names ("summer 2021"), to match as words.

    The period itself becomes a preference, but a memory may *mention* it ("we went to
    Indiana in summer 2021", saved a year later), and then those words are the match.
    Relative times ("last May", "el verano pasado") stay out: their words would only
    match by accident.
    """
    have = set(kept)
    removed = [t for t in tokenize(query, stem) if t not in have]
    if not any(_YEAR.fullmatch(t) for t in removed):
        return []
    return list(dict.fromkeys(removed))
