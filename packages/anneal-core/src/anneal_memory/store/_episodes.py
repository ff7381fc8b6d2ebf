"""Episode rows on either backend: insert, read, delete, and row to ``Episode``.

Functions here run inside a transaction the caller opened; they never commit.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Iterable, Sequence
from typing import Literal

from anneal_memory.errors import IdempotencyConflictError, StoreDatabaseError
from anneal_memory.store._contract import Dialect, SqlConnection
from anneal_memory.store._params import in_chunks
from anneal_memory.store._validate import EpisodeInput
from anneal_memory.types import Episode, EpisodeType, Trust

__all__ = [
    "COLUMNS",
    "delete_episode",
    "episode_column",
    "episode_from_row",
    "fetch_by_id",
    "fetch_by_seqs",
    "insert_episode",
    "same_key",
    "scope_of",
    "set_meta",
    "tombstone_count",
]

COLUMNS = (
    "seq, id, ts, type, content, source, metadata, idempotency_key,"
    " trust, state_key, superseded_by, derived_from"
)
_ID_ATTEMPTS = 64


# Enum members by value: a dict lookup per row instead of an Enum call (recall builds a page
# of episodes per question, a wrap its whole snapshot).
_TYPES = {member.value: member for member in EpisodeType}
_TRUSTS = {member.value: member for member in Trust}

# ``Episode`` is a frozen dataclass: its ``__init__`` sets each of its 11 fields through
# ``object.__setattr__`` (2.5 us a row here). A row of ours carries every field, so the
# fields are set through their slots directly (1.4 us; recall builds 10 per question, #25).
# The names are checked against the class once, here: a new field fails at import.
_FIELDS = (
    "id", "timestamp", "type", "content", "source", "metadata", "idempotency_key",
    "trust", "state_key", "superseded_by", "derived_from",
)  # fmt: skip
if tuple(f.name for f in dataclasses.fields(Episode)) != _FIELDS:  # pragma: no cover
    raise ImportError("Episode's fields changed: update store/_episodes._FIELDS")
(
    _set_id, _set_timestamp, _set_type, _set_content, _set_source, _set_metadata,
    _set_key, _set_trust, _set_state_key, _set_superseded_by, _set_derived_from,
) = (getattr(Episode, name).__set__ for name in _FIELDS)  # fmt: skip
_blank = object.__new__


def episode_from_row(row: Sequence[object]) -> Episode:
    """Build an ``Episode`` from a row selected with :data:`COLUMNS`."""
    _seq, ident, ts, kind, content, source, metadata, key = row[:8]
    trust, state_key, superseded_by, derived_from = row[8:12]
    episode: Episode = _blank(Episode)
    _set_id(episode, str(ident))
    _set_timestamp(episode, str(ts))
    _set_type(episode, _TYPES.get(str(kind)) or EpisodeType(str(kind)))
    _set_content(episode, str(content))
    _set_source(episode, str(source))
    _set_metadata(episode, json.loads(str(metadata)) if metadata else {})
    _set_key(episode, None if key is None else str(key))
    _set_trust(episode, _TRUSTS.get(str(trust)) or Trust(str(trust)))
    _set_state_key(episode, None if state_key is None else str(state_key))
    _set_superseded_by(episode, None if superseded_by is None else str(superseded_by))
    _set_derived_from(episode, tuple(json.loads(str(derived_from))) if derived_from else ())
    return episode


def _values(ident: str, item: EpisodeInput) -> tuple[object, ...]:
    return (
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


def fetch_by_id(conn: SqlConnection, ident: str) -> Episode | None:
    """Return the live episode with id ``ident``, or None."""
    row = conn.execute(f"SELECT {COLUMNS} FROM episodes WHERE id = ?", (ident,)).fetchone()  # noqa: S608
    return None if row is None else episode_from_row(row)


def scope_of(conn: SqlConnection, ident: str) -> str | None:
    """The scope of the live episode ``ident``, or None when there is none."""
    row = conn.execute("SELECT scope FROM episodes WHERE id = ?", (ident,)).fetchone()
    return None if row is None else str(row[0])


EpisodeColumn = Literal["content", "ts", "scope", "trust", "type"]


def episode_column(
    conn: SqlConnection, column: EpisodeColumn, ids: Iterable[str]
) -> dict[str, str]:
    """``column`` of each live episode of ``ids`` (id -> value; absent ones left out)."""
    found: dict[str, str] = {}
    for chunk, marks in in_chunks(sorted(set(ids)), 500):
        rows = conn.execute(
            f"SELECT id, {column} FROM episodes WHERE id IN ({marks})",  # noqa: S608 - a Literal
            tuple(chunk),
        )
        found.update((str(i), str(v)) for i, v in rows)
    return found


def fetch_by_seqs(conn: SqlConnection, seqs: Sequence[int]) -> list[Episode]:
    """Return episodes for ``seqs`` in the same order (missing ones left out)."""
    if not seqs:
        return []
    marks = ",".join("?" * len(seqs))
    rows = conn.execute(f"SELECT {COLUMNS} FROM episodes WHERE seq IN ({marks})", tuple(seqs))  # noqa: S608
    by_seq = {int(row[0]): episode_from_row(row) for row in rows}
    return [by_seq[s] for s in seqs if s in by_seq]


def same_key(conn: SqlConnection, item: EpisodeInput) -> Episode | None:
    """The episode already recorded under ``item``'s idempotency key, or None.

    Raises:
        IdempotencyConflictError: The key names an episode with other content or type.
    """
    if item.idempotency_key is None:
        return None
    row = conn.execute(
        f"SELECT {COLUMNS} FROM episodes WHERE idempotency_key = ?",  # noqa: S608
        (item.idempotency_key,),
    ).fetchone()
    first = None if row is None else episode_from_row(row)
    if first is not None and (first.content != item.content or first.type is not item.type):
        raise IdempotencyConflictError(
            f"idempotency_key {item.idempotency_key!r} was already used for episode "
            f"{first.id} with different content or type; use a new key for a new episode"
        )
    return first


def _new(ident: str, item: EpisodeInput) -> Episode:
    return Episode(
        id=ident,
        timestamp=item.timestamp,
        type=item.type,
        content=item.content,
        source=item.source,
        metadata=json.loads(item.metadata_json) if item.metadata_json else {},
        idempotency_key=item.idempotency_key,
    )


def insert_episode(
    conn: SqlConnection, dialect: Dialect, item: EpisodeInput, *, ident: str | None = None
) -> tuple[Episode, bool]:
    """Insert ``item``; ``(episode, True)``, or the first one of a repeated idempotency key.

    Without ``ident`` a fresh id is drawn: one statement per attempt, never a live or deleted
    id (a clash is rare, 2^32 ids, and simply draws again). With ``ident`` (imports) that id.

    Raises:
        IdempotencyConflictError: The key was used before for different content or type.
        StoreDatabaseError: ``ident`` is taken, or no free id was drawn.
    """
    first = same_key(conn, item)
    if first is not None:
        return first, False
    if ident is not None:
        if not dialect.insert_episode_row(_values(ident, item)):
            raise StoreDatabaseError(f"episode id {ident} is already taken", operation="record")
        return _new(ident, item), True
    for _ in range(_ID_ATTEMPTS):
        drawn = os.urandom(4).hex()
        if dialect.insert_episode_row(_values(drawn, item)):
            return _new(drawn, item), True
        first = same_key(conn, item)  # a concurrent writer may have used the key meanwhile
        if first is not None:
            return first, False
    raise StoreDatabaseError("could not draw a free episode id", operation="record")


def set_meta(conn: SqlConnection, items: Iterable[tuple[str, str]]) -> None:
    """Upsert key/value pairs into the ``meta`` table."""
    conn.executemany(
        "INSERT INTO meta(key, value) VALUES (?, ?)"
        " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        list(items),
    )


def delete_episode(conn: SqlConnection, ident: str, *, now: str, reason: str) -> bool:
    """Delete one episode and leave a tombstone that keeps its id; False if absent.

    The tombstone keeps the episode's trust and ``derived_from``: what was derived from it
    stays capped by them. The caller then runs its dialect's ``episodes_deleted()`` in the
    same transaction.
    """
    conn.execute(
        "INSERT INTO tombstones(id, deleted_at, reason, trust, derived_from)"
        " SELECT id, ?, ?, trust, derived_from FROM episodes WHERE id = ?"
        " ON CONFLICT DO NOTHING",
        (now, reason, ident),
    )
    return conn.execute("DELETE FROM episodes WHERE id = ?", (ident,)).rowcount > 0


def tombstone_count(conn: SqlConnection) -> int:
    """How many episode ids have been deleted."""
    return int(conn.execute("SELECT count(*) FROM tombstones").fetchone()[0])
