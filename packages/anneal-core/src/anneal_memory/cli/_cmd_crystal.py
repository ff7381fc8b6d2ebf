"""``anneal-memory crystal ...``: the long-term pattern tier, an operator's tool.

Verbs: ``crystallize``, ``get``, ``list``, ``touch``, ``update``, ``retire``, ``index``,
``recall``, ``rewarm``. Crystallizing and retiring exist only here and in the library: no MCP
tool does either, so an agent cannot promote or bury its own patterns.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING

from anneal_memory.cli._cmd_recall import add_no_exposure
from anneal_memory.cli._context import SOURCE_ENV, CommandError, Context, ExitCode

if TYPE_CHECKING:
    from anneal_memory.crystal import Crystal

__all__ = ["add_commands"]

_PERMANENCE = ("timeless", "phase-specific")
_MODES = ("just-in-time", "catastrophic")
_TIERS = ("hot", "warm", "cold", "dormant")
_KINDS = ("falsified", "superseded", "merged", "obsolete")


def _level(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 2:
        raise argparse.ArgumentTypeError(
            f"level must be 2 or more (Proven), got {value}: a 1x pattern is still developing "
            "and belongs in the continuity file"
        )
    return value


def _fields(parser: argparse.ArgumentParser, *, required: bool) -> None:
    parser.add_argument("--level", type=_level, required=required, help="2 or more (Nx)")
    parser.add_argument("--explanation", required=required, help="what the pattern says")
    parser.add_argument("--evidence", nargs="*", metavar="ID", help="episode ids it rests on")
    parser.add_argument("--permanence", choices=_PERMANENCE)
    parser.add_argument("--activation-mode", choices=_MODES)
    parser.add_argument("--tags", nargs="*", metavar="TAG")
    parser.add_argument("--source", help="who crystallized it ('' clears on update)")


def _add(
    actions: argparse._SubParsersAction[argparse.ArgumentParser],
    parents: Sequence[argparse.ArgumentParser],
    name: str,
    text: str,
) -> argparse.ArgumentParser:
    return actions.add_parser(name, parents=parents, help=text, description=text)


def add_commands(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    parents: Sequence[argparse.ArgumentParser],
) -> None:
    """Register ``crystal`` and its verbs."""
    crystal = subparsers.add_parser(
        "crystal",
        parents=parents,
        help="crystallized patterns: graduated wisdom recalled on cue",
        description="The long-term pattern tier: Proven patterns held outside the continuity "
        "file and recalled when a prompt needs them. Only these commands crystallize.",
    )
    actions = crystal.add_subparsers(title="crystal commands", metavar="ACTION", dest="action")
    actions.required = True
    make = _add(actions, parents, "crystallize", "crystallize a Proven pattern (upsert by name)")
    make.add_argument("--name", required=True)
    _fields(make, required=True)
    make.set_defaults(handler=run_crystallize)
    get = _add(actions, parents, "get", "show one crystal")
    get.add_argument("name")
    get.set_defaults(handler=run_get)
    listing = _add(actions, parents, "list", "list crystals (live by default)")
    listing.add_argument("--permanence", choices=_PERMANENCE)
    listing.add_argument("--activation-mode", choices=_MODES)
    listing.add_argument("--activation", choices=_TIERS)
    listing.add_argument("--tag")
    listing.add_argument("--status", choices=("live", "retired", "all"), default="live")
    listing.add_argument("-v", "--verbose", action="store_true", help="show every field")
    listing.set_defaults(handler=run_list)
    touch = _add(actions, parents, "touch", "re-heat a crystal (activated today)")
    touch.add_argument("name")
    touch.set_defaults(handler=run_touch)
    update = _add(actions, parents, "update", "change the fields given")
    update.add_argument("name")
    _fields(update, required=False)
    update.add_argument("--add-note", metavar="TEXT")
    update.add_argument("--expect-revision", type=int, metavar="N", help="compare-and-set")
    update.set_defaults(handler=run_update)
    retire = _add(actions, parents, "retire", "retire a crystal (kept and listed)")
    retire.add_argument("name")
    retire.add_argument("--kind", choices=_KINDS, required=True)
    retire.add_argument("--reason", default="")
    retire.set_defaults(handler=run_retire)
    _add(actions, parents, "index", "one line per live crystal").set_defaults(handler=run_index)
    _add_recall(actions, parents)
    rewarm = _add(
        actions,
        parents,
        "rewarm",
        "what the next wrap would propose: crystals whose subject came back in the newest "
        "episodes, and cold Proven patterns not crystallized yet (read-only)",
    )
    rewarm.add_argument("--episodes", type=int, default=200, help="newest episodes to scan")
    rewarm.set_defaults(handler=run_rewarm)


def _add_recall(
    actions: argparse._SubParsersAction[argparse.ArgumentParser],
    parents: Sequence[argparse.ArgumentParser],
) -> None:
    recall = _add(actions, parents, "recall", "the crystals relevant to a question")
    recall.add_argument("query")
    recall.add_argument("--max-patterns", type=int, default=3)
    recall.add_argument("--mode", choices=("prompt", "query"), default="prompt")
    recall.add_argument("--no-associative", action="store_true", help="skip the evidence edge")
    add_no_exposure(recall)
    recall.set_defaults(handler=run_recall)


def _actor(ctx: Context) -> str:
    return ctx.env.get(SOURCE_ENV) or "cli"


def _line(c: Crystal) -> str:
    from anneal_memory.cli._render import one_line, safe

    retired = f" retired:{c.retirement.kind.value}" if c.retirement else ""
    return f"{safe(c.name)} ({c.level}x/{c.activation.value}{retired}) {one_line(c.explanation)}"


def _block(c: Crystal) -> str:
    from anneal_memory.cli._render import safe

    lines = [
        _line(c),
        f"    {c.permanence.value}/{c.activation_mode.value} tags={','.join(c.tags) or '-'} "
        f"crystallized={c.crystallized_on} last_activated={c.last_activated_on} "
        f"revision={c.revision}",
        f"    evidence: {', '.join(c.evidence) or '-'}",
    ]
    if c.evidence_missing:
        lines.append(f"    evidence deleted: {', '.join(c.evidence_missing)}")
    if c.source:
        lines.append(f"    source: {safe(c.source)}")
    if c.retirement:
        lines.append(f"    retired {c.retirement.on}: {safe(c.retirement.reason)}")
    lines.extend(f"    note {safe(n)}" for n in c.notes)
    return "\n".join(lines)


def run_crystallize(ctx: Context, args: argparse.Namespace) -> int:
    """Crystallize a pattern."""
    from anneal_memory.crystal import crystallize

    made = crystallize(
        ctx.store(create=False),
        args.name,
        level=args.level,
        explanation=args.explanation,
        evidence=args.evidence or (),
        permanence=args.permanence or "timeless",
        activation_mode=args.activation_mode or "just-in-time",
        tags=args.tags or (),
        source=args.source or "",
        actor=_actor(ctx),
    )
    ctx.emit(made.to_dict(), f"Crystallized: {_line(made)}")
    return ExitCode.OK


def run_get(ctx: Context, args: argparse.Namespace) -> int:
    """Show one crystal."""
    from anneal_memory.crystal import get_crystal

    found = get_crystal(ctx.store(read_only=True), args.name)
    ctx.emit(found.to_dict(), _block(found))
    return ExitCode.OK


def run_list(ctx: Context, args: argparse.Namespace) -> int:
    """List crystals."""
    from anneal_memory.crystal import list_crystals

    found = list_crystals(
        ctx.store(read_only=True),
        permanence=args.permanence,
        activation_mode=args.activation_mode,
        activation=args.activation,
        tag=args.tag,
        status=args.status,
    )
    render = _block if args.verbose else _line
    text = "\n".join(render(c) for c in found) if found else "No crystallized patterns."
    ctx.emit({"crystals": [c.to_dict() for c in found]}, text)
    return ExitCode.OK


def run_touch(ctx: Context, args: argparse.Namespace) -> int:
    """Re-heat a crystal."""
    from anneal_memory.crystal import touch_crystal

    found = touch_crystal(ctx.store(create=False), args.name, actor=_actor(ctx))
    ctx.emit(found.to_dict(), f"Touched: {_line(found)}")
    return ExitCode.OK


def run_update(ctx: Context, args: argparse.Namespace) -> int:
    """Change a crystal's fields."""
    from anneal_memory.crystal import update_crystal

    found = update_crystal(
        ctx.store(create=False),
        args.name,
        expect_revision=args.expect_revision,
        level=args.level,
        explanation=args.explanation,
        evidence=args.evidence,
        permanence=args.permanence,
        activation_mode=args.activation_mode,
        tags=args.tags,
        source=args.source,
        add_note=args.add_note,
        actor=_actor(ctx),
    )
    ctx.emit(found.to_dict(), f"Updated: {_line(found)} (revision {found.revision})")
    return ExitCode.OK


