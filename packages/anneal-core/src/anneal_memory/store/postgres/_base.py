"""The plumbing of ``PgStore``: its pool, the library modules' connection, audit and continuity.

The modules above ``store/`` (wraps, the immune system, associations, the gate, crystals,
spores) call ``connection``, ``stage_audit``, ``emit_audit``, ``flush_audit`` and
``continuity_place`` on any store; this class gives them the PostgreSQL meaning of each, so
their logic exists once (see ``_conn.py``).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from anneal_memory.errors import InvalidInputError, StoreClosedError
from anneal_memory.store._store import Store
from anneal_memory.store._target import redact_url
from anneal_memory.store._validate import validate_scope
from anneal_memory.store.postgres import _audit
from anneal_memory.store.postgres._conn import PgConnection, Session
from anneal_memory.store.postgres._continuity import RowPlace
from anneal_memory.store.postgres._driver import Pool
from anneal_memory.store.postgres._notify import AuditNotifier

if TYPE_CHECKING:
    import psycopg

    from anneal_memory.audit._intents import StagedEntry

__all__ = ["PgStoreBase"]


class PgStoreBase(Store):
    """What ``PgStore`` shares with the library modules (not constructed on its own)."""

    _url: str
    _pool: Pool | None
    _session: Session
    _audit_on: bool
    _notifier: AuditNotifier | None

    @property
    def url(self) -> str:
        """The connection URL without its password."""
        return redact_url(self._url)

    def _open_pool(self, operation: str) -> Pool:
        if self._pool is None:
            raise StoreClosedError(
                f"cannot {operation}: the store {self.url} is closed", operation=operation
            )
        return self._pool

    def close(self) -> None:
        """Close the connection pool. Safe to call twice."""
        with self._lock:
            if self._pool is not None:
                self._session.close()
                self._pool.close()
                self._pool = None

    @property
    def audit_after_commit(self) -> bool:
        """False: audit entries are rows of their change's own transaction, no trail file."""
        return False

    def emit_audit(self, event: str, *, actor: str, data: Mapping[str, Any]) -> None:
        """Append one audit entry in a transaction of its own (library modules call this).

        Called inside a write transaction this thread holds, it joins that one instead.
        """
        if not self._audit_on:
            return
        if self._session.owner == threading.get_ident():
            self._append(self._session.raw("audit"), event, actor, data)
            return
        with self._open_pool("audit").transaction("audit") as conn:
            self._append(conn, event, actor, data)

    def stage_audit(
        self, conn: sqlite3.Connection, event: str, *, actor: str, data: Mapping[str, Any]
    ) -> StagedEntry | None:
        """Append one audit entry inside ``conn``'s open write transaction (commits with it).

        Raises:
            InvalidInputError: ``event`` is outside the audit vocabulary.
        """
        if self._audit_on:
            self._append(cast("PgConnection", conn).raw, event, actor, data)
        return None

    def flush_audit(self, committed: Sequence[StagedEntry | None] = ()) -> None:
        """Nothing to flush: entries are rows written in their change's transaction."""
        del committed

    def pool(self, operation: str) -> Pool:
        """The connection pool, for this backend's own modules (not a public API).

        Raises:
            StoreClosedError: The store was closed.
        """
        return self._open_pool(operation)

    def audited(
        self, conn: psycopg.Connection[Any], event: str, actor: str, data: Mapping[str, Any]
    ) -> None:
        """Append an audit entry inside ``conn``'s transaction (this backend's modules)."""
        if self._audit_on:
            self._append(conn, event, actor, data)

    def _append(
        self, conn: psycopg.Connection[Any], event: str, actor: str, data: Mapping[str, Any]
    ) -> None:
        entry = _audit.append_entry(conn, event, actor=actor, data=data, ts=self._now())
        if self._notifier is not None:
            self._notifier.add(conn, entry)

    def connection(self, operation: str) -> sqlite3.Connection:
        """The library modules' connection (``_conn.PgConnection``), not a public API.

        It speaks the part of ``sqlite3.Connection`` they use; ``write_transaction`` on it is
        one transaction under this store's exclusive advisory lock.

        Raises:
            StoreClosedError: The store was closed.
            StoreDatabaseError: PostgreSQL could not be reached.
        """
        self._open_pool(operation)
        return cast("sqlite3.Connection", PgConnection(self._session, operation))

    def continuity_place(self, scope: str = "") -> RowPlace:
        """Where wraps keep ``scope``'s continuity text: its row of the ``continuity`` table.

        For the library's own modules (not a public API); read it with :meth:`load_continuity`.
        Raises ``InvalidInputError`` when ``scope`` is not up to 64 printable characters.
        """
        checked = validate_scope(scope, error=InvalidInputError)
        row = f", scope {checked!r}" if checked else ""
        return RowPlace(label=f"{self.url} (table continuity{row})", scope=checked)

    def load_continuity(self, scope: str = "") -> str | None:
        """The continuity text the last wrap of ``scope`` saved (a row), or None before.

        Raises ``InvalidInputError`` when ``scope`` is not up to 64 printable characters.
        """
        place = self.continuity_place(scope)
        with self._lock:
            return place.read(self.connection("load continuity"))
