"""PostgreSQL's side of ``_contract.Dialect``: ``tsvector`` counts, ``RETURNING``, sequences."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from anneal_memory.store.postgres._stats import refresh_after_bulk_write

if TYPE_CHECKING:
    from anneal_memory.store.postgres._conn import PgConnection

__all__ = ["PgDialect"]

_WORD_COUNT = (
    "SELECT count(*) FROM (SELECT 1 FROM episodes"
    " WHERE tsv @@ plainto_tsquery('english'::regconfig, ?) LIMIT ?) AS hits"
)
_INSERT = (
    "INSERT INTO episodes (id, ts, type, content, source, metadata, idempotency_key, scope)"
    " SELECT ?, ?, ?, ?, ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM tombstones WHERE id = ?)"
    " ON CONFLICT DO NOTHING"
)
_PRUNE = (
    "WITH gone AS (DELETE FROM episodes WHERE ts < ? RETURNING id, trust, derived_from) "
    "INSERT INTO tombstones (id, deleted_at, reason, trust, derived_from) "
    "SELECT id, ?, 'prune', trust, derived_from FROM gone ON CONFLICT DO NOTHING"
)
_CONTENT_BYTES = (
    "SELECT coalesce(sum(octet_length(content)), 0), coalesce(max(octet_length(content)), 0)"
    " FROM episodes"
)


class PgDialect:
    """The engine's own statements on one PostgreSQL connection view."""

    __slots__ = ("_conn",)

    def __init__(self, conn: PgConnection) -> None:
        self._conn = conn

    def indexed_by(self, index: str) -> str:
        """Nothing: PostgreSQL's planner takes no hints."""
        del index
        return ""

    def episode_total(self) -> int:
        """Live episodes, counted (an index-only scan)."""
        row = self._conn.execute("SELECT count(*) FROM episodes").fetchone()
        return int(row[0]) if row else 0

    def word_match_count(self, word: str, cap: int) -> int:
        """Episodes whose ``tsvector`` matches ``word`` (stemmed), up to ``cap``."""
        row = self._conn.execute(_WORD_COUNT, (word, cap)).fetchone()
        return int(row[0]) if row else 0

    def inserted_id(self, sql: str, params: Sequence[object], column: str) -> int:
        """Run the ``INSERT`` with ``RETURNING column``."""
        row = self._conn.execute(f"{sql} RETURNING {column}", params).fetchone()
        return int(row[0]) if row else 0

    def content_bytes(self) -> tuple[int, int]:
        """Bytes of the texts in the database's encoding (UTF-8): ``octet_length``."""
        row = self._conn.execute(_CONTENT_BYTES).fetchone()
        return (int(row[0]), int(row[1])) if row else (0, 0)

    def keep_identity_ahead(self, table: str, column: str) -> None:
        """Move ``table``'s identity sequence to its highest key, never backwards.

        ``table`` and ``column`` are names from the schema, never outside input.
        """
        seq = f"pg_get_serial_sequence('{table}', '{column}')"
        self._conn.execute(
            f"SELECT setval({seq}, greatest(coalesce(max({column}), 1),"  # noqa: S608
            f" coalesce(pg_sequence_last_value({seq}::regclass), 1))) FROM {table}"
        )

    def insert_episode_row(self, values: Sequence[object]) -> bool:
        """Insert one episode row; False when its id (or its idempotency key) is taken."""
        return self._conn.execute(_INSERT, values).rowcount == 1

    def prune_before(self, cutoff: str, now: str) -> int:
        """Delete and tombstone every episode stamped before ``cutoff`` in one statement."""
        return int(self._conn.execute(_PRUNE, (cutoff, now)).rowcount)

    def episodes_deleted(self) -> None:
        """Nothing to tidy: the indexes drop deleted rows themselves."""

    def after_bulk_write(self, rows: int) -> None:
        """Refresh the planner's statistics after a large import (``_stats``)."""
        refresh_after_bulk_write(self._conn.raw, rows)

    def data_version(self) -> object:
        """A new token every call: other sessions' commits are not visible as a counter."""
        return object()
