"""Audit pages: newest first, filtered on the canonical line's bytes, exact for numbers."""

from __future__ import annotations

from pathlib import Path

from anneal_memory import Store
from anneal_memory.audit import field_needles, page_entries, value_needles


def _store_with_entries(store: Store, count: int) -> list[str]:
    return [store.record(f"episode number {i}", "observation").id for i in range(count)]


def test_pages_run_newest_first_with_offset_and_event(store: Store) -> None:
    ids = _store_with_entries(store, 12)
    store.set_trust(ids[0], "tool")
    first = store.audit_page(limit=5)
    assert first.matched == 13
    assert [e["event"] for e in first.entries] == [
        "trust_set",
        "record",
        "record",
        "record",
        "record",
    ]
    second = store.audit_page(limit=5, offset=5, event="record")
    assert [e["data"]["episode_id"] for e in second.entries] == ids[6:1:-1]
    assert second.matched == 12
    assert store.audit_page(limit=5, offset=20).entries == ()


def test_needles_match_a_value_anywhere_and_numbers_exactly(store: Store) -> None:
    ids = _store_with_entries(store, 3)
    found = store.audit_page(limit=10, needles=value_needles([ids[1]]))
    assert [e["data"]["episode_id"] for e in found.entries] == [ids[1]]
    seqs = store.audit_page(limit=10, needles=field_needles("seq", [1]))
    assert [e["seq"] for e in seqs.entries] == [1]
    # Needles are literal text on both backends: no LIKE wildcard ("_" would match "o").
    assert store.audit_page(limit=10, needles=value_needles(["record"])).matched == 3
    assert store.audit_page(limit=10, needles=value_needles(["rec_rd", "rec%"])).matched == 0


def test_a_missing_trail_is_an_empty_page(tmp_path: Path) -> None:
    page = page_entries(tmp_path / "none.db", limit=10)
    assert (page.entries, page.matched) == ((), 0)


def test_pages_cross_sealed_weeks_and_since_skips_the_older_ones(tmp_path: Path) -> None:
    import datetime as dt

    from anneal_memory.testing import FrozenClock

    clock = FrozenClock(
        dt.datetime(2026, 3, 2, 9, tzinfo=dt.timezone.utc), step=dt.timedelta(minutes=1)
    )
    with Store(tmp_path / "weeks.db", clock=clock) as store:
        old = store.record("recorded in the first week", "observation")
        clock.advance(days=7)
        new = store.record("recorded in the second week", "observation")
        both = store.audit_page(limit=10, event="record")
        assert [e["data"]["episode_id"] for e in both.entries] == [new.id, old.id]
        later = store.audit_page(limit=10, event="record", since=new.timestamp)
        assert [e["data"]["episode_id"] for e in later.entries] == [new.id]
        assert (
            store.audit_page(limit=10, needles=value_needles([old.id]), since=old.timestamp).matched
            == 1
        )
