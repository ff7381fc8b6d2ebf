"""The ``session_items`` table: each session's conversation items, oldest first, bounded."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from anneal_memory._clock import format_timestamp
from anneal_memory.errors import InvalidInputError
from anneal_memory.store import Store

__all__ = ["DEFAULT_KEEP", "MAX_ITEM_BYTES", "add_items", "clear_session", "get_items", "pop_item"]

DEFAULT_KEEP = 1000
"""Items a session keeps by default; older ones are deleted as new ones arrive."""
MAX_ITEM_BYTES = 1 << 20
"""The largest item, as UTF-8 JSON."""
_MAX_SESSION_ID_CHARS = 256


def _session(session_id: object) -> str:
    if (
        not isinstance(session_id, str)
        or not 0 < len(session_id) <= _MAX_SESSION_ID_CHARS
        or not session_id.isprintable()
    ):
        raise InvalidInputError(
            f"session_id must be 1-{_MAX_SESSION_ID_CHARS} printable characters, got {session_id!r}"
        )
    return session_id


def _encode(items: Sequence[Mapping[str, Any]]) -> list[str]:
    encoded = []
    for index, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise InvalidInputError(f"session item {index} is not a mapping: {type(item).__name__}")
        try:
            text = json.dumps(item, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise InvalidInputError(f"session item {index} is not JSON: {exc}") from None
        if len(text.encode()) > MAX_ITEM_BYTES:
            raise InvalidInputError(
                f"session item {index} is {len(text.encode())} bytes as JSON; at most "
                f"{MAX_ITEM_BYTES} are kept. Nothing was written."
            )
        encoded.append(text)
    return encoded


def add_items(
    store: Store, session_id: str, items: Sequence[Mapping[str, Any]], *, keep: int = DEFAULT_KEEP
) -> None:
    """Append ``items`` to the session, then keep only its newest ``keep`` items.

    Raises:
        InvalidInputError: A bad session id, ``keep`` below 1, or an item that is not a JSON
            object of at most ``MAX_ITEM_BYTES``; nothing was written.
        StoreDatabaseError: The database failed; nothing was written.
    """
    sid, encoded = _session(session_id), _encode(items)
    if isinstance(keep, bool) or not isinstance(keep, int) or keep < 1:
        raise InvalidInputError(f"keep must be a positive int, got {keep!r}")
    if not encoded:
        return
    now = format_timestamp(store.clock.now())
    with store.writing("session add_items") as tx:
        row = tx.conn.execute(
            "SELECT coalesce(max(position), 0) FROM session_items WHERE session_id = ?", (sid,)
        ).fetchone()
        last = int(row[0]) if row else 0
        tx.conn.executemany(
            "INSERT INTO session_items (session_id, position, item, created_at)"
            " VALUES (?, ?, ?, ?)",
            [(sid, last + n, text, now) for n, text in enumerate(encoded, start=1)],
        )
        tx.conn.execute(
            "DELETE FROM session_items WHERE session_id = ? AND position <= ?",
            (sid, last + len(encoded) - keep),
        )


def get_items(store: Store, session_id: str, limit: int | None = None) -> list[dict[str, Any]]:
    """The session's items, oldest first; with ``limit``, only the newest ``limit`` of them.

    Raises:
        InvalidInputError: A bad session id or ``limit``.
    """
    sid = _session(session_id)
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
        raise InvalidInputError(f"limit must be None or an int >= 0, got {limit!r}")
    if limit == 0:
        return []
    with store.reading("session get_items") as reader:
        if limit is None:
            rows = reader.conn.execute(
                "SELECT item FROM session_items WHERE session_id = ? ORDER BY position", (sid,)
            ).fetchall()
        else:
            rows = reader.conn.execute(
                "SELECT item FROM session_items WHERE session_id = ?"
                " ORDER BY position DESC LIMIT ?",
                (sid, limit),
            ).fetchall()[::-1]
    return [json.loads(row[0]) for row in rows]


def pop_item(store: Store, session_id: str) -> dict[str, Any] | None:
    """Remove and return the session's newest item; None when it has none."""
    sid = _session(session_id)
    with store.writing("session pop_item") as tx:
        row = tx.conn.execute(
            "SELECT position, item FROM session_items WHERE session_id = ?"
            " ORDER BY position DESC LIMIT 1",
            (sid,),
        ).fetchone()
        if row is None:
            return None
        tx.conn.execute(
            "DELETE FROM session_items WHERE session_id = ? AND position = ?", (sid, row[0])
        )
    item: dict[str, Any] = json.loads(row[1])
    return item


def clear_session(store: Store, session_id: str) -> int:
    """Delete every item of the session; how many there were."""
    sid = _session(session_id)
    with store.writing("session clear") as tx:
        cursor = tx.conn.execute("DELETE FROM session_items WHERE session_id = ?", (sid,))
        return int(cursor.rowcount)
