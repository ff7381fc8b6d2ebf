"""The continuity text on PostgreSQL: one row per scope (``''`` is the store's own).

The wrap's save writes it in the transaction that completes the wrap, so a reader sees the
old text with the old wrap state or the new text with the new one, never a mix.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any

from anneal_memory.store._contract import SqlConnection

__all__ = ["RowPlace", "read_text", "write_text"]


def read_text(conn: SqlConnection, *, scope: str) -> str | None:
    """The scope's continuity text, or None before its first save (``conn``: ``PgConnection``)."""
    row = conn.execute("SELECT text FROM continuity WHERE scope = ?", (scope,)).fetchone()
    return None if row is None else str(row[0])


def write_text(conn: SqlConnection, *, scope: str, text: str, now: str) -> None:
    """Replace the scope's continuity text inside ``conn``'s open write transaction."""
    conn.execute(
        "INSERT INTO continuity (scope, text, updated_at) VALUES (?, ?, ?)"
        " ON CONFLICT (scope) DO UPDATE SET text = excluded.text,"
        " updated_at = excluded.updated_at",
        (scope, text, now),
    )


@dataclass(frozen=True, slots=True)
class RowPlace:
    """The continuity row of one scope (``PgStore.continuity_place()``)."""

    label: str
    scope: str = ""

    def lock(self) -> contextlib.AbstractContextManager[None]:
        """Nothing to hold: the save's transaction holds the store's advisory lock."""
        return contextlib.nullcontext()

    def read(self, conn: SqlConnection) -> str | None:
        """The row's text, or None before the first save."""
        return read_text(conn, scope=self.scope)

    def write(self, conn: SqlConnection, text: str, *, now: str) -> None:
        """Replace the row's text in the save's transaction."""
        write_text(conn, scope=self.scope, text=text, now=now)

    def undo(self, previous: str | None, written: str) -> None:
        """Nothing to undo: the row rolled back with the transaction."""
        del previous, written

    def committed(self) -> None:
        """Nothing to tidy: the row committed with the transaction."""

    def erase(self, conn: SqlConnection) -> None:
        """Delete the scope's row inside the erasing transaction."""
        conn.execute("DELETE FROM continuity WHERE scope = ?", (self.scope,))

    def erased(self) -> None:
        """Nothing after the commit: the row went with the transaction."""

    def recover(self, conn: SqlConnection) -> dict[str, Any] | None:
        """Nothing is ever in flight: text and wrap state commit together."""
        del conn
        return None
