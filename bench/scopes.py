"""Do one project's memories stay out of another's answers, at no cost in recall?

Generates a store with several projects whose conventions conflict (each has its own
package manager, test runner, formatter, branch naming, deploy target, database, commit
style and CI), unrelated notes in each project, and global memories about the user. Each
convention is asked about from its own project; each global memory from a project chosen
at random. Two systems answer, on the same store in the same run:

- ``unscoped``: today's search, every memory alike (``scope="all"``, no project);
- ``scoped``: the search from the project asked in (the default view).

Reported per system: the share of project questions answered (FOUND) with another
project's memory while the project's own answer exists (``bleed``, must be 0 for the
scoped search), the share where another project's memory is listed first whatever the
status (a scoped search then says NOT FOUND and labels it), the share where any other
project's memory is within the 900-token answer, recall at a 900-token budget of the in-scope answer and of global answers, the
best answer right, and the branch files opened.

The memory phrasings and the questions are written for this benchmark, apart from the
ranking and the scope rules they test; the data is generated under a temporary folder.
The second part measures the rule that files a save without a scope
(:func:`ihmt.scope.default_scope`) on the hand-labelled ``bench/questions/scope_labels.jsonl``
against simpler rules.

    python -m bench.scopes --projects 8 --notes 30 --seed 5 --json
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from ._common import REPO_ROOT, emit, env_info, format_table, kept_count, mean, progress, read_jsonl

BUDGET = 900

# Per convention: values (projects get different ones, in turn), how a project states it,
# and how a developer asks about it.
CONVENTIONS: dict[str, dict[str, list[str]]] = {
    "package manager": {
        "values": ["pnpm", "npm", "yarn", "bun"],
        "say": ["we use {v} in this repo", "Install dependencies with {v}; the lockfile is "
                "committed.", "Package manager here is {v}, never mix in another one."],
        "ask": ["Which package manager do we use?", "what do we install dependencies with?"],
    },
    "test runner": {
        "values": ["pytest", "vitest", "jest", "mocha", "unittest"],
        "say": ["Tests run with {v}; run them before every push.", "Our test runner is {v}.",
                "{v} is the test framework for this codebase."],
        "ask": ["which test runner do we use?", "how do we run the tests?"],
    },
    "formatter": {
        "values": ["black", "prettier", "ruff format", "biome", "gofmt"],
        "say": ["Code is formatted with {v}; CI rejects unformatted files.",
                "Formatter: {v}, with the default line length.",
                "Run {v} on save, it is our formatter."],
        "ask": ["which formatter do we use?", "how is the code formatted?"],
    },
    "branch naming": {
        "values": ["feature/TICKET-description", "feat-TICKET", "user/topic",
                   "topic/TICKET", "fix-or-feat/slug"],
        "say": ["Branch names follow {v}.", "Name branches like {v} so the tracker links "
                "them.", "Our branch naming convention is {v}."],
        "ask": ["how should I name a branch?", "what is the branch naming convention?"],
    },
    "deploy target": {
        "values": ["Fly.io", "Heroku", "AWS Lambda", "GKE", "Vercel", "Render"],
        "say": ["Production deploys to {v}.", "We deploy this service to {v} from the main "
                "branch.", "The deploy target is {v}."],
        "ask": ["where do we deploy to?", "what is the deploy target for production?"],
    },
    "database": {
        "values": ["PostgreSQL", "MySQL", "SQLite", "MongoDB", "DynamoDB"],
        "say": ["The app stores its data in {v}.", "Our database is {v}; migrations live in "
                "db/migrations."],
        "ask": ["which database does the app use?", "what database do we store data in?"],
    },
    "commit style": {
        "values": ["Conventional Commits", "gitmoji", "a ticket prefix like ABC-123",
                   "imperative one-line subjects"],
        "say": ["Commit messages follow {v}.", "Write commits using {v}."],
        "ask": ["how do we write commit messages?", "what commit message style do we "
                "follow?"],
    },
    "ci": {
        "values": ["GitHub Actions", "GitLab CI", "CircleCI", "Jenkins", "Buildkite"],
        "say": ["CI runs on {v}.", "Every pull request is built by {v}."],
        "ask": ["which CI do we use?", "where does CI run?"],
    },
}

GLOBAL_FACTS = [
    ("I prefer tabs over spaces.", "do I prefer tabs or spaces?"),
    ("I use a Dvorak keyboard layout.", "which keyboard layout do I use?"),
    ("My editor is neovim with the lazy.nvim plugin manager.", "what editor do I use?"),
    ("I like concise answers that lead with the result.", "how do I like answers?"),
    ("My partner is called Lucia.", "what is my partner's name?"),
    ("I am based in Valencia, in the CET time zone.", "which time zone am I in?"),
    ("My shell is fish, with starship for the prompt.", "which shell do I use?"),
    ("I never want emojis in commit messages.", "emojis in commit messages?"),
    ("My laptop is a ThinkPad X1 running Fedora.", "what laptop do I have?"),
    ("I review every diff myself before anything is pushed.", "do I review diffs before a "
     "push?"),
]

NOTES = ["The {a} module caches {b} results for an hour.",
         "{a} retries {b} requests three times before giving up.",
         "The {a} dashboard shows {b} per region.",
         "Ask before touching the {a} {b} code, it is fragile.",
         "The {a} job exports {b} every night."]
WORDS_A = ["invoice", "search", "upload", "profile", "report", "webhook", "session",
           "catalog", "pricing", "inventory", "audit", "email"]
WORDS_B = ["latency", "thumbnail", "token", "currency", "metrics", "quota", "receipt",
           "shipment", "export", "coupon", "avatar", "schedule"]


def generate(projects: int, notes: int, seed: int) -> dict[str, Any]:
    """Memories (text, scope) and questions (query, target text, project asked from)."""
    rng = random.Random(seed)
    names = [f"github.com/acme/service-{i}" for i in range(projects)]
    memories: list[dict[str, str]] = []
    questions: list[dict[str, Any]] = []
    for attr, spec in CONVENTIONS.items():
        offset = rng.randrange(len(spec["values"]))
        for i, proj in enumerate(names):
            value = spec["values"][(i + offset) % len(spec["values"])]
            text = rng.choice(spec["say"]).format(v=value)
            text = text[0].upper() + text[1:] if text[0].islower() and i % 2 else text
            memories.append({"text": text, "scope": proj, "attr": attr})
            questions.append({"query": rng.choice(spec["ask"]), "target": text,
                              "scope": proj, "project": proj, "kind": "project",
                              "attr": attr})
    for proj in names:
        for _ in range(notes):
            text = rng.choice(NOTES).format(a=rng.choice(WORDS_A), b=rng.choice(WORDS_B))
            memories.append({"text": f"{text} ({proj.rsplit('-', 1)[-1]})", "scope": proj,
                             "attr": ""})
    for text, query in GLOBAL_FACTS:
        memories.append({"text": text, "scope": "global", "attr": ""})
        questions.append({"query": query, "target": text, "scope": "global",
                          "project": rng.choice(names), "kind": "global", "attr": ""})
    rng.shuffle(memories)
    return {"projects": names, "memories": memories, "questions": questions}


def run(data: dict[str, Any], folder: Path) -> dict[str, Any]:
    from ihmt import Memory
    from ihmt.text import count_tokens

    path = folder / "store"
    scope_of: dict[str, str] = {}  # leaf id -> scope
    id_of: dict[tuple[str, str], str] = {}  # (text, scope) -> leaf id
    with Memory.open(path, create=True) as m, m.bulk():
        for row in data["memories"]:
            leaf_id = m.save(row["text"], scope=row["scope"], date="2026-01-05").ids[0]
            scope_of[leaf_id] = row["scope"]
            id_of[(row["text"], row["scope"])] = leaf_id
    rows: dict[str, list[dict[str, Any]]] = {"unscoped": [], "scoped": []}
    with Memory.open(path) as m:
        m.flush()
        for q in data["questions"]:
            for system in rows:
                m.project = q["project"] if system == "scoped" else None
                res = m.search(q["query"], top_k=10, scope=None if system == "scoped"
                               else "all")
                texts = [h.text for h in res.hits]
                kept = [h.id for h in res.hits[:kept_count(texts, BUDGET, count_tokens)]]
                target = id_of[(q["target"], q["scope"])]
                own = [scope_of.get(i) for i in kept]
                foreign = [s for s in own if s not in ("global", q["project"])]
                best_scope = own[0] if own else None
                rows[system].append({
                    "kind": q["kind"], "query": q["query"], "project": q["project"],
                    "recall": float(target in kept),
                    "best_right": float(bool(kept) and kept[0] == target),
                    "other_first": float(q["kind"] == "project" and best_scope is not None
                                         and best_scope not in ("global", q["project"])),
                    "bleed": float(q["kind"] == "project" and res.status == "FOUND"
                                   and best_scope not in ("global", q["project"])),
                    "other_shown": float(bool(foreign)),
                    "labelled": float(all(h.foreign for h in res.hits
                                          if scope_of.get(h.id) not in
                                          ("global", q["project"]))),
                    "files": res.node_reads, "status": res.status,
                    "best": texts[0] if texts else None, "target": q["target"],
                })
        n_leaves = m.stats()["leaves"]
    return {"rows": rows, "leaves": n_leaves}


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    proj = [r for r in rows if r["kind"] == "project"]
    glob = [r for r in rows if r["kind"] == "global"]
    return {
        "project_questions": len(proj),
        "global_questions": len(glob),
        "bleed": mean([r["bleed"] for r in proj]),
        "other_project_first": mean([r["other_first"] for r in proj]),
        "other_project_in_answer": mean([r["other_shown"] for r in proj]),
        "recall_in_scope": mean([r["recall"] for r in proj]),
        "best_right_in_scope": mean([r["best_right"] for r in proj]),
        "recall_global": mean([r["recall"] for r in glob]),
        "other_projects_labelled": mean([r["labelled"] for r in rows]),
        "files_opened_mean": mean([r["files"] for r in rows]),
    }


# ---------------------------------------------------------------------- the default at save
def default_rules() -> dict[str, Any]:
    """Accuracy of the filing rules on the labelled set (saved from inside a project)."""
    from ihmt.ingest.prepare import classify
    from ihmt.scope import GLOBAL, default_scope

    rows = read_jsonl(REPO_ROOT / "bench" / "questions" / "scope_labels.jsonl")
    project = "github.com/acme/app"
    rules = {
        "always project": lambda text, dt: project,
        "always global": lambda text, dt: GLOBAL,
        "code and procedures -> project": lambda text, dt: project
        if dt in ("CODE", "PROCESS") else GLOBAL,
        "ihmt default_scope": lambda text, dt: default_scope(text, dt, project),
    }
    out: dict[str, Any] = {"labelled": len(rows),
                           "project": sum(r["scope"] == "project" for r in rows)}
    for name, rule in rules.items():
        right = wrong_to_project = wrong_to_global = 0
        for r in rows:
            dt, _ = classify(r["text"], None, None, "auto")
            got = "global" if rule(r["text"], dt) == GLOBAL else "project"
            if got == r["scope"]:
                right += 1
            elif got == "project":
                wrong_to_project += 1
            else:
                wrong_to_global += 1
        out[name] = {"accuracy": right / len(rows), "global_filed_as_project":
                     wrong_to_project, "project_filed_as_global": wrong_to_global}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.scopes",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--projects", type=int, default=8)
    ap.add_argument("--notes", type=int, default=30, help="unrelated notes per project")
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--misses", type=int, default=0, help="list this many scoped misses")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    os.environ.setdefault("IHMT_SEMANTIC", "off")
    data = generate(args.projects, args.notes, args.seed)
    progress(f"{len(data['memories'])} memories, {len(data['questions'])} questions")
    folder = Path(tempfile.mkdtemp(prefix="ihmt-bench-scopes-"))
    try:
        out = run(data, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    result: dict[str, Any] = {
        "env": env_info(), "seed": args.seed, "projects": args.projects,
        "memories": out["leaves"], "semantic": os.environ.get("IHMT_SEMANTIC"),
        "systems": {name: summarize(rows) for name, rows in out["rows"].items()},
        "default_scope": default_rules(),
    }
    if args.misses:
        result["misses"] = [r for r in out["rows"]["scoped"] if not r["recall"]][:args.misses]

    def table(r: dict[str, Any]) -> str:
        cols = ["system", "bleed", "other_project_first", "other_project_in_answer", "recall_in_scope",
                "best_right_in_scope", "recall_global", "files_opened_mean"]
        lines = [format_table([{"system": k, **v} for k, v in r["systems"].items()], cols)]
        rules = [{"rule": k, **v} for k, v in r["default_scope"].items()
                 if isinstance(v, dict)]
        lines += ["", format_table(rules, ["rule", "accuracy", "global_filed_as_project",
                                           "project_filed_as_global"])]
        for m in r.get("misses", []):
            lines.append(f"- {m['query']} [{m['project']}] -> {m['best']!r}, want "
                         f"{m['target']!r}")
        return "\n".join(lines)

    emit(result, args.json, table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
