"""Whole-store reads of a PostgreSQL store, each inside the caller's snapshot."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from anneal_memory.store.postgres._schema import PG_SCHEMA_VERSION
from anneal_memory.types import EpisodeType, StoreStatus

if TYPE_CHECKING:
    import psycopg

__all__ = ["status"]

_TOTALS = (
    "SELECT (SELECT count(*) FROM tombstones),"
    " greatest((SELECT value FROM meta WHERE key = 'last_write'),"
    " (SELECT max(ts) FROM episodes)),"
    " (SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class AS c"
    "  WHERE c.relnamespace = current_schema()::regnamespace"
    "  AND c.relkind IN ('r', 'm')),"
    " (SELECT count(*) FROM episodes AS e WHERE e.seq > coalesce((SELECT through_seq"
    "  FROM wraps AS w WHERE w.scope = e.scope AND w.status = 'completed'"
    "  ORDER BY w.id DESC LIMIT 1), 0))"
)


def status(conn: psycopg.Connection[Any], *, url: str) -> StoreStatus:
    """Counts by type, deletions, episodes since the last wrap, table sizes, the last write.

    ``path`` is ``url`` (without its password); ``wal_bytes`` is 0.
    """
    counts = {t.value: 0 for t in EpisodeType}
    counts.update(
        (str(k), int(n))
        for k, n in conn.execute("SELECT type, count(*) FROM episodes GROUP BY type")
    )
    row = conn.execute(_TOTALS).fetchone()
    deleted, last, size, waiting = row if row is not None else (0, None, 0, 0)
    return StoreStatus(
        path=url,
        total_episodes=sum(counts.values()),
        episodes_by_type=counts,
        deleted_episodes=int(deleted),
        episodes_since_wrap=int(waiting),
        db_bytes=int(size or 0),
        wal_bytes=0,
        last_write=None if last is None else str(last),
        schema_version=PG_SCHEMA_VERSION,
    )
