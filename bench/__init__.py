"""Benchmark harnesses for IHMT (not tests): run them as ``python -m bench.<name>``.

- ``bench.synthetic``: a seeded generator of realistic agent memories and queries.
- ``bench.retrieval``: loads a memories/queries pair into a fresh store and measures the
  tree against a flat BM25 over the same data, in the same run.
- ``bench.locomo``: the same measurement on the LoCoMo conversations (read in place).

Every harness prints one JSON object on stdout with ``--json`` and a table without it;
progress goes to stderr.
"""
