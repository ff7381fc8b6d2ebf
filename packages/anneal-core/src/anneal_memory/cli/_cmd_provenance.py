"""Updated facts and provenance commands: supersede, unsupersede, state, trust, set-schema."""

from __future__ import annotations

from collections.abc import Sequence

from anneal_memory.cli._args import OPERATOR_ENV, add_operator_flag, is_operator
from anneal_memory.cli._context import CommandError, Context, ExitCode

TYPE_CHECKING = False  # typing's constant without importing typing
if TYPE_CHECKING:
    import argparse

__all__ = ["OPERATOR_ENV", "add_commands", "add_operator_flag", "is_operator"]
_TRUST_LEVELS = ("external", "tool", "agent", "operator")
_SCHEMAS = ("default", "partnership", "project")


def add_commands(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    parents: Sequence[argparse.ArgumentParser],
) -> None:
    """Register ``supersede``, ``unsupersede``, ``state``, ``trust`` and ``set-schema``."""
    supersede = subparsers.add_parser(
        "supersede",
        parents=parents,
        help="mark an episode as replaced by a newer one",
        description="Link OLD to the newer episode NEW that replaces it: OLD is hidden from "
        "recall and can no longer ground a graduation. Refused (nothing written) unless OLD "
        "is not newer, no cycle forms, the texts share 25%% of the shorter one's meaningful "
        "words, NEW is at least as trusted, and OLD holds no state key.",
    )
    unsupersede = subparsers.add_parser(
        "unsupersede",
        parents=parents,
        help="remove a supersession link",
        description="Remove the link 'OLD replaced by NEW'; OLD is current again.",
    )
    for parser, handler in ((supersede, run_supersede), (unsupersede, run_unsupersede)):
        parser.add_argument("--old", required=True, metavar="ID", help="the older episode")
        parser.add_argument("--new", required=True, metavar="ID", help="the episode replacing it")
        parser.set_defaults(handler=handler)

    state = subparsers.add_parser(
        "state",
        parents=parents,
        help="state keys: current and replaced values",
        description="List state keys with their current and replaced episodes, or one KEY. "
        "--set ID puts an episode into KEY's slot (the newest one is current); --unset ID "
        "takes it out.",
    )
    state.add_argument("key", nargs="?", metavar="KEY", help="a state key, e.g. user.home_city")
    group = state.add_mutually_exclusive_group()
    group.add_argument("--set", metavar="ID", dest="set_id", help="put episode ID under KEY")
    group.add_argument("--unset", metavar="ID", dest="unset_id", help="remove ID from its key")
    state.set_defaults(handler=run_state)

    trust = subparsers.add_parser(
        "trust",
        parents=parents,
        help="show or change an episode's trust class",
        description="Show an episode's trust (and effective trust), or set it to LEVEL. "
        "Lowering is always allowed; raising needs --operator (or ANNEAL_OPERATOR=1).",
    )
    trust.add_argument("id", metavar="ID", help="the episode id")
    trust.add_argument("level", nargs="?", choices=_TRUST_LEVELS, help="the new trust class")
    add_operator_flag(trust)
    trust.set_defaults(handler=run_trust)

    schema = subparsers.add_parser(
        "set-schema",
        parents=parents,
        help="choose the continuity section schema",
        description="Choose the continuity file's section schema; the next wrap uses it.",
    )
    schema.add_argument("schema", choices=_SCHEMAS, help="the schema name")
    schema.set_defaults(handler=run_set_schema)


def run_supersede(ctx: Context, args: argparse.Namespace) -> int:
    """Link OLD to NEW."""
    added = ctx.store(create=False).supersede(args.old, args.new)
    note = "" if added else " (already linked)"
    ctx.emit(
        {"old_id": args.old, "new_id": args.new, "superseded": True, "added": added},
        f"Superseded {args.old} by {args.new}{note}",
    )
    return ExitCode.OK


def run_unsupersede(ctx: Context, args: argparse.Namespace) -> int:
    """Remove the link OLD -> NEW."""
    if not ctx.store(create=False).unsupersede(args.old, args.new):
        raise CommandError(f"{args.old} is not superseded by {args.new}; nothing to remove")
    ctx.emit(
        {"old_id": args.old, "new_id": args.new, "superseded": False},
        f"Removed the link: {args.old} is no longer superseded by {args.new}",
    )
    return ExitCode.OK


def run_state(ctx: Context, args: argparse.Namespace) -> int:
    """List state keys, or change one slot."""
    store = ctx.store(create=False)
    if args.set_id is not None:
        if args.key is None:
            raise CommandError("state --set ID needs the KEY: anneal-memory state KEY --set ID")
        episode = store.set_state_key(args.set_id, args.key)
        ctx.emit(episode.to_dict(), f"{episode.id} now holds state key {episode.state_key}")
        return ExitCode.OK
    if args.unset_id is not None:
        episode = store.set_state_key(args.unset_id, None)
        ctx.emit(episode.to_dict(), f"{episode.id} no longer holds a state key")
        return ExitCode.OK
    from anneal_memory.cli._render import safe

    slots = store.state_key_report(args.key)
    lines = [
        f"{s.key}{f' [scope {safe(s.scope)}]' if s.scope else ''}: {', '.join(s.current)}"
        + (f" (replaced: {', '.join(s.replaced)})" if s.replaced else "")
        for s in slots
    ]
    ctx.emit({"keys": [s.to_dict() for s in slots]}, "\n".join(lines) or "No state keys.")
    return ExitCode.OK


def run_trust(ctx: Context, args: argparse.Namespace) -> int:
    """Show or set an episode's trust."""
    operator = is_operator(args, ctx.env)
    store = ctx.store(create=False, trust_ceiling="operator" if operator else "agent")
    if args.level is None:
        episode = store.get(args.id)
        if episode is None:
            raise CommandError(f"no episode with id {args.id!r}")
    else:
        episode = store.set_trust(args.id, args.level, allow_raise=operator)
    effective = store.effective_trusts([episode.id]).get(episode.id, episode.trust)
    ctx.emit(
        {"id": episode.id, "trust": episode.trust.value, "effective_trust": effective.value},
        f"{episode.id}: trust {episode.trust.value} (effective {effective.value})",
    )
    return ExitCode.OK


def run_set_schema(ctx: Context, args: argparse.Namespace) -> int:
    """Choose the section schema."""
    from anneal_memory.continuity import set_section_schema

    schema = set_section_schema(ctx.store(create=False), args.schema)
    ctx.emit(
        {"section_schema": schema.name, "target_chars": schema.target_chars},
        f"Section schema: {schema.name} (target {schema.target_chars} chars)",
    )
    return ExitCode.OK
