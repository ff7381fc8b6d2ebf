"""Several real processes append to one audit trail; crashes (kill -9) mid-append."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from anneal_memory import Store
from anneal_memory.audit import AuditTrail, iter_entries

pytestmark = pytest.mark.e2e

# A child process: records N episodes, printing each id once record() returned (acknowledged).
# With ROTATE_EVERY > 0 its clock jumps a week every ROTATE_EVERY records.
CHILD = r"""
import datetime as dt, sys
from anneal_memory import Store

class JumpingClock:
    def __init__(self, every):
        self.base = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.timezone.utc)
        self.every = every
        self.calls = 0
        self.records = 0
    def now(self):
        self.calls += 1
        weeks = self.records // self.every if self.every else 0
        return self.base + dt.timedelta(weeks=weeks, microseconds=self.calls)

db, worker, count, every = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
clock = JumpingClock(every)
with Store(db, clock=clock) as store:
    print("ready", flush=True)
    for i in range(count):
        episode = store.record(f"worker {worker} note {i}", "observation", source=worker)
        clock.records += 1
        print(episode.id, flush=True)
"""


def _spawn(db: Path, worker: str, count: int, every: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, str(db), worker, str(count), str(every)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _record_ids(db: Path) -> list[str]:
    return [e["data"]["episode_id"] for e in iter_entries(db) if e["event"] == "record"]


def _run_writers(db: Path, every: int) -> set[str]:
    Store(db).close()  # create the schema once, so the children only append
    children = [_spawn(db, f"w{n}", 250, every) for n in range(4)]
    acknowledged: set[str] = set()
    for child in children:
        out, err = child.communicate(timeout=180)
        assert child.returncode == 0, err
        ids = out.split()[1:]
        assert len(ids) == 250
        acknowledged.update(ids)
    return acknowledged


@pytest.mark.slow
def test_four_processes_keep_one_chain_with_exactly_their_entries(tmp_path: Path):
    db = tmp_path / "memory.db"
    acknowledged = _run_writers(db, every=0)
    result = AuditTrail.verify(db)
    assert result.valid, result.error
    assert result.total_entries == 1000
    assert result.dropped_entries == 0
    recorded = _record_ids(db)
    assert len(recorded) == 1000
    assert set(recorded) == acknowledged
    assert [e["seq"] for e in iter_entries(db)] == list(range(1000))


@pytest.mark.slow
def test_four_processes_keep_one_chain_across_a_rotation_forced_by_their_clocks(tmp_path):
    db = tmp_path / "memory.db"
    acknowledged = _run_writers(db, every=125)
    result = AuditTrail.verify(db)
    assert result.valid, result.error
    assert result.total_entries == 1000
    assert result.files_verified >= 2
    assert len(list(tmp_path.glob("memory.audit.*.jsonl.gz"))) >= 1
    recorded = _record_ids(db)
    assert len(recorded) == 1000
    assert set(recorded) == acknowledged


@pytest.mark.slow
def test_kill_9_during_appends_loses_nothing_acknowledged(tmp_path: Path):
    rng = random.Random(4)
    for trial in range(12):
        db = tmp_path / f"t{trial}" / "memory.db"
        db.parent.mkdir()
        Store(db).close()
        victims = [_spawn(db, f"k{n}", 100_000, 7) for n in range(2)]
        for victim in victims:
            assert victim.stdout is not None
            assert victim.stdout.readline().strip() == "ready"
        time.sleep(rng.uniform(0.05, 0.4))
        for victim in victims:
            os.kill(victim.pid, signal.SIGKILL)
        acknowledged: set[str] = set()
        for victim in victims:
            out, _err = victim.communicate(timeout=30)
            acknowledged.update(out.split())
        result = AuditTrail.verify(db)
        if not result.valid:
            AuditTrail.repair(db)
            result = AuditTrail.verify(db)
        assert result.valid, (trial, result.error)
        assert acknowledged <= set(_record_ids(db)), trial
        with Store(db) as survivor:  # the chain continues after the crash
            survivor.record("after the crash", "observation")
        after = AuditTrail.verify(db)
        assert after.valid, (trial, after.error)
        assert after.skipped_lines == 0
