"""Does a memory answer with the current value when a team says a project component changed?

Generates small project histories, about a third in Spanish: ~20 unrelated project notes
(many with the same common verbs: use, run, build, store) and one component (billing's
database, the frontend's bundler, what runs deploys, the session cache, where the docs are
hosted, log shipping, error tracking, feature flags, the package manager, IaC, the queue of
order events, login, the linter, the test runner, the workers' orchestrator, the CDN) whose
value changes once or twice, each version a memory saved with its date (some changes on the
same day as the version before). The subject is not a name ("billing", "the frontend",
"deploys") and the attribute is often left unsaid. In about half of the histories a *trap*
follows the last change: a later memory that mentions a value without changing it (a plan,
an attempt rolled back, "X stays on Y", another change in the same note, "now that X runs
on Y ..."). Each history goes into its own store and is asked about now, as a user would,
with or without the attribute's word.

Figures per system (flat BM25, "the newest of the BM25 matches", IHMT lexical):

- ``current_value_first``: the answer leads with the newest version (for IHMT, a FOUND
  answer);
- ``newest_leads``: the newest version comes first, whatever the answer's status;
- ``newest_in_answer``: the newest version is in the top 5;
- ``traps_hold``: the trap does not lead and does not get a version flagged outdated;
- ``confident_stale``: the answer leads with an older version (for IHMT, FOUND): the worst
  outcome, a confident wrong answer.

Alongside, ``words_reach`` says how far words alone can get on the corpus (a property of
the data, :func:`bench.changes_blind.reach`), so that corpora of different difficulty can
be told apart from rules that generalise less.

The phrasings (:mod:`bench.changes_corpus`) are written for this benchmark and kept apart
from the rule. Templates alternate by position between a ``dev`` half and a ``held`` half;
a rule tuned on the misses of one half is checked on the other. ``--no-changes`` runs IHMT
with the rule "a change said in words leads what it changed" switched off (the before).
``--corpus blind`` runs the same harness on :mod:`bench.changes_blind`, phrasings written
without reading the rules; its misses are not printed.

    python -m bench.changes --histories 200 --seed 5 --json
    python -m bench.changes --corpus blind --histories 200 --seed 5 --json
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import re
import shutil
import sys
import tempfile
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._common import FlatBM25, emit, env_info, progress
from .changes_corpus import (
    CHANGE_EN,
    CHANGE_ES,
    COMPONENTS,
    NOISE_EN,
    NOISE_ES,
    TRAP_KINDS,
    TRAPS_EN,
    TRAPS_ES,
    VERBS,
)

SYSTEMS = ("flat_bm25", "newest_bm25", "ihmt")


@dataclass
class Entry:
    date: str
    text: str
    role: str  # version | trap | noise
    value: str | None = None


@dataclass
class History:
    hid: int
    component: str
    lang: str
    half: str  # dev or held
    versions: list[Entry]  # oldest first
    others: list[Entry] = field(default_factory=list)
    trap: Entry | None = None
    trap_kind: str | None = None
    question: str = ""
    attr_in_question: bool = False
    old_named: bool = False  # the newest version's text names the value it replaced
    same_day: bool = False  # the newest version was saved the same day as the one before

    def entries(self) -> list[Entry]:
        """In saving order: by date, a same-day change after what it changed."""
        rank = {"noise": 0, "version": 1, "trap": 2}
        items = list(enumerate(self.versions + self.others))
        items.sort(key=lambda p: (p[1].date, rank[p[1].role], p[0]))
        return [e for _, e in items]


def _pick(items: list[str], half: str, rng: random.Random) -> str:
    pool = items[0::2] if half == "dev" else items[1::2]
    return rng.choice(pool or items)


def _fill(tpl: str, lang: str, plural: bool = False, **values: str) -> str:
    s = values.get("s", "")
    verbs = {k: forms[plural] for k, forms in VERBS.items()}
    text = tpl.format(S=s[:1].upper() + s[1:], **verbs, **values)
    if lang == "es":  # Spanish contractions: "de el" -> "del", "a el" -> "al"
        text = re.sub(r"\bde el\b", "del", text)
        text = re.sub(r"\ba el\b", "al", text)
        text = re.sub(r"\bDe el\b", "Del", text)
    return text


def _day(d: dt.date) -> str:
    return d.isoformat()


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


def _names(text: str, value: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(value)}(?!\w)", text, re.IGNORECASE) is not None


def generate(n: int, seed: int) -> list[History]:
    rng = random.Random(seed)
    names = sorted(COMPONENTS)
    k = len(names)
    out: list[History] = []
    for i in range(n):
        name = names[i % k]
        spec = COMPONENTS[name]
        half = "dev" if (i // k) % 2 == 0 else "held"
        lang = "es" if (i // (2 * k)) % 3 == 2 else "en"
        subject = spec[f"s_{lang}"]
        plural = bool(spec.get(f"plural_{lang}"))
        n_versions = 2 + (rng.random() < 0.4)
        values = rng.sample(spec["values"], n_versions + 1)
        unused = values.pop()
        day = dt.date(2023, 1, 1) + dt.timedelta(days=rng.randrange(365))
        versions: list[Entry] = []
        same_day = False
        changes = spec[f"{lang}_change"] + (CHANGE_ES if lang == "es" else CHANGE_EN)
        for j, v in enumerate(values):
            if j:
                same_day = rng.random() < 0.25
                day += dt.timedelta(days=0 if same_day else rng.randrange(20, 300))
                tpl = _pick(changes, half, rng)
                text = _fill(tpl, lang, plural, s=subject, v=v, o=values[j - 1])
            else:
                tpl = _pick(spec[f"{lang}_state"], half, rng)
                text = _fill(tpl, lang, v=v)
            versions.append(Entry(_day(day), text, "version", v))
        h = History(i, name, lang, half, versions, same_day=same_day)
        h.old_named = values[-2] in versions[-1].text
        first = dt.date.fromisoformat(versions[0].date)
        last = dt.date.fromisoformat(versions[-1].date)
        if rng.random() < 0.5:
            h.trap_kind = TRAP_KINDS[rng.randrange(len(TRAP_KINDS))]
            pool = (TRAPS_ES if lang == "es" else TRAPS_EN)[h.trap_kind]
            text = _fill(_pick(pool, half, rng), lang, plural, s=subject, c=values[-1],
                         p=values[-2], x=unused)
            h.trap = Entry(_day(last + dt.timedelta(days=rng.randrange(3, 120))), text,
                           "trap")
            h.others.append(h.trap)
        end = dt.date.fromisoformat(h.trap.date) if h.trap else last
        noise = [t for t in (NOISE_ES if lang == "es" else NOISE_EN)
                 if not any(_names(t, v) for v in spec["values"])]
        span = (end - first).days + 240
        for t in rng.sample(noise, min(len(noise), 18 + rng.randrange(5))):
            d = first - dt.timedelta(days=200) + dt.timedelta(days=rng.randrange(span))
            h.others.append(Entry(_day(d), t, "noise"))
        h.question = _pick(spec[f"{lang}_q"], half, rng)
        h.attr_in_question = bool(_words(h.question) & {a.lower() for a in spec["attr"]})
        out.append(h)
    return out


# ----------------------------------------------------------------------------- systems


@contextmanager
def rule_off() -> Iterator[None]:
    """IHMT without "a change said in words leads what it changed" (the before), for the
    time of the block."""
    from ihmt.search import query

    kept = query.changes_first
    query.changes_first = lambda hits, **_: hits  # type: ignore[assignment]
    try:
        yield
    finally:
        query.changes_first = kept


def _flagged_by_trap(res: Any, h: History, ids: dict[int, str]) -> bool:
    """A version of the answer was flagged outdated because of the trap: the newest version
    flagged at all (nothing real came after it), or an earlier one whose notice names the
    trap's id."""
    newest = ids[id(h.versions[-1])]
    versions = {ids[id(v)] for v in h.versions}
    trap = ids[id(h.trap)] if h.trap else ""
    for hit in res.hits:
        if not hit.outdated or hit.id not in versions:
            continue
        if hit.id == newest:
            return True
        if trap and any(trap in n for n in hit.notices):
            return True
    return False


