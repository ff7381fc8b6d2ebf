"""``erase-scope``: a scope's memory and every trace of its name leave the store."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from anneal_memory.cli._context import CommandError, Context, ExitCode

__all__ = ["add_commands"]


def add_commands(
    subparsers: argparse._SubParsersAction[Any],
    parents: Sequence[argparse.ArgumentParser],
) -> None:
    """Register ``erase-scope``."""
    erase = subparsers.add_parser(
        "erase-scope",
        parents=parents,
        help="erase a scope: its episodes, wraps, pattern levels, continuity",
        description="Erase SCOPE: its episodes (tombstones keep their ids), its wraps, pattern "
        "levels and their history, and its continuity file; the audit trail keeps only the "
        "scope's salted hash. Asks for confirmation on a terminal; elsewhere pass --force. "
        'The shared scope "" also needs --default-scope.',
    )
    erase.add_argument("scope", metavar="SCOPE", help='the scope to erase ("" is the shared one)')
    erase.add_argument(
        "-f", "--force", action="store_true", help="erase without asking for confirmation"
    )
    erase.add_argument(
        "--default-scope",
        action="store_true",
        help='allow erasing the shared scope "" (every unscoped episode)',
    )
    erase.set_defaults(handler=run_erase_scope)


def run_erase_scope(ctx: Context, args: argparse.Namespace) -> int:
    """Erase one scope after confirmation (or with --force)."""
    from anneal_memory.errors import InvalidInputError
    from anneal_memory.store import validate_scope

    scope = args.scope
    try:
        validate_scope(scope, error=InvalidInputError)
    except InvalidInputError as exc:
        raise CommandError(str(exc)) from None
    if scope == "" and not args.default_scope:
        raise CommandError(
            'not erasing the shared scope "": it holds every unscoped episode; pass '
            "--default-scope to erase it on purpose"
        )
    store = ctx.store(create=False)
    shown = repr(scope)
    if not args.force:
        if sys.stdin is None or not sys.stdin.isatty():
            raise CommandError(
                f"not erasing scope {shown}: confirmation needs a terminal; pass --force to "
                "erase without asking"
            )
        count = store.recall(scope=scope, limit=1).total_matching
        question = f"Erase scope {shown} ({count} episode(s), its wraps and continuity)? [y/N] "
        if not ctx.confirm(question):
            raise CommandError(f"not erased: scope {shown} (not confirmed)")
    result = store.erase_scope(scope, allow_default=args.default_scope)
    if not result.anything:
        text = f"Nothing to erase: no trace of scope {shown}"
    else:
        text = (
            f"Erased scope {shown}: {result.episodes} episode(s), {result.wraps} wrap(s), "
            f"{result.patterns} pattern level(s), {result.pattern_steps} history row(s)"
            + (", its continuity" if result.continuity else "")
        )
    ctx.emit({"scope": scope, "erased": result.to_dict()}, text)
    return ExitCode.OK
