from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from anneal_memory import AuditRepairRefusedError
from anneal_memory.audit import AuditTrail
from anneal_memory.testing import FrozenClock

START = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.timezone.utc)


@pytest.fixture
def weeks_db(tmp_path: Path) -> Path:
    """A trail with three sealed weeks (3 entries each) and 2 entries in the active file."""
    db_path = tmp_path / "memory.db"
    clock = FrozenClock(START, step=dt.timedelta(minutes=1))
    trail = AuditTrail(db_path, clock=clock)
    for i in range(11):
        if i and i % 3 == 0:
            clock.advance(days=7)
        trail.append("record", actor="agent", data={"n": i})
    trail.close()
    assert len(list(tmp_path.glob("memory.audit.*.jsonl.gz"))) == 3
    assert AuditTrail.verify(db_path).valid
    return db_path


def _manifest(db_path: Path) -> Path:
    return db_path.with_name("memory.audit.manifest.json")


def test_a_valid_trail_is_refused(weeks_db: Path):
    with pytest.raises(AuditRepairRefusedError, match="nothing to repair"):
        AuditTrail.repair(weeks_db)


def test_a_corrupt_manifest_is_quarantined_and_rebuilt(weeks_db: Path):
    original = json.loads(_manifest(weeks_db).read_text(encoding="utf-8"))
    _manifest(weeks_db).write_text('{"version": 1, "files": [', encoding="utf-8")
    assert not AuditTrail.verify(weeks_db).valid
    result = AuditTrail.repair(weeks_db)
    assert result.manifest_rebuilt
    assert result.files == 3
    assert result.quarantined is not None
    assert weeks_db.with_name(result.quarantined).read_text(encoding="utf-8").startswith("{")
    rebuilt = json.loads(_manifest(weeks_db).read_text(encoding="utf-8"))
    assert rebuilt["files"] == original["files"]
    assert rebuilt["active_first_seq"] == original["active_first_seq"]
    after = AuditTrail.verify(weeks_db)
    assert after.valid, after.error
    assert after.total_entries == 11


def test_a_missing_manifest_is_rebuilt(weeks_db: Path):
    _manifest(weeks_db).unlink()
    result = AuditTrail.repair(weeks_db)
    assert result.manifest_rebuilt
    assert result.quarantined is None
    assert AuditTrail.verify(weeks_db).valid


def test_a_corrupt_sealed_week_is_set_aside_kept_and_reported(weeks_db: Path):
    middle = weeks_db.with_name("memory.audit.2026-W11.jsonl.gz")
    middle.write_bytes(middle.read_bytes()[:20])
    assert not AuditTrail.verify(weeks_db).valid
    result = AuditTrail.repair(weeks_db)
    assert result.set_aside == (middle.name,)
    assert middle.exists()
    after = AuditTrail.verify(weeks_db)
    assert after.valid, after.error
    assert after.total_entries == 8
    assert middle.name in after.set_aside
    with pytest.raises(AuditRepairRefusedError):
        AuditTrail.repair(weeks_db)
    trail = AuditTrail(weeks_db, clock=FrozenClock(START + dt.timedelta(days=21)))
    trail.append("record", actor="agent", data={})
    assert AuditTrail.verify(weeks_db).valid


def test_a_corrupt_sealed_week_is_bridged_when_the_manifest_is_rebuilt_too(weeks_db: Path):
    middle = weeks_db.with_name("memory.audit.2026-W11.jsonl.gz")
    middle.write_bytes(b"not gzip at all")
    _manifest(weeks_db).unlink()
    result = AuditTrail.repair(weeks_db)
    assert result.set_aside == (middle.name,)
    after = AuditTrail.verify(weeks_db)
    assert after.valid, after.error
    assert after.total_entries == 8


def test_tampering_in_the_active_file_is_not_repaired_away(weeks_db: Path):
    active = weeks_db.with_name("memory.audit.jsonl")
    lines = active.read_bytes().splitlines()
    active.write_bytes(lines[1] + b"\n" + lines[0] + b"\n")
    with pytest.raises(AuditRepairRefusedError):
        AuditTrail.repair(weeks_db)
    assert not AuditTrail.verify(weeks_db).valid


def test_an_unreadable_week_needs_the_flag_to_be_set_aside(weeks_db: Path):
    middle = weeks_db.with_name("memory.audit.2026-W11.jsonl.gz")
    middle.unlink()
    middle.mkdir()  # reading it fails with an OSError, as an unreadable file would
    assert not AuditTrail.verify(weeks_db).valid
    with pytest.raises(AuditRepairRefusedError, match="--set-aside-unreadable"):
        AuditTrail.repair(weeks_db)
    result = AuditTrail.repair(weeks_db, set_aside_unreadable=True)
    assert result.set_aside == (middle.name,)
    after = AuditTrail.verify(weeks_db)
    assert after.valid, after.error
    assert after.total_entries == 8
