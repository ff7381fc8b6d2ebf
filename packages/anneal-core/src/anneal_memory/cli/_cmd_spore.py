"""``anneal-memory spore ...``: prospective memory (tasks, questions, thoughts to come back to).

Verbs: ``add``, ``get``, ``list``, ``surface``, ``touch``, ``update``, ``descend``, ``ascend``,
``delete``.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING

from anneal_memory.cli._cmd_provenance import add_operator_flag, is_operator
from anneal_memory.cli._context import SOURCE_ENV, Context, ExitCode

if TYPE_CHECKING:
    from anneal_memory.spores import Spore

__all__ = ["add_commands"]

_TYPES = ("task", "question", "thought")
_TIERS = ("hot", "warm", "cold", "parked")
_GERMINATION = ("growing", "resting", "dormant", "parked")


def _add(
    actions: argparse._SubParsersAction[argparse.ArgumentParser],
    parents: Sequence[argparse.ArgumentParser],
    name: str,
    text: str,
    *,
    with_id: bool = True,
) -> argparse.ArgumentParser:
    parser = actions.add_parser(name, parents=parents, help=text, description=text)
    if with_id:
        parser.add_argument("spore_id", metavar="ID", help="e.g. spore-001")
    return parser


def _optional_fields(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--domain")
    parser.add_argument("--tier", choices=_TIERS)
    parser.add_argument("--salience", type=int, choices=range(4))
    parser.add_argument("--next", metavar="YYYY-MM-DD", help="day to bring it back up")
    parser.add_argument("--pointer", help="where more is (path, URL, episode id)")


def add_commands(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    parents: Sequence[argparse.ArgumentParser],
) -> None:
    """Register ``spore`` and its verbs."""
    spore = subparsers.add_parser(
        "spore",
        parents=parents,
        help="prospective memory: what to do, ask or think about next",
        description="Spores are tasks, questions and thoughts the agent means to come back "
        "to; they surface when hot or freshly seen.",
    )
    actions = spore.add_subparsers(title="spore commands", metavar="ACTION", dest="action")
    actions.required = True
    add = _add(actions, parents, "add", "plant a spore", with_id=False)
    add.add_argument("--type", choices=_TYPES, required=True)
    add.add_argument("--text", required=True)
    _optional_fields(add)
    add_operator_flag(add)
    add.set_defaults(handler=run_add)
    _add(actions, parents, "get", "show one spore").set_defaults(handler=run_get)
    listing = _add(actions, parents, "list", "list spores, ranked", with_id=False)
    listing.add_argument("--type", choices=_TYPES)
    listing.add_argument("--tier", choices=_TIERS)
    listing.add_argument("--germination", choices=_GERMINATION)
    listing.add_argument("--domain")
    listing.add_argument("--status", choices=("open", "resolved", "all"), default="open")
    listing.add_argument("-v", "--verbose", action="store_true", help="show every field")
    listing.set_defaults(handler=run_list)
    surface = _add(actions, parents, "surface", "the open spores, ranked", with_id=False)
    surface.add_argument("--top-of-mind", action="store_true", help="only hot or growing ones")
    surface.set_defaults(handler=run_surface)
    _add(actions, parents, "touch", "mark it seen today").set_defaults(handler=run_touch)
    update = _add(actions, parents, "update", "change the fields given ('' clears)")
    update.add_argument("--text")
    _optional_fields(update)
    update.add_argument("--add-note", metavar="TEXT")
    add_operator_flag(update)
    update.set_defaults(handler=run_update)
    descend = _add(actions, parents, "descend", "let it go (done, dropped, answered, ...)")
    descend.add_argument("--kind", required=True)
    descend.set_defaults(handler=run_descend)
    ascend = _add(actions, parents, "ascend", "record what it became (project, episode, ...)")
    ascend.add_argument("--kind", required=True)
    ascend.add_argument("--ref", required=True, help="where it went")
    ascend.set_defaults(handler=run_ascend)
    _add(actions, parents, "delete", "delete it (its id is not reused)").set_defaults(
        handler=run_delete
    )


def _actor(ctx: Context) -> str:
    return ctx.env.get(SOURCE_ENV) or "cli"


def _trust(ctx: Context) -> str:
    """``operator`` behind the operator flag: only then is a spore shown as the operator's."""
    return "operator" if is_operator(ctx.args, ctx.env) else "agent"


