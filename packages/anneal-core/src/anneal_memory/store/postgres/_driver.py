"""psycopg 3 and its pool: imported on first use, errors turned into the library's tree.

Credentials come from the URL, the ``PG*`` environment variables or ``~/.pgpass`` (libpq's
own rules); no message of this package contains a password (see ``redact_url``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from anneal_memory.errors import StoreDatabaseError, StoreError
from anneal_memory.store._target import redact_url
from anneal_memory.store.postgres._notify import AuditNotifier, ended
from anneal_memory.store.postgres._readonly import READ_ONLY_HINT, READ_ONLY_STATE, make_read_only

if TYPE_CHECKING:
    import psycopg
    from psycopg_pool import ConnectionPool

__all__ = ["POSTGRES_EXTRA_HINT", "Pool", "database_error", "psycopg_module"]

POSTGRES_EXTRA_HINT = "install the PostgreSQL extra: pip install 'anneal-memory[postgres]'"
POOL_MAX = 8
CONNECT_TIMEOUT_S = 30.0
_RETRYABLE_STATES = frozenset({"40001", "40P01", "55P03", "57014", "08000", "08003", "08006"})


def _modules() -> tuple[Any, Any]:
    try:
        import psycopg
        import psycopg_pool
    except ModuleNotFoundError:
        raise StoreError(
            f"PostgreSQL stores need psycopg 3; {POSTGRES_EXTRA_HINT}", operation="open"
        ) from None
    return psycopg, psycopg_pool


def psycopg_module() -> Any:
    """The ``psycopg`` module (imported on first use).

    Raises:
        StoreError: psycopg is not installed.
    """
    return _modules()[0]


def database_error(exc: Exception, *, operation: str, url: str) -> StoreDatabaseError:
    """A ``StoreDatabaseError`` for a psycopg error (SQLSTATE kept, no credentials)."""
    state = getattr(exc, "sqlstate", None)
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return StoreDatabaseError(
        f"PostgreSQL failed during {operation} on {redact_url(url)}: "
        f"{first}{f' (SQLSTATE {state})' if state else ''}"
        f"{READ_ONLY_HINT if state == READ_ONLY_STATE else ''}",
        operation=operation,
        retryable=state in _RETRYABLE_STATES,
    )


class Pool:
    """A small connection pool over one URL; each ``transaction()`` is one commit.

    Args:
        url: The libpq connection URL.
        read_only: Every connection's transactions are read-only (PostgreSQL refuses writes).
    """

    def __init__(self, url: str, *, read_only: bool = False) -> None:
        psycopg, psycopg_pool = _modules()
        self.url = url
        self._psycopg = psycopg
        self.notifier: AuditNotifier | None = None
        try:
            probe = psycopg.connect(url, connect_timeout=int(CONNECT_TIMEOUT_S))
        except psycopg.Error as exc:
            raise database_error(exc, operation="open", url=url) from None
        probe.close()
        self._pool: ConnectionPool[Any] = psycopg_pool.ConnectionPool(
            url,
            min_size=1,
            max_size=POOL_MAX,
            timeout=CONNECT_TIMEOUT_S,
            kwargs={"autocommit": True},
            configure=make_read_only if read_only else None,
            open=True,
            name="anneal-memory",
        )

    @contextlib.contextmanager
    def read(self, operation: str) -> Iterator[psycopg.Connection[Any]]:
        """A connection for one read statement (autocommit: one snapshot, one round trip).

        Raises:
            StoreDatabaseError: PostgreSQL failed.
        """
        psycopg = self._psycopg
        try:
            with self._pool.connection() as conn:
                yield conn
        except psycopg.Error as exc:
            raise database_error(exc, operation=operation, url=self.url) from None
        except self._pool_error() as exc:
            raise database_error(exc, operation=operation, url=self.url) from None

    @contextlib.contextmanager
    def transaction(self, operation: str) -> Iterator[psycopg.Connection[Any]]:
        """A connection inside one transaction: committed on exit, rolled back on error.

        Raises:
            StoreDatabaseError: PostgreSQL failed; nothing was committed.
        """
        psycopg = self._psycopg
        try:
            with (
                self._pool.connection() as conn,
                ended(self.notifier, conn),
                conn.transaction(),
            ):
                yield conn
        except psycopg.Error as exc:
            raise database_error(exc, operation=operation, url=self.url) from None
        except self._pool_error() as exc:
            raise database_error(exc, operation=operation, url=self.url) from None

    def _pool_error(self) -> type[Exception]:
        from psycopg_pool import PoolTimeout

        return PoolTimeout

    def close(self) -> None:
        """Close every connection."""
        self._pool.close()
