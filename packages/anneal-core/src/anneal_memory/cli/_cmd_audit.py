"""Audit commands: ``verify``, ``audit`` (read entries) and ``audit-repair``.

``verify`` exits 1 when the chain is invalid, in text and ``--json`` alike; its report goes to
stdout either way, since an invalid trail is a finding, not a failure of the command.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from anneal_memory.cli._args import positive_int
from anneal_memory.cli._context import CommandError, Context, ExitCode

__all__ = ["add_commands"]


def add_commands(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    parents: Sequence[argparse.ArgumentParser],
) -> None:
    """Register ``verify``, ``audit`` and ``audit-repair``."""
    verify = subparsers.add_parser(
        "verify",
        parents=parents,
        help="check the audit trail's hash chain (exit 1 when broken)",
        description="Walk every sealed week and the active audit file, checking each entry "
        "links to the one before. Exit 0 when valid, 1 when not (also with --json).",
    )
    verify.set_defaults(handler=run_verify)

    audit = subparsers.add_parser(
        "audit",
        parents=parents,
        help="read the audit trail (newest entries, oldest first)",
        description="Print audit entries: content appears only as salted hashes.",
    )
    audit.add_argument("--since", metavar="AGE", help="only entries newer than 30m, 12h, 7d, ...")
    audit.add_argument("--event", metavar="E", help="only this event type, e.g. record")
    audit.add_argument(
        "--limit", type=positive_int, default=50, metavar="N", help="at most N entries (50)"
    )
    audit.set_defaults(handler=run_audit)

    repair = subparsers.add_parser(
        "audit-repair",
        parents=parents,
        help="rebuild a corrupt audit manifest or set aside a corrupt sealed week",
        description="Quarantine and rebuild a corrupt or missing manifest; set aside a sealed "
        "week that no longer verifies (it stays on disk and is listed). Refuses, exit 1, when "
        "nothing needs repair. Entries are never rewritten.",
    )
    repair.add_argument(
        "--set-aside-unreadable",
        action="store_true",
        help="also set aside sealed weeks that cannot be read (permissions, I/O errors)",
    )
    repair.set_defaults(handler=run_repair)


def _db(ctx: Context) -> str:
    path = ctx.db_path
    if not path.exists():
        raise CommandError(
            f"database not found: {path}; point --db or ANNEAL_MEMORY_DB at an existing store"
        )
    return str(path)


def run_verify(ctx: Context, args: argparse.Namespace) -> int:
    """Verify the chain; exit 1 when it is broken."""
    from anneal_memory.audit import AuditTrail
    from anneal_memory.cli._context import DB_ENV
    from anneal_memory.store import database_url

    if database_url(getattr(args, "db", None), ctx.env.get(DB_ENV)) is not None:
        result = ctx.store().verify_audit()  # the PostgreSQL trail
    else:
        result = AuditTrail.verify(_db(ctx))
    ctx.emit(result.to_dict(), result.summary())
    return ExitCode.OK if result.valid and result.complete else ExitCode.FAILED


def _entry_line(entry: dict[str, object]) -> str:
    import json

    from anneal_memory.cli._render import safe

    dropped = entry.get("dropped_before")
    note = f" (dropped before: {dropped})" if dropped else ""
    data = json.dumps(entry.get("data"), sort_keys=True, ensure_ascii=False)
    return safe(
        f"{entry.get('seq')}  {entry.get('ts')}  {entry.get('event')}  "
        f"{entry.get('actor')}  {data}{note}"
    )


def run_audit(ctx: Context, args: argparse.Namespace) -> int:
    """Print the newest matching entries."""
    from anneal_memory._clock import SystemClock, parse_time_bound
    from anneal_memory.audit import AuditEvent, read_entries

    since = None
    if args.since is not None:
        try:
            since = parse_time_bound(args.since, SystemClock())
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        except OverflowError:
            raise CommandError(f"--since {args.since!r} is out of range") from None
    if args.event is not None and args.event not in {e.value for e in AuditEvent}:
        known = ", ".join(e.value for e in AuditEvent)
        raise CommandError(f"unknown audit event {args.event!r}; use one of: {known}")
    from anneal_memory.cli._context import DB_ENV
    from anneal_memory.store import database_url

    if database_url(getattr(args, "db", None), ctx.env.get(DB_ENV)) is not None:
        store = ctx.store()  # the PostgreSQL-held trail
        entries = store.read_audit(since=since, event=args.event, limit=args.limit)
    else:
        entries = read_entries(_db(ctx), since=since, event=args.event, limit=args.limit)
    text = "\n".join(_entry_line(e) for e in entries) if entries else "No audit entries match."
    ctx.emit({"entries": entries, "count": len(entries)}, text)
    return ExitCode.OK


def run_repair(ctx: Context, args: argparse.Namespace) -> int:
    """Repair the manifest or set aside corrupt weeks; refuse when nothing needs it."""
    from anneal_memory.audit import AuditTrail

    result = AuditTrail.repair(_db(ctx), set_aside_unreadable=args.set_aside_unreadable)
    text = "\n".join(["Audit repair done:", *(f"- {action}" for action in result.actions)])
    ctx.emit(result.to_dict(), text)
    return ExitCode.OK
