"""Episode row lookups shared by the PostgreSQL writers (record and import)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from anneal_memory.errors import IdempotencyConflictError
from anneal_memory.store._episodes import COLUMNS, episode_from_row
from anneal_memory.store._validate import EpisodeInput
from anneal_memory.types import Episode

if TYPE_CHECKING:
    import psycopg

__all__ = ["same_key"]


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
