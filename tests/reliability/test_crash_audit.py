"""kill -9 during record and wrap: every committed change gets its audit entry, once."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from _crash import RECORDER, WRAPPER, kill_after, kill_before_append, record_gaps, wrap_gaps
from anneal_memory import Store
from anneal_memory.audit import AuditTrail, iter_entries

pytestmark = [pytest.mark.reliability, pytest.mark.e2e]

TRIALS = 10
WRAP_TRIALS = 20  # the commit-to-append window of a save is narrow: more kills to hit it


def test_kills_during_record_leave_no_silent_audit_gap(tmp_path: Path):
    db = tmp_path / "memory.db"
    Store(db).close()
    rng = random.Random(15)
    for _ in range(TRIALS):
        kill_after(RECORDER, db, low=0.05, high=0.3, rng=rng)
    episodes, missing, duplicates = record_gaps(db)
    assert episodes > TRIALS
    assert (missing, duplicates) == (0, 0)
    result = AuditTrail.verify(db)
    assert result.valid, result.error


def test_kills_during_wrap_leave_no_wrap_without_its_entry(tmp_path: Path):
    db = tmp_path / "memory.db"
    Store(db).close()
    rng = random.Random(16)
    for _ in range(WRAP_TRIALS):
        kill_after(WRAPPER, db, low=0.1, high=0.5, rng=rng)
    completed, missing = wrap_gaps(db)
    assert completed > 0
    assert missing == 0
    assert AuditTrail.verify(db).valid


def test_an_idempotent_retry_adds_no_second_record_entry(tmp_path: Path):
    db = tmp_path / "memory.db"
    with Store(db) as store:
        first = store.record("once", "observation", idempotency_key="k1")
        again = store.record("once", "observation", idempotency_key="k1")
    assert again.id == first.id
    assert [e["event"] for e in iter_entries(db)].count("record") == 1


def test_an_entry_staged_before_a_crash_is_appended_on_the_next_open(tmp_path: Path):
    db = tmp_path / "memory.db"
    Store(db).close()
    # The process dies right after the commit, before the entry reaches the trail.
    assert _kill_after_commit(db) == -9
    assert not [e for e in iter_entries(db) if e["event"] == "delete"]
    Store(db).close()
    deletes = [e for e in iter_entries(db) if e["event"] == "delete"]
    assert [e["data"] for e in deletes] == [{"episode_id": "cafebabe"}]
    Store(db).close()
    assert len([e for e in iter_entries(db) if e["event"] == "delete"]) == 1


@pytest.mark.parametrize("event", ["record", "wrap_completed"])
def test_a_kill_between_commit_and_append_only_delays_the_entry(tmp_path: Path, event: str):
    db = tmp_path / "memory.db"
    Store(db).close()
    assert kill_before_append(db, event) == -9
    if event == "record":
        assert record_gaps(db)[1:] == (0, 0)
    else:
        assert wrap_gaps(db) == (1, 0)
    assert AuditTrail.verify(db).valid


def test_verify_names_pending_and_missing_entries(tmp_path: Path):
    db = tmp_path / "memory.db"
    with Store(db) as store:
        for i in range(3):
            store.record(f"note {i}", "observation")
    assert _kill_after_commit(db) == -9
    pending = AuditTrail.verify(db)
    assert pending.valid
    assert pending.pending_entries == 1
    assert "not appended yet" in pending.summary()
    Store(db).close()
    assert AuditTrail.verify(db).pending_entries == 0
    # An entry cut out of the middle (and the chain re-linked by hand) shows as a gap.
    active = db.with_name("memory.audit.jsonl")
    lines = active.read_bytes().splitlines()
    del lines[1]
    relinked = _relink(lines)
    active.write_bytes(b"".join(line + b"\n" for line in relinked))
    result = AuditTrail.verify(db)
    assert result.valid
    assert result.missing_entries == 1
    assert not result.complete
    assert "GAP" in result.summary()


# Stages a delete entry in one unit of work and dies once it committed, before the append.
_KILL_AFTER_COMMIT = r"""
import os, signal, sys
from anneal_memory import Store
from anneal_memory.audit import _trail
def write_all(fd, payload):
    os.kill(os.getpid(), signal.SIGKILL)
_trail.write_all = write_all
with Store(sys.argv[1]) as store, store.writing("test") as tx:
    tx.audit("delete", actor="agent", data={"episode_id": "cafebabe"})
"""


def _kill_after_commit(db: Path) -> int:
    import subprocess
    import sys

    child = subprocess.run(
        [sys.executable, "-c", _KILL_AFTER_COMMIT, str(db)], timeout=60, check=False
    )
    return child.returncode


def _relink(lines: list[bytes]) -> list[bytes]:
    import json

    from anneal_memory.audit._chain import GENESIS_HASH, link_hash
    from anneal_memory.audit._events import AuditEvent, encode_entry

    out: list[bytes] = []
    prev = GENESIS_HASH
    for seq, raw in enumerate(lines):
        entry = json.loads(raw)
        _e, line = encode_entry(
            seq=seq,
            ts=entry["ts"],
            event=AuditEvent(entry["event"]),
            actor=entry["actor"],
            data=entry["data"],
            prev_hash=prev,
            intent=entry.get("intent"),
        )
        out.append(line)
        prev = link_hash(line)
    return out
