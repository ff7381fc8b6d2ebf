"""A store made before scoped wraps migrates with every old wrap and pattern in scope ""."""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
from pathlib import Path

from anneal_memory import Store, prepare_wrap, validated_save_continuity
from anneal_memory.continuity import (
    pattern_history,
    unwrapped_in_scope,
    wrap_history,
    wrap_status,
)
from anneal_memory.testing import FrozenClock

FIXTURE = Path(__file__).parents[2] / "fixtures" / "pre_scoped_wraps"


def _opened(tmp_path: Path, clock: FrozenClock) -> Store:
    folder = tmp_path / "old"
    shutil.copytree(FIXTURE, folder)
    return Store(folder / "memory.db", project_name="Fixture", clock=clock)


def test_old_wraps_and_patterns_land_in_the_shared_scope(
    tmp_path: Path, clock: FrozenClock
) -> None:
    with _opened(tmp_path, clock) as store:
        assert [(w.id, w.status, w.scope) for w in wrap_history(store)] == [
            (3, "open", ""),
            (2, "completed", ""),
            (1, "completed", ""),
        ]
        assert [e.level for e in pattern_history(store, "pool_sizing")] == [2, 1]
        assert pattern_history(store, "pool_sizing", scope="alice") == ()
        assert "pool_sizing | 2x" in (store.load_continuity() or "")
        # The open wrap is the shared scope's; Alice's episode waits for Alice's first wrap.
        assert wrap_status(store) is not None
        assert wrap_status(store, "alice") is None
        assert unwrapped_in_scope(store) == 2
        assert unwrapped_in_scope(store, "alice") == 1
        alice = prepare_wrap(store, scope="alice")
        assert [e.content for e in alice.package.episodes] == ["Alice prefers the window seat"]
        old_open = wrap_status(store)
        assert old_open is not None
        saved = validated_save_continuity(
            store, store.load_continuity() or "", wrap_token=old_open.token
        )
        assert saved.episodes_compressed == 1
        assert unwrapped_in_scope(store) == 1
    with contextlib.closing(sqlite3.connect(tmp_path / "old" / "memory.db")) as conn:
        indexes = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='index'")}
        keys = [r[1] for r in conn.execute("PRAGMA table_info(patterns)") if r[5]]
    assert "wraps_one_open_per_scope" in indexes
    assert "wraps_one_open" not in indexes
    assert keys == ["scope", "identity"]
