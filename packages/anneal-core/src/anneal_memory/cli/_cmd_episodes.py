"""Commands on single episodes: ``record``, ``get``, ``delete`` and ``prune``."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from anneal_memory.cli._args import (
    EPISODE_TYPES,
    add_session_id,
    is_operator,
    json_object,
    non_negative_float,
    session_id,
)
from anneal_memory.cli._context import SOURCE_ENV, CommandError, Context, ExitCode
from anneal_memory.cli._provenance_args import add_provenance_flags, provenance_kwargs

TYPE_CHECKING = False  # typing's constant without importing typing
if TYPE_CHECKING:
    import argparse
    from typing import Any

    from anneal_memory.types import Episode

__all__ = ["add_commands", "read_stdin_text"]


def add_commands(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    parents: Sequence[argparse.ArgumentParser],
) -> None:
    """Register ``record``, ``get``, ``delete`` and ``prune``."""
    _add_record(subparsers, parents)
    get = subparsers.add_parser(
        "get", parents=parents, help="show one episode", description="Show one episode in full."
    )
    get.add_argument("id", metavar="ID", help="the episode id (8 hex characters)")
    get.set_defaults(handler=run_get)

    delete = subparsers.add_parser(
        "delete",
        parents=parents,
        help="delete one episode",
        description="Delete one episode: its text leaves the database and the search index; "
        "a tombstone keeps its id. Asks for confirmation on a terminal; elsewhere pass --force.",
    )
    delete.add_argument("id", metavar="ID", help="the episode id")
    delete.add_argument(
        "-f", "--force", action="store_true", help="delete without asking for confirmation"
    )
    delete.set_defaults(handler=run_delete)

    prune = subparsers.add_parser(
        "prune",
        parents=parents,
        help="delete episodes older than N days",
        description="Delete every episode older than --older-than days (tombstones are kept).",
    )
    prune.add_argument(
        "--older-than",
        type=non_negative_float,
        required=True,
        metavar="DAYS",
        help="age in days (fractions allowed)",
    )
    prune.add_argument("--dry-run", action="store_true", help="only count what would be deleted")
    prune.set_defaults(handler=run_prune)


def _add_record(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    parents: Sequence[argparse.ArgumentParser],
) -> None:
    record = subparsers.add_parser(
        "record",
        parents=parents,
        help="record an episode",
        description="Record one episode. TEXT '-' reads the text from stdin (UTF-8).",
    )
    record.add_argument("text", metavar="TEXT", help="the episode text, or - to read stdin")
    record.add_argument(
        "-t",
        "--type",
        choices=EPISODE_TYPES,
        default="observation",
        help="episode type (default: observation)",
    )
    record.add_argument(
        "-s",
        "--source",
        help=f"who records it (default: ${SOURCE_ENV}, else 'cli')",
    )
    record.add_argument(
        "--metadata", type=json_object, metavar="JSON", help="a JSON object stored with it"
    )
    record.add_argument(
        "--idempotency-key",
        metavar="KEY",
        help="retrying with the same key returns the first episode instead of a second",
    )
    add_session_id(
        record,
        "the session recording it: a text that repeats an episode a search of this "
        "session showed in the last hour is recorded derived from it",
    )
    add_provenance_flags(record)
    record.set_defaults(handler=run_record)


def read_stdin_text(limit: int | None = None) -> str:
    """Read stdin as strict UTF-8, at most ``limit`` bytes (more, or a bad byte, is an error).

    ``limit`` defaults to ``cli._files.RECORD_STDIN_MAX_BYTES``; that module is loaded here,
    by ``record -`` only (a ``record TEXT`` does without it: start-up, #25).
    """
    from anneal_memory.cli._files import RECORD_STDIN_MAX_BYTES, read_user_text

    limit = RECORD_STDIN_MAX_BYTES if limit is None else limit
    return read_user_text("-", limit=limit, what="the episode text")


def run_record(ctx: Context, args: argparse.Namespace) -> int:
    """Record one episode from the argument or stdin."""
    text = args.text
    if text == "-":
        # A shell pipe adds one trailing newline; it is not part of the episode.
        text = read_stdin_text().removesuffix("\n").removesuffix("\r")
    source = args.source or ctx.env.get(SOURCE_ENV) or "cli"
    ceiling = "operator" if is_operator(args, ctx.env) else "agent"
    store = ctx.store(trust_ceiling=ceiling)
    kwargs = provenance_kwargs(args)
    shown = None
    if not kwargs["derived_from"]:
        from anneal_memory.worth._echoes import exposed_source

        # A text that repeats an episode a recent exposure showed (a search in another
        # process) derives from it: the self-feeding loop creates no new evidence.
        shown = exposed_source(store, text, session_id=session_id(ctx, args))
        kwargs["derived_from"] = shown or []  # looked: the store need not look again

    def write(**override: Any) -> Episode:
        return store.record(
            text,
            args.type,
            source=source,
            metadata=args.metadata,
            idempotency_key=args.idempotency_key,
            **{**kwargs, **override},
        )

    from anneal_memory.store.provenance import write_copy

    episode = write_copy(write, shown)
    message = f"Recorded {episode.type.value} {episode.id}"
    if kwargs["trust"] in (None, "agent") and episode.trust.value == "external":
        from anneal_memory.redaction import held_note

        message += f" ({held_note(episode.id, episode.content)})"  # store._held (#30)
    ctx.emit(episode.to_dict(), message)
    return ExitCode.OK


def run_get(ctx: Context, args: argparse.Namespace) -> int:
    """Show one episode."""
    from anneal_memory.cli._render import episode_block

    episode = ctx.store(read_only=True).get(args.id)
    if episode is None:
        raise CommandError(f"no episode with id {args.id!r}")
    ctx.emit(episode.to_dict(), episode_block(episode))
    return ExitCode.OK


def run_delete(ctx: Context, args: argparse.Namespace) -> int:
    """Delete one episode after confirmation (or with --force)."""
    from anneal_memory.cli._render import one_line

    store = ctx.store(create=False)
    episode = store.get(args.id)
    if episode is None:
        raise CommandError(f"no episode with id {args.id!r}")
    if not args.force:
        if sys.stdin is None or not sys.stdin.isatty():
            raise CommandError(
                f"not deleting {episode.id}: confirmation needs a terminal; pass --force to "
                "delete without asking"
            )
        from anneal_memory.crystal import crystals_citing

        cited = crystals_citing(store, [episode.id])
        warning = f" (evidence of crystal(s) {', '.join(cited)})" if cited else ""
        question = (
            f"Delete {episode.type.value} {episode.id}{warning}: "
            f"{one_line(episode.content, 60)}? [y/N] "
        )
        if not ctx.confirm(question):
            raise CommandError(f"not deleted: {episode.id} (not confirmed)")
    from anneal_memory.crystal import crystals_citing

    losing = crystals_citing(store, [episode.id])
    deleted = store.delete(episode.id)
    if not deleted:  # deleted by another process since the get
        raise CommandError(f"no episode with id {args.id!r}")
    text = f"Deleted {episode.id}"
    if losing:
        text += f"; crystals that lose this evidence: {', '.join(losing)}"
    ctx.emit({"id": episode.id, "deleted": True, "crystals_losing_evidence": list(losing)}, text)
    return ExitCode.OK


def run_prune(ctx: Context, args: argparse.Namespace) -> int:
    """Delete (or count, with --dry-run) episodes older than the given age."""
    if args.dry_run:
        from anneal_memory.store import prune_preview

        preview = prune_preview(ctx.store(read_only=True), args.older_than)
        cutoff, matching, losing = (
            preview.cutoff,
            preview.matching,
            preview.crystals_losing_evidence,
        )
        deleted = 0
        text = f"Would delete {matching} episode(s) older than {cutoff} (dry run, nothing deleted)"
    else:
        result = ctx.store(create=False).prune(args.older_than)
        cutoff, matching, deleted = result.cutoff, result.deleted, result.deleted
        losing = result.crystals_losing_evidence
        text = f"Deleted {deleted} episode(s) older than {cutoff}"
    if losing:
        text += f"; crystals that lose evidence: {', '.join(losing)}"
    data = {
        "dry_run": bool(args.dry_run),
        "cutoff": cutoff,
        "matching": matching,
        "deleted": deleted,
        "crystals_losing_evidence": list(losing),
    }
    ctx.emit(data, text)
    return ExitCode.OK
