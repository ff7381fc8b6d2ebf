"""The single-consolidator gate: ``baton claim NAME [--take]``, ``release NAME``, ``status``.

These are operator commands. The MCP server has no tool for them on purpose: an agent that
follows its protocol cannot give itself the right to rewrite its own continuity.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING

from anneal_memory.cli._context import Context, ExitCode

if TYPE_CHECKING:
    from anneal_memory.gate import BatonStatus

__all__ = ["add_commands"]


def add_commands(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    parents: Sequence[argparse.ArgumentParser],
) -> None:
    """Register ``baton`` and its three subcommands."""
    baton = subparsers.add_parser(
        "baton",
        parents=parents,
        help="who may consolidate (wrap) this store: claim, release, status",
        description="On a baton-protected store (the default for 'init') only the session "
        "holding the baton may wrap. Give it to a session id with 'baton claim NAME'.",
    )
    actions = baton.add_subparsers(title="baton commands", metavar="ACTION", dest="baton_action")
    actions.required = True
    claim = actions.add_parser(
        "claim",
        parents=parents,
        help="give the baton to session NAME",
        description="Give the baton to session NAME. If another session holds it, --take "
        "moves it (and revokes that session's open wrap).",
    )
    claim.add_argument("name", metavar="NAME", help="the session id (--session-id of the wrap)")
    claim.add_argument("--take", action="store_true", help="take it from its current holder")
    claim.set_defaults(handler=run_claim)
    release = actions.add_parser(
        "release", parents=parents, help="give the baton up", description="Release the baton."
    )
    release.add_argument("name", metavar="NAME", help="the session id holding it")
    release.set_defaults(handler=run_release)
    status = actions.add_parser(
        "status",
        parents=parents,
        help="show the policy, the holder and the episodes waiting",
        description="Show whether the store is baton-protected, who holds the baton and how "
        "many episodes wait for a wrap.",
    )
    status.set_defaults(handler=run_status)


def _status_text(status: BatonStatus) -> str:
    from anneal_memory.cli._render import safe

    policy = "on (only the baton holder may wrap)" if status.consolidate_requires_baton else "off"
    holder = "nobody" if status.holder is None else f"{status.holder} (since {status.claimed_at})"
    return "\n".join(
        [
            f"Baton policy:     {policy}",
            f"Baton holder:     {safe(holder)}",
            f"Since last wrap:  {status.episodes_since_wrap} episode(s)",
        ]
    )


def run_claim(ctx: Context, args: argparse.Namespace) -> int:
    """Claim (or take) the baton."""
    from anneal_memory.gate import claim_baton

    status = claim_baton(ctx.store(create=False), args.name, take=args.take)
    ctx.emit(status.to_dict(), _status_text(status))
    return ExitCode.OK


def run_release(ctx: Context, args: argparse.Namespace) -> int:
    """Release the baton."""
    from anneal_memory.gate import release_baton

    status = release_baton(ctx.store(create=False), args.name)
    ctx.emit(status.to_dict(), _status_text(status))
    return ExitCode.OK


def run_status(ctx: Context, args: argparse.Namespace) -> int:
    """Show the gate's state."""
    from anneal_memory.gate import baton_status

    status = baton_status(ctx.store(read_only=True))
    ctx.emit(status.to_dict(), _status_text(status))
    return ExitCode.OK
