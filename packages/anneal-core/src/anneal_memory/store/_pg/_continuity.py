"""The continuity text on PostgreSQL: one row per scope (``''`` is the store's own).

The wrap's save writes it in the transaction that completes the wrap, so a reader sees the
old text with the old wrap state or the new text with the new one, never a mix.
"""

from __future__ import annotations

from typing import Any

__all__ = ["read_text", "write_text"]


def read_text(conn: Any, *, scope: str) -> str | None:
    """The scope's continuity text, or None before its first save (``conn``: ``PgConnection``)."""
    row = conn.execute("SELECT text FROM continuity WHERE scope = ?", (scope,)).fetchone()
    return None if row is None else str(row[0])


def write_text(conn: Any, *, scope: str, text: str, now: str) -> None:
    """Replace the scope's continuity text inside ``conn``'s open write transaction."""
    conn.execute(
        "INSERT INTO continuity (scope, text, updated_at) VALUES (?, ?, ?)"
        " ON CONFLICT (scope) DO UPDATE SET text = excluded.text,"
        " updated_at = excluded.updated_at",
        (scope, text, now),
    )
