"""Read-only wrap commands: ``continuity``, ``history``, ``diff``, ``associations``, ``graph``."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from anneal_memory.cli._args import add_scope_arg, positive_int
from anneal_memory.cli._context import Context, ExitCode

__all__ = ["add_commands"]


def add_commands(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    parents: Sequence[argparse.ArgumentParser],
) -> None:
    """Register the read-only wrap commands."""
    continuity = subparsers.add_parser(
        "continuity",
        parents=parents,
        help="print the continuity file",
        description="Print the always-loaded continuity file written by the last wrap of the "
        "scope.",
    )
    add_scope_arg(continuity, "print the continuity")
    continuity.set_defaults(handler=run_continuity)

    history = subparsers.add_parser(
        "history",
        parents=parents,
        help="list recent wraps (open, completed, cancelled)",
        description="List the newest wraps with their size, episodes and immune outcome "
        "(every scope's unless --scope names one; --pattern reads the shared scope's patterns "
        "unless --scope names one).",
    )
    add_scope_arg(history, "list the wraps", default=None)
    history.add_argument(
        "--limit", type=positive_int, default=20, metavar="N", help="at most N (20)"
    )
    history.add_argument(
        "--pattern", metavar="NAME", help="instead, how one pattern was saved wrap by wrap"
    )
    history.set_defaults(handler=run_history)

    diff = subparsers.add_parser(
        "diff",
        parents=parents,
        help="show how the last completed wraps changed the continuity",
        description="Metric progression over the last N completed wraps: size and its change, "
        "episodes compressed, graduations and demotions.",
    )
    diff.add_argument("--wraps", type=positive_int, default=5, metavar="N", help="last N wraps (5)")
    add_scope_arg(diff, "compare the wraps")
    diff.set_defaults(handler=run_diff)

    assoc = subparsers.add_parser(
        "associations",
        parents=parents,
        help="list Hebbian links between co-cited episodes",
        description="List association links, strongest first.",
    )
    assoc.add_argument("--episode", metavar="ID", help="only links touching this episode")
    assoc.add_argument("--min-strength", type=float, default=0.0, metavar="X", help="(0.0)")
    assoc.add_argument("--limit", type=positive_int, default=20, metavar="N", help="at most N (20)")
    assoc.set_defaults(handler=run_associations)

    graph = subparsers.add_parser(
        "graph",
        parents=parents,
        help="export the association graph as Graphviz dot or JSON",
        description="Print (or write with -o) the whole association graph.",
    )
    graph.add_argument("--format", choices=("dot", "json"), default="dot", help="(dot)")
    graph.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    graph.add_argument("--force", action="store_true", help="overwrite FILE if it already exists")
    graph.add_argument("--min-strength", type=float, default=0.0, metavar="X", help="(0.0)")
    graph.set_defaults(handler=run_graph)


def run_continuity(ctx: Context, args: argparse.Namespace) -> int:
    """Print a scope's continuity text (a file beside a SQLite store, a row on PostgreSQL)."""
    store = ctx.store(read_only=True)
    text = store.load_continuity(args.scope)
    path = store.continuity_place(args.scope).label
    data = {
        "scope": args.scope,
        "path": str(path),
        "exists": text is not None,
        "chars": len(text or ""),
        "text": text,
    }
    from anneal_memory.cli._render import safe

    shown = (
        safe(text.rstrip("\n"), keep="\n\t")
        if text is not None
        else "(No continuity file yet: run a wrap.)"
    )
    ctx.emit(data, shown)
    return ExitCode.OK


def _pattern_history(ctx: Context, args: argparse.Namespace) -> int:
    from anneal_memory.continuity import pattern_history

    events = pattern_history(
        ctx.store(read_only=True), args.pattern, limit=args.limit, scope=args.scope or ""
    )
    lines = [
        f"wrap {e.wrap_id:>4}: {e.level}x (claimed {e.claimed_level}x, {e.date or 'no date'})"
        + (" validated" if e.validated else "")
        + (f" [{e.marks}]" if e.marks else "")
        for e in events
    ]
    text = "\n".join(lines) or f"No saved pattern named {args.pattern!r}."
    ctx.emit({"pattern": args.pattern, "events": [e.to_dict() for e in events]}, text)
    return ExitCode.OK