def _line(s: Spore) -> str:
    from anneal_memory.cli._render import safe
    from anneal_memory.spores._render import spore_line

    return safe(spore_line(s))


def _block(s: Spore) -> str:
    from anneal_memory.cli._render import safe
    from anneal_memory.spores._render import spore_block

    return safe(spore_block(s), keep="\n")


def _emit_one(ctx: Context, spore: Spore, verb: str) -> int:
    ctx.emit(spore.to_dict(), f"{verb} {_line(spore)}")
    return ExitCode.OK


def _emit_many(ctx: Context, spores: list[Spore], *, verbose: bool, empty: str) -> int:
    render = _block if verbose else _line
    text = "\n".join(render(s) for s in spores) if spores else empty
    ctx.emit({"spores": [s.to_dict() for s in spores]}, text)
    return ExitCode.OK


def run_add(ctx: Context, args: argparse.Namespace) -> int:
    """Plant a spore."""
    from anneal_memory.spores import add_spore

    made = add_spore(
        ctx.store(trust_ceiling=_trust(ctx)),
        type=args.type,
        text=args.text,
        domain=args.domain or "",
        tier=args.tier or "warm",
        salience=args.salience or 0,
        next=args.next,
        pointer=args.pointer or "",
        actor=_actor(ctx),
        trust=_trust(ctx),
    )
    return _emit_one(ctx, made, "Planted:")


def run_get(ctx: Context, args: argparse.Namespace) -> int:
    """Show one spore."""
    from anneal_memory.spores import get_spore

    found = get_spore(ctx.store(read_only=True), args.spore_id)
    ctx.emit(found.to_dict(), _block(found))
    return ExitCode.OK


def run_list(ctx: Context, args: argparse.Namespace) -> int:
    """List spores."""
    from anneal_memory.spores import list_spores

    found = list_spores(
        ctx.store(read_only=True),
        type=args.type,
        tier=args.tier,
        germination=args.germination,
        domain=args.domain,
        status=args.status,
    )
    return _emit_many(ctx, found, verbose=args.verbose, empty="No spores.")


def run_surface(ctx: Context, args: argparse.Namespace) -> int:
    """Show the open spores (or only the top of mind)."""
    from anneal_memory.spores import surface_spores

    found = surface_spores(ctx.store(read_only=True), top_of_mind=args.top_of_mind)
    return _emit_many(ctx, found, verbose=False, empty="No spores to surface.")


def run_touch(ctx: Context, args: argparse.Namespace) -> int:
    """Mark a spore seen."""
    from anneal_memory.spores import touch_spore

    return _emit_one(
        ctx, touch_spore(ctx.store(create=False), args.spore_id, actor=_actor(ctx)), "Touched"
    )


def run_update(ctx: Context, args: argparse.Namespace) -> int:
    """Change a spore's fields."""
    from anneal_memory.spores import update_spore

    found = update_spore(
        ctx.store(create=False, trust_ceiling=_trust(ctx)),
        args.spore_id,
        tier=args.tier,
        next=args.next,
        text=args.text,
        salience=args.salience,
        domain=args.domain,
        pointer=args.pointer,
        add_note=args.add_note,
        actor=_actor(ctx),
        trust=_trust(ctx),
    )
    return _emit_one(ctx, found, "Updated")


def run_descend(ctx: Context, args: argparse.Namespace) -> int:
    """Resolve a spore downward."""
    from anneal_memory.spores import descend_spore

    found = descend_spore(ctx.store(create=False), args.spore_id, args.kind, actor=_actor(ctx))
    return _emit_one(ctx, found, "Descended")


def run_ascend(ctx: Context, args: argparse.Namespace) -> int:
    """Resolve a spore upward."""
    from anneal_memory.spores import ascend_spore

    found = ascend_spore(
        ctx.store(create=False), args.spore_id, args.kind, args.ref, actor=_actor(ctx)
    )
    return _emit_one(ctx, found, "Ascended")


def run_delete(ctx: Context, args: argparse.Namespace) -> int:
    """Delete a spore."""
    from anneal_memory.spores import delete_spore

    return _emit_one(
        ctx, delete_spore(ctx.store(create=False), args.spore_id, actor=_actor(ctx)), "Deleted"
    )
