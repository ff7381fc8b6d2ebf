"""``status().episodes_since_wrap`` agrees with the per-scope count, whichever side it counts."""

from __future__ import annotations

from pathlib import Path

import pytest
from anneal_memory import Store
from anneal_memory.continuity import unwrapped_scopes


def _completed_wrap(store: Store, through: int, scope: str = "") -> None:
    with store.writing("test") as tx:
        tx.conn.execute(
            "INSERT INTO wraps (token, status, started_at, today, schema_name, max_chars,"
            " episode_count, through_seq, scope) VALUES (?, 'completed', 't', '2026-01-01',"
            " 'default', 20000, 1, ?, ?)",
            (f"t{through}{scope}", through, scope),
        )


def _waiting(store: Store) -> int:
    by_scope, more = unwrapped_scopes(store, limit=50)
    assert more == 0
    return sum(by_scope.values())


@pytest.mark.parametrize("through", [0, 3, 10, 17, 20])
def test_one_scope_either_side_of_the_boundary(tmp_path: Path, through: int) -> None:
    with Store(tmp_path / "memory.db", audit=False) as store:
        ids = [store.record(f"note {i} about pools", "observation").id for i in range(20)]
        if through:
            _completed_wrap(store, through)
        assert store.status().episodes_since_wrap == _waiting(store) == 20 - through
        store.delete(ids[1])  # a wrapped one (or not, when through is 0)
        store.delete(ids[-1])
        status = store.status()
        assert status.episodes_since_wrap == _waiting(store)
        assert status.total_episodes == 18


def test_several_scopes_count_each(tmp_path: Path) -> None:
    with Store(tmp_path / "memory.db", audit=False) as store:
        for i in range(12):
            store.record(f"note {i}", "observation", scope="a" if i % 3 else "")
        _completed_wrap(store, 6, scope="a")
        assert store.status().episodes_since_wrap == _waiting(store)


@pytest.mark.parametrize("scopes", [("",), ("a",), ("", "a", "b")])
def test_by_scope_with_the_status_total_equals_counting(tmp_path: Path, scopes: tuple) -> None:
    with Store(tmp_path / "memory.db", audit=False) as store:
        for i in range(9):
            store.record(f"note {i}", "observation", scope=scopes[i % len(scopes)])
        _completed_wrap(store, 2, scope=scopes[0])
        total = store.status().episodes_since_wrap
        assert unwrapped_scopes(store, limit=50, total=total) == unwrapped_scopes(store, limit=50)
