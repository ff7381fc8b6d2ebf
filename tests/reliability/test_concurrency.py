"""Concurrent writers and concurrent wraps in real processes: nothing lost, nothing doubled."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest
from _crash import CONCURRENT_WRAPPER, SAVER, WRITER, finish, kill_after, spawn
from anneal_memory import Store
from anneal_memory.audit import AuditTrail, iter_entries

pytestmark = [pytest.mark.reliability, pytest.mark.e2e]

WRITERS, PER_WRITER = 4, 250


def test_four_writers_lose_nothing_and_the_trail_has_each_record_once(tmp_path: Path):
    db = tmp_path / "memory.db"
    Store(db).close()
    children = [spawn(WRITER, str(db), f"w{n}", str(PER_WRITER)) for n in range(WRITERS)]
    acknowledged = {ident for child in children for ident in finish(child)}
    assert len(acknowledged) == WRITERS * PER_WRITER
    conn = sqlite3.connect(db)
    stored = {str(r[0]) for r in conn.execute("SELECT id FROM episodes")}
    conn.close()
    assert stored == acknowledged
    recorded = [e["data"]["episode_id"] for e in iter_entries(db) if e["event"] == "record"]
    assert sorted(recorded) == sorted(acknowledged)
    result = AuditTrail.verify(db)
    assert result.valid
    assert result.complete
    assert result.pending_entries == 0


def test_concurrent_wraps_cover_each_episode_once_and_log_each_save(tmp_path: Path):
    db = tmp_path / "memory.db"
    with Store(db) as store:
        for i in range(20):
            store.record(f"seed {i}", "observation")
    writer = spawn(WRITER, str(db), "w", "200")
    wrappers = [spawn(CONCURRENT_WRAPPER, str(db), f"z{n}", "40", "220") for n in range(2)]
    finish(writer)
    saved = sum(int(finish(w)[0]) for w in wrappers)
    with Store(db) as store:  # one last wrap picks up what the race left
        from anneal_memory import prepare_wrap, validated_save_continuity

        prep = prepare_wrap(store)
        if prep.wrap_token is not None:
            validated_save_continuity(
                store,
                "## State\n- last\n## Patterns\n## Decisions\n## Context\n- x\n",
                wrap_token=prep.wrap_token,
            )
            saved += 1
    # Usually several saves; on a loaded machine one wrap may take every episode while the
    # other wrapper waits (seen in 5 of 20 runs four at a time), which is correct too.
    assert saved >= 1
    conn = sqlite3.connect(db)
    covered = conn.execute(
        "SELECT count(*), count(DISTINCT e.seq) FROM wraps w JOIN episodes e"
        " ON e.seq > w.after_seq AND e.seq <= w.through_seq WHERE w.status = 'completed'"
    ).fetchone()
    completed = conn.execute("SELECT count(*) FROM wraps WHERE status='completed'").fetchone()[0]
    conn.close()
    assert covered == (220, 220)
    assert completed == saved
    logged = [e for e in iter_entries(db) if e["event"] == "wrap_completed"]
    assert len(logged) == saved
    assert AuditTrail.verify(db).complete


TEXTS = {
    f"## State\n- crash test {n}\n## Patterns\n## Decisions\n## Context\n- wrap {n}\n"
    for n in range(1000)
}


def test_kills_during_continuity_saves_never_leave_a_torn_file(tmp_path: Path):
    db = tmp_path / "memory.db"
    Store(db).close()
    rng = random.Random(17)
    for _ in range(10):
        kill_after(SAVER, db, low=0.1, high=0.5, rng=rng)
        continuity = db.with_name("memory.continuity.md")
        if continuity.exists():
            assert continuity.read_text(encoding="utf-8") in TEXTS
    Store(db).close()  # a kill before a commit is undone by the next write-capable open
    with Store(db, read_only=True) as reader:
        errors = [p for p in reader.check().problems if p.severity.value == "error"]
    assert errors == []
