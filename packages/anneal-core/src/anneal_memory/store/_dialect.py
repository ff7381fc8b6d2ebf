"""The few statements whose text differs between SQLite and PostgreSQL (one text per dialect).

Library modules run the same ``?``-placeholder SQL on both backends; a PostgreSQL store's
connection translates it (``store/postgres``). What cannot be written once lives here.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

__all__ = [
    "episode_total",
    "indexed_by",
    "inserted_id",
    "is_sqlite",
    "keep_identity_ahead",
    "word_match_count",
]


def is_sqlite(conn: object) -> bool:
    """True for a SQLite connection, False for a PostgreSQL store's connection."""
    return isinstance(conn, sqlite3.Connection)


def indexed_by(conn: object, index: str) -> str:
    """SQLite's ``INDEXED BY index`` hint, or nothing (PostgreSQL's planner takes no hints)."""
    return f" INDEXED BY {index}" if is_sqlite(conn) else ""


_SQLITE_WORD_COUNT = (
    "SELECT count(*) FROM (SELECT 1 FROM episodes_fts WHERE episodes_fts MATCH ? LIMIT ?)"
)
_PG_WORD_COUNT = (
    "SELECT count(*) FROM (SELECT 1 FROM episodes"
    " WHERE tsv @@ plainto_tsquery('english'::regconfig, ?) LIMIT ?) AS hits"
)


def word_match_count(conn: Any, word: str, cap: int) -> int:
    """How many episodes hold ``word`` (stemmed as the full-text index stems), up to ``cap``.

    ``word`` must be letters and digits only: it becomes one literal full-text term.
    """
    if is_sqlite(conn):
        row = conn.execute(_SQLITE_WORD_COUNT, (f'"{word}"', cap)).fetchone()
    else:
        row = conn.execute(_PG_WORD_COUNT, (word, cap)).fetchone()
    return int(row[0]) if row else 0


def inserted_id(conn: Any, sql: str, params: Sequence[object], column: str) -> int:
    """Run one ``INSERT`` and return the new row's ``column`` (its integer key).

    SQLite reports it as ``lastrowid``; PostgreSQL returns it (``RETURNING``).
    """
    if is_sqlite(conn):
        return int(conn.execute(sql, params).lastrowid or 0)
    row = conn.execute(f"{sql} RETURNING {column}", params).fetchone()
    return int(row[0]) if row else 0


def keep_identity_ahead(conn: Any, table: str, column: str) -> None:
    """After rows were inserted with explicit keys: the next generated key is above them all.

    SQLite's ``AUTOINCREMENT`` does this itself. On PostgreSQL the identity sequence moves to
    the highest key in use, never backwards (a deleted key is never handed out again).
    ``table`` and ``column`` are names from the schema, never outside input.
    """
    if is_sqlite(conn):
        return
    seq = f"pg_get_serial_sequence('{table}', '{column}')"
    conn.execute(
        f"SELECT setval({seq}, greatest(coalesce(max({column}), 1),"  # noqa: S608
        f" coalesce(pg_sequence_last_value({seq}::regclass), 1))) FROM {table}"
    )


def episode_total(conn: Any) -> int:
    """How many live episodes the store holds.

    SQLite keeps per-type counts behind a watermark (``store/sqlite/_watermarks.py``); PostgreSQL
    counts the rows (an index-only scan).
    """
    if is_sqlite(conn):
        from anneal_memory.store.sqlite._watermarks import total_count

        return total_count(conn)
    row = conn.execute("SELECT count(*) FROM episodes").fetchone()
    return int(row[0]) if row else 0
