"""Store health commands: ``check`` (find damage, write nothing) and ``migrate``."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from anneal_memory.cli._context import CommandError, Context, ExitCode
from anneal_memory.errors import StoreDatabaseError, StoreVersionError

__all__ = ["add_commands"]


def add_commands(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    parents: Sequence[argparse.ArgumentParser],
) -> None:
    """Register ``check`` and ``migrate``."""
    check = subparsers.add_parser(
        "check",
        parents=parents,
        help="look for damage: SQLite pages, schema, search index, audit, continuity",
        description="Run SQLite's integrity_check, then check the schema, the search index, "
        "the audit trail (chain, gaps, staged entries), the continuity file and orphaned temp "
        "files. Opens read-only: writes nothing. Exit 0 when no error was found, 1 otherwise "
        "(each problem named).",
    )
    check.add_argument(
        "--quick",
        action="store_true",
        help="SQLite quick_check instead of the full integrity_check (faster on big stores)",
    )
    check.set_defaults(handler=run_check)

    migrate = subparsers.add_parser(
        "migrate",
        parents=parents,
        help="bring an existing store's schema up to this version",
        description="Open an existing store for writing once, which migrates its schema "
        "(read-only commands never migrate). Does nothing on an up-to-date store. "
        "'migrate check' lists what changed since the acknowledged version that agent "
        "instructions may need to follow; 'migrate ack [VERSION]' records that they do. "
        "Neither edits any file of yours.",
    )
    migrate.add_argument("step", nargs="?", choices=("check", "ack"), help="check or ack")
    migrate.add_argument("version", nargs="?", help="with ack: the version (default: this one)")
    migrate.set_defaults(handler=run_migrate)


def run_check(ctx: Context, args: argparse.Namespace) -> int:
    """Report every problem; exit 1 when one is an error."""
    try:
        store = ctx.store(read_only=True)
    except StoreDatabaseError as exc:
        newer = isinstance(exc, StoreVersionError)
        code = "schema-newer" if newer else "open"
        data = {
            "path": str(ctx.db_path),
            "ok": False,
            "checks": ["open"],
            "problems": [{"code": code, "severity": "error", "message": str(exc)}],
        }
        verdict = "REFUSED (newer schema)" if newer else "DAMAGED"
        ctx.emit(data, f"Store {verdict}: {ctx.db_path}\n- error: {code}: {exc}")
        return ExitCode.FAILED
    report = store.check(full=not args.quick)
    ctx.emit(report.to_dict(), report.summary())
    return ExitCode.OK if report.ok else ExitCode.FAILED


def run_migrate(ctx: Context, args: argparse.Namespace) -> int:
    """Open the store for writing (which migrates it) and report its schema version."""
    from anneal_memory.cli._cmd_http import database_url_of

    if args.step is not None:
        return _check_or_ack(ctx, args)
    if args.version is not None:
        raise CommandError("a VERSION goes with 'migrate ack' only")
    if database_url_of(ctx) is None and not ctx.db_path.exists():
        raise CommandError(f"database not found: {ctx.db_path}; nothing to migrate")
    store = ctx.store(create=False)
    version = store.status().schema_version
    ctx.emit(
        {"path": str(store.path), "schema_version": version},
        f"Store {store.path} is at schema version {version}",
    )
    return ExitCode.OK


def _check_or_ack(ctx: Context, args: argparse.Namespace) -> int:
    from anneal_memory import __version__, upgrade

    if args.step == "ack":
        chosen = upgrade.acknowledge(ctx.store(create=False), args.version, current=__version__)
        ctx.emit(
            {"acknowledged": chosen, "current": __version__},
            f"Acknowledged {chosen}: agent instructions follow its behaviour.",
        )
        return ExitCode.OK
    if args.version is not None:
        raise CommandError("'migrate check' takes no VERSION (it reads the acknowledged one)")
    acked = upgrade.acknowledged_version(ctx.store(read_only=True))
    changes = upgrade.changes_since(acked, current=__version__)
    since = acked or f"{upgrade.BASELINE} (never acknowledged)"
    lines = [f"Changed since {since}, up to {__version__}:" if changes else
             f"Nothing changed since {since} that agent instructions name."]  # fmt: skip
    lines += [f"- [{c.version} {c.kind}] {c.name}: {c.what}" for c in changes]
    if changes:
        lines.append(
            "Update the agent instructions (examples/ has current snippets), then run "
            f"'anneal-memory migrate ack' ({__version__}). Nothing was changed."
        )
    data = {
        "acknowledged": acked,
        "current": __version__,
        "changes": [c.to_dict() for c in changes],
    }
    ctx.emit(data, "\n".join(lines))
    return ExitCode.OK
