"""``explain recall|pattern|episode``: why recall returns, and the store holds, what it does.

All only read (the store is opened read-only). Text for people; ``--json`` prints the
explanation's ``to_dict()`` (stable keys, see ``docs/cli.md``). Output is bounded by
``--limit``; ``--no-verify`` skips the walk of the audit chain.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from anneal_memory.cli._args import add_scope_arg, positive_int
from anneal_memory.cli._cmd_recall import add_recall_filters
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
        help="explain a recall's order, a pattern's level or an episode's trust and links",
        description="Say why recall returns what it returns and why the store holds what it "
        "holds: the reasons of a recall's order, how a pattern earned its level wrap by wrap, "
        "or what an episode is worth and what uses it. Only reads.",
    )
    what = explain.add_subparsers(title="explain commands", metavar="WHAT", dest="explain_what")
    what.required = True
    _add_recall(what, parents)
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


def _add_recall(
    what: argparse._SubParsersAction[argparse.ArgumentParser],
    parents: Sequence[argparse.ArgumentParser],
) -> None:
    recall = what.add_parser(
        "recall",
        parents=parents,
        help="recall's results for QUESTION in its order, with the reasons of that order",
        description="Run recall for QUESTION (the same ranking as `search`) and say for each "
        "result the stage that found it (phrase, words, prefix, substring, citation hop), "
        "the words it matched and their weight, its score and what lifted it (a neighbour, "
        "a citation link, the question's intent); then the episodes left out of the page "
        "and why (superseded, an older value of a state key, another scope).",
    )
    recall.add_argument("question", metavar="QUESTION", help="a question or keywords")
    add_recall_filters(
        recall,
        default_limit=10,
        paging=False,
        limit_help="explain the best N results (10; at most 1000)",
    )
    recall.add_argument(
        "--scope",
        metavar="S",
        help="only episodes of scope S ('' is the shared one; default: every scope, as search)",
    )
    recall.set_defaults(handler=run_recall)


def run_recall(ctx: Context, args: argparse.Namespace) -> int:
    """Explain one recall."""
    from anneal_memory.explain import explain_recall, render_recall

    found = explain_recall(
        ctx.store(read_only=True),
        args.question,
        episode_type=args.type,
        since=args.since,
        until=args.until,
        source=args.source,
        scope=args.scope,
        limit=args.limit,
        include_superseded=args.include_superseded,
    )
    ctx.emit(found.to_dict(), render_recall(found))
    return ExitCode.OK


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
