"""The trigram index of recall's substring stage: ``pg_trgm`` when the server has it.

The extension is created once per database (in ``public`` when that schema exists and may be
written, else in the store's schema); each store schema then gets a GIN trigram index on its
episodes' content. A server without the extension, or a role that may not create it, keeps
working: the substring stage then scans the newest episodes only (see ``_substring``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from anneal_memory.store._pg._substring import TRIGRAM_INDEX

if TYPE_CHECKING:
    import psycopg

__all__ = ["ensure_trigram_index"]


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