def run_history(ctx: Context, args: argparse.Namespace) -> int:
    """List recent wraps (or one pattern's saved levels with ``--pattern``)."""
    from anneal_memory.continuity import wrap_history

    if args.pattern is not None:
        return _pattern_history(ctx, args)
    from anneal_memory.cli._render import safe

    wraps = wrap_history(ctx.store(read_only=True), limit=args.limit, scope=args.scope)
    lines = [
        f"{w.id:>4}  {w.status:<9}  {w.started_at}  {w.episode_count:>4} ep  "
        + (
            f"{w.continuity_chars} chars, +{w.graduations_validated} grad, {w.demotions} demoted"
            if w.status == "completed"
            else ""
        )
        + (f"  scope {safe(repr(w.scope))}" if w.scope else "")
        for w in wraps
    ]
    ctx.emit({"wraps": [w.to_dict() for w in wraps]}, "\n".join(lines) or "No wraps yet.")
    return ExitCode.OK


def _diff_rows(wraps: Sequence[Any]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    previous: int | None = None
    for w in wraps:
        chars = int(w.continuity_chars or 0)
        rows.append(
            {
                "wrap_id": w.id,
                "completed_at": w.completed_at,
                "chars": chars,
                "chars_delta": None if previous is None else chars - previous,
                "episodes_compressed": w.episode_count,
                "graduations_validated": w.graduations_validated,
                "demotions": w.demotions,
            }
        )
        previous = chars
    return rows


def run_diff(ctx: Context, args: argparse.Namespace) -> int:
    """Show the metric progression of the last completed wraps."""
    from anneal_memory.continuity import wrap_history

    done = wrap_history(
        ctx.store(read_only=True), limit=args.wraps, completed_only=True, scope=args.scope
    )
    rows = _diff_rows(list(reversed(done)))
    lines = [
        f"wrap {r['wrap_id']:>4}: {r['chars']:>6} chars"
        + ("" if r["chars_delta"] is None else f" ({r['chars_delta']:+d})")
        + f", {r['episodes_compressed']} ep, +{r['graduations_validated']} grad,"
        f" {r['demotions']} demoted"
        for r in rows
    ]
    ctx.emit({"wraps": rows}, "\n".join(lines) or "No completed wraps yet.")
    return ExitCode.OK


def run_associations(ctx: Context, args: argparse.Namespace) -> int:
    """List association links."""
    from anneal_memory.associations import associations

    links = associations(
        ctx.store(read_only=True),
        episode_id=args.episode,
        min_strength=args.min_strength,
        limit=args.limit,
    )
    lines = [
        f"{link.a} -- {link.b}  {link.strength:.2f}"
        + (f"  ({link.affect_tag})" if link.affect_tag else "")
        for link in links
    ]
    ctx.emit({"associations": [x.to_dict() for x in links]}, "\n".join(lines) or "No links.")
    return ExitCode.OK


def run_graph(ctx: Context, args: argparse.Namespace) -> int:
    """Export the association graph."""
    from anneal_memory.associations import associations, graph_dot, graph_json

    links = associations(ctx.store(read_only=True), min_strength=args.min_strength, limit=1_000_000)
    rendered = graph_dot(links) if args.format == "dot" else graph_json(links)
    if args.output:
        from anneal_memory._fsio import atomic_write_text
        from anneal_memory.cli._files import output_target

        target = output_target(args.output, force=args.force)
        atomic_write_text(target, rendered)
        ctx.emit(
            {"path": str(target), "edges": len(links)}, f"Wrote {len(links)} edge(s) to {target}"
        )
        return ExitCode.OK
    print(rendered, end="", file=ctx.out)
    return ExitCode.OK
