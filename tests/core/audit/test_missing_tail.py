"""``verify`` compares the trail's end with what the database recorded as appended.

Entries cut from the end of the trail leave a chain that still links; the store's database
knows better: on SQLite the outbox drops an entry only once it is appended (so an id above
the trail's newest ``intent`` that is gone was appended and lost), on PostgreSQL the chain
tip row names the last entry.
"""

from __future__ import annotations

import datetime as dt
import io
import json
import subprocess
import sys
from contextlib import redirect_stdout
from pathlib import Path

import pytest
from anneal_memory import Store
from anneal_memory.audit import AuditTrail
from anneal_memory.cli import main
from anneal_memory.testing import FrozenClock
from backends import pg_url  # noqa: F401 - fixture


def _cut_tail(path: Path, count: int) -> None:
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:-count]))


@pytest.fixture
def five(tmp_path: Path) -> Path:
    db = tmp_path / "memory.db"
    with Store(db) as store:
        for n in range(5):
            store.record(f"note {n}", "observation")
    return db


def test_a_tail_cut_after_close_is_reported_as_missing(five: Path):
    _cut_tail(five.with_name("memory.audit.jsonl"), 3)
    result = AuditTrail.verify(five)
    # Two of the three are gone for good; the newest is still staged and comes back.
    assert (result.missing_tail, result.pending_entries) == (2, 1)
    assert result.valid  # what is left still links
    assert not result.complete
    assert result.summary().startswith("Audit trail INCOMPLETE: its last 2 entr(ies) are missing")
    Store(five).close()  # the next open appends what was still staged: the loss is now a gap
    after = AuditTrail.verify(five)
    assert (after.missing_tail, after.missing_entries, after.pending_entries) == (0, 2, 0)


def test_verify_exits_1_and_check_names_the_missing_tail(five: Path):
    _cut_tail(five.with_name("memory.audit.jsonl"), 3)
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(["--db", str(five), "--json", "verify"])
    assert code == 1
    assert json.loads(out.getvalue())["missing_tail"] == 2
    with Store(five, read_only=True) as store:
        report = store.check(full=False)
    assert not report.ok
    assert [p.code for p in report.problems if p.code.startswith("audit")] == [
        "audit-tail",
        "audit-pending",
    ]


def test_a_whole_trail_removed_is_a_missing_tail(five: Path):
    for path in five.parent.glob("memory.audit*"):
        path.unlink()
    result = AuditTrail.verify(five)
    assert result.total_entries == 0
    assert result.missing_tail == 4  # every appended entry but the newest, still staged
    assert result.pending_entries == 1


def test_a_tail_cut_across_a_rotation_is_counted_from_the_sealed_week(tmp_path: Path):
    db = tmp_path / "memory.db"
    clock = FrozenClock(dt.datetime(2026, 3, 2, 9, tzinfo=dt.timezone.utc))
    with Store(db, clock=clock) as store:
        for n in range(4):
            store.record(f"week one {n}", "observation")
        clock.advance(days=7)
        for n in range(3):
            store.record(f"week two {n}", "observation")
    db.with_name("memory.audit.jsonl").write_bytes(b"")  # the whole active week cut
    result = AuditTrail.verify(db)
    assert result.valid
    assert result.total_entries == 4
    assert (result.missing_tail, result.pending_entries) == (2, 1)


def test_an_intact_store_has_no_missing_tail_in_any_state(tmp_path: Path):
    db = tmp_path / "memory.db"
    with Store(db) as store:
        for n in range(40):  # past the outbox's tidying, which runs every few writes
            store.record(f"note {n}", "observation")
            if n % 9 == 0:
                result = AuditTrail.verify(db)
                assert (result.missing_tail, result.complete) == (0, True), result.summary()
    result = AuditTrail.verify(db)
    assert (result.missing_tail, result.pending_entries, result.complete) == (0, 0, True)


_WRITER = """
import sys
from anneal_memory import Store
with Store(sys.argv[1]) as store:
    for n in range(int(sys.argv[2])):
        store.record(f"busy {n}", "observation")
"""


@pytest.mark.e2e
def test_verify_while_another_process_writes_never_reports_a_lost_tail(tmp_path: Path):
    db = tmp_path / "memory.db"
    Store(db).close()
    child = subprocess.Popen([sys.executable, "-c", _WRITER, str(db), "400"])
    try:
        seen = 0
        while child.poll() is None:
            result = AuditTrail.verify(db)
            assert result.missing_tail == 0, result.summary()
            seen += 1
    finally:
        child.wait(timeout=300)
    assert child.returncode == 0
    final = AuditTrail.verify(db)
    assert (final.valid, final.complete, final.total_entries) == (True, True, 400)
    assert seen > 0


def test_rows_cut_from_the_end_of_the_postgresql_trail_are_a_missing_tail(pg_url: str):  # noqa: F811
    import psycopg

    with Store(pg_url) as store:
        for n in range(5):
            store.record(f"note {n}", "observation")
        assert store.verify_audit().valid
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute(
                "DELETE FROM audit_entries WHERE seq > (SELECT max(seq) - 3 FROM audit_entries)"
            )
        result = store.verify_audit()
    assert not result.valid
    assert result.missing_tail == 3
    assert "the last 3 entr(ies) are missing" in str(result.error)
