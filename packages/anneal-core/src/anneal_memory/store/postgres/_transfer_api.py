"""Export and import of a PostgreSQL store (a mixin of ``PgStore``).

The document is the SQLite store's: episodes with their provenance, tombstones, supersession
links, crystals and spores (``_transfer.py``); a store of either backend imports what the
other exported.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import IO, TYPE_CHECKING, Any

from anneal_memory.store.postgres._conn import Session, lock_writes
from anneal_memory.store.postgres._provenance import pool_view
from anneal_memory.store.postgres._rows import set_last_write
from anneal_memory.store.transfer._episodes import parse_export

if TYPE_CHECKING:
    import psycopg

    from anneal_memory._clock import Clock
    from anneal_memory.store.postgres._driver import Pool
    from anneal_memory.types import ImportResult

__all__ = ["PgTransferMixin"]


class PgTransferMixin:
    """``export_json`` and ``import_json`` on PostgreSQL, each one transaction."""

    if TYPE_CHECKING:
        _session: Session
        _clock: Clock

        def _open_pool(self, operation: str) -> Pool: ...
        def _now(self) -> str: ...
        def audited(
            self, conn: psycopg.Connection[Any], event: str, actor: str, data: Mapping[str, Any]
        ) -> None: ...

    def export_json(self, out: IO[str]) -> int:
        """Write the store as one JSON export document; return the episode count.

        One consistent snapshot (repeatable read); the SQLite store's format.
        """
        from anneal_memory.store.postgres._transfer import export_document

        with self._open_pool("export").transaction("export") as conn:
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            view = pool_view(conn, self._session, "export")
            return export_document(conn, out, exported_at=self._now(), view=view)

    def import_json(self, document: str | Mapping[str, Any]) -> ImportResult:
        """Import an export (see ``Store.import_json``) in one transaction with its audit entry.

        It takes the store's exclusive write lock: links, state keys, crystals and spores
        change rows other writers read.

        Raises:
            ImportFormatError: Not a valid export, or an id clash; nothing was written.
        """
        from anneal_memory.store.postgres._transfer import import_document

        parsed = parse_export(document)
        with self._open_pool("import").transaction("import") as conn:
            lock_writes(conn, self._session.key, shared=False)
            view = pool_view(conn, self._session, "import")
            result = import_document(conn, parsed, clock=self._clock, view=view)
            set_last_write(conn, self._now())
            data = {"imported": result.imported, "tombstones_added": result.tombstones_added}
            self.audited(conn, "import", "operator", data)
        return result
