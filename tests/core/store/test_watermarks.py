"""Per-type counts stay exact through folds, deletions and prunes (they are folded lazily)."""

from __future__ import annotations

import datetime as dt
import sqlite3
from pathlib import Path

import pytest
from anneal_memory import EpisodeType, Store
from anneal_memory.store.sqlite import _dialect
from anneal_memory.testing import FrozenClock
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from profiles import examples

TYPES = [t.value for t in EpisodeType]


def _truth(db: Path) -> dict[str, int]:
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute("SELECT type, count(*) FROM episodes GROUP BY type").fetchall()
    finally:
        conn.close()
    return dict.fromkeys(TYPES, 0) | {str(t): int(n) for t, n in rows}


def _check(store: Store, db: Path) -> None:
    truth = _truth(db)
    status = store.status()
    assert status.episodes_by_type == truth
    assert status.total_episodes == sum(truth.values())
    assert store.recall().total_matching == sum(truth.values())
    for kind in ("decision", "outcome"):
        assert store.recall(episode_type=kind).total_matching == truth[kind]


def test_counts_survive_deleting_the_newest_episodes_across_a_fold(
    db_path: Path, clock: FrozenClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_dialect, "FOLD_EVERY", 4)
    with Store(db_path, clock=clock) as store:
        made = [store.record(f"episode {i}", TYPES[i % 3]) for i in range(8)]  # folds at 4, 8
        store.delete(made[-1].id)
        store.delete(made[-2].id)  # both were counted by the fold at 8
        _check(store, db_path)
        for i in range(3):  # reuse seqs 7 and 8; the fold at 8 must count them once
            store.record(f"again {i}", "decision")
        _check(store, db_path)


@settings(
    max_examples=examples(25),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    ops=st.lists(
        st.one_of(
            st.tuples(st.just("record"), st.sampled_from(TYPES)),
            st.tuples(st.just("delete"), st.integers(min_value=0, max_value=40)),
            st.tuples(st.just("prune"), st.integers(min_value=1, max_value=5)),
        ),
        max_size=40,
    )
)
def test_counts_match_the_rows_after_any_sequence_of_writes(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch, ops: list
) -> None:
    monkeypatch.setattr(_dialect, "FOLD_EVERY", 3)
    db = tmp_path_factory.mktemp("counts") / "memory.db"
    start = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
    clock = FrozenClock(start)
    live: list[str] = []
    with Store(db, clock=clock) as store:
        for op, arg in ops:
            if op == "record":
                live.append(store.record(f"text {len(live)}", arg).id)
                clock.advance(dt.timedelta(days=1))
            elif op == "delete" and live:
                store.delete(live.pop(arg % len(live)))
            elif op == "prune":
                store.prune(older_than_days=arg)
                live = [i for i in live if store.get(i) is not None]
        _check(store, db)
