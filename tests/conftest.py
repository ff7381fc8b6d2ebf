"""Shared fixtures: a frozen clock and a store on a real SQLite file in a temp dir."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import pytest
from anneal_memory import Store
from anneal_memory.testing import FrozenClock


@pytest.fixture
def clock() -> FrozenClock:
    return FrozenClock(
        dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.timezone.utc), step=dt.timedelta(seconds=1)
    )


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "agent" / "memory.db"


@pytest.fixture
def store(db_path: Path, clock: FrozenClock) -> Iterator[Store]:
    with Store(db_path, project_name="TestAgent", clock=clock) as opened:
        yield opened
