"""SQLite's side of ``_contract.Dialect``: FTS5 counts, ``lastrowid``, index hints, watermarks."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from anneal_memory.store.sqlite._erase import purge_deleted_text
from anneal_memory.store.sqlite._watermarks import (
    FOLD_EVERY,
    after_episodes_deleted,
    fold_counts,
    total_count,
)

__all__ = ["SqliteDialect"]

_WORD_COUNT = "SELECT count(*) FROM (SELECT 1 FROM episodes_fts WHERE episodes_fts MATCH ? LIMIT ?)"
_INSERT = (
    "INSERT INTO episodes (id, ts, type, content, source, metadata, idempotency_key, scope)"
    " SELECT ?, ?, ?, ?, ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM tombstones WHERE id = ?)"
)

_CONTENT_BYTES = (
    "SELECT coalesce(sum(length(CAST(content AS BLOB))), 0),"
    " coalesce(max(length(CAST(content AS BLOB))), 0) FROM episodes"
)


class SqliteDialect:
    """The engine's own statements on one SQLite connection."""

    __slots__ = ("_conn",)

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def indexed_by(self, index: str) -> str:
        """``INDEXED BY index``: the planner is told which index serves the query."""
        return f" INDEXED BY {index}"

    def episode_total(self) -> int:
        """Live episodes, from the per-type counts behind their watermark (``_watermarks``)."""
        return total_count(self._conn)

    def word_match_count(self, word: str, cap: int) -> int:
        """Episodes whose FTS5 terms hold ``word`` (quoted: one literal term), up to ``cap``."""
        row = self._conn.execute(_WORD_COUNT, (f'"{word}"', cap)).fetchone()
        return int(row[0]) if row else 0

    def inserted_id(self, sql: str, params: Sequence[object], column: str) -> int:
        """Run the ``INSERT``; its key is SQLite's ``lastrowid``."""
        del column
        return int(self._conn.execute(sql, params).lastrowid or 0)

    def content_bytes(self) -> tuple[int, int]:
        """Bytes of the texts as stored (UTF-8): ``length`` of each cast to a blob."""
        row = self._conn.execute(_CONTENT_BYTES).fetchone()
        return int(row[0]), int(row[1])

    def keep_identity_ahead(self, table: str, column: str) -> None:
        """Nothing to do: ``AUTOINCREMENT`` never hands out a key below one in use."""
        del table, column

    def insert_episode_row(self, values: Sequence[object]) -> bool:
        """Insert one episode row; False when a live (UNIQUE) or deleted id already had it.

        Every ``FOLD_EVERY``-th row folds the per-type counts (``_watermarks``).
        """
        try:
            cursor = self._conn.execute(_INSERT, values)
        except sqlite3.IntegrityError as exc:
            if "episodes.id" not in str(exc):
                raise
            return False
        if cursor.rowcount != 1:
            return False
        if (cursor.lastrowid or 0) % FOLD_EVERY == 0:
            fold_counts(self._conn)
        return True

    def prune_before(self, cutoff: str, now: str) -> int:
        """Tombstone, then delete, every episode stamped before ``cutoff``; the count."""
        conn = self._conn
        conn.execute(
            "INSERT OR IGNORE INTO tombstones(id, deleted_at, reason, trust, derived_from)"
            " SELECT id, ?, 'prune', trust, derived_from FROM episodes WHERE ts < ?",
            (now, cutoff),
        )
        return int(conn.execute("DELETE FROM episodes WHERE ts < ?", (cutoff,)).rowcount)

    def episodes_deleted(self) -> None:
        """Move the count watermark and merge the search index without the deleted terms."""
        after_episodes_deleted(self._conn)
        purge_deleted_text(self._conn)

    def after_bulk_write(self, rows: int) -> None:
        """Nothing to do: SQLite plans from its indexes."""
        del rows

    def data_version(self) -> object:
        """``PRAGMA data_version``: it moves only when another connection commits."""
        return self._conn.execute("PRAGMA data_version").fetchone()[0]
