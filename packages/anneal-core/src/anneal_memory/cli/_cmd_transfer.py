"""Moving a store's contents: ``export`` and ``import``."""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from anneal_memory.cli._cmd_provenance import add_operator_flag, is_operator
from anneal_memory.cli._context import DB_ENV, CommandError, Context, ExitCode

if TYPE_CHECKING:
    from anneal_memory.types import ImportReport, ImportResult

__all__ = ["add_commands"]


def add_commands(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    parents: Sequence[argparse.ArgumentParser],
) -> None:
    """Register ``export`` and ``import``."""
    export = subparsers.add_parser(
        "export",
        parents=parents,
        help="write every episode and tombstone as JSON (or a markdown dump)",
        description="Export the whole store (episodes and tombstones) as one JSON document, "
        "or as readable markdown (the continuity, then episodes by day), to stdout or to a "
        "file written atomically with mode 0600.",
    )
    export.add_argument(
        "--format",
        choices=("json", "markdown"),
        default="json",
        help="output format (default: json)",
    )
    export.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    export.add_argument("--force", action="store_true", help="overwrite FILE if it already exists")
    export.set_defaults(handler=run_export)

    imp = subparsers.add_parser(
        "import",
        parents=parents,
        help="import an export, a 1.0.2 store or an MCP memory.json",
        description="Import PATH in one transaction, detecting its format: an anneal-memory "
        "export, a public anneal-memory 1.0.2 JSON export or database (read-only, with the "
        "files beside it), or the MCP memory server's memory.json. Records already here are "
        "skipped; a file that cannot be imported changes nothing. Trust above agent is kept "
        "only with --operator (else written as agent, and reported); a continuity's pattern "
        "levels are capped at their saved levels, as a save caps them.",
    )
    imp.add_argument("file", metavar="PATH", help="the file to import, or - to read stdin")
    imp.add_argument(
        "--dry-run", action="store_true", help="report what would be imported; write nothing"
    )
    add_operator_flag(imp)
    imp.set_defaults(handler=run_import)


def run_export(ctx: Context, args: argparse.Namespace) -> int:
    """Export to stdout, or atomically to a file that must not exist (unless --force)."""
    store = ctx.store(read_only=True)
    write = store.export_markdown if args.format == "markdown" else store.export_json
    if args.output is None:
        write(ctx.out)
        ctx.out.write("\n")
        return ExitCode.OK
    import io

    from anneal_memory._fsio import atomic_write_text
    from anneal_memory.cli._files import output_target

    target = output_target(args.output, force=args.force)
    buffer = io.StringIO()
    count = write(buffer)
    atomic_write_text(target, buffer.getvalue())
    ctx.emit(
        {"path": str(target.absolute()), "format": args.format, "episodes": count},
        f"Exported {count} episode(s) to {target}",
    )
    return ExitCode.OK


def _spool_stdin(folder: Path) -> Path:
    """Copy stdin to a private file, at most ``IMPORT_MAX_BYTES`` (a larger one is refused)."""
    from anneal_memory._fsio import ensure_private_file
    from anneal_memory.cli._files import IMPORT_MAX_BYTES, read_user_text

    text = read_user_text("-", limit=IMPORT_MAX_BYTES, what="the import on stdin")
    target = folder / "stdin"
    ensure_private_file(target)
    target.write_text(text, encoding="utf-8")
    return target


@contextlib.contextmanager
def _scratch(ctx: Context) -> Iterator[Path]:
    """A private folder for a copy of stdin, removed after.

    Beside the destination when its folder exists (a killed import's copy is then removed by
    the store's next open or import), else in the system temp folder.
    """
    if ctx.db_path.parent.is_dir():
        from anneal_memory._staging import staging_folder

        with staging_folder(ctx.db_path) as folder:
            yield folder
        return
    import tempfile

    with tempfile.TemporaryDirectory(prefix="anneal-import-") as name:
        yield Path(name)


def _text(report: ImportReport, origin: str) -> str:
    verb = "Would import" if report.dry_run else "Imported"
    lines = [f"{verb} from {origin} ({report.format}, sha256 {report.sha256[:16]}):"]
    for c in report.counts:
        if not (c.imported or c.skipped or c.not_carried):
            lines.append(f"  {c.kind}: {c.found} found (each came across as episodes)")
            continue
        parts = [f"{c.imported} {'to import' if report.dry_run else 'imported'}"]
        if c.skipped:
            parts.append(f"{c.skipped} already here")
        if c.not_carried:
            parts.append(f"{c.not_carried} not carried: {c.reason}")
        if c.capped:
            parts.append(f"{c.capped} capped: {c.reason}")
        lines.append(f"  {c.kind}: {c.found} found, " + ", ".join(parts))
    if report.redacted:
        kinds = ", ".join(f"{kind} in {n}" for kind, n in report.redacted.items())
        lines.append(f"  secrets replaced by [redacted:<kind>]: {kinds} episode(s)")
    if report.dry_run:
        lines.append("Dry run: nothing was written.")
    return "\n".join(lines)


