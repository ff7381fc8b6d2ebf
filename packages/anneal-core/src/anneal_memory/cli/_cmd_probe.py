"""``anneal-memory probe ...``: drift probes (what the operator expects the continuity to keep).

Verbs: ``add``, ``list``, ``retire``, ``status``. Probes are operator acts (no MCP tool).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from anneal_memory.cli._context import Context, ExitCode

__all__ = ["add_commands"]


def add_commands(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    parents: Sequence[argparse.ArgumentParser],
) -> None:
    """Register ``probe`` and its verbs."""
    probe = subparsers.add_parser(
        "probe",
        parents=parents,
        help="drift probes: patterns and facts every save checks the continuity still keeps",
        description="Every save checks each live probe lexically and reports held, changed, "
        "weakened, crystallized, lost or unchecked; a probe never blocks a save.",
    )
    actions = probe.add_subparsers(title="probe commands", metavar="ACTION", dest="action")
    actions.required = True
    add = actions.add_parser("add", parents=parents, help="add a probe on a pattern or a fact")
    what = add.add_mutually_exclusive_group(required=True)
    what.add_argument("--pattern", metavar="NAME", help="a pattern's name")
    what.add_argument("--fact", metavar="TEXT", help="a fact's text")
    add.add_argument("--min-level", type=int, default=2, help="a pattern's lowest level (2)")
    add.add_argument("--section", metavar="H", help="the heading a fact lives under")
    add.add_argument("--note", default="", help="why this probe exists")
    add.add_argument("--scope", default="", help="the scope whose continuity it watches")
    add.set_defaults(handler=run_add)
    listing = actions.add_parser("list", parents=parents, help="the live probes")
    listing.add_argument("--all", action="store_true", help="retired probes too")
    listing.set_defaults(handler=run_list)
    retire = actions.add_parser("retire", parents=parents, help="retire a probe (kept)")
    retire.add_argument("probe_id", metavar="ID", help="e.g. probe-001")
    retire.set_defaults(handler=run_retire)
    status = actions.add_parser(
        "status",
        parents=parents,
        help="the truth worklist: probes and what the last wrap validated",
    )
    status.add_argument("--scope", default="")
    status.set_defaults(handler=run_status)


def _line(p: dict[str, object]) -> str:
    from anneal_memory.cli._render import one_line

    what = f"pattern {p['target']} (>= {p['min_level']}x)" if p["kind"] == "pattern" else (
        f"fact \"{p['target']}\"" + (f" in {p['section']}" if p["section"] else "")
    )  # fmt: skip
    status = p["last_status"] or "not checked yet"
    retired = " [retired]" if p["retired_at"] else ""
    return one_line(f"{p['id']}  {status:<12} {what}{retired}", 200)


def run_add(ctx: Context, args: argparse.Namespace) -> int:
    """Add a probe."""
    from anneal_memory.probes import add_probe

    probe = add_probe(
        ctx.store(),
        pattern=args.pattern,
        fact=args.fact,
        min_level=args.min_level,
        section=args.section,
        note=args.note,
        scope=args.scope,
    )
    ctx.emit(probe.to_dict(), f"Added {_line(probe.to_dict())}")
    return ExitCode.OK


def run_list(ctx: Context, args: argparse.Namespace) -> int:
    """List probes."""
    from anneal_memory.probes import list_probes

    probes = [p.to_dict() for p in list_probes(ctx.store(read_only=True), include_retired=args.all)]
    ctx.emit({"probes": probes}, "\n".join(_line(p) for p in probes) or "No probes.")
    return ExitCode.OK


def run_retire(ctx: Context, args: argparse.Namespace) -> int:
    """Retire a probe."""
    from anneal_memory.probes import retire_probe

    probe = retire_probe(ctx.store(create=False), args.probe_id)
    ctx.emit(probe.to_dict(), f"Retired {probe.id}.")
    return ExitCode.OK


def run_status(ctx: Context, args: argparse.Namespace) -> int:
    """The operator's truth worklist."""
    from anneal_memory.cli._render import safe
    from anneal_memory.probes import probe_status

    report = probe_status(ctx.store(read_only=True), scope=args.scope)
    counts = ", ".join(f"{n} {s}" for s, n in report["counts"].items() if n) or "none checked"
    lines = [f"Probes: {len(report['probes'])} live ({counts})"]
    lines += [f"  {_line(p)}" for p in report["probes"]]
    wrap = report["last_wrap_id"]
    validated = report["validated"]
    if wrap is None:
        lines.append("No completed wrap yet.")
    else:
        lines.append(f"Validated by wrap {wrap} (worth a human look): "
                     + (safe(", ".join(validated)) or "none"))  # fmt: skip
    ctx.emit(report, "\n".join(lines))
    return ExitCode.OK