def run_retire(ctx: Context, args: argparse.Namespace) -> int:
    """Retire a crystal."""
    from anneal_memory.crystal import retire_crystal

    found = retire_crystal(
        ctx.store(create=False), args.name, args.kind, reason=args.reason, actor=_actor(ctx)
    )
    ctx.emit(found.to_dict(), f"Retired: {_line(found)}")
    return ExitCode.OK


def run_index(ctx: Context, args: argparse.Namespace) -> int:
    """Print the crystal index."""
    from anneal_memory.cli._render import safe
    from anneal_memory.crystal import crystal_index

    lines = crystal_index(ctx.store(read_only=True))
    text = "\n".join(safe(f"{i.name}: {i.clause}") for i in lines) or "No crystallized patterns."
    ctx.emit({"index": [i.to_dict() for i in lines]}, text)
    return ExitCode.OK


def run_recall(ctx: Context, args: argparse.Namespace) -> int:
    """Find the crystals relevant to a question."""
    from anneal_memory.cli._render import one_line, safe
    from anneal_memory.crystal import crystal_recall

    found = crystal_recall(
        ctx.store(read_only=True),
        args.query,
        max_patterns=args.max_patterns,
        associative=not args.no_associative,
        mode=args.mode,
    )
    lines = [
        f"{safe(h.crystal.name)} ({h.crystal.level}x, {h.crystal.activation.value}, "
        f"score={h.score:.1f}, {h.via}): {one_line(h.crystal.explanation)}"
        for h in found.hits
    ]
    text = "\n".join(lines) or f"No crystallized patterns matched ({found.reason})."
    data = found.to_dict()
    if found.hits and not args.no_exposure:
        from anneal_memory.cli._cmd_recall import exposure_line
        from anneal_memory.worth._exposures import expose

        shown = [f"c:{h.crystal.name}" for h in found.hits]
        exposure = expose(ctx.store(create=False), "cli crystal recall", shown)
        if exposure is not None:
            data["exposure_id"] = exposure
            text += "\n" + exposure_line(exposure).replace("episode:ID", "crystal:NAME")
    ctx.emit(data, text)
    return ExitCode.OK


