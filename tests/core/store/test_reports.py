"""The operator's read-only reports: what a prune would delete, and the stats view."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from anneal_memory import Store
from anneal_memory.crystal import crystallize
from anneal_memory.errors import InvalidInputError
from anneal_memory.store import episode_stats, prune_preview

sys.path.insert(0, str(Path(__file__).parents[2]))

from backends import (  # noqa: F401 - fixtures
    backend_store,
    pg_url,
    store_on_both_backends,
    target,
)


def test_prune_preview_counts_what_prune_then_deletes(store: Store) -> None:
    old = store.record("an old note about sockets", "context", timestamp="2026-01-01T00:00:00Z")
    store.record("older still", "context", timestamp="2025-12-01T00:00:00Z")
    store.record("a new note", "context")
    crystallize(store, "socket_limits", level=2, explanation="pools run dry", evidence=[old.id])
    preview = prune_preview(store, 30)
    assert (preview.matching, preview.crystals_losing_evidence) == (2, ("socket_limits",))
    assert store.status().total_episodes == 3  # nothing was deleted
    assert preview.cutoff.startswith("2026-01-31T09:00")  # the frozen clock ticks per read
    result = store.prune(30)
    assert result.deleted == preview.matching
    assert result.crystals_losing_evidence == preview.crystals_losing_evidence
    assert prune_preview(store, 30).matching == 0
    assert prune_preview(store, 1e6).matching == 0  # older than the calendar: nothing


@pytest.mark.parametrize("days", [-1, float("nan"), True, "7"])
def test_prune_preview_refuses_what_prune_refuses(store: Store, days: object) -> None:
    for call in (lambda: prune_preview(store, days), lambda: store.prune(days)):  # type: ignore[arg-type]
        with pytest.raises(InvalidInputError, match="older_than_days"):
            call()


def test_episode_stats_count_by_source_and_day_and_measure_bytes(store: Store) -> None:
    store.record("café", "context", source="tool", timestamp="2026-02-27T10:00:00Z")
    store.record("ab", "context", source="agent", timestamp="2026-02-28T10:00:00Z")
    store.record("abc", "context", source="agent", timestamp="2026-02-28T11:00:00Z")
    stats = episode_stats(store, days=1)
    assert stats.by_source == (("agent", 2), ("tool", 1))
    assert stats.by_day == (("2026-02-28", 2),)
    assert (stats.content_bytes, stats.largest_bytes) == (10, 5)  # "café" is 5 UTF-8 bytes
    assert (stats.first_at or "").startswith("2026-02-27T10:00")
    assert (stats.last_at or "").startswith("2026-02-28T11:00")


def test_episode_stats_recent_days_match_grouping_every_row(store: Store) -> None:
    stamps = [
        "2026-01-03T23:59:59.999999Z",
        "2026-01-04T00:00:00Z",
        "2026-01-04T12:00:00Z",
        "2026-01-09T08:00:00Z",
        "2026-02-01T00:00:00Z",
        "2026-02-01T00:00:01Z",
        "2026-02-01T23:00:00Z",
    ]
    for i, ts in enumerate(stamps):
        store.record(f"note {i}", "context", timestamp=ts)
    with store.reading("test") as reader:
        grouped = reader.conn.execute(
            "SELECT substr(ts, 1, 10) AS day, count(*) FROM episodes GROUP BY day ORDER BY day DESC"
        ).fetchall()
    expected = tuple((str(d), int(n)) for d, n in grouped)
    assert expected[0] == ("2026-02-01", 3)
    for days in (1, 2, 4, 5, 100):
        assert episode_stats(store, days=days).by_day == expected[:days]
