"""Episode rows on PostgreSQL: inserts under fresh ids, idempotency keys, the last write."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

from anneal_memory.errors import IdempotencyConflictError, StoreDatabaseError
from anneal_memory.store._episodes import COLUMNS, episode_from_row
from anneal_memory.store._validate import EpisodeInput
from anneal_memory.types import Episode

if TYPE_CHECKING:
    import psycopg

__all__ = ["insert_episode", "same_key", "set_last_write"]

_ID_ATTEMPTS = 64
_INSERT = (
    "INSERT INTO episodes (id, ts, type, content, source, metadata, idempotency_key, scope)"
    " SELECT %s, %s, %s, %s, %s, %s, %s, %s"
    " WHERE NOT EXISTS (SELECT 1 FROM tombstones WHERE id = %s)"
    " ON CONFLICT DO NOTHING"
)


def _by_key(conn: psycopg.Connection[Any], key: str) -> Episode | None:
    row = conn.execute(
        f"SELECT {COLUMNS} FROM episodes WHERE idempotency_key = %s",  # noqa: S608
        (key,),
    ).fetchone()
    return None if row is None else episode_from_row(row)


def same_key(conn: psycopg.Connection[Any], item: EpisodeInput) -> Episode | None:
    """The episode already recorded under ``item``'s idempotency key, or None.

    Raises:
        IdempotencyConflictError: The key names an episode with other content or type.
    """
    if item.idempotency_key is None:
        return None
    first = _by_key(conn, item.idempotency_key)
    if first is not None and (first.content != item.content or first.type is not item.type):
        raise IdempotencyConflictError(
            f"idempotency_key {item.idempotency_key!r} was already used for episode "
            f"{first.id} with different content or type; use a new key for a new episode"
        )
    return first


def set_last_write(conn: psycopg.Connection[Any], now: str) -> None:
    """Stamp the store's last write (deletes, prunes and imports; records carry their own)."""
    conn.execute(
        "INSERT INTO meta (key, value) VALUES ('last_write', %s)"
        " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (now,),
    )


def insert_episode(conn: psycopg.Connection[Any], item: EpisodeInput) -> tuple[Episode, bool]:
    """Insert under a fresh id (never a live or deleted one); (episode, True when new)."""
    first = same_key(conn, item)
    if first is not None:
        return first, False
    for _ in range(_ID_ATTEMPTS):
        ident = os.urandom(4).hex()
        values = (
            ident,
            item.timestamp,
            item.type.value,
            item.content,
            item.source,
            item.metadata_json,
            item.idempotency_key,
            item.scope,
            ident,
        )
        if conn.execute(_INSERT, values).rowcount == 1:
            episode = Episode(
                id=ident,
                timestamp=item.timestamp,
                type=item.type,
                content=item.content,
                source=item.source,
                metadata=json.loads(item.metadata_json) if item.metadata_json else {},
                idempotency_key=item.idempotency_key,
            )
            return episode, True
        first = same_key(conn, item)  # a concurrent writer may have used the key meanwhile
        if first is not None:
            return first, False
    raise StoreDatabaseError("could not draw a free episode id", operation="record")
