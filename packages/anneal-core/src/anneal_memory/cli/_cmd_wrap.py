"""Wrap commands: ``prepare-wrap``, ``save-continuity``, ``wrap-cancel``, ``wrap-status``.

The read side of the wrap (``continuity``, ``history``, ``diff``, ``associations``,
``graph``) lives in ``_cmd_wrapinfo.py``. Every refusal is one ``Error:`` line and exit 1;
a refused save writes nothing and leaves the wrap open.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from anneal_memory.cli._args import add_scope_arg
from anneal_memory.cli._context import CommandError, Context, ExitCode

if TYPE_CHECKING:
    from anneal_memory.continuity import SaveResult

__all__ = ["add_commands"]


def _session_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--session-id",
        metavar="ID",
        help="the session doing this (default: $ANNEAL_MEMORY_SESSION_ID)",
    )


def _token_arg(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "--wrap-token", metavar="TOKEN", help=f"{what} only if this is the open wrap's token"
    )


def add_commands(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    parents: Sequence[argparse.ArgumentParser],
) -> None:
    """Register the wrap lifecycle commands."""
    prepare = subparsers.add_parser(
        "prepare-wrap",
        parents=parents,
        help="open a wrap and print the package for the model to compress",
        description="Freeze the episodes recorded since the last wrap and print the package "
        "(instructions, episodes, current continuity, stale patterns) followed by a "
        "'Wrap token:' line. Exit 0 also when there is nothing to wrap.",
    )
    prepare.add_argument("--max-chars", type=int, metavar="N", help="size target (chars)")
    prepare.add_argument(
        "--max-package-chars",
        type=int,
        default=60_000,
        metavar="N",
        help="budget of the package text (60000); episodes beyond it wait for the next wrap",
    )
    prepare.add_argument(
        "--staleness-days", type=int, default=7, metavar="N", help="stale after N days (7)"
    )
    _session_arg(prepare)
    add_scope_arg(prepare, "wrap the episodes and continuity")
    prepare.set_defaults(handler=run_prepare)

    save = subparsers.add_parser(
        "save-continuity",
        parents=parents,
        help="check the compressed continuity with the immune system and save it",
        description="Validate FILE (or - for stdin) against the open wrap and save it. A "
        "refusal prints one line, exits 1, writes nothing and keeps the wrap open.",
    )
    save.add_argument("file", metavar="FILE", help="the new continuity markdown, or - for stdin")
    _token_arg(save, "save")
    _session_arg(save)
    save.add_argument(
        "--allow-shrink", action="store_true", help="allow a deliberate cut of protected sections"
    )
    save.add_argument("--affect-tag", metavar="TAG", help="how the wrap felt, e.g. curious")
    save.add_argument(
        "--affect-intensity", type=float, metavar="X", help="affect intensity in [0, 1] (0.5)"
    )
    add_scope_arg(save, "save the open wrap", default=None)
    save.set_defaults(handler=run_save)

    cancel = subparsers.add_parser(
        "wrap-cancel",
        parents=parents,
        help="close the open wrap without saving (episodes are kept)",
        description="Cancel the open wrap; its episodes stay and go into the next wrap. On a "
        "baton-protected store only the session that prepared it may cancel it (exit 3 "
        "otherwise); --force is the operator's override, recorded in the audit trail.",
    )
    _token_arg(cancel, "cancel")
    _session_arg(cancel)
    cancel.add_argument(
        "--force",
        action="store_true",
        help="operator: cancel the open wrap whoever prepared it (audited)",
    )
    add_scope_arg(cancel, "cancel the open wrap", default=None)
    cancel.set_defaults(handler=run_cancel)

    status = subparsers.add_parser(
        "wrap-status",
        parents=parents,
        help="say whether a wrap is open and how many episodes wait",
        description="Show the open wrap of the scope (if any) and the episodes recorded since "
        "its last wrap.",
    )
    add_scope_arg(status, "show the wrap")
    status.set_defaults(handler=run_status)


def _session(ctx: Context, args: argparse.Namespace) -> str | None:
    value = args.session_id or ctx.env.get("ANNEAL_MEMORY_SESSION_ID") or None
    return str(value) if value else None


def run_prepare(ctx: Context, args: argparse.Namespace) -> int:
    """Open a wrap and print its package and token."""
    from anneal_memory.continuity import WrapStatus, prepare_wrap

    result = prepare_wrap(
        ctx.store(),
        session_id=_session(ctx, args),
        max_chars=args.max_chars,
        staleness_days=args.staleness_days,
        max_package_chars=args.max_package_chars,
        owner_process=False,  # the save runs in another process: only the lease ends it
        scope=args.scope,
    )
    data = result.to_dict()
    if result.status is not WrapStatus.READY:
        ctx.emit(data, result.message)
        return ExitCode.DOWNGRADED if result.status is WrapStatus.DOWNGRADED else ExitCode.OK
    from anneal_memory.cli._render import safe

    package = safe(result.text or "", keep="\n\t")
    text = f"{package}\n---\nWrap token: {result.wrap_token}"
    ctx.emit(data, text)
    return ExitCode.OK


def _read(path: str) -> str:
    from anneal_memory.cli._files import CONTINUITY_MAX_BYTES, read_user_text

    return read_user_text(path, limit=CONTINUITY_MAX_BYTES, what="the continuity file")


def _affect(args: argparse.Namespace) -> Any:
    from anneal_memory.associations import Affect

    if args.affect_tag is None:
        if args.affect_intensity is not None:
            raise CommandError("--affect-intensity needs --affect-tag; nothing was saved")
        return None
    intensity = 0.5 if args.affect_intensity is None else args.affect_intensity
    return Affect(tag=args.affect_tag, intensity=intensity)


def _save_text(result: SaveResult) -> str:
    lines = [
        f"Saved {result.chars} chars to {result.path} (wrap {result.wrap_id}).",
        f"Episodes compressed: {result.episodes_compressed}",
        f"Graduations validated: {result.graduations_validated}; "
        f"demotions: {result.demotions}; citation spread: {result.citation_spread}",
        f"Associations: {result.associations_formed} formed, "
        f"{result.associations_strengthened} strengthened, "
        f"{result.associations_decayed} decayed, {result.associations_pruned} pruned",
    ]
    if result.drift:
        from anneal_memory.probes._render import drift_line

        lines.append(drift_line(result.drift))
    if result.findings:
        lines.append("Findings:")
        from anneal_memory.cli._render import safe

        lines += [f"  [{f.code.value}] {safe(f.message)}" for f in result.findings]
    return "\n".join(lines)


def run_save(ctx: Context, args: argparse.Namespace) -> int:
    """Validate and save the compressed continuity."""
    from anneal_memory.continuity import validated_save_continuity
    from anneal_memory.errors import ContinuityRejectedError

    text = _read(args.file)
    affect = _affect(args)
    try:
        result = validated_save_continuity(
            ctx.store(create=False),
            text,
            wrap_token=args.wrap_token,
            session_id=_session(ctx, args),
            allow_shrink=args.allow_shrink,
            affect=affect,
            scope=args.scope,
        )
    except ContinuityRejectedError as refused:
        message = " ".join(str(refused).split())
        raise CommandError(f"{message} (nothing was written; the wrap stays open)") from None
    ctx.emit(result.to_dict(), _save_text(result))
    return ExitCode.OK


def run_cancel(ctx: Context, args: argparse.Namespace) -> int:
    """Cancel the open wrap."""
    from anneal_memory.continuity import wrap_cancel
    from anneal_memory.errors import GateError

    try:
        result = wrap_cancel(
            ctx.store(create=False),
            wrap_token=args.wrap_token,
            session_id=_session(ctx, args),
            force=args.force,
            scope=args.scope,
        )
    except GateError as refused:
        raise CommandError(str(refused), exit_code=ExitCode.DOWNGRADED) from None
    data = {"status": "cancelled", **result.to_dict()}
    ctx.emit(
        data,
        f"Cancelled wrap {result.wrap_id} (started {result.started_at}); its "
        f"{result.episode_count} episode(s) stay for the next wrap.",
    )
    return ExitCode.OK


def run_status(ctx: Context, args: argparse.Namespace) -> int:
    """Show the open wrap and the waiting episodes."""
    from anneal_memory.continuity import unwrapped_in_scope, wrap_status

    store = ctx.store(read_only=True)
    wrap = wrap_status(store, args.scope)
    waiting = unwrapped_in_scope(store, args.scope)
    data = {
        "scope": args.scope,
        "in_progress": wrap is not None,
        "wrap": None if wrap is None else wrap.to_dict(),
        "episodes_since_wrap": waiting,
    }
    if wrap is None:
        text = f"No wrap in progress. {waiting} episode(s) since the last wrap."
    else:
        text = (
            f"Wrap {wrap.id} in progress since {wrap.started_at} "
            f"({wrap.episode_count} episode(s), token {wrap.token[:8]}...). "
            f"{waiting} episode(s) of its scope unwrapped in all."
        )
    ctx.emit(data, text)
    return ExitCode.OK
