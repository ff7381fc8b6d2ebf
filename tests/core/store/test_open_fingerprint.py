"""The damage check before a session's first write: skipped for a byte-for-byte known-good
file, and not run at all by a session that never writes."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest
from anneal_memory import Store, StoreDatabaseError
from anneal_memory.store.sqlite import _fingerprint
from anneal_memory.store.sqlite._connection import _Connection

pytestmark = pytest.mark.skipif(
    not hasattr(os, "getxattr"), reason="extended attributes are Linux-only in Python"
)


def _store(tmp_path: Path) -> Path:
    db = tmp_path / "memory.db"
    with Store(db, audit=False) as store:
        for i in range(400):
            store.record(f"episode {i} about pools and sockets and retries", "observation")
    return db


def _quick_checks(db: Path, *, write: bool = True) -> int:
    """How many ``quick_check`` statements a write-capable session of ``db`` runs."""
    seen: list[str] = []
    original = _Connection.execute

    def spy(self: sqlite3.Connection, sql: str, *args: object) -> sqlite3.Cursor:
        seen.append(sql)
        return original(self, sql, *args)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_Connection, "execute", spy)
        with Store(db, audit=False) as store:
            if write:
                store.record("one more", "observation")
    return sum("quick_check" in s for s in seen)


def test_a_close_that_wrote_records_the_file_and_the_next_open_skips_the_walk(tmp_path: Path):
    db = _store(tmp_path)
    assert _fingerprint.matches(db)
    assert _quick_checks(db) == 0
    assert _fingerprint.matches(db)  # that session wrote: recorded again


def test_a_session_that_only_reads_never_walks(tmp_path: Path):
    db = _store(tmp_path)
    copy = tmp_path / "copy" / "memory.db"
    copy.parent.mkdir()
    copy.write_bytes(db.read_bytes())  # no attribute: a write would walk
    assert _quick_checks(copy, write=False) == 0
    assert _quick_checks(copy) == 1


def test_damage_found_at_the_first_write_refuses_it_and_writes_nothing(tmp_path: Path):
    db = _store(tmp_path)
    data = bytearray(db.read_bytes())
    for at in range(2048 * 70 + 100, 2048 * 90, 2048 * 3):
        data[at : at + 200] = os.urandom(200)
    db.write_bytes(bytes(data))
    with Store(db) as store:  # audited: its close would tidy the outbox if it could
        assert store.get("no-such-id") is None
        with pytest.raises(StoreDatabaseError, match="damaged"):
            store.record("more", "observation")
        with pytest.raises(StoreDatabaseError, match="damaged"):
            store.record("and more", "observation")
    assert db.read_bytes() == bytes(data)


def test_any_changed_byte_brings_the_walk_back_and_damage_is_refused(tmp_path: Path):
    db = _store(tmp_path)
    data = bytearray(db.read_bytes())
    page = 2048
    for at in range(page * 70 + 100, page * 90, page * 3):
        data[at : at + 200] = os.urandom(200)
    db.write_bytes(bytes(data))
    assert not _fingerprint.matches(db)
    with Store(db, audit=False) as store, pytest.raises(StoreDatabaseError, match="damaged"):
        store.record("more", "observation")


def test_a_harmless_change_by_another_program_is_checked_once(tmp_path: Path):
    db = _store(tmp_path)
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA user_version")  # a reader: nothing changes
    conn.close()
    assert _quick_checks(db) == 0
    conn = sqlite3.connect(db)
    conn.execute("VACUUM")  # same rows, rewritten pages
    conn.close()
    assert not _fingerprint.matches(db)
    assert _quick_checks(db) == 1  # walked, found clean, recorded
    assert _quick_checks(db) == 0


def test_a_copy_without_the_attribute_is_walked(tmp_path: Path):
    db = _store(tmp_path)
    copy = tmp_path / "copy" / "memory.db"
    copy.parent.mkdir()
    copy.write_bytes(db.read_bytes())
    assert not _fingerprint.matches(copy)
    assert _quick_checks(copy) == 1
