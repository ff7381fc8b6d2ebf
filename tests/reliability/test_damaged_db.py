"""Damaged databases: named by check, refused for writes, errors from the documented tree."""

from __future__ import annotations

import contextlib
import os
import random
import sqlite3
from pathlib import Path

import pytest
from _cli import run_cli
from anneal_memory import Store, StoreDatabaseError

pytestmark = pytest.mark.reliability

PAGE = 2048


def _damaged(tmp_path: Path, first_page: int) -> Path:
    db = tmp_path / "memory.db"
    with Store(db) as store:
        for i in range(400):
            store.record(f"episode number {i} about pools and sockets " * 3, "observation")
    pages = db.stat().st_size // PAGE
    rng = random.Random(first_page)
    with db.open("r+b") as handle:
        for page in range(first_page, min(first_page + 20, pages - 2), 3):
            handle.seek(page * PAGE + 100)
            handle.write(rng.randbytes(600))
    return db


def test_check_names_the_damage_and_exits_1(tmp_path: Path):
    db = _damaged(tmp_path, 70)
    proc = run_cli(db, "check")
    assert proc.returncode == 1
    assert "DAMAGED" in proc.stdout
    assert "sqlite" in proc.stdout


def test_check_on_a_healthy_store_exits_0(tmp_path: Path):
    db = tmp_path / "memory.db"
    with Store(db) as store:
        store.record("fine", "observation")
    with Store(db, read_only=True) as reader:
        report = reader.check()
    assert report.ok, report.summary()
    proc = run_cli(db, "check", "--quick")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_a_damaged_store_refuses_writes_with_a_clear_error(tmp_path: Path):
    db = _damaged(tmp_path, 70)
    before = db.read_bytes()
    with Store(db, audit=False) as store:
        with pytest.raises(StoreDatabaseError, match="damaged") as caught:
            store.record("more", "observation")
        assert "\n" not in str(caught.value)
        for call in (store.status, lambda: store.recall("pools"), lambda: store.get("x")):
            with contextlib.suppress(StoreDatabaseError):
                call()
    assert db.read_bytes() == before
    proc = run_cli(db, "record", "more", "--type", "observation")
    assert proc.returncode == 1
    assert len(proc.stderr.strip().splitlines()) == 1
    assert "damaged" in proc.stderr


def test_reads_of_damaged_pages_raise_the_library_error_not_sqlite(tmp_path: Path):
    db = _damaged(tmp_path, 40)
    with Store(db, read_only=True) as store:
        for call in (store.status, lambda: store.recall("pools"), store.check):
            try:
                call()
            except StoreDatabaseError:
                pass
            except sqlite3.Error as exc:  # pragma: no cover - the failure this test catches
                pytest.fail(f"raw SQLite error escaped: {exc!r}")


def test_a_file_of_random_bytes_named_db_is_refused(tmp_path: Path):
    db = tmp_path / "memory.db"
    db.write_bytes(os.urandom(8192))
    with pytest.raises(StoreDatabaseError):
        Store(db)


def _broken(tmp_path: Path, statement: str) -> list[str]:
    db = tmp_path / "memory.db"
    with Store(db) as store:
        for i in range(5):
            store.record(f"note {i}", "observation")
    conn = sqlite3.connect(db)
    conn.execute(statement)
    conn.commit()
    conn.close()
    with Store(db, read_only=True) as reader:
        report = reader.check()
    assert not report.ok
    return [p.code for p in report.problems]


def test_check_names_a_missing_trigger(tmp_path: Path):
    assert "schema-trigger" in _broken(tmp_path, "DROP TRIGGER episodes_after_insert")


def test_check_names_episodes_missing_from_the_search_index(tmp_path: Path):
    assert "fts-missing" in _broken(tmp_path, "DELETE FROM episodes_fts_docsize WHERE id <= 2")


def test_check_names_a_broken_audit_chain(tmp_path: Path):
    db = tmp_path / "memory.db"
    with Store(db) as store:
        for i in range(3):
            store.record(f"note {i}", "observation")
    active = db.with_name("memory.audit.jsonl")
    lines = active.read_bytes().splitlines()
    del lines[1]
    active.write_bytes(b"".join(line + b"\n" for line in lines))
    with Store(db, read_only=True) as reader:
        codes = [p.code for p in reader.check().problems]
    assert "audit-chain" in codes
