"""Per-type episode counts kept behind a seq watermark, and seq bookkeeping after deletions.

Counting every record as it is written costs a page per commit. Instead ``episode_counts``
holds the counts of the episodes up to ``meta['counts_through_seq']`` and readers add the
few rows above it; every ``FOLD_EVERY``-th record folds that tail in. The delete trigger
decrements a stored count only for rows at or below the watermark.

SQLite gives a new row ``max(seq) + 1``. Wrap snapshot ranges and the count watermark both
assume a new episode lands above them, so after a deletion they are lowered to the highest
remaining seq: everything above it was deleted, so nothing they describe changes.
Functions here run inside the caller's transaction (or as single reads); they never commit.
"""

from __future__ import annotations

import sqlite3

__all__ = [
    "COUNTS_KEY",
    "FOLD_EVERY",
    "after_episodes_deleted",
    "counts_by_type",
    "fold_counts",
    "total_count",
]

COUNTS_KEY = "counts_through_seq"
FOLD_EVERY = 128
_THROUGH = f"coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = '{COUNTS_KEY}'), 0)"  # noqa: S608


def fold_counts(conn: sqlite3.Connection) -> None:
    """Add the episodes above the watermark to ``episode_counts`` and raise the watermark."""
    conn.execute(
        "INSERT INTO episode_counts (type, n)"  # noqa: S608 - constant text only
        f" SELECT type, count(*) FROM episodes WHERE seq > {_THROUGH} GROUP BY type"
        " ON CONFLICT(type) DO UPDATE SET n = n + excluded.n"
    )
    conn.execute(
        "INSERT INTO meta (key, value) SELECT ?, CAST(coalesce(max(seq), 0) AS TEXT)"
        " FROM episodes WHERE true ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (COUNTS_KEY,),
    )


def counts_by_type(conn: sqlite3.Connection) -> dict[str, int]:
    """Live episodes per type value (types without episodes left out)."""
    counts = {str(t): int(n) for t, n in conn.execute("SELECT type, n FROM episode_counts")}
    tail = conn.execute(
        f"SELECT type, count(*) FROM episodes WHERE seq > {_THROUGH} GROUP BY type"  # noqa: S608
    )
    for kind, n in tail:
        counts[str(kind)] = counts.get(str(kind), 0) + int(n)
    return {kind: n for kind, n in counts.items() if n}


def total_count(conn: sqlite3.Connection, episode_type: str | None = None) -> int:
    """Live episodes, of one type when given."""
    counts = counts_by_type(conn)
    if episode_type is None:
        return sum(counts.values())
    return counts.get(episode_type, 0)


def after_episodes_deleted(conn: sqlite3.Connection) -> None:
    """Lower wrap ranges and the count watermark to the highest remaining seq."""
    top = int(conn.execute("SELECT coalesce(max(seq), 0) FROM episodes").fetchone()[0])
    conn.execute(
        "UPDATE wraps SET through_seq = min(through_seq, ?), after_seq = min(after_seq, ?)"
        " WHERE through_seq > ?",
        (top, top, top),
    )
    conn.execute(
        f"UPDATE meta SET value = CAST(? AS TEXT) WHERE key = ? AND {_THROUGH} > ?",  # noqa: S608
        (top, COUNTS_KEY, top),
    )
