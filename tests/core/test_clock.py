from __future__ import annotations

import datetime as dt

import pytest
from anneal_memory._clock import format_timestamp, parse_time_bound, parse_timestamp
from anneal_memory.testing import FrozenClock


@pytest.mark.parametrize(
    ("moment", "text"),
    [
        (
            dt.datetime(2026, 11, 29, 23, 5, 7, 12, tzinfo=dt.timezone.utc),
            "2026-11-29T23:05:07.000012Z",
        ),
        (
            dt.datetime(2026, 1, 1, 1, 0, tzinfo=dt.timezone(dt.timedelta(hours=2))),
            "2025-12-31T23:00:00.000000Z",
        ),
        (dt.datetime(1, 1, 1, tzinfo=dt.timezone.utc), "0001-01-01T00:00:00.000000Z"),
    ],
)
def test_timestamps_are_fixed_width_utc(moment: dt.datetime, text: str) -> None:
    # Fixed width makes string order equal time order, which the store's indexes rely on.
    assert format_timestamp(moment) == text
    assert parse_timestamp(text) == moment


def test_parse_timestamp_needs_a_zone() -> None:
    with pytest.raises(ValueError, match="timezone"):
        parse_timestamp("2026-01-01T00:00:00")


def test_relative_time_bounds() -> None:
    clock = FrozenClock(dt.datetime(2026, 3, 10, tzinfo=dt.timezone.utc))
    assert parse_time_bound("7d", clock) == "2026-03-03T00:00:00.000000Z"
    assert parse_time_bound("12h", clock) == "2026-03-09T12:00:00.000000Z"
    assert parse_time_bound("2026-03-01T00:00:00Z", clock) == "2026-03-01T00:00:00.000000Z"
    with pytest.raises(ValueError, match="relative age"):
        parse_time_bound("last week", clock)
