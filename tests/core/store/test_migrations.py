"""A store written by an older schema opens, upgrades and keeps its wrap state."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from anneal_memory import Store, prepare_wrap, validated_save_continuity
from anneal_memory.associations import associations
from anneal_memory.store.sqlite._schema import MIGRATIONS, SCHEMA_VERSION
from anneal_memory.testing import FrozenClock

TEXT = "## State\n- s\n## Patterns\n## Decisions\n## Context\n- c\n"


def _v2_store(path: Path) -> None:
    """Write what version 2 left on disk: wraps marked per episode, snapshot rows."""
    path.parent.mkdir(parents=True)
    conn = sqlite3.connect(path)
    try:
        for statement in (*MIGRATIONS[0], *MIGRATIONS[1]):
            conn.execute(statement)
        insert = (
            "INSERT INTO episodes (id, ts, type, content, source, wrap_id)"
            " VALUES (?, '2026-11-01T00:00:00.000000Z', 'observation', ?, 'agent', ?)"
        )
        wrap = (
            "INSERT INTO wraps (id, token, status, started_at, today, schema_name, max_chars,"
            " episode_count) VALUES (?, ?, ?, '2026-11-01T00:00:00.000000Z', '2026-11-01',"
            " 'default', 8000, ?)"
        )
        conn.execute(wrap, (1, "a" * 32, "completed", 2))
        for ident in ("00000001", "00000002"):
            conn.execute(insert, (ident, f"wrapped {ident}", 1))
        conn.execute(wrap, (2, "b" * 32, "cancelled", 1))
        conn.execute(wrap, (3, "c" * 32, "open", 2))
        for ident in ("00000003", "00000004"):
            conn.execute(insert, (ident, f"in the open snapshot {ident}", None))
            conn.execute("INSERT INTO wrap_episodes (wrap_id, episode_id) VALUES (3, ?)", (ident,))
        conn.execute(insert, ("00000005", "recorded after the prepare", None))
        conn.execute(
            "INSERT INTO associations (a, b, strength, created_wrap_id, last_wrap_id)"
            " VALUES ('00000001', '00000002', 0.5, 1, 1)"
        )
        conn.execute("PRAGMA user_version=2")
        conn.commit()
    finally:
        conn.close()


def test_a_version_2_store_keeps_its_open_wrap_and_waiting_episodes(
    tmp_path: Path, clock: FrozenClock
) -> None:
    db = tmp_path / "old" / "memory.db"
    _v2_store(db)
    with Store(db, clock=clock) as store:
        status = store.status()
        assert status.schema_version == SCHEMA_VERSION
        assert status.episodes_since_wrap == 3
        assert status.total_episodes == status.episodes_by_type["observation"] == 5
        [link] = associations(store)
        assert link.strength == pytest.approx(0.5)
        saved = validated_save_continuity(store, TEXT, wrap_token="c" * 32)
        assert saved.episodes_compressed == 2
        [link] = associations(store)
        assert link.strength == pytest.approx(0.45)  # the first save after the upgrade decays it
        assert store.status().episodes_since_wrap == 1
        late = store.record("recorded after the upgrade", "observation")
        following = prepare_wrap(store)
        ids = [e.id for e in following.package.episodes]  # type: ignore[union-attr]
        assert ids == ["00000005", late.id]
        assert store.status().episodes_by_type["observation"] == 6
