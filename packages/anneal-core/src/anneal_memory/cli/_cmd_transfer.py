"""Moving a store's contents: ``export`` and ``import``."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from anneal_memory.cli._context import CommandError, Context, ExitCode

__all__ = ["add_commands"]


def add_commands(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    parents: Sequence[argparse.ArgumentParser],
) -> None:
    """Register ``export`` and ``import``."""
    export = subparsers.add_parser(
        "export",
        parents=parents,
        help="write every episode and tombstone as JSON",
        description="Export the whole store (episodes and tombstones) as one JSON document, "
        "to stdout or to a file written atomically with mode 0600.",
    )
    export.add_argument(
        "--format", choices=("json",), default="json", help="output format (default: json)"
    )
    export.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    export.add_argument("--force", action="store_true", help="overwrite FILE if it already exists")
    export.set_defaults(handler=run_export)

    imp = subparsers.add_parser(
        "import",
        parents=parents,
        help="import an export file",
        description="Import a JSON export (FILE, or - for stdin) in one transaction. Episodes "
        "already present are skipped; a malformed file changes nothing.",
    )
    imp.add_argument("file", metavar="FILE", help="the export file, or - to read stdin")
    imp.set_defaults(handler=run_import)


def run_export(ctx: Context, args: argparse.Namespace) -> int:
    """Export to stdout, or atomically to a file that must not exist (unless --force)."""
    store = ctx.store(read_only=True)
    if args.output is None:
        store.export_json(ctx.out)
        ctx.out.write("\n")
        return ExitCode.OK
    import io

    from anneal_memory._fsio import atomic_write_text
    from anneal_memory.cli._files import output_target

    target = output_target(args.output, force=args.force)
    buffer = io.StringIO()
    count = store.export_json(buffer)
    atomic_write_text(target, buffer.getvalue())
    ctx.emit(
        {"path": str(target.absolute()), "format": args.format, "episodes": count},
        f"Exported {count} episode(s) to {target}",
    )
    return ExitCode.OK


def run_import(ctx: Context, args: argparse.Namespace) -> int:
    """Import an export document from a file or stdin."""
    from anneal_memory.cli._files import IMPORT_MAX_BYTES, read_user_text

    text = read_user_text(args.file, limit=IMPORT_MAX_BYTES, what="the import file")
    origin = "stdin" if args.file == "-" else str(Path(args.file).expanduser())
    if not text.strip():
        raise CommandError(f"nothing to import: {origin} is empty")
    store = ctx.store()
    try:
        result = store.import_json(text)
    except BaseException:
        ctx.discard_new_store()
        raise
    ctx.emit(
        {
            "source": origin,
            "imported": result.imported,
            "skipped_existing": result.skipped_existing,
            "tombstones_added": result.tombstones_added,
        },
        f"Imported {result.imported} episode(s) from {origin} "
        f"({result.skipped_existing} already present, {result.tombstones_added} tombstone(s))",
    )
    return ExitCode.OK
