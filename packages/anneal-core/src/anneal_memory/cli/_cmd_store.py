"""Store-level commands: ``init``, ``status`` and ``stats``."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from anneal_memory.cli._args import positive_int
from anneal_memory.cli._context import CommandError, Context, ExitCode

if TYPE_CHECKING:
    from anneal_memory.types import StoreStatus

__all__ = ["add_commands"]


def add_commands(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    parents: Sequence[argparse.ArgumentParser],
) -> None:
    """Register ``init``, ``status`` and ``stats``."""
    init = subparsers.add_parser(
        "init",
        parents=parents,
        help="create a new store",
        description="Create a new, empty store at the database path. Refuses if one exists.",
    )
    init.add_argument(
        "--no-baton",
        action="store_true",
        help="create an open store: any session may wrap (default: only the baton holder)",
    )
    init.add_argument(
        "--schema",
        choices=("default", "partnership", "project"),
        default="default",
        help="the continuity section schema (default: default; change it with set-schema)",
    )
    init.set_defaults(handler=run_init)

    status = subparsers.add_parser(
        "status",
        parents=parents,
        help="counts, sizes and the last write",
        description="Show the store's episode counts by type, deletions, file sizes and "
        "the time of the last write.",
    )
    status.set_defaults(handler=run_status)

    stats = subparsers.add_parser(
        "stats",
        parents=parents,
        help="analytic view: by type, by source, per day, sizes",
        description="Show episode counts by type and by source, activity per day and "
        "content sizes.",
    )
    stats.add_argument(
        "--days",
        type=positive_int,
        default=14,
        metavar="N",
        help="how many most recent active days to list (default: 14)",
    )
    stats.set_defaults(handler=run_stats)


def run_init(ctx: Context, args: argparse.Namespace) -> int:
    """Create the store; refuse when the database file already exists."""
    path = ctx.db_path
    if path.exists():
        raise CommandError(f"Store already exists: {path}")
    gated = not args.no_baton
    store = ctx.store(gate_on_create=gated)
    if not store.created:  # another process created it between the check and the open
        raise CommandError(f"Store already exists: {store.path}")
    if args.schema != "default":
        from anneal_memory.continuity import set_section_schema

        set_section_schema(store, args.schema)
    from anneal_memory.gate import claim_command

    note = (
        f"\nWraps need the baton: give it to a session with: {claim_command(store)}"
        if gated
        else "\nOpen store (--no-baton): any session may wrap."
    )
    ctx.emit(
        {
            "path": str(store.path),
            "created": True,
            "project_name": ctx.project_name,
            "consolidate_requires_baton": gated,
            "section_schema": args.schema,
        },
        f"Created store: {store.path}{note}",
    )
    return ExitCode.OK


def status_text(status: StoreStatus) -> str:
    """Render a ``StoreStatus`` for people."""
    from anneal_memory.cli._render import human_bytes

    by_type = ", ".join(f"{name} {n}" for name, n in status.episodes_by_type.items() if n)
    return "\n".join(
        [
            f"Store:            {status.path}",
            f"Episodes:         {status.total_episodes}" + (f" ({by_type})" if by_type else ""),
            f"Since last wrap:  {status.episodes_since_wrap}",
            f"Deleted:          {status.deleted_episodes}",
            f"Size:             {human_bytes(status.db_bytes)} database, "
            f"{human_bytes(status.wal_bytes)} WAL",
            f"Last write:       {status.last_write or 'never'}",
            f"Schema version:   {status.schema_version}",
        ]
    )


def _waiting_by_scope(store: Any, total: int) -> tuple[dict[str, int], int]:
    from anneal_memory.continuity import unwrapped_scopes

    return unwrapped_scopes(store, limit=20, total=total)


def run_status(ctx: Context, args: argparse.Namespace) -> int:
    """Print the store status."""
    from anneal_memory.continuity import current_schema

    store = ctx.store(read_only=True)
    status = store.status()
    schema = current_schema(store).name
    by_scope, more = _waiting_by_scope(store, status.episodes_since_wrap)
    text = f"{status_text(status)}\nSection schema:   {schema}"
    if by_scope and set(by_scope) != {""}:
        from anneal_memory.cli._render import safe

        listed = ", ".join(f"{safe(repr(s))} {n}" for s, n in by_scope.items())
        text += f"\nWaiting by scope: {listed}" + (f" (+{more} more scopes)" if more else "")
    ctx.emit(
        {
            **status.to_dict(),
            "section_schema": schema,
            "episodes_since_wrap_by_scope": by_scope,
            "more_scopes_waiting": more,
        },
        text,
    )
    return ExitCode.OK


def run_stats(ctx: Context, args: argparse.Namespace) -> int:
    """Print the analytic view of the store."""
    from anneal_memory.cli._stats import collect_stats, stats_text

    data: dict[str, Any] = collect_stats(ctx.store(read_only=True), days=args.days)
    ctx.emit(data, stats_text(data))
    return ExitCode.OK