def _data(report: ImportReport, origin: str) -> dict[str, object]:
    episodes = report.count("episodes")
    tombstones = report.count("tombstones")
    crystals, spores = report.count("crystals"), report.count("spores")
    return {
        "source": origin,
        "format": report.format,
        "sha256": report.sha256,
        "dry_run": report.dry_run,
        "imported": episodes.imported if episodes else 0,
        "skipped_existing": episodes.skipped if episodes else 0,
        "tombstones_added": tombstones.imported if tombstones else 0,
        "crystals_imported": crystals.imported if crystals else 0,
        "spores_imported": spores.imported if spores else 0,
        "counts": [c.to_dict() for c in report.counts],
        "redacted": dict(report.redacted),
    }


def _ceiling(ctx: Context) -> str:
    return "operator" if is_operator(ctx.args, ctx.env) else "agent"


def _run(ctx: Context, path: Path, *, dry_run: bool) -> ImportReport:
    if dry_run and not ctx.db_path.exists():
        import tempfile

        from anneal_memory.store import Store

        with (
            tempfile.TemporaryDirectory(prefix="anneal-dry-run-") as folder,
            Store(Path(folder) / "dry-run.db", audit=False, trust_ceiling=_ceiling(ctx)) as scratch,
        ):
            return scratch.import_from(path, dry_run=True)
    store = ctx.store(trust_ceiling=_ceiling(ctx))
    try:
        return store.import_from(path, dry_run=dry_run)
    except BaseException:
        ctx.discard_new_store()
        raise


def _import_export_document(ctx: Context, args: argparse.Namespace) -> int:
    """A PostgreSQL store takes our own export document only (``Store.import_json``)."""
    from anneal_memory.cli._files import IMPORT_MAX_BYTES, read_user_text

    if args.dry_run:
        raise CommandError("import --dry-run is not supported on PostgreSQL yet")
    text = read_user_text(args.file, limit=IMPORT_MAX_BYTES, what="the import file", links=False)
    origin = "stdin" if args.file == "-" else str(Path(args.file).expanduser())
    result = ctx.store(trust_ceiling=_ceiling(ctx)).import_json(text)
    capped = (
        f"; {result.trust_capped} trust class(es) capped at this store's ceiling 'agent': "
        "trust above it is kept only by an operator's import (CLI --operator)"
        if result.trust_capped
        else ""
    )
    if result.held_as_data:
        from anneal_memory.redaction import HELD_AS_DATA, HELD_RULE, held_raise

        capped += (
            f"; {result.held_as_data} {HELD_AS_DATA} ({HELD_RULE}; raise one with: {held_raise()})"
        )
    ctx.emit(
        {
            "source": origin,
            "imported": result.imported,
            "skipped_existing": result.skipped_existing,
            "tombstones_added": result.tombstones_added,
            "trust_capped": result.trust_capped,
            "held_as_data": result.held_as_data,
            "not_carried": list(result.not_carried),
            "restored": {
                "wraps": result.wraps_restored,
                "patterns": result.patterns_restored,
                "associations": result.associations_restored,
                "continuity": list(result.continuity_restored),
            },
        },
        f"Imported {result.imported} episode(s) from {origin} "
        f"({result.skipped_existing} already present, {result.tombstones_added} tombstone(s)"
        f"{capped})"
        + _restored_line(result)
        + "".join(f"\n  {note}" for note in result.not_carried),
    )
    return ExitCode.OK


def _restored_line(result: ImportResult) -> str:
    if not (result.wraps_restored or result.continuity_restored):
        return ""
    return (
        f"\n  restored: {result.wraps_restored} wrap(s), {result.patterns_restored} pattern "
        f"level(s), {result.associations_restored} link(s), continuity of "
        f"{len(result.continuity_restored)} scope(s)"
    )


def run_import(ctx: Context, args: argparse.Namespace) -> int:
    """Import a file (or stdin), or with --dry-run report what an import would do."""
    from anneal_memory.store import database_url

    if database_url(getattr(ctx.args, "db", None), ctx.env.get(DB_ENV)) is not None:
        return _import_export_document(ctx, args)
    if args.file != "-":
        from anneal_memory.cli._files import require_regular_file

        path = Path(args.file).expanduser()
        require_regular_file(path, links=False)
        report = _run(ctx, path, dry_run=args.dry_run)
        origin = str(path)
    else:
        from anneal_memory.errors import ImportFormatError

        with _scratch(ctx) as folder:
            spooled = _spool_stdin(folder)
            try:
                report = _run(ctx, spooled, dry_run=args.dry_run)
            except ImportFormatError as exc:
                raise ImportFormatError(str(exc).replace(str(spooled), "stdin")) from None
        origin = "stdin"
    ctx.emit(_data(report, origin), _text(report, origin))
    return ExitCode.OK
