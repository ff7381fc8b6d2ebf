"""Recall's page bounds and time bounds, as users type them."""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path

import pytest
from anneal_memory import InvalidQueryError, Store
from anneal_memory.store.recall._recall import MAX_RECALL_LIMIT, MAX_RECALL_OFFSET

from .test_search_ranking import bulk

sys.path.insert(0, str(Path(__file__).parents[2]))

from backends import backend_store, pg_url, store_on_both_backends, target  # noqa: F401 - fixtures

UTC = dt.timezone.utc


def _at(store: Store, when: str, text: str) -> str:
    return store.record(text, "observation", timestamp=when).id


def test_a_limit_above_the_maximum_is_lowered_to_it(store: Store) -> None:
    bulk(store, [(f"alpha note {i}", "observation") for i in range(MAX_RECALL_LIMIT + 20)])
    result = store.recall(keyword="alpha", limit=10**9)
    assert len(result.episodes) == MAX_RECALL_LIMIT
    assert result.total_matching == MAX_RECALL_LIMIT + 20
    assert len(store.recall(limit=MAX_RECALL_LIMIT + 1).episodes) == MAX_RECALL_LIMIT


def test_an_offset_past_the_maximum_gives_an_empty_page_with_the_total(store: Store) -> None:
    for i in range(3):
        store.record(f"alpha {i}", "observation")
    for keyword in ("alpha", None, "alp"):
        result = store.recall(keyword=keyword, offset=MAX_RECALL_OFFSET + 1)
        assert result.episodes == ()
        assert result.total_matching == 3
    assert len(store.recall(keyword="alpha", offset=2).episodes) == 1


def test_date_only_bounds_cover_whole_utc_days(store: Store) -> None:
    before = _at(store, "2026-02-28T23:59:59Z", "report before")
    first = _at(store, "2026-03-01T00:00:00Z", "report first")
    late = _at(store, "2026-03-01T23:59:59.999999Z", "report late")
    after = _at(store, "2026-03-02T00:00:00Z", "report after")
    result = store.recall(keyword="report", since="2026-03-01", until="2026-03-01")
    found = [e.id for e in result.episodes]
    assert sorted(found) == sorted([first, late])
    newest = [e.id for e in store.recall(since="2026-03-01").episodes]
    assert before not in newest
    assert after in newest


def test_zone_less_times_and_naive_datetimes_are_utc(store: Store) -> None:
    early = _at(store, "2026-03-01T09:00:00Z", "meeting early")
    late = _at(store, "2026-03-01T11:00:00Z", "meeting late")
    assert [e.id for e in store.recall(keyword="meeting", since="2026-03-01T10:00").episodes] == [
        late
    ]
    naive = dt.datetime(2026, 3, 1, 10, 0)
    assert [e.id for e in store.recall(keyword="meeting", until=naive).episodes] == [early]
    aware = dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    assert [e.id for e in store.recall(keyword="meeting", until=aware).episodes] == [early]


@pytest.mark.parametrize(
    "bound",
    [
        "99999999999d",
        "9" * 5000 + "w",
        "0001-01-01T00:00:00+05:00",
        "10000-01-01",
        "2026-02-30",
        dt.datetime(1, 1, 1, 0, 0, tzinfo=dt.timezone(dt.timedelta(hours=5))),
    ],
    ids=repr,
)
def test_out_of_range_bounds_are_invalid_queries_never_overflow(
    store: Store, bound: object
) -> None:
    for name in ("since", "until"):
        with pytest.raises(InvalidQueryError, match=name) as caught:
            store.recall(**{name: bound})  # type: ignore[arg-type]
        assert len(str(caught.value)) < 300


def test_the_last_representable_day_is_a_valid_upper_bound(store: Store) -> None:
    kept = store.record("still here", "observation").id
    assert [e.id for e in store.recall(until="9999-12-31").episodes] == [kept]
    assert [e.id for e in store.recall(since="0001-01-01").episodes] == [kept]