def run(histories: list[History], *, top: int = 5) -> dict[str, Any]:
    from ihmt import Memory

    from . import _semantic

    _semantic.select(False)
    tmp = Path(tempfile.mkdtemp(prefix="ihmt-changes-"))
    rows: dict[str, list[dict[str, Any]]] = defaultdict(list)
    misses: list[dict[str, Any]] = []
    try:
        for n, h in enumerate(histories):
            if n and n % 50 == 0:
                progress(f"history {n}/{len(histories)}")
            mem = Memory.open(tmp / f"h{h.hid}", create=True)
            entries = h.entries()
            ids: dict[int, str] = {}
            for e in entries:
                ids[id(e)] = mem.save(e.text, date=e.date).ids[0]
            by_id = {ids[id(e)]: e for e in entries}
            order = {ids[id(e)]: k for k, e in enumerate(entries)}  # saving order
            newest = ids[id(h.versions[-1])]
            older = {ids[id(v)] for v in h.versions[:-1]}
            trap = ids[id(h.trap)] if h.trap else None

            flat = FlatBM25([e.text for e in entries], stemmer=mem.config.stemmer)
            ranked = [ids[id(entries[i])] for i, _ in flat.search(h.question, top_k=top)]
            scores = flat.scores(h.question)
            matched = [ids[id(entries[i])] for i in range(len(entries)) if scores[i] > 0]
            latest = max(matched, key=lambda x: (by_id[x].date, order[x])) if matched else None
            res = mem.search(h.question, top_k=top)
            hits = [x.id for x in res.hits[:top]]
            answers = {
                "flat_bm25": (ranked[:1] + [None])[0], "newest_bm25": latest,
                "ihmt": hits[0] if hits else None,
            }
            found = {"flat_bm25": bool(ranked), "newest_bm25": bool(matched),
                     "ihmt": res.status == "FOUND" and bool(hits)}
            in_top = {"flat_bm25": newest in ranked, "newest_bm25": newest in ranked,
                      "ihmt": newest in hits}
            flagged = _flagged_by_trap(res, h, ids) if h.trap else False
            for s in SYSTEMS:
                first = answers[s]
                row = {
                    "half": h.half, "lang": h.lang, "component": h.component,
                    "trap": h.trap_kind, "attr": h.attr_in_question, "old_named": h.old_named,
                    "same_day": h.same_day,
                    "current_first": found[s] and first == newest,
                    "newest_leads": first == newest,  # whatever the answer's status
                    "status": res.status if s == "ihmt" else None,
                    "newest_in_answer": in_top[s],
                    "stale": found[s] and first in older,
                    "trap_led": trap is not None and first == trap,
                    "trap_flagged": s == "ihmt" and flagged,
                }
                rows[s].append(row)
            bad = rows["ihmt"][-1]
            if not bad["current_first"] or bad["trap_led"] or bad["trap_flagged"]:
                misses.append({
                    "history": h.hid, "half": h.half, "lang": h.lang,
                    "component": h.component, "query": h.question, "status": res.status,
                    "confidence": round(res.confidence, 3),
                    "got": by_id[hits[0]].text if hits else None,
                    "got_outdated": res.hits[0].outdated if hits else None,
                    "want": h.versions[-1].text,
                    "versions": [f"{v.date} {v.text}" for v in h.versions],
                    "trap": f"{h.trap.date} {h.trap.text} ({h.trap_kind})" if h.trap else None,
                    "stale": bad["stale"], "trap_led": bad["trap_led"],
                    "trap_flagged": bad["trap_flagged"],
                    "top": [f"{by_id[x].role}{' OUTDATED' if o.outdated else ''}: "
                            f"{by_id[x].text}" for x, o in zip(hits, res.hits, strict=False)],
                })
            mem.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return {"rows": rows, "misses": misses}


