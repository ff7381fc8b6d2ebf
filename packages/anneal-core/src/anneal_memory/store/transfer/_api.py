"""The export and import half of ``Store``: JSON and markdown dumps, imports of every format."""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from anneal_memory._clock import Clock
from anneal_memory.errors import ImportFormatError
from anneal_memory.store import _episodes
from anneal_memory.store.sqlite._connection import read_guard, write_transaction
from anneal_memory.store.sqlite._schema import SCHEMA_VERSION
from anneal_memory.store.transfer._episodes import import_document, iter_export_chunks, parse_export
from anneal_memory.types import ImportReport, ImportResult

if TYPE_CHECKING:
    from anneal_memory.audit._intents import StagedEntry

__all__ = ["TransferMixin"]


class TransferMixin:
    """Export and import methods ``Store`` inherits (one transaction each)."""

    if TYPE_CHECKING:
        _lock: threading.RLock
        _path: Path
        _clock: Clock
        project_name: str

        def connection(self, operation: str) -> sqlite3.Connection: ...
        def stage_audit(
            self, conn: sqlite3.Connection, event: str, *, actor: str, data: Mapping[str, Any]
        ) -> StagedEntry | None: ...
        def flush_audit(self, committed: Sequence[StagedEntry | None] = ()) -> None: ...
        def _now(self) -> str: ...
        def load_continuity(self, scope: str = "") -> str | None: ...
        def sidecar(self, suffix: str) -> Path: ...

    def export_json(self, out: IO[str]) -> int:
        """Write every episode and tombstone as one JSON document; return the episode count."""
        with self._lock:
            conn = self.connection("export")
            with read_guard(conn, operation="export", path=self._path):
                conn.execute("BEGIN")
                try:
                    count = int(conn.execute("SELECT count(*) FROM episodes").fetchone()[0])
                    for chunk in iter_export_chunks(
                        conn, exported_at=self._now(), schema_version=SCHEMA_VERSION
                    ):
                        out.write(chunk)
                finally:
                    conn.execute("COMMIT")
        return count

    def import_json(self, document: str | Mapping[str, Any]) -> ImportResult:
        """Import an export (its text or parsed object) in one transaction.

        Raises:
            ImportFormatError: Not a valid export, or an id clash; nothing was written.
        """
        parsed = parse_export(document)
        with self._lock:
            conn = self.connection("import")
            try:
                result = self._import_locked(conn, parsed)
            except UnicodeError as exc:  # a lone surrogate SQLite cannot store; rolled back
                raise ImportFormatError(
                    f"import file holds text that is not valid Unicode ({exc}); nothing was written"
                ) from None
        return result

    def _import_locked(self, conn: sqlite3.Connection, document: object) -> ImportResult:
        with write_transaction(conn, operation="import", path=self._path):
            result = import_document(conn, document, clock=self._clock)
            _episodes.set_meta(conn, [("last_write", self._now())])
            self.stage_audit(
                conn,
                "import",
                actor="operator",
                data={"imported": result.imported, "tombstones_added": result.tombstones_added},
            )
        self.flush_audit()
        return result

    def export_markdown(self, out: IO[str]) -> int:
        """Write a readable dump (continuity, then episodes by day); return the episode count."""
        from anneal_memory.store.transfer._markdown import iter_markdown_chunks

        continuity = self.load_continuity()
        with self._lock:
            conn = self.connection("export")
            with read_guard(conn, operation="export", path=self._path):
                conn.execute("BEGIN")
                try:
                    count = int(conn.execute("SELECT count(*) FROM episodes").fetchone()[0])
                    for chunk in iter_markdown_chunks(
                        conn,
                        exported_at=self._now(),
                        project_name=self.project_name,
                        continuity=continuity,
                    ):
                        out.write(chunk)
                finally:
                    conn.execute("COMMIT")
        return count

    def import_from(self, path: str | os.PathLike[str], *, dry_run: bool = False) -> ImportReport:
        """Import a file, detecting its format, in one transaction (all or nothing).

        Reads our own export, the public anneal-memory 1.0.2 JSON export, a 1.0.2 database
        with the files beside it (opened read-only, never modified), and the MCP memory
        server's ``memory.json``. Records already here are skipped, so a second run imports
        nothing. ``dry_run`` does all the work, reports it and writes nothing.

        Raises:
            ImportFormatError: The file is not importable or clashes with this store; the
                message names the place. Nothing was written.
        """
        from anneal_memory.store.transfer._apply import apply_import

        with self._lock:
            report = apply_import(
                self.connection("import"),
                Path(path).expanduser().absolute(),
                db_path=self._path,
                clock=self._clock,
                continuity_file=self.sidecar(".continuity.md"),
                dry_run=dry_run,
                audit=self._stage_import,
            )
            if not dry_run:
                self.flush_audit()
        return report

    def _stage_import(self, conn: sqlite3.Connection, report: ImportReport) -> None:
        """Stage the ``import`` entry of ``import_from`` inside its transaction."""
        self.stage_audit(
            conn,
            "import",
            actor="operator",
            data={
                "format": report.format,
                "source_sha256": report.sha256,
                "counts": {c.kind: c.imported for c in report.counts},
                "not_carried": {c.kind: c.not_carried for c in report.counts},
            },
        )
