"""Recall's GIN indexes: the trigram index of the substring stage, and their pending lists.

Each GIN index takes new entries into a pending list that every search reads in full until a
cleanup merges it; PostgreSQL's default limit (4 MiB, about 2,000 records here) made recall
after a burst of records 3 times slower than after a cleanup. Both indexes are set to
:data:`PENDING_LIST_KB` (recall p50 on a mixed load 9.1 -> 2.6 ms, record p50 +2 %, record
p99 4 -> 13 ms from the more frequent, smaller merges; measured at 10,000 episodes).

The extension is created once per database (in ``public`` when that schema exists and may be
written, else in the store's schema); each store schema then gets a GIN trigram index on its
episodes' content. A server without the extension, or a role that may not create it, keeps
working: the substring stage then scans the newest episodes only (see ``_substring``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from anneal_memory.store.postgres._substring import TRIGRAM_INDEX

if TYPE_CHECKING:
    import psycopg

__all__ = ["PENDING_LIST_KB", "ensure_trigram_index", "limit_pending_lists"]

PENDING_LIST_KB = 256
_GIN_INDEXES = ("episodes_tsv", TRIGRAM_INDEX)


def _extension_schema(conn: psycopg.Connection[Any]) -> str | None:
    row = conn.execute(
        "SELECT extnamespace::regnamespace::text FROM pg_extension WHERE extname = 'pg_trgm'"
    ).fetchone()
    return None if row is None else str(row[0]).strip('"')


def _create_extension(conn: psycopg.Connection[Any]) -> None:
    import psycopg

    for place in ("SCHEMA public", ""):
        try:
            with conn.transaction():
                conn.execute(f"CREATE EXTENSION IF NOT EXISTS pg_trgm {place}")
        except psycopg.Error:
            continue
        return


def ensure_trigram_index(conn: psycopg.Connection[Any]) -> bool:
    """Create the extension (if allowed) and the index (if missing); True when it exists.

    Runs inside the caller's transaction, under the schema lock.
    """
    import psycopg
    from psycopg import sql

    where = _extension_schema(conn)
    if where is None:
        _create_extension(conn)
        where = _extension_schema(conn)
    if where is None:
        return False
    statement = sql.SQL(
        "CREATE INDEX IF NOT EXISTS {} ON episodes USING GIN (content {}.gin_trgm_ops)"
    ).format(sql.Identifier(TRIGRAM_INDEX), sql.Identifier(where))
    try:
        with conn.transaction():
            conn.execute(statement)
    except psycopg.Error:
        return False
    return True


def limit_pending_lists(conn: psycopg.Connection[Any]) -> None:
    """Set both GIN indexes' pending-list limit, once (a set index is left untouched)."""
    from psycopg import sql

    wanted = f"gin_pending_list_limit={PENDING_LIST_KB}"
    for index in _GIN_INDEXES:
        row = conn.execute(
            "SELECT coalesce(%s = ANY(reloptions), false) FROM pg_class"
            " WHERE oid = to_regclass(%s)",
            (wanted, index),
        ).fetchone()
        if row is None or row[0]:
            continue
        conn.execute(
            sql.SQL("ALTER INDEX {} SET (gin_pending_list_limit = {})").format(
                sql.Identifier(index), sql.Literal(PENDING_LIST_KB)
            )
        )
