"""``explain pattern NAME`` and ``explain episode ID``: why the store holds what it holds.

Both only read (the store is opened read-only). Text for people; ``--json`` prints the
explanation's ``to_dict()`` (stable keys, see ``docs/cli.md``). Output is bounded by
``--limit``; ``--no-verify`` skips the walk of the audit chain.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from anneal_memory.cli._args import add_scope_arg, positive_int
from anneal_memory.cli._context import Context, ExitCode

__all__ = ["add_commands"]


def _common(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "--limit",
        type=positive_int,
        default=20,
        metavar="N",
        help=f"list at most N {what} and audit entries (20; at most 1000)",
    )
    parser.add_argument(
        "--no-verify", action="store_true", help="skip walking the audit chain for its verdict"
    )


def add_commands(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    parents: Sequence[argparse.ArgumentParser],
) -> None:
    """Register ``explain`` and its subcommands."""
    explain = subparsers.add_parser(
        "explain",
        parents=parents,
        help="explain a pattern's level or an episode's trust, links and audit entries",
        description="Say why the store holds what it holds: how a pattern earned its level "
        "wrap by wrap, or what an episode is worth and what uses it. Only reads.",
    )
    what = explain.add_subparsers(title="explain commands", metavar="WHAT", dest="explain_what")
    what.required = True
    pattern = what.add_parser(
        "pattern",
        parents=parents,
        help="a pattern's level over every wrap, the rule of each step and its audit entries",
        description="For each wrap that wrote pattern NAME: its level, what the immune system "
        "did (validated, demoted, carried, capped) and by which rule, the episodes cited and "
        "the words they share, their trust; then its crystal and the audit entries of those "
        "wraps with the chain's verdict.",
    )
    pattern.add_argument("name", metavar="NAME", help="the pattern name (case-insensitive)")
    add_scope_arg(pattern, "the pattern")
    _common(pattern, "steps")
    pattern.set_defaults(handler=run_pattern)
    episode = what.add_parser(
        "episode",
        parents=parents,
        help="an episode's trust and its cap, replacements, state key, uses and audit entries",
        description="For episode ID: its trust and effective trust (and which sources cap "
        "it), what replaced it or what it replaced, its state-key slot, its scope, the "
        "continuity lines and crystals citing it, its associations and its audit entries.",
    )
    episode.add_argument("episode_id", metavar="ID", help="the episode's 8-hex id")
    _common(episode, "links")
    episode.set_defaults(handler=run_episode)


def run_pattern(ctx: Context, args: argparse.Namespace) -> int:
    """Explain one pattern."""
    from anneal_memory.explain import explain_pattern, render_pattern

    found = explain_pattern(
        ctx.store(read_only=True),
        args.name,
        scope=args.scope,
        limit=args.limit,
        verify=not args.no_verify,
    )
    ctx.emit(found.to_dict(), render_pattern(found))
    return ExitCode.OK if found.found else ExitCode.FAILED


def run_episode(ctx: Context, args: argparse.Namespace) -> int:
    """Explain one episode."""
    from anneal_memory.explain import explain_episode, render_episode

    found = explain_episode(
        ctx.store(read_only=True), args.episode_id, limit=args.limit, verify=not args.no_verify
    )
    ctx.emit(found.to_dict(), render_episode(found))
    return ExitCode.OK if found.found else ExitCode.FAILED
