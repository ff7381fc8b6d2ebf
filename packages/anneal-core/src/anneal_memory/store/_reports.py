"""Read-only reports for the operator's tools: what a prune would delete, and ``stats``.

The CLI shows these; their SQL lives here so that no query runs above ``store/``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from anneal_memory.store._params import SQLITE_INT_MAX, check_days, prune_cutoff
from anneal_memory.store.provenance._evidence import citing_crystals_before

if TYPE_CHECKING:
    from anneal_memory.store._contract import SqlConnection
    from anneal_memory.store._store import Store

__all__ = ["EpisodeStats", "PrunePreview", "episode_stats", "prune_preview"]


@dataclass(frozen=True, slots=True, kw_only=True)
class PrunePreview:
    """What ``store.prune(older_than_days)`` would delete now (nothing was deleted).

    Attributes:
        cutoff: Episodes stamped before this would be deleted.
        matching: How many episodes are older than the cutoff.
        crystals_losing_evidence: Crystals citing one of them.
    """

    cutoff: str
    matching: int
    crystals_losing_evidence: tuple[str, ...]


def prune_preview(store: Store, older_than_days: float) -> PrunePreview:
    """Count what ``store.prune(older_than_days)`` would delete, without deleting.

    Raises:
        InvalidInputError: ``older_than_days`` is negative or not a number.
    """
    cutoff = prune_cutoff(store.clock.now(), check_days(older_than_days, "older_than_days"))
    with store.reading("prune") as reader:
        row = reader.conn.execute(
            "SELECT count(*) FROM episodes WHERE ts < ?", (cutoff,)
        ).fetchone()
        losing = citing_crystals_before(reader.conn, cutoff)
    return PrunePreview(cutoff=cutoff, matching=int(row[0]), crystals_losing_evidence=losing)


@dataclass(frozen=True, slots=True, kw_only=True)
class EpisodeStats:
    """Aggregates over the live episodes, for ``anneal-memory stats``.

    Attributes:
        by_source: ``(source, count)``, most episodes first.
        by_day: ``(YYYY-MM-DD, count)`` of the most recent active days, newest first.
        content_bytes: UTF-8 bytes of every episode's text together.
        largest_bytes: UTF-8 bytes of the longest text.
        first_at: The oldest episode's timestamp (None without episodes).
        last_at: The newest episode's timestamp (None without episodes).
    """

    by_source: tuple[tuple[str, int], ...]
    by_day: tuple[tuple[str, int], ...]
    content_bytes: int
    largest_bytes: int
    first_at: str | None
    last_at: str | None


def _recent_days(conn: SqlConnection, days: int) -> list[tuple[str, int]]:
    """``(YYYY-MM-DD, count)`` of the ``days`` most recent active days, newest first.

    Walks the ``ts`` index down a day at a time: the newest timestamp below the last day
    found names the next day, and a range count gives its episodes. Same result as grouping
    every row by ``substr(ts, 1, 10)``; the ``ts`` columns compare bytewise on both backends.
    """
    found: list[tuple[str, int]] = []
    upper: str | None = None
    while len(found) < days:
        if upper is None:
            row = conn.execute("SELECT max(ts) FROM episodes").fetchone()
        else:
            row = conn.execute("SELECT max(ts) FROM episodes WHERE ts < ?", (upper,)).fetchone()
        if row is None or row[0] is None:
            break
        day = str(row[0])[:10]
        if upper is None:
            n = conn.execute("SELECT count(*) FROM episodes WHERE ts >= ?", (day,)).fetchone()
        else:
            n = conn.execute(
                "SELECT count(*) FROM episodes WHERE ts >= ? AND ts < ?", (day, upper)
            ).fetchone()
        found.append((day, int(n[0])))
        upper = day
    return found


def episode_stats(store: Store, *, days: int) -> EpisodeStats:
    """Episodes by source and by day (the ``days`` most recent active days), and their sizes."""
    with store.reading("stats") as reader:
        conn = reader.conn
        by_source = conn.execute(
            "SELECT source, count(*) AS n FROM episodes GROUP BY source ORDER BY n DESC, source"
        ).fetchall()
        by_day = _recent_days(conn, min(days, SQLITE_INT_MAX))
        # One aggregate per SELECT: each is a single probe of the ``ts`` index.
        first, last = conn.execute(
            "SELECT (SELECT min(ts) FROM episodes), (SELECT max(ts) FROM episodes)"
        ).fetchone()
        total, largest = reader.dialect.content_bytes()
    return EpisodeStats(
        by_source=tuple((str(key), int(n)) for key, n in by_source),
        by_day=tuple((str(key), int(n)) for key, n in by_day),
        content_bytes=int(total),
        largest_bytes=int(largest),
        first_at=None if first is None else str(first),
        last_at=None if last is None else str(last),
    )
