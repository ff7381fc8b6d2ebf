"""One import as one transaction: commit it, or roll all of it back (errors, dry runs)."""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

from anneal_memory._clock import Clock, format_timestamp
from anneal_memory._fsio import atomic_write_text
from anneal_memory._scope_files import continuity_suffix
from anneal_memory._staging import staging_folder
from anneal_memory.errors import ImportFormatError, InvalidEpisodeError
from anneal_memory.store._contract import Dialect
from anneal_memory.store._episodes import set_meta
from anneal_memory.store.sqlite._connection import write_transaction
from anneal_memory.store.transfer._run import ImportPlan, import_source
from anneal_memory.store.wraps._place import FilePlace
from anneal_memory.types import ImportReport, Trust

__all__ = ["apply_import"]


class _DryRun(Exception):  # noqa: N818 - control flow that never leaves this module
    def __init__(self, plan: ImportPlan) -> None:
        super().__init__("dry run")
        self.plan = plan


def _write_continuity(target: Path, text: str) -> None:
    """Write the imported continuity; the caller removes it if the commit then fails."""
    with FilePlace(target).lock():  # the lock every write of a continuity file holds
        if os.path.lexists(target):
            raise ImportFormatError(
                f"{target.name} appeared while importing; nothing was imported, run it again"
            )
        atomic_write_text(target, text)


def apply_import(
    conn: sqlite3.Connection,
    dialect: Dialect,
    source: Path,
    *,
    db_path: Path,
    clock: Clock,
    continuity_file: Path,
    dry_run: bool,
    audit: Callable[[sqlite3.Connection, ImportReport], None] | None = None,
    trust_ceiling: Trust = Trust.AGENT,
) -> ImportReport:
    """Import ``source`` into the store behind ``conn``; see ``Store.import_from``.

    ``audit(conn, report)`` stages the import's audit entry inside its transaction (not
    called for a dry run).
    """
    if source == db_path:
        raise ImportFormatError(f"{source} is this store's own database; nothing to import")
    written: list[Path] = []
    try:
        with (
            staging_folder(db_path) as stage,
            write_transaction(conn, operation="import", path=db_path),
        ):
            try:
                plan = import_source(
                    conn,
                    dialect,
                    source,
                    stage_dir=stage,
                    clock=clock,
                    continuity_file=continuity_file,
                    dry_run=dry_run,
                    trust_ceiling=trust_ceiling,
                )
            except InvalidEpisodeError as exc:  # a key clash found by the insert itself
                raise ImportFormatError(f"{source}: {exc}") from None
            if dry_run:
                raise _DryRun(plan)
            set_meta(conn, [("last_write", format_timestamp(clock.now()))])
            if audit is not None:
                audit(conn, plan.report)
            if plan.continuity is not None:
                _write_continuity(continuity_file, plan.continuity)
                written.append(continuity_file)
            for scope, text in sorted(plan.restored.items()):
                target = continuity_file.with_name(db_path.stem + continuity_suffix(scope))
                if os.path.lexists(target):  # never over a text already here
                    continue
                _write_continuity(target, text)
                written.append(target)
    except _DryRun as done:
        return done.plan.report
    except BaseException:
        for target in written:
            with contextlib.suppress(OSError):
                target.unlink()
        raise
    return plan.report
