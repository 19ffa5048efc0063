"""Paraphrase questions hidden among synthetic memories, in the format of bench.retrieval.

    python -m bench.paraphrase --n 5000 --queries 200 --seed 7 --out /tmp/para5k
    python -m bench.retrieval --memories /tmp/para5k/memories.jsonl \\
        --queries /tmp/para5k/queries.jsonl --semantic --json

Writes ``memories.jsonl`` and ``queries.jsonl``: the ``n`` synthetic memories of
:mod:`bench.synthetic` with their ``queries`` (exact, descriptive, update, person and its
template paraphrases), plus the
hand-written pairs of :mod:`bench.paraphrase_pairs` (ids ``p1``...; query kinds ``para_en``
and ``para_es``, each question's targets being every memory of its key), plus ``--junk``
memories that hold almost no words (a few letters, hex, base64, bytes of a PNG read as
text; ids ``j1``..., flagged ``"junk": true``), which no query targets and none should lead.

Every question is checked against its targets: it must share no index term with any of
them, under IHMT's tokenizer with the English and with the Spanish stemmer; a pair that
does stops the generator (the data is wrong, not the search).
"""

from __future__ import annotations

import argparse
import base64
import random
import sys
from pathlib import Path
from typing import Any

from bench import synthetic
from bench._common import emit, format_table
from bench.paraphrase_pairs import PAIRS


def shared_terms(question: str, memory: str) -> set[str]:
    """Index terms the question and the memory have in common (either stemmer)."""
    from ihmt.text import tokenize

    out: set[str] = set()
    for stem in ("english", "spanish"):
        out |= set(tokenize(question, stem)) & set(tokenize(memory, stem))
    return out


def junk_texts(n: int, rng: random.Random) -> list[str]:
    """Memories of almost no words, as an agent or a careless ingest stores them."""
    made: list[str] = []
    png = bytes([137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13, 73, 72, 68, 82])
    for i in range(n):
        kind = i % 5
        if kind == 0:
            made.append("".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(6)))
        elif kind == 1:
            made.append("".join(rng.choice("0123456789abcdef") for _ in range(40)))
        elif kind == 2:  # an image pasted as base64 (low entropy: the secret check lets it in)
            raw = png + bytes(rng.choice([0, 0, 0, 255, 1]) for _ in range(45))
            made.append(base64.b64encode(raw).decode("ascii"))
        elif kind == 3:  # a PNG read as UTF-8 text (NUL bytes are refused by a save)
            made.append((png + rng.randbytes(40)).decode("utf-8", "replace").replace("\x00", ""))
        else:
            made.append(rng.choice(["ok", "asdf", "x", "...", "test", "tmp", "??", "123"]))
    return made


def generate(n: int, n_queries: int, seed: int, junk: int = 20
             ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(memories, queries): synthetic rows, then the pairs, then the junk."""
    memories, queries = synthetic.generate(n, n_queries, seed, paraphrase=True)
    by_key: dict[str, list[str]] = {}
    for i, (key, _lang, text, _q) in enumerate(PAIRS, 1):
        memories.append({"id": f"p{i}", "text": text})
        by_key.setdefault(key, []).append(f"p{i}")
    texts = {m["id"]: m["text"] for m in memories}
    for key, lang, _text, question in PAIRS:
        targets = by_key[key]
        for t in targets:
            common = shared_terms(question, texts[t])
            if common:
                raise ValueError(f"{question!r} shares {sorted(common)} with {texts[t]!r}")
        queries.append({"query": question, "targets": targets, "kind": f"para_{lang}"})
    rng = random.Random(seed)
    for i, text in enumerate(junk_texts(junk, rng), 1):
        memories.append({"id": f"j{i}", "text": text, "junk": True})
    return memories, queries


def _table(result: dict[str, Any]) -> str:
    rows = [{"kind": k, "queries": v} for k, v in result["kinds"].items()]
    head = f"{result['n_memories']} memories, {result['n_queries']} queries -> {result['out']}"
    return head + "\n" + format_table(rows, ["kind", "queries"])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.paraphrase",
                                 description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=5000, help="synthetic memories around the pairs")
    ap.add_argument("--queries", type=int, default=200, help="synthetic queries besides them")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--junk", type=int, default=20, help="memories of almost no words")
    ap.add_argument("--out", type=Path, required=True, help="folder for the two JSONL files")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    memories, queries = generate(args.n, args.queries, args.seed, args.junk)
    synthetic.write(args.out, memories, queries)
    kinds: dict[str, int] = {}
    for q in queries:
        kinds[q["kind"]] = kinds.get(q["kind"], 0) + 1
    emit({"out": str(args.out), "n_memories": len(memories), "n_queries": len(queries),
          "kinds": kinds}, args.json, _table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
