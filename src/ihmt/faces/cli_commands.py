"""The subcommands of ``ihmt`` that are one call into :class:`ihmt.Memory` each, and the
parser of the whole command line.

:mod:`ihmt.faces.cli` (the entry point) imports this module only for these commands, so that
``ihmt hook`` and the other commands whose faces parse their own arguments never load the
library's write side, rich or the MCP SDK before they need them.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .. import __version__
from ..errors import InputError
from ..memory import Memory, default_home
from ..render import compact_answer, data_for_reader, for_reader, result_dict
from ..text import clip_shown, count
from . import cli_export, cli_scopes, cli_semantic

Handler = Callable[[argparse.Namespace], int]
COMMANDS: dict[str, Handler] = {}


def command(name: str) -> Callable[[Handler], Handler]:
    def deco(fn: Handler) -> Handler:
        COMMANDS[name] = fn
        return fn
    return deco


def out(args: argparse.Namespace, data: Any, text: str | None = None) -> None:
    """Print ``data`` as JSON with --json, else ``text`` (or a plain rendering of data).

    Everything printed passes the secrets mask (:func:`ihmt.render.for_reader`): a store
    may hold a key (saved with ``"secrets": "off"``, or before the detector knew its kind)
    but no command shows it."""
    if args.json:
        shown, n = data_for_reader(data)
        if n and isinstance(shown, dict):
            shown = {**shown, "secrets_masked": n}
        print(json.dumps(shown, ensure_ascii=False, indent=1, default=str))
    else:
        print(for_reader(text if text is not None
                         else json.dumps(data, ensure_ascii=False, indent=1)))


def store_path(args: argparse.Namespace) -> Path:
    return Path(args.path).expanduser() if args.path else default_home()


def open_memory(args: argparse.Namespace, create: bool = False) -> Memory:
    return Memory.open(store_path(args), create=create, project=cli_scopes.project(args))


COMMANDS.update(cli_scopes.handlers(open_memory, out))  # scopes, move
COMMANDS.update(cli_semantic.handlers(open_memory, out))  # semantic model


# ---------------------------------------------------------------------- commands
@command("init")
def cmd_init(args: argparse.Namespace) -> int:
    cfg: dict[str, Any] = {}
    if args.branch_factor:
        cfg["branch_factor"] = args.branch_factor
    if args.target_tokens:
        cfg["target_tokens"] = args.target_tokens
        cfg["max_tokens"] = max(args.target_tokens * 3 // 2, args.target_tokens + 1)
    mem = Memory.initialize(store_path(args), force=args.force, **cfg)
    st = mem.stats()
    out(args, {"path": st["path"], "leaves": st["leaves"], "config": st["config"]},
        f"store ready at {st['path']} ({count(st['leaves'], 'memory', 'memories')})")
    return 0


@command("ingest")
def cmd_ingest(args: argparse.Namespace) -> int:
    mem = open_memory(args, create=True)
    tags = args.tag or []
    results: list[dict[str, Any]] = []
    if args.paths == ["-"]:
        text = _read_stdin()
        rep = mem.ingest_text(text, source="stdin", domain=args.domain, data_type=args.type,
                              tags=tags, scope=args.scope)
        results.append({"path": "-", "leaves": len(rep.ids), "new": rep.new,
                        "domain": rep.domain, "type": rep.data_type})
    else:
        from rich.progress import Progress

        items = list(_expand(args.paths))
        done = []
        with mem.bulk(), Progress(transient=True, disable=args.json or len(items) < 5,
                                  console=_stderr_console()) as bar:
            task = bar.add_task("ingesting", total=len(items))
            for item in mem.ingest_paths(items, domain=args.domain, data_type=args.type,
                                         tags=tags, scope=args.scope):
                if item.skipped:
                    reason = item.skipped.removeprefix(f"{item.path}: ")
                    print(f"skipped {item.path}: {reason}", file=sys.stderr)
                done.append(item)
                bar.advance(task)
        # Reports of a bulk load are complete once the block has committed.
        for item in done:
            if item.skipped:
                results.append({"path": item.path, "skipped": item.skipped})
            else:
                rep = item.report
                assert rep is not None
                results.append({"path": item.path, "leaves": len(rep.ids), "new": rep.new,
                                "domain": rep.domain, "type": rep.data_type})
    if not args.no_consolidate:
        mem.consolidate()
    filed = [r for r in results if "skipped" not in r]
    lines = [f"{r['path']}: {count(r['leaves'], 'memory', 'memories')} ({r['new']} new) -> "
             f"{r['domain']} [{r['type']}]" for r in filed]
    lines.append(f"{len(filed)} ingested, {len(results) - len(filed)} skipped")
    out(args, {"files": results}, "\n".join(lines))
    return 0 if filed or not results else 1


def _clip(text: str, width: int) -> str:
    one_line = " ".join(text.split())
    return one_line if len(one_line) <= width else one_line[: width - 1] + "…"


def _read_stdin() -> str:
    """Standard input as text; binary or non-UTF-8 data is refused as such a file is."""
    from ..ingest.prepare import decode_text

    return decode_text(sys.stdin.buffer.read(), "stdin: binary data, not saved", "stdin")


def _expand(paths: Sequence[str]) -> list[Any]:
    """Files to ingest, and ``(path, reason)`` for what is skipped (kept as such: a link
    out of a folder must not come back as a path given on purpose)."""
    from ..ingest.prepare import expand_paths

    return list(expand_paths(paths))


def _stderr_console():
    from rich.console import Console

    return Console(stderr=True)


@command("save")
def cmd_save(args: argparse.Namespace) -> int:
    mem = open_memory(args, create=True)
    content = _read_stdin() if args.content == "-" else args.content
    rep = mem.save(content, date=args.date, domain=args.domain, tags=args.tag or [],
                   replaces=args.replaces, states=args.states, scope=args.scope)
    data = {"ids": rep.ids, "new": rep.new, "duplicates": rep.duplicates, "domain": rep.domain,
            "type": rep.data_type, "date": rep.date, "scope": rep.scope, "notices": rep.notices,
            "warnings": rep.warnings, "outdated": rep.outdated, "candidates": rep.candidates}
    ids = ", ".join(rep.ids)
    text = (f"saved {count(rep.new, 'memory', 'memories')} in {rep.domain} [{rep.data_type}] "
            f"dated {rep.date or 'undated'} (id {ids})"
            + ("" if rep.scope == "global" else f" for project {rep.scope}"))
    if rep.duplicates:
        text += f"; {rep.duplicates} already stored"
    extra = [f"notice: {n}" for n in rep.notices] + [f"warning: {w}" for w in rep.warnings]
    extra += [f"flagged OUTDATED: {i} (corrected by {rep.ids[0]})" for i in rep.outdated]
    if rep.candidates:
        extra.append("several memories match 'replaces'; choose the one this corrects with: "
                     f"ihmt mark-outdated <old_id> {rep.ids[0]}")
        extra += [f"  {i}  {clip_shown(mem.get(i).text, 90)}" for i in rep.candidates]
    out(args, data, "\n".join([text, *extra]))
    return 0


@command("consolidate")
def cmd_consolidate(args: argparse.Namespace) -> int:
    mem = open_memory(args)
    created = mem.consolidate(force=args.force)
    st = mem.stats()
    out(args, {"created": created, "stats": st},
        f"{count(len(created), 'branch', 'branches')} written; "
        f"{count(st['branches'], 'branch', 'branches')}, depth {st['depth']}, "
        f"{count(st['top_nodes'], 'entry', 'entries')} at the top")
    return 0


@command("search")
def cmd_search(args: argparse.Namespace) -> int:
    mem = open_memory(args)
    res = mem.search(args.query, top_k=args.top_k, scope=args.scope)
    if args.json:
        out(args, result_dict(res))
    else:
        print(for_reader(compact_answer(res, mem.config.output_max_tokens, full=args.full,
                                        others=args.top_k - 1,
                                        clue_syntax=_clue_syntax(args.query))))
        print(_cost_line(res))
    return 0


def _cost_line(res: Any) -> str:
    path = " > ".join(res.best.path) if res.best else "-"
    return (f"-- {res.node_reads} of {count(res.total_nodes, 'branch file')} opened, "
            f"{res.leaf_reads} of {count(res.total_leaves, 'memory', 'memories')} read · "
            f"path {path}")


@command("ask")
def cmd_ask(args: argparse.Namespace) -> int:
    mem = open_memory(args)
    interactive = args.clue is None and sys.stdin.isatty() and not args.json

    def provider(res: Any) -> str | None:
        print(for_reader(compact_answer(res, mem.config.output_max_tokens,
                                        clue_syntax="a clue typed below ({})")))
        try:
            return input("clue (empty to stop)> ")
        except EOFError:
            return None

    res = mem.ask(args.query, clue=args.clue, top_k=args.top_k,
                  clue_provider=provider if interactive else None, scope=args.scope)
    if args.json:
        out(args, result_dict(res))
    else:
        print(for_reader(compact_answer(res, mem.config.output_max_tokens,
                                        others=args.top_k - 1,
                                        clue_syntax=_clue_syntax(args.query))))
        print(_cost_line(res))
    return 0


def _clue_syntax(query: str) -> str:
    """How a CLI user gives the clue an AMBIGUOUS answer asks for."""
    return f"ihmt ask {shlex.quote(query)} --clue '{{}}'"


def _fact_dict(f: Any) -> dict[str, Any]:
    return {"subject": f.subject, "attribute": f.attribute, "value": f.value, "date": f.date,
            "status": f.status, "valid_from": f.valid_from, "valid_to": f.valid_to,
            "superseded_by": f.superseded_by, "source": f.source}


@command("facts")
def cmd_facts(args: argparse.Namespace) -> int:
    facts = open_memory(args).facts(args.subject)
    lines = [f"{f.subject}::{f.attribute} = {f.value!r}  {f.status}  "
             f"{(f.valid_from or '')[:10]}..{(f.valid_to or 'now')[:10]}" for f in facts]
    out(args, [_fact_dict(f) for f in facts], "\n".join(lines) or "no facts recorded")
    return 0


@command("conflicts")
def cmd_conflicts(args: argparse.Namespace) -> int:
    found = open_memory(args).conflicts(args.subject)
    data = [c.as_dict() if hasattr(c, "as_dict") else {"notice": str(c)} for c in found]
    out(args, data, "\n".join(str(c) for c in found) or "no contradictions")
    return 0


@command("mark-outdated")
def cmd_mark_outdated(args: argparse.Namespace) -> int:
    rep = open_memory(args).mark_outdated(args.old_id, args.new_id)
    out(args, rep, f"{rep['old']} is now OUTDATED, corrected by {rep['new']}")
    return 0


@command("export")
def cmd_export(args: argparse.Namespace) -> int:
    return cli_export.run(args, open_memory(args))


@command("tree")
def cmd_tree(args: argparse.Namespace) -> int:
    mem = open_memory(args)
    tree = mem.tree(depth=args.depth)
    lines = [f"root ({count(tree['leaves'], 'memory', 'memories')})"]

    def walk(node: dict[str, Any], indent: int) -> None:
        span = node.get("date_from") or ""
        if node.get("date_to") and node.get("date_to") != node.get("date_from"):
            span = f"{span[:10]}..{node['date_to'][:10]}"
        kind = f"L{node['layer']}" if node["layer"] else "leaf"
        lines.append(f"{'  ' * indent}{kind} {node['id']} [{node['domain']}] "
                     f"{node.get('n_leaves', 1)} · {span[:22] or 'undated'} · {node['title']}")
        for ch in node.get("children", []):
            walk(ch, indent + 1)

    for ch in tree["children"]:
        walk(ch, 1)
    out(args, tree, "\n".join(lines))
    return 0


@command("stats")
def cmd_stats(args: argparse.Namespace) -> int:
    st = open_memory(args).stats()
    text = (f"{st['path']}\n{count(st['leaves'], 'memory', 'memories')}, "
            f"{count(st['branches'], 'branch', 'branches')}, depth {st['depth']}, "
            f"{count(st['top_nodes'], 'entry', 'entries')} at the top\ndomains: "
            + ", ".join(f"{d} {n}" for d, n in st["domains"].items()))
    out(args, st, text)
    return 0


@command("rebuild")
def cmd_rebuild(args: argparse.Namespace) -> int:
    mem = open_memory(args)
    if getattr(args, "embeddings", False) and not mem.semantic.active:
        raise InputError(mem.semantic.reason)
    rep = mem.rebuild()
    text = (f"rebuilt from {count(rep['leaves'], 'memory', 'memories')}: "
            f"{count(rep['branches'], 'branch', 'branches')}, "
            f"{len(rep['quarantined'])} quarantined")
    if getattr(args, "embeddings", False):
        from rich.progress import Progress

        with Progress(transient=True, disable=args.json, console=_stderr_console()) as bar:
            task = bar.add_task("embedding", total=None)
            emb = mem.rebuild_embeddings(
                progress=lambda done, total: bar.update(task, completed=done, total=total))
        rep["embeddings"] = emb
        text += f"; {emb['vectors']} vectors computed"
    out(args, rep, text)
    return 0


@command("sync")
def cmd_sync(args: argparse.Namespace) -> int:
    from ..sync import gitsync as gs
    from ..sync import report as rp

    if args.action == "init":
        rep = gs.init(open_memory(args, create=True), args.remote)
        text = [f"{rep['path']} is under git ({'new repository' if rep['created'] else 'already'}"
                f", commit {rep['commit']})"]
        if rep.get("sync"):
            text += rp.sync_lines(rep["sync"])
        out(args, rep, "\n".join(text + rp.status_lines(rep["status"])))
        return 0
    if args.status:
        st = gs.status(open_memory(args).path)
        out(args, st, "\n".join(rp.status_lines(st)))
        return 0
    rep = gs.sync(open_memory(args), args.remote)
    out(args, rep, "\n".join(rp.sync_lines(rep)))
    return 0


@command("history")
def cmd_history(args: argparse.Namespace) -> int:
    from ..ingest.dates import parse_date_arg
    from ..sync import gitsync as gs
    from ..sync.report import history_lines

    since = parse_date_arg(args.since) if args.since else None
    rows = gs.history(open_memory(args).path, since, args.limit)
    out(args, {"commits": rows}, "\n".join(history_lines(rows)))
    return 0


@command("forget")
def cmd_forget(args: argparse.Namespace) -> int:
    from . import cli_forget

    return cli_forget.run(args, open_memory(args), out)


@command("demo")
def cmd_demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    return run_demo(Path(args.path).expanduser() if args.path else Path("demo_workspace"),
                    as_json=args.json)


# ---------------------------------------------------------------------- parsing
def _global_options() -> argparse.ArgumentParser:
    """--path and --json, accepted before or after the subcommand (split_globals reads them;
    the parsers declare them so that every --help shows them)."""
    g = argparse.ArgumentParser(add_help=False)
    o = g.add_argument_group("global options (before or after the command)")
    o.add_argument("--path", metavar="FOLDER",
                   help="the memory folder (default: $IHMT_HOME/ihmt_memory, IHMT_HOME "
                        "defaulting to ~/.ihmt)")
    o.add_argument("--json", action="store_true", help="machine-readable JSON output")
    o.add_argument("--project", metavar="PATH", help=cli_scopes.PROJECT_HELP)
    return g


def build_parser(passthrough: dict[str, str]) -> argparse.ArgumentParser:
    """The whole command line; ``passthrough``: the commands whose faces parse their own
    arguments (listed here so that ``ihmt --help`` shows them)."""
    glob = _global_options()
    p = argparse.ArgumentParser(prog="ihmt", description="Long-term memory for AI agents, "
                                "kept as a tree of plain files.", parents=[glob])
    p.add_argument("--version", action="version", version=f"ihmt {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def cmd(name: str, text: str) -> argparse.ArgumentParser:
        parser = sub.add_parser(name, help=text, description=text, parents=[glob])
        cli_scopes.add_scope_option(name, parser)
        return parser

    s = cmd("init", "create the store")
    s.add_argument("--branch-factor", type=int, metavar="N",
                   help="children per branch before a summary groups them")
    s.add_argument("--target-tokens", type=int, metavar="N",
                   help="the size long texts are cut to, in tokens")
    s.add_argument("--force", action="store_true",
                   help="reset derived files (leaves are kept) and write the config")

    s = cmd("ingest", "ingest files, folders or stdin ('-'); an 'ihmt export' JSONL file is "
            "restored")
    s.add_argument("paths", nargs="+", metavar="PATH",
                   help="files or folders (walked recursively); '-' reads text from stdin")
    s.add_argument("--domain", help="file everything under this domain (default: detected)")
    s.add_argument("--type", choices=["code", "narrative", "clinical", "personal", "process",
                                      "generic"], help="the kind of content (default: detected)")
    s.add_argument("--tag", action="append", help="a label to attach; repeat for several")
    s.add_argument("--no-consolidate", action="store_true",
                   help="do not write branch summaries now (run 'ihmt consolidate' later)")

    s = cmd("save", "save one memory ('-' reads stdin)")
    s.add_argument("content", help="the text to remember, or '-' to read it from stdin")
    s.add_argument("--date", help="when it happened or was true (default: a date in the text, "
                                  "else today)")
    s.add_argument("--domain", help="file it under this domain (default: detected)")
    s.add_argument("--tag", action="append", help="a label to attach; repeat for several")
    s.add_argument("--replaces", help="a few words describing the memory this one corrects")
    s.add_argument("--states", metavar="'SUBJECT :: ATTRIBUTE = VALUE'",
                   help="the fact this memory states, e.g. 'user :: employer = Initech'")

    s = cmd("consolidate", "run pending Summarization Events")
    s.add_argument("--force", action="store_true", help="also close partial groups")

    s = cmd("search", "walk the tree for a query")
    s.add_argument("query", help="words to look for")
    s.add_argument("--top-k", type=int, default=5, metavar="N",
                   help="how many matches to show (default 5)")
    s.add_argument("--full", action="store_true", help="ids, tree paths and excerpts")

    s = cmd("ask", "search with the clue loop (interactive at a terminal)")
    s.add_argument("query", help="words to look for")
    s.add_argument("--clue", help="a detail that picks one of several matches")
    s.add_argument("--top-k", type=int, default=5, metavar="N",
                   help="how many matches to show (default 5)")

    s = cmd("facts", "the fact timeline")
    s.add_argument("--subject", help="only facts about this subject")
    s = cmd("conflicts", "what changed over time")
    s.add_argument("--subject", help="only changes about this subject")
    s = cmd("mark-outdated", "flag a memory as corrected by another")
    s.add_argument("old_id", help="the id of the memory that is no longer true")
    s.add_argument("new_id", help="the id of the memory that corrects it")

    cli_export.add_arguments(cmd("export", cli_export.HELP))
    s = cmd("tree", "outline of the hierarchy")
    s.add_argument("--depth", type=int, metavar="N", help="show only N levels")

    cmd("stats", "counts, depth, domains")
    s = cmd("rebuild", "rebuild catalog, branches and trunk from the leaves")
    s.add_argument("--embeddings", action="store_true",
                   help="also recompute the semantic vectors (needs ihmt[semantic])")
    cli_semantic.add_parser(cmd, [glob])
    s = cmd("sync", "git history and sync across machines: sync init [--remote URL], "
            "sync [--remote NAME], sync --status")
    s.add_argument("action", nargs="?", choices=["init"],
                   help="init: make the memory folder a git repository")
    s.add_argument("--remote", help="init: the remote's URL or path; sync: its name")
    s.add_argument("--status", action="store_true", help="ahead/behind, last sync (no network)")
    s = cmd("history", "what was saved and changed, from the git history")
    s.add_argument("--since", help="only commits since this date (2026-02-03)")
    s.add_argument("--limit", type=int, default=50, metavar="N",
                   help="at most N commits (default 50)")
    from . import cli_forget

    cli_forget.add_parser(cmd)
    cmd("demo", "end-to-end walkthrough on example documents")
    cli_scopes.add_commands(cmd)
    for name, text in passthrough.items():
        sub.add_parser(name, help=text, add_help=False)
    return p

