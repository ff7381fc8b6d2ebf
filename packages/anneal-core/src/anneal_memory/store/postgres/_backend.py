"""``PostgresBackend``: the ``store/_contract.Backend`` of a PostgreSQL database.

Every write is one transaction holding the change and its audit entries (the chain tip row
is locked in it), so concurrent writers on any host lose nothing and the chain never forks;
``on_audit_event`` is called after the commit. Exclusive writes (``store.writing()``) run on
the store's session under its advisory lock; shared ones (record, delete, prune) on a pool
connection under the same lock in shared mode, side by side. ``Store`` validates before it
calls anything here; psycopg is imported only when this backend opens.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Mapping, Sequence
from typing import IO, TYPE_CHECKING, Any

from anneal_memory._clock import Clock, format_timestamp
from anneal_memory.errors import StoreClosedError
from anneal_memory.store._policy import POLICY_KEY
from anneal_memory.store._target import redact_url
from anneal_memory.store._unit import Reader, Stage, Tx
from anneal_memory.store.postgres import _audit, _reads
from anneal_memory.store.postgres._conn import (
    PgConnection,
    Session,
    exclusive_transaction,
    lock_key,
    lock_writes,
)
from anneal_memory.store.postgres._continuity import RowPlace
from anneal_memory.store.postgres._dialect import PgDialect
from anneal_memory.store.postgres._driver import Pool
from anneal_memory.store.postgres._notify import AuditNotifier
from anneal_memory.store.postgres._readonly import check_schema
from anneal_memory.store.postgres._recall import PgRanker
from anneal_memory.store.postgres._schema import PG_SCHEMA_VERSION, ensure_schema

if TYPE_CHECKING:
    import psycopg

    from anneal_memory.audit._search import TrailPage
    from anneal_memory.audit._trail import EventCallback
    from anneal_memory.audit._verify import AuditVerifyResult
    from anneal_memory.types import StoreStatus

__all__ = ["PostgresBackend"]

_SNAPSHOT = "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY"


class PostgresBackend:
    """A store's tables in a PostgreSQL database (``Store("postgresql://...")`` holds one).

    Args:
        url: The connection URL; credentials may come from ``PG*`` variables or ``.pgpass``.
        clock: Where time comes from.
        audit: Keep the hash-chained audit trail (rows of the database, same transaction).
        on_audit_event: Called with each entry after its transaction commits.
        gate_on_create: Turn the gate on when this open creates the tables.
        read_only: Open existing tables without creating or migrating them; every
            transaction is read-only.

    Raises:
        StoreError: psycopg is not installed.
        StoreDatabaseError: The database could not be reached or its tables created.
    """

    def __init__(
        self,
        url: str,
        *,
        clock: Clock,
        audit: bool,
        on_audit_event: EventCallback | None,
        gate_on_create: bool,
        read_only: bool,
    ) -> None:
        self._url = url
        self._clock = clock
        self._lock = threading.RLock()
        self._audit_on = audit
        self._read_only = read_only
        self._notifier = None if on_audit_event is None else AuditNotifier(on_audit_event)
        self._pool: Pool | None = None
        key = self._open_tables(gate_on_create=gate_on_create)
        self._session = Session(url, key, read_only=read_only)
        self._session.notifier = self._notifier

    def _open_tables(self, *, gate_on_create: bool) -> int:
        """Open the pool, create or upgrade the tables (check them when read-only); the lock key."""
        pool = self._pool = Pool(self._url, read_only=self._read_only)
        pool.notifier = self._notifier
        try:
            with pool.transaction("open") as conn:
                if self._read_only:
                    found = check_schema(conn, url=self._url)
                else:
                    found = ensure_schema(conn, url=self._url)
                    self._on_opened(conn, found, gate_on_create=gate_on_create)
                key = lock_key(conn)
        except BaseException:
            pool.close()
            self._pool = None
            raise
        self._created = found == 0
        return key

    def _on_opened(
        self, conn: psycopg.Connection[Any], found: int, *, gate_on_create: bool
    ) -> None:
        """Inside the schema's transaction: the upgrade's audit entry and a new store's policy."""
        if 0 < found < PG_SCHEMA_VERSION:
            data = {"from_version": found, "to_version": PG_SCHEMA_VERSION}
            self._append(conn, "schema_migrated", "agent", data)
        elif found == 0 and gate_on_create:
            conn.execute(
                "INSERT INTO meta (key, value) VALUES (%s, '1')"
                " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (POLICY_KEY,),
            )
            data = {"requires_baton": True, "was": False}
            self._append(conn, "consolidate_policy_set", "agent", data)

    # -- what the facade asks ----------------------------------------------------------------

    @property
    def lock(self) -> threading.RLock:
        """Serialises this process's threads around the session connection."""
        return self._lock

    @property
    def url(self) -> str:
        """The connection URL without its password."""
        return redact_url(self._url)

    @property
    def location(self) -> str:
        """What ``--db`` names: the URL without its password."""
        return self.url

    @property
    def created(self) -> bool:
        """True when this open created the tables."""
        return self._created

    @property
    def local(self) -> None:
        """None: no files beside a database server."""
        return None

    def _open_pool(self, operation: str) -> Pool:
        if self._pool is None:
            raise StoreClosedError(
                f"cannot {operation}: the store {self.url} is closed", operation=operation
            )
        return self._pool

    def _session_conn(self, operation: str) -> PgConnection:
        """The session's connection view (callers hold :attr:`lock`).

        Raises:
            StoreClosedError: The store was closed.
            StoreDatabaseError: PostgreSQL could not be reached.
        """
        self._open_pool(operation)
        return PgConnection.of_session(self._session, operation)

    def _tx(self, conn: PgConnection, operation: str) -> Tx:
        return Tx(conn, PgDialect(conn), operation, self._stage_on(conn.raw))

    @contextlib.contextmanager
    def writing(
        self, operation: str, *, durable: bool = True, shared: bool = False
    ) -> Iterator[Tx]:
        """One transaction under the store's advisory lock (shared: on a pool connection).

        ``durable=False`` commits without waiting for the WAL flush even when ``tx.audit``
        staged entries: they are rows of the same transaction, lost or kept with the change.

        Raises:
            StoreClosedError: The store was closed.
            StoreDatabaseError: PostgreSQL failed; nothing was committed.
        """
        if shared:
            with self._open_pool(operation).transaction(operation) as raw:
                lock_writes(raw, self._session.key, shared=True)
                yield self._tx(PgConnection(raw, self._session, operation), operation)
            return
        with self._lock:
            conn = self._session_conn(operation)
            with exclusive_transaction(
                self._session, conn.raw, operation=operation, durable=durable
            ):
                yield self._tx(conn, operation)

    @contextlib.contextmanager
    def reading(self, operation: str) -> Iterator[Reader]:
        """Reads on the session's connection under the lock (autocommit: one per statement)."""
        with self._lock:
            conn = self._session_conn(operation)
            yield Reader(conn, PgDialect(conn), operation)

    @contextlib.contextmanager
    def recalling(self, operation: str) -> Iterator[tuple[Reader, PgRanker]]:
        """A pool connection in one repeatable-read, read-only snapshot, and its ranker."""
        with self._open_pool(operation).transaction(operation) as raw:
            raw.execute(_SNAPSHOT)
            conn = PgConnection(raw, self._session, operation)
            yield Reader(conn, PgDialect(conn), operation), PgRanker(raw)

    def after_erase(self) -> None:
        """Nothing: PostgreSQL keeps no log of deleted text that a checkpoint would drop."""

    def status(self) -> StoreStatus:
        """Counts by type, deletions, episodes since the last wrap, table sizes, last write."""
        with self._open_pool("status").transaction("status") as raw:
            raw.execute(_SNAPSHOT)
            return _reads.status(raw, url=self.url)

    def export_json(self, out: IO[str], *, exported_at: str) -> int:
        """The export document from one consistent snapshot (the SQLite store's format)."""
        from anneal_memory.store.postgres._transfer import export_document

        with self._open_pool("export").transaction("export") as raw:
            raw.execute(_SNAPSHOT)
            view = PgConnection(raw, self._session, "export")
            return export_document(raw, out, exported_at=exported_at, view=view)

    def continuity_place(self, scope: str) -> RowPlace:
        """``scope``'s row of the ``continuity`` table."""
        row = f", scope {scope!r}" if scope else ""
        return RowPlace(label=f"{self.url} (table continuity{row})", scope=scope)

    def load_continuity(self, scope: str) -> str | None:
        """The continuity text the last wrap of ``scope`` saved, or None before."""
        with self.reading("load continuity") as reader:
            return self.continuity_place(scope).read(reader.conn)

    # -- the audit chain ---------------------------------------------------------------------

    def _append(
        self, conn: psycopg.Connection[Any], event: str, actor: str, data: Mapping[str, Any]
    ) -> None:
        if not self._audit_on:
            return
        now = format_timestamp(self._clock.now())
        entry = _audit.append_entry(conn, event, actor=actor, data=data, ts=now)
        if self._notifier is not None:
            self._notifier.add(conn, entry)

    def _stage_on(self, raw: psycopg.Connection[Any]) -> Stage:
        def stage(conn: object, event: str, *, actor: str, data: Mapping[str, Any]) -> None:
            del conn  # the view of ``raw``
            self._append(raw, event, actor, data)

        return stage

    def verify_audit(self) -> AuditVerifyResult:
        """Verify the database-held chain (one consistent snapshot)."""
        with self._open_pool("verify").transaction("verify") as raw:
            raw.execute(_SNAPSHOT)
            return _audit.verify_chain(raw)

    def read_audit(
        self, *, since: str | None, event: str | None, limit: int | None
    ) -> list[dict[str, Any]]:
        """The newest ``limit`` entries matching the filters, oldest first."""
        with self._open_pool("read audit").read("read audit") as raw:
            return _audit.read_entries(raw, since=since, event=event, limit=limit)

    def audit_page(
        self,
        *,
        limit: int,
        offset: int,
        event: str | None,
        needles: Sequence[bytes],
        since: str | None,
    ) -> TrailPage:
        """Entries newest first from one snapshot (``since`` skips nothing: one table)."""
        del since
        with self._open_pool("audit page").transaction("audit page") as raw:
            raw.execute(_SNAPSHOT)
            return _audit.page_entries(
                raw, limit=limit, offset=offset, event=event, needles=needles
            )

    def export_audit(self, out: IO[str]) -> int:
        """Write the chain as JSONL (the lines a SQLite store's trail holds)."""
        with self._open_pool("export audit").transaction("export audit") as raw:
            raw.execute(_SNAPSHOT)
            return _audit.export_lines(raw, out)

    def close(self) -> None:
        """Close the session and the pool. Safe to call twice."""
        with self._lock:
            if self._pool is not None:
                self._session.close()
                self._pool.close()
                self._pool = None
