"""``ihmt demo``: a walkthrough on example documents shipped with the package."""

from __future__ import annotations

import json
import shutil
from importlib import resources
from pathlib import Path
from typing import Any

from ..memory import Memory
from ..render import compact_answer
from ..text import count

MARKER = ".ihmt-demo"
DOCS = ["InventoryService.java", "pricing.py", "journal.txt", "receta_tortilla.txt",
        "nota_clinica.txt"]
QUERIES = [
    ("a rare identifier in code", "reserveStock soft hold"),
    ("a recipe step", "cuajar la tortilla"),
    ("a person's name shared by three memories", "Luis"),
    ("where the user lives now", "where do I live"),
    ("something never said", "kubernetes helm chart for the staging cluster"),
]


def _ihmt_command() -> str:
    """How to run ihmt again: plain ``ihmt`` when that is on PATH and is this one, else the
    script next to the running Python (a virtual environment that is not activated)."""
    import shlex
    import sys

    here = Path(sys.executable).parent / "ihmt"
    found = shutil.which("ihmt")
    if found and (not here.exists() or Path(found).resolve() == here.resolve()):
        return "ihmt"
    if here.exists():
        return shlex.quote(str(here))
    return f"{shlex.quote(sys.executable)} -m ihmt.faces.cli"


def run_demo(workspace: Path, *, as_json: bool = False) -> int:
    """Build a small store (branch factor 4) in ``workspace`` and exercise it."""
    store = workspace / "ihmt_memory"
    if store.exists():
        if not (workspace / MARKER).exists():
            raise SystemExit(f"{workspace} holds a store the demo did not create; "
                             "pass --path to an empty folder")
        shutil.rmtree(store)
    workspace.mkdir(parents=True, exist_ok=True)
    (workspace / MARKER).write_text("created by 'ihmt demo'; safe to delete\n")
    mem = Memory.initialize(workspace, branch_factor=4, target_tokens=400, max_tokens=600)
    report: dict[str, Any] = {"store": str(mem.path), "ingested": [], "searches": []}
    say = (lambda *a: None) if as_json else print
    say(f"IHMT demo - store at {mem.path}\n")
    say("1. Ingest example documents (type and domain detected, split into logical blocks)")
    data = resources.files("ihmt") / "demo_data"
    for name in DOCS:
        text = (data / name).read_text(encoding="utf-8")
        rep = mem.ingest_text(text, source=name)
        report["ingested"].append({"file": name, "type": rep.data_type, "domain": rep.domain,
                                   "leaves": len(rep.ids)})
        say(f"   {name:24} -> {rep.data_type:9} {rep.domain:18} "
            f"{count(len(rep.ids), 'memory', 'memories')}")
    mem.flush()
    st = mem.stats()
    report["stats"] = {k: st[k] for k in ("leaves", "branches", "depth", "top_nodes")}
    say(f"\n2. The tree: {count(st['leaves'], 'memory', 'memories')} under "
        f"{count(st['branches'], 'branch', 'branches')}, depth {st['depth']}, "
        f"{count(st['top_nodes'], 'entry', 'entries')} at the top (one per domain)")
    for node in mem.tree(depth=1)["children"]:
        say(f"   L{node['layer']} {node['domain']:18} "
            f"{count(node['n_leaves'], 'memory', 'memories'):>12} · "
            f"{node['title'][:60]}")
    say("\n3. Searches (the descent reads only branches whose bound can still win)")
    for why, query in QUERIES:
        res = mem.search(query, top_k=4)
        say(f"\n$ ihmt search {json.dumps(query)}    # {why}")
        say("   " + compact_answer(res, 250, others=2).replace("\n", "\n   "))
        if res.best is not None:
            say(f"   path: {' > '.join(res.best.path)}")
        say(f"   files opened: {res.node_reads} of {count(res.total_nodes, 'branch', 'branches')}"
            f", {res.leaf_reads} of {count(res.total_leaves, 'memory', 'memories')} read")
        report["searches"].append({"query": query, "status": res.status,
                                   "confidence": res.confidence,
                                   "best": res.best.id if res.best else None,
                                   "node_reads": res.node_reads,
                                   "total_nodes": res.total_nodes})
    exe = _ihmt_command()
    say(f"\nDone. Explore it yourself:  {exe} --path {workspace} tree   |   "
        f"{exe} --path {workspace} search \"paella\"")
    if as_json:
        print(json.dumps(report, ensure_ascii=False, indent=1))
    return 0