# ----------------------------------------------------------------------------- report


def _share(rows: list[dict[str, Any]], key: str) -> float | None:
    return round(sum(bool(r[key]) for r in rows) / len(rows), 3) if rows else None


def _traps_hold(rows: list[dict[str, Any]]) -> float | None:
    traps = [r for r in rows if r["trap"]]
    if not traps:
        return None
    return round(sum(not r["trap_led"] and not r["trap_flagged"] for r in traps)
                 / len(traps), 3)


def _figures(rs: list[dict[str, Any]]) -> dict[str, Any]:
    statuses: dict[str, int] = {}
    for r in rs:
        if r["status"]:
            statuses[r["status"]] = statuses.get(r["status"], 0) + 1
    return {"current_value_first": _share(rs, "current_first"),
            "newest_leads": _share(rs, "newest_leads"),
            "newest_in_answer": _share(rs, "newest_in_answer"),
            "traps_hold": _traps_hold(rs), "confident_stale": _share(rs, "stale"),
            "n": len(rs), "n_traps": sum(1 for r in rs if r["trap"]),
            **({"status_counts": statuses} if statuses else {})}


def summarize(rows: dict[str, list[dict[str, Any]]], label: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for system, rs in rows.items():
        fig = _figures(rs)
        fig["by_half"] = {x: _figures([r for r in rs if r["half"] == x])
                          for x in ("dev", "held")}
        fig["by_lang"] = {x: _figures([r for r in rs if r["lang"] == x]) for x in ("en", "es")}
        fig["by_trap"] = {k: _traps_hold([r for r in rs if r["trap"] == k])
                          for k in sorted({str(r["trap"]) for r in rs if r["trap"]})}
        fig["current_first_by"] = {
            "attr_in_question": {str(v): _share([r for r in rs if r["attr"] == v],
                                                "current_first") for v in (True, False)},
            "old_value_named": {str(v): _share([r for r in rs if r["old_named"] == v],
                                               "current_first") for v in (True, False)},
            "same_day_change": {str(v): _share([r for r in rs if r["same_day"] == v],
                                               "current_first") for v in (True, False)},
        }
        out[label if system == "ihmt" else system] = fig
    return out


def _table(r: dict[str, Any]) -> str:
    lines = ["system            current-first  newest-in-top5  traps-hold  confident-stale"
             "  current dev/held  stale dev/held  current en/es"]
    for name, s in r["systems"].items():
        bh, bl = s["by_half"], s["by_lang"]
        lines.append(
            f"{name:17} {s['current_value_first']!s:>13}  {s['newest_in_answer']!s:>14}  "
            f"{s['traps_hold']!s:>10}  {s['confident_stale']!s:>15}  "
            f"{bh['dev']['current_value_first']}/{bh['held']['current_value_first']!s:<10} "
            f"{bh['dev']['confident_stale']}/{bh['held']['confident_stale']!s:<9} "
            f"{bl['en']['current_value_first']}/{bl['es']['current_value_first']}")
    for m in r.get("misses", []):
        lines.append(f"- [{m['half']}/{m['lang']}] {m['query']} -> {m['status']} "
                     f"{m['confidence']}: got {m['got']!r}, want {m['want']!r}"
                     + (f"; trap {m['trap']!r}" if m["trap"] else ""))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.changes",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--histories", type=int, default=200)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--no-changes", action="store_true",
                    help="switch off the rule 'a change said in words leads what it changed'")
    ap.add_argument("--half", choices=["dev", "held", "all"], default="all")
    ap.add_argument("--misses", type=int, default=0, help="include this many IHMT misses")
    ap.add_argument("--corpus", choices=["main", "blind"], default="main",
                    help="the phrasings: main (bench.changes_corpus) or blind "
                         "(bench.changes_blind, written without reading the rules)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if args.corpus == "blind" and args.misses:
        ap.error("--misses is refused with --corpus blind: reading its misses would "
                 "unblind it")
    from .changes_blind import reach  # imported here: it imports this module

    make = generate
    if args.corpus == "blind":
        from .changes_blind import generate as make
    histories = make(args.histories, args.seed)
    if args.half != "all":
        histories = [h for h in histories if h.half == args.half]
    progress(f"{len(histories)} histories")
    with rule_off() if args.no_changes else nullcontext():
        out = run(histories)
    label = "ihmt_lexical_no_changes" if args.no_changes else "ihmt_lexical"
    result: dict[str, Any] = {"env": env_info(), "corpus": args.corpus,
                              "histories": len(histories),
                              "seed": args.seed, "changes_rule": not args.no_changes,
                              "words_reach": reach(histories),
                              "systems": summarize(out["rows"], label),
                              "ihmt_misses": len(out["misses"])}
    if args.misses:
        result["misses"] = out["misses"][: args.misses]
    emit(result, args.json, _table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
