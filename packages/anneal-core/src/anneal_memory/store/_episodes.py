"""Episode rows: insert, read, delete, prune, and row to ``Episode``.

Functions here run inside a transaction the caller opened; they never commit.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterable, Sequence

from anneal_memory.errors import IdempotencyConflictError, StoreDatabaseError
from anneal_memory.store._validate import EpisodeInput
from anneal_memory.store.sqlite._watermarks import FOLD_EVERY, after_episodes_deleted, fold_counts
from anneal_memory.types import Episode, EpisodeType, Trust

__all__ = [
    "COLUMNS",
    "delete_episode",
    "episode_from_row",
    "fetch_by_id",
    "fetch_by_seqs",
    "insert_episode",
    "prune_before",
    "set_meta",
    "tombstone_count",
]

COLUMNS = (
    "seq, id, ts, type, content, source, metadata, idempotency_key,"
    " trust, state_key, superseded_by, derived_from"
)
_ID_ATTEMPTS = 64


def episode_from_row(row: Sequence[object]) -> Episode:
    """Build an ``Episode`` from a row selected with :data:`COLUMNS`."""
    _seq, ident, ts, kind, content, source, metadata, key = row[:8]
    trust, state_key, superseded_by, derived_from = row[8:12]
    return Episode(
        id=str(ident),
        timestamp=str(ts),
        type=EpisodeType(str(kind)),
        content=str(content),
        source=str(source),
        metadata=json.loads(str(metadata)) if metadata else {},
        idempotency_key=None if key is None else str(key),
        trust=Trust(str(trust)),
        state_key=None if state_key is None else str(state_key),
        superseded_by=None if superseded_by is None else str(superseded_by),
        derived_from=tuple(json.loads(str(derived_from))) if derived_from else (),
    )


_INSERT = (
    "INSERT INTO episodes (id, ts, type, content, source, metadata, idempotency_key, scope)"
    " SELECT ?, ?, ?, ?, ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM tombstones WHERE id = ?)"
)


def _try_insert(conn: sqlite3.Connection, ident: str, item: EpisodeInput) -> bool:
    """Insert under ``ident``; False when a live or deleted episode already had that id."""
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
    try:
        cursor = conn.execute(_INSERT, values)
    except sqlite3.IntegrityError as exc:
        if "episodes.id" not in str(exc):
            raise
        return False
    if cursor.rowcount != 1:
        return False
    if (cursor.lastrowid or 0) % FOLD_EVERY == 0:
        fold_counts(conn)
    return True


def _insert_with_new_id(conn: sqlite3.Connection, item: EpisodeInput) -> str:
    # One statement per attempt: the UNIQUE index refuses a live id, the NOT EXISTS a deleted
    # one, so an id is never reused. A clash is rare (2^32 ids) and simply draws again.
    for _ in range(_ID_ATTEMPTS):
        ident = os.urandom(4).hex()
        if _try_insert(conn, ident, item):
            return ident
    raise StoreDatabaseError("could not draw a free episode id", operation="record")


def fetch_by_id(conn: sqlite3.Connection, ident: str) -> Episode | None:
    """Return the live episode with id ``ident``, or None."""
    row = conn.execute(f"SELECT {COLUMNS} FROM episodes WHERE id = ?", (ident,)).fetchone()  # noqa: S608
    return None if row is None else episode_from_row(row)


def fetch_by_seqs(conn: sqlite3.Connection, seqs: Sequence[int]) -> list[Episode]:
    """Return episodes for ``seqs`` in the same order (missing ones left out)."""
    if not seqs:
        return []
    marks = ",".join("?" * len(seqs))
    rows = conn.execute(f"SELECT {COLUMNS} FROM episodes WHERE seq IN ({marks})", tuple(seqs))  # noqa: S608
    by_seq = {int(row[0]): episode_from_row(row) for row in rows}
    return [by_seq[s] for s in seqs if s in by_seq]


def _by_idempotency_key(conn: sqlite3.Connection, key: str) -> Episode | None:
    row = conn.execute(
        f"SELECT {COLUMNS} FROM episodes WHERE idempotency_key = ?",  # noqa: S608
        (key,),
    ).fetchone()
    return None if row is None else episode_from_row(row)


def insert_episode(
    conn: sqlite3.Connection, item: EpisodeInput, *, ident: str | None = None
) -> Episode:
    """Insert ``item``; a repeated idempotency key returns the first episode instead.

    Raises:
        IdempotencyConflictError: The key was used before for different content or type.
    """
    if item.idempotency_key is not None:
        first = _by_idempotency_key(conn, item.idempotency_key)
        if first is not None:
            if first.content != item.content or first.type is not item.type:
                raise IdempotencyConflictError(
                    f"idempotency_key {item.idempotency_key!r} was already used for episode "
                    f"{first.id} with different content or type; use a new key for a new episode"
                )
            return first
    if ident is None:
        ident = _insert_with_new_id(conn, item)
    elif not _try_insert(conn, ident, item):
        raise StoreDatabaseError(f"episode id {ident} is already taken", operation="record")
    return Episode(
        id=ident,
        timestamp=item.timestamp,
        type=item.type,
        content=item.content,
        source=item.source,
        metadata=json.loads(item.metadata_json) if item.metadata_json else {},
        idempotency_key=item.idempotency_key,
    )


def set_meta(conn: sqlite3.Connection, items: Iterable[tuple[str, str]]) -> None:
    """Upsert key/value pairs into the ``meta`` table."""
    conn.executemany(
        "INSERT INTO meta(key, value) VALUES (?, ?)"
        " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        list(items),
    )


def delete_episode(conn: sqlite3.Connection, ident: str, *, now: str, reason: str) -> bool:
    """Delete one episode and leave a tombstone that keeps its id; False if absent."""
    cursor = conn.execute("DELETE FROM episodes WHERE id = ?", (ident,))
    if cursor.rowcount == 0:
        return False
    after_episodes_deleted(conn)
    conn.execute(
        "INSERT OR IGNORE INTO tombstones(id, deleted_at, reason) VALUES (?, ?, ?)",
        (ident, now, reason),
    )
    return True


def prune_before(conn: sqlite3.Connection, cutoff: str, *, now: str) -> int:
    """Delete every episode stamped before ``cutoff`` (tombstones kept); return the count."""
    conn.execute(
        "INSERT OR IGNORE INTO tombstones(id, deleted_at, reason)"
        " SELECT id, ?, 'prune' FROM episodes WHERE ts < ?",
        (now, cutoff),
    )
    cursor = conn.execute("DELETE FROM episodes WHERE ts < ?", (cutoff,))
    if cursor.rowcount:
        after_episodes_deleted(conn)
    return int(cursor.rowcount)


def tombstone_count(conn: sqlite3.Connection) -> int:
    """How many episode ids have been deleted."""
    return int(conn.execute("SELECT count(*) FROM tombstones").fetchone()[0])