def run_rewarm(ctx: Context, args: argparse.Namespace) -> int:
    """Show the rewarm and crystallization candidates (nothing is changed)."""
    from anneal_memory._fields import today
    from anneal_memory.continuity import current_schema
    from anneal_memory.continuity._prepare import graduating_lines
    from anneal_memory.crystal._candidates import propose, render_proposals
    from anneal_memory.document import _document

    store = ctx.store(read_only=True)
    if not 1 <= args.episodes <= 10_000:
        raise CommandError(f"--episodes must be 1-10000, got {args.episodes}")
    document = _document.parse(store.load_continuity() or "")
    lines = [line for _n, line in graduating_lines(document, current_schema(store))]
    episodes = store.recall(limit=args.episodes).episodes
    found = propose(store, lines, episodes, today(store.clock.now()))
    data = {
        "rewarm": [
            {"name": r.name, "level": r.level, "activation": r.activation.value,
             "episodes": list(r.episodes), "exercised": r.exercised}
            for r in found.rewarm
        ],
        "crystallize": [
            {"name": c.name, "level": c.level, "last_date": c.last_date,
             "days_cold": c.days_cold, "explanation": c.explanation, "evidence": list(c.evidence)}
            for c in found.crystallize
        ],
    }  # fmt: skip
    from anneal_memory.cli._render import safe

    text = render_proposals(found).strip()
    ctx.emit(data, safe(text, keep="\n") if text else "Nothing to propose.")
    return ExitCode.OK
