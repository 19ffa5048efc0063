"""How well the secrets detector separates credentials from ordinary notes, and its cost.

    python -m bench.secrets [--seed N] [--runs 5] [--json]

The corpus is :mod:`bench.secrets_corpus` (seeded fakes, never real keys), with its small
held-out set; :mod:`bench.secrets_fresh` is a larger held-out split, ``"fresh"``, written
before reading the rules and not to be tuned on, and :mod:`bench.secrets_third` (split
``"third"``) one written after the fixes and measured once; :mod:`bench.secrets_fourth`
(split ``"fourth"``) is a fourth, with its own generator, written before its first measure
and before the third set's misses were read; :mod:`bench.secrets_fifth` (split ``"fifth"``)
a fifth, :mod:`bench.secrets_sixth` (split ``"sixth"``) a sixth and
:mod:`bench.secrets_seventh` (split ``"seventh"``) a seventh, each written the same way
before its first measure, :mod:`bench.secrets_eighth` (split ``"eighth"``) an
eighth and :mod:`bench.secrets_ninth` (split ``"ninth"``) a ninth. Each was fixed against after that first measure (BENCHMARKS.md and RELIABILITY.md
keep the blind figures). A secret is *caught* when the findings cover every character of
its value (what masking removes); an ordinary note is a *false positive* when it yields any finding at all.

Cost: ``find_secrets`` over the ordinary notes plus the library's own source files (a few
hundred KB of prose and code), in ms per KB, against a baseline measured in the same run
on the same text: ``ihmt.text.term_counts``, the tokenisation every save already pays.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter, defaultdict
from typing import Any

from bench import (
    secrets_corpus,
    secrets_eighth,
    secrets_fifth,
    secrets_fourth,
    secrets_fresh,
    secrets_ninth,
    secrets_seventh,
    secrets_sixth,
    secrets_third,
)
from bench._common import REPO_ROOT, emit, env_info, format_table


def covered(findings: list[Any], start: int, end: int) -> bool:
    """True when the findings' spans cover ``[start, end)`` completely."""
    spans = sorted((f.start, f.end) for f in findings if f.end > start and f.start < end)
    pos = start
    for s, e in spans:
        if s > pos:
            return False
        pos = max(pos, e)
    return pos >= end


def evaluate(seed: int = secrets_corpus.SEED) -> dict[str, Any]:
    from ihmt.secrets import find_secrets

    per_kind: dict[str, Counter[str]] = defaultdict(Counter)
    missed: list[dict[str, str]] = []
    for kind, value, text in secrets_corpus.secret_cases(seed):
        i = text.index(value)
        ok = covered(find_secrets(text), i, i + len(value))
        per_kind[kind]["cases"] += 1
        per_kind[kind]["caught"] += ok
        if not ok:
            missed.append({"kind": kind, "text": _shape(text, value)})
    fps: list[dict[str, str]] = []
    fp_kind: dict[str, Counter[str]] = defaultdict(Counter)
    ordinary = secrets_corpus.ordinary_cases(seed)
    for kind, text in ordinary:
        found = find_secrets(text)
        fp_kind[kind]["cases"] += 1
        if found:
            fp_kind[kind]["flagged"] += 1
            fps.append({"kind": kind, "found": ", ".join(f.kind for f in found),
                        "text": text[:100]})
    h_secrets, h_ordinary = secrets_corpus.heldout_cases(seed)
    h_missed = [_shape(t, v) for _, v, t in h_secrets
                if not covered(find_secrets(t), t.index(v), t.index(v) + len(v))]
    h_fps = [t[:100] for _, t in h_ordinary if find_secrets(t)]
    heldout = {"secrets": len(h_secrets), "caught": len(h_secrets) - len(h_missed),
               "ordinary": len(h_ordinary), "false_positives": len(h_fps),
               "missed_cases": h_missed, "false_positive_cases": h_fps}
    n_secret = sum(c["cases"] for c in per_kind.values())
    n_caught = sum(c["caught"] for c in per_kind.values())
    return {
        "secrets": n_secret, "secret_kinds": len(per_kind), "caught": n_caught,
        "missed": n_secret - n_caught, "caught_rate": n_caught / n_secret,
        "ordinary": len(ordinary), "ordinary_kinds": len(fp_kind),
        "false_positives": len(fps), "false_positive_rate": len(fps) / len(ordinary),
        "by_kind": {k: dict(v) for k, v in sorted(per_kind.items())},
        "missed_cases": missed, "false_positive_cases": fps, "heldout": heldout,
        secrets_fresh.SPLIT: evaluate_fresh(),
        secrets_third.SPLIT: evaluate_split(secrets_third.third_cases, 29),
        secrets_fourth.SPLIT: evaluate_split(secrets_fourth.fourth_cases, 31),
        secrets_fifth.SPLIT: evaluate_split(secrets_fifth.fifth_cases, 37),
        secrets_sixth.SPLIT: evaluate_split(secrets_sixth.sixth_cases, 41),
        secrets_seventh.SPLIT: evaluate_split(secrets_seventh.seventh_cases, 43),
        secrets_eighth.SPLIT: evaluate_split(secrets_eighth.eighth_cases, 47),
        secrets_ninth.SPLIT: evaluate_split(secrets_ninth.ninth_cases, 53),
    }


