"""Planner statistics after a bulk write, so recall's plans know the new rows at once.

Right after a large import the table has no statistics and the GIN indexes hold the new
entries in their pending lists (scanned linearly by every search): the planner then reads
every row instead of the index until autovacuum catches up, a minute or more later. An import
of :data:`BULK_ROWS` rows or more refreshes both in its own transaction.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import psycopg

__all__ = ["BULK_ROWS", "refresh_after_bulk_write"]

BULK_ROWS = 1000
_INDEXES = ("episodes_tsv", "episodes_content_trgm")


def refresh_after_bulk_write(conn: psycopg.Connection[Any], rows: int) -> None:
    """Analyze ``episodes`` and merge its GIN pending lists when ``rows`` is a bulk write."""
    if rows < BULK_ROWS:
        return
    import psycopg

    conn.execute("ANALYZE episodes")
    for index in _INDEXES:
        try:
            with conn.transaction():
                conn.execute(
                    "SELECT gin_clean_pending_list(to_regclass(%s))"
                    " WHERE to_regclass(%s) IS NOT NULL",
                    (index, index),
                )
        except psycopg.Error:
            continue
