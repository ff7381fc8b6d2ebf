"""``Store(url, read_only=True)``: open without creating or migrating, every write refused.

Each connection of a read-only store runs with ``default_transaction_read_only`` on, so
PostgreSQL itself refuses any write (SQLSTATE 25006), which ``database_error`` reports as
SQLite reports a write to a read-only store.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from anneal_memory.errors import StoreDatabaseError, StoreVersionError
from anneal_memory.store._target import redact_url

if TYPE_CHECKING:
    import psycopg

__all__ = ["READ_ONLY_HINT", "READ_ONLY_STATE", "check_schema", "make_read_only"]

READ_ONLY_STATE = "25006"
"""PostgreSQL's SQLSTATE for a write inside a read-only transaction."""
READ_ONLY_HINT = " (the store was opened read-only)"


def make_read_only(conn: psycopg.Connection[Any]) -> None:
    """Make every later transaction of ``conn`` read-only (an autocommit connection)."""
    conn.execute("SET default_transaction_read_only = on")


def check_schema(conn: psycopg.Connection[Any], *, url: str) -> int:
    """The schema version of the store ``conn`` opens, which a read-only open can serve.

    Raises:
        StoreDatabaseError: No store's tables there (a read-only open never creates one), or
            tables of another schema version (a read-only open never migrates).
    """
    from anneal_memory.store.postgres._schema import PG_SCHEMA_VERSION, found_version

    found = found_version(conn)
    if found == 0:
        raise StoreDatabaseError(
            f"database not found: {redact_url(url)} has no anneal-memory tables "
            "(a read-only open never creates a store)",
            operation="open",
        )
    if found > PG_SCHEMA_VERSION:
        raise StoreVersionError(redact_url(url), found=found, supported=PG_SCHEMA_VERSION)
    if found != PG_SCHEMA_VERSION:
        raise StoreDatabaseError(
            f"{redact_url(url)} has PostgreSQL schema version {found}, this anneal-memory's is "
            f"{PG_SCHEMA_VERSION}; a read-only open does not migrate (open it once without "
            "read_only)",
            operation="open",
        )
    return found