def evaluate_fresh(seed: int = 23) -> dict[str, Any]:
    """Caught and false positives on the fresh split: every marked span must be covered."""
    return evaluate_split(secrets_fresh.fresh_cases, seed)


def evaluate_split(cases: Any, seed: int) -> dict[str, Any]:
    """Caught and false positives on a split of marked cases (``cases(seed)`` gives the
    secrets and the ordinary texts): a secret is caught when every marked span is covered."""
    from ihmt.secrets import find_secrets

    secrets, ordinary = cases(seed)
    missed = []
    for case in secrets:
        found = find_secrets(case.text)
        if not all(covered(found, s, e) for s, e in case.spans):
            missed.append({"kind": case.kind, "text": _mask_spans(case.text, case.spans)})
    fps = []
    for case in ordinary:
        found = find_secrets(case.text)
        if found:
            fps.append({"kind": case.kind, "found": ", ".join(f.kind for f in found),
                        "text": _mask_spans(case.text, [(f.start, f.end) for f in found])})
    return {"seed": seed, "secrets": len(secrets),
            "secret_kinds": len({c.kind for c in secrets}),
            "caught": len(secrets) - len(missed), "caught_rate": 1 - len(missed) / len(secrets),
            "ordinary": len(ordinary), "false_positives": len(fps),
            "false_positive_rate": len(fps) / len(ordinary),
            "missed_cases": missed, "false_positive_cases": fps}


def _mask_spans(text: str, spans: Any) -> str:
    """The text with each span replaced by its length, cut to 160 characters."""
    out, pos = [], 0
    for s, e in sorted(spans):
        if s < pos:
            continue
        out += [text[pos:s], f"<{e - s} chars>"]
        pos = e
    out.append(text[pos:])
    return "".join(out).replace("\n", " | ")[:160]


def _shape(text: str, value: str) -> str:
    """The case with its value replaced, so the report never prints even a fake."""
    return text.replace(value, f"<{len(value)} chars>")[:120]


