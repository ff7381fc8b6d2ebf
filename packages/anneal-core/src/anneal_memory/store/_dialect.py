"""The few statements whose text differs between SQLite and PostgreSQL (one text per dialect).

Library modules run the same ``?``-placeholder SQL on both backends; a PostgreSQL store's
connection translates it (``store/_pg``). What cannot be written once lives here.
"""

from __future__ import annotations

import sqlite3
from typing import Any

__all__ = ["indexed_by", "is_sqlite", "word_match_count"]


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
