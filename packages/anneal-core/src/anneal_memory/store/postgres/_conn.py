"""The rooms' ``SqlConnection`` over psycopg, the store's session and its advisory lock.

The modules above ``store/`` (wraps, the immune system, associations, the gate, crystals,
spores) write their SQL once with ``?`` placeholders and run it through ``execute`` /
``executemany``; rows come back as tuples, cursors iterate, ``fetchone`` / ``fetchall`` and
``rowcount`` behave as in ``sqlite3``. Between transactions the connection is in autocommit
mode, so a read outside one is a single statement, as on SQLite.

:func:`exclusive_transaction` (``store.writing()``): one PostgreSQL transaction that first
takes this store's transaction-level advisory lock in exclusive mode, so library-module writes
are serialised across processes and hosts the way SQLite's ``BEGIN IMMEDIATE`` serialises them
in one file. ``record`` and ``import`` take the same lock in shared mode (:func:`lock_writes`):
they run side by side, but never while a wrap reads or closes its seq range, so an episode can
never commit below a range already read.
"""

from __future__ import annotations

import contextlib
import hashlib
import threading
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from anneal_memory.errors import StoreClosedError
from anneal_memory.store.postgres._driver import CONNECT_TIMEOUT_S, database_error, psycopg_module
from anneal_memory.store.postgres._notify import AuditNotifier, ended
from anneal_memory.store.postgres._readonly import make_read_only
from anneal_memory.store.postgres._sql import arrange, translate

if TYPE_CHECKING:
    import psycopg

__all__ = [
    "LOCK_TIMEOUT_S",
    "PgConnection",
    "Session",
    "exclusive_transaction",
    "lock_key",
    "lock_writes",
]

LOCK_TIMEOUT_S = 30.0


def lock_key(conn: psycopg.Connection[Any]) -> int:
    """The advisory-lock key of the store ``conn`` opens: its database and schema, hashed."""
    row = conn.execute("SELECT current_database(), current_schema()").fetchone()
    name = f"anneal-memory writes {row[0] if row else ''}.{row[1] if row else ''}"
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big", signed=True)


def lock_writes(conn: psycopg.Connection[Any], key: int, *, shared: bool) -> None:
    """Take the store's advisory lock inside ``conn``'s transaction (released at its end).

    A transaction that waits longer than :data:`LOCK_TIMEOUT_S` for it (or, later, for a row
    lock) fails with a retryable ``StoreDatabaseError`` instead of waiting forever behind a
    stuck writer, as SQLite's busy timeout does.
    """
    # One round trip: the timeout is set (for this transaction) before the lock is asked for.
    function = "pg_advisory_xact_lock_shared" if shared else "pg_advisory_xact_lock"
    conn.execute(
        f"SELECT set_config('lock_timeout', %s, true), {function}(%s)",
        (f"{int(LOCK_TIMEOUT_S * 1000)}ms", key),
    )


class Session:
    """The store's one connection for the library modules (opened on first use).

    Args:
        url: The libpq connection URL.
        key: The store's advisory-lock key (:func:`lock_key`).
        read_only: The connection's transactions are read-only (PostgreSQL refuses writes).
    """

    def __init__(self, url: str, key: int, *, read_only: bool = False) -> None:
        self.url = url
        self.key = key
        self.read_only = read_only
        self.in_transaction = False
        self.notifier: AuditNotifier | None = None
        self._raw: psycopg.Connection[Any] | None = None
        self._guard = threading.Lock()
        self._closed = False

    def raw(self, operation: str) -> psycopg.Connection[Any]:
        """The psycopg connection, reconnected when the last one broke between transactions.

        Raises:
            StoreClosedError: The store was closed.
            StoreDatabaseError: PostgreSQL could not be reached.
        """
        with self._guard:
            if self._closed:
                raise StoreClosedError(f"cannot {operation}: the store is closed")
            raw = self._raw
            if raw is not None and (raw.closed or raw.broken) and not self.in_transaction:
                raw = self._raw = None
            if raw is None:
                psycopg = psycopg_module()
                try:
                    raw = psycopg.connect(
                        self.url, autocommit=True, connect_timeout=int(CONNECT_TIMEOUT_S)
                    )
                    if self.read_only:
                        make_read_only(raw)
                except psycopg.Error as exc:
                    raise database_error(exc, operation=operation, url=self.url) from None
                self._raw = raw
            return raw

    def close(self) -> None:
        """Close the connection. Safe to call twice."""
        with self._guard:
            self._closed = True
            if self._raw is not None:
                self._raw.close()
                self._raw = None


class PgConnection:
    """The rooms' ``SqlConnection`` (``store/_contract.py``) over one psycopg connection.

    Args:
        raw: The session's connection (:meth:`of_session`), or a pool connection inside a
            transaction its caller opened and commits.
        session: The store's session (its URL names errors; its lock key serialises writes).
        operation: What the statements are for, in error messages.
    """

    __slots__ = ("_operation", "_session", "raw")

    def __init__(self, raw: psycopg.Connection[Any], session: Session, operation: str) -> None:
        self._session = session
        self._operation = operation
        self.raw = raw

    @classmethod
    def of_session(cls, session: Session, operation: str) -> PgConnection:
        """A view of the session's own connection (reconnected if it broke).

        Raises:
            StoreClosedError: The store was closed.
            StoreDatabaseError: PostgreSQL could not be reached.
        """
        return cls(session.raw(operation), session, operation)

    def execute(self, sql: str, parameters: Sequence[Any] = ()) -> psycopg.Cursor[Any]:
        """Run one statement with ``?`` placeholders; the cursor holds its rows.

        Raises:
            StoreDatabaseError: PostgreSQL refused the statement.
        """
        psycopg = psycopg_module()
        query = translate(sql)
        try:
            return self.raw.execute(query.text, arrange(query, parameters))
        except psycopg.Error as exc:
            raise database_error(exc, operation=self._operation, url=self._session.url) from None

    def executemany(
        self, sql: str, seq_of_parameters: Iterable[Sequence[Any]]
    ) -> psycopg.Cursor[Any]:
        """Run one statement once per parameter row; ``rowcount`` is the total.

        Raises:
            StoreDatabaseError: PostgreSQL refused the statement.
        """
        psycopg = psycopg_module()
        query = translate(sql)
        rows = [arrange(query, p) for p in seq_of_parameters]
        cursor = self.raw.cursor()
        if not rows:
            return cursor
        try:
            cursor.executemany(query.text, rows)
        except psycopg.Error as exc:
            raise database_error(exc, operation=self._operation, url=self._session.url) from None
        return cursor


@contextlib.contextmanager
def exclusive_transaction(
    session: Session, raw: psycopg.Connection[Any], *, operation: str, durable: bool = True
) -> Iterator[None]:
    """One transaction on the session's connection ``raw`` under the exclusive advisory lock.

    Commits on success. ``durable=False`` commits without waiting for the WAL flush
    (``synchronous_commit`` off for this transaction only): atomic and visible, but a server
    crash right after may undo it, like SQLite's ``synchronous=NORMAL`` commit.

    Raises:
        StoreDatabaseError: PostgreSQL failed; nothing was committed.
    """
    psycopg = psycopg_module()
    try:
        with ended(session.notifier, raw), raw.transaction():
            lock_writes(raw, session.key, shared=False)
            if not durable:
                raw.execute("SET LOCAL synchronous_commit = off")
            session.in_transaction = True
            try:
                yield
            finally:
                session.in_transaction = False
    except psycopg.Error as exc:
        raise database_error(exc, operation=operation, url=session.url) from None