def cost(runs: int = 5, seed: int = secrets_corpus.SEED) -> dict[str, Any]:
    from ihmt.secrets import find_secrets
    from ihmt.text import term_counts

    parts = [t for _, t in secrets_corpus.ordinary_cases(seed)]
    parts += [p.read_text("utf-8") for p in sorted((REPO_ROOT / "src" / "ihmt").rglob("*.py"))]
    text = "\n\n".join(parts)
    kb = len(text.encode()) / 1024

    def timed(fn: Any) -> float:
        samples = []
        for _ in range(runs):
            t0 = time.perf_counter()
            fn(text)
            samples.append(time.perf_counter() - t0)
        return statistics.median(samples)

    timed(find_secrets)  # warm the regex caches
    detect = timed(find_secrets)
    base = timed(term_counts)
    return {"kb": round(kb, 1), "detect_ms_per_kb": detect * 1000 / kb,
            "baseline_term_counts_ms_per_kb": base * 1000 / kb, "ratio": detect / base}


def _split_lines(name: str, how: str, f: dict[str, Any]) -> list[str]:
    """The table lines of one generated split: its totals, then each miss and false positive."""
    out = [f"{name} split ({how}, seed {f['seed']}): caught {f['caught']}/{f['secrets']} "
           f"({f['caught_rate']:.1%}) of {f['secret_kinds']} kinds, false positives "
           f"{f['false_positives']}/{f['ordinary']} ({f['false_positive_rate']:.1%})"]
    out += [f"  {name} miss {m['kind']}: {m['text']!r}" for m in f["missed_cases"]]
    out += [f"  {name} false positive {x['kind']} ({x['found']}): {x['text']!r}"
            for x in f["false_positive_cases"]]
    return out


def _table(r: dict[str, Any]) -> str:
    rows = [{"kind": k, **v} for k, v in r["by_kind"].items()]
    lines = [format_table(rows, ["kind", "cases", "caught"]), ""]
    lines.append(f"caught {r['caught']}/{r['secrets']} ({r['caught_rate']:.1%}) of "
                 f"{r['secret_kinds']} kinds; false positives {r['false_positives']}/"
                 f"{r['ordinary']} ({r['false_positive_rate']:.1%})")
    for m in r["missed_cases"]:
        lines.append(f"  missed {m['kind']}: {m['text']!r}")
    for f in r["false_positive_cases"]:
        lines.append(f"  false positive {f['kind']} ({f['found']}): {f['text']!r}")
    h = r["heldout"]
    lines.append(f"held out (written after the rules, not tuned on): caught {h['caught']}/"
                 f"{h['secrets']}, false positives {h['false_positives']}/{h['ordinary']}")
    lines += [f"  held-out miss: {m!r}" for m in h["missed_cases"]]
    lines += [f"  held-out false positive: {f!r}" for f in h["false_positive_cases"]]
    lines += _split_lines("fresh", "held out", r[secrets_fresh.SPLIT])
    lines += _split_lines("third", "tuned on after its first measure", r[secrets_third.SPLIT])
    lines += _split_lines("fourth", "tuned on after its blind measure", r[secrets_fourth.SPLIT])
    lines += _split_lines("fifth", "written blind, issue 23 item 6", r[secrets_fifth.SPLIT])
    lines += _split_lines("sixth", "tuned on after its blind measure", r[secrets_sixth.SPLIT])
    lines += _split_lines("seventh", "tuned on after its blind measure",
                          r[secrets_seventh.SPLIT])
    lines += _split_lines("eighth", "tuned on after its blind measure", r[secrets_eighth.SPLIT])
    lines += _split_lines("ninth", "written blind, measured once", r[secrets_ninth.SPLIT])
    c = r["cost"]
    lines.append(f"cost: {c['detect_ms_per_kb']:.3f} ms/KB over {c['kb']} KB; baseline "
                 f"term_counts {c['baseline_term_counts_ms_per_kb']:.3f} ms/KB "
                 f"(ratio {c['ratio']:.2f})")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m bench.secrets")
    p.add_argument("--seed", type=int, default=secrets_corpus.SEED)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--json", action="store_true")
    a = p.parse_args(argv)
    result = {"env": env_info(), **evaluate(a.seed), "cost": cost(a.runs, a.seed)}
    emit(result, a.json, _table)


if __name__ == "__main__":
    main()
