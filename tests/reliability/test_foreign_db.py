"""Foreign, public-1.0.2, vanished and read-only opens: nothing is taken over or written."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from anneal_memory import Store, StoreDatabaseError
from anneal_memory.store.sqlite._identity import APPLICATION_ID
from anneal_memory.store.sqlite._schema import SCHEMA_VERSION

pytestmark = pytest.mark.reliability


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _foreign(path: Path, *, page_size: int = 4096) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA page_size={page_size}")
    conn.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
    conn.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)")
    conn.executemany("INSERT INTO invoices(total) VALUES (?)", [(i * 1.5,) for i in range(50)])
    conn.commit()
    conn.close()
    return path


def _public_102(path: Path) -> Path:
    """A database laid out like the public anneal-memory 1.0.2 (its table names)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE episodes (id TEXT PRIMARY KEY, content TEXT)")
    conn.execute("CREATE TABLE metadata (key TEXT PRIMARY KEY, value TEXT)")
    conn.execute("CREATE TABLE tombstones (id TEXT PRIMARY KEY)")
    conn.execute("CREATE TABLE episode_trust (id TEXT PRIMARY KEY)")
    conn.execute("CREATE TABLE wraps (id INTEGER PRIMARY KEY)")
    conn.execute("INSERT INTO episodes VALUES ('e1', 'an old note')")
    conn.commit()
    conn.close()
    return path


def _files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_another_applications_database_is_refused_untouched(tmp_path: Path):
    db = _foreign(tmp_path / "app.db")
    before = _digest(db)
    with pytest.raises(StoreDatabaseError) as caught:
        Store(db)
    message = str(caught.value)
    assert str(db) in message
    assert "another application" in message
    assert "invoices" in message
    assert _digest(db) == before
    assert _files(tmp_path) == ["app.db"]
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA journal_mode").fetchone() == ("delete",)
    conn.close()


def test_a_public_102_database_gets_a_message_naming_the_format(tmp_path: Path):
    db = _public_102(tmp_path / "memory.db")
    before = _digest(db)
    with pytest.raises(StoreDatabaseError, match=r"public anneal-memory 1\.0\.2"):
        Store(db)
    assert _digest(db) == before


def test_a_file_that_is_not_sqlite_is_refused_untouched(tmp_path: Path):
    db = tmp_path / "notes.db"
    db.write_bytes(b"just some text, not a database\n" * 20)
    before = _digest(db)
    with pytest.raises(StoreDatabaseError, match="not a SQLite database"):
        Store(db)
    assert _digest(db) == before


def test_the_cli_status_refuses_a_foreign_database_without_writing(tmp_path: Path):
    db = _foreign(tmp_path / "app.db")
    before = _digest(db)
    proc = subprocess.run(
        [sys.executable, "-m", "anneal_memory", "--db", str(db), "status"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 1
    assert "another application" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert _digest(db) == before
    assert _files(tmp_path) == ["app.db"]


def test_new_stores_are_marked_and_old_unmarked_ones_get_stamped(tmp_path: Path):
    db = tmp_path / "memory.db"
    with Store(db) as store:
        store.record("hello", "observation")
        with store.reading("t") as reader:
            stamp = reader.conn.execute("PRAGMA application_id").fetchone()
        assert stamp == (APPLICATION_ID,)
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA application_id=0")
    conn.close()
    with Store(db, read_only=True) as reader:  # recognised by its schema, not stamped
        assert reader.recall("hello").episodes
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA application_id").fetchone() == (0,)
    conn.close()
    with Store(db) as writer, writer.reading("t") as reader:
        assert reader.conn.execute("PRAGMA application_id").fetchone() == (APPLICATION_ID,)


def test_a_store_whose_tables_vanished_is_refused_not_recreated(tmp_path: Path):
    db = tmp_path / "memory.db"
    with Store(db) as store:
        store.record("hello", "observation")
    conn = sqlite3.connect(db)
    conn.execute("DROP TABLE episodes_fts")
    conn.execute("DROP TABLE episodes")
    conn.commit()
    conn.close()
    before = _digest(db)
    with pytest.raises(StoreDatabaseError, match=r"tables vanished \(episodes, episodes_fts"):
        Store(db)
    assert _digest(db) == before


# A child keeps 300 episodes in its -wal (no checkpoint) and is killed, so the -wal stays.
_KEEP_WAL = r"""
import os, signal, sys
from anneal_memory import Store
store = Store(sys.argv[1], audit=False)
with store.reading("test") as reader:
    reader.conn.execute("PRAGMA wal_autocheckpoint=0")
for i in range(300):
    store.record(f"note {i}", "observation")
print("done", flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_wal_replaced_by_another_databases_is_refused(tmp_path: Path):
    db = tmp_path / "memory.db"
    Store(db, audit=False).close()
    subprocess.run([sys.executable, "-c", _KEEP_WAL, str(db)], timeout=60, check=False)
    assert (tmp_path / "memory.db-wal").stat().st_size > 0
    other = tmp_path / "other" / "app.db"
    other.parent.mkdir()
    conn = sqlite3.connect(other)
    conn.execute("PRAGMA page_size=2048")
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA wal_autocheckpoint=0")
    conn.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
    conn.executemany("INSERT INTO invoices(total) VALUES (?)", [(i,) for i in range(300)])
    conn.commit()
    shutil.copy(other.with_name("app.db-wal"), tmp_path / "memory.db-wal")
    conn.close()
    with pytest.raises(StoreDatabaseError, match=r"not an anneal-memory store|vanished"):
        Store(db)


def test_read_only_never_creates_migrates_or_writes(tmp_path: Path):
    missing = tmp_path / "nothing" / "memory.db"
    with pytest.raises(StoreDatabaseError, match="never creates"):
        Store(missing, read_only=True)
    assert not missing.parent.exists()
    db = tmp_path / "memory.db"
    with Store(db) as store:
        store.record("hello", "observation")
    audit_before = {p.name: _digest(p) for p in tmp_path.iterdir() if "audit" in p.name}
    db_before = _digest(db)
    with Store(db, read_only=True) as reader:
        assert reader.read_only
        assert reader.status().total_episodes == 1
        assert reader.recall("hello").episodes
        with pytest.raises(StoreDatabaseError, match="read-only"):
            reader.record("nope", "observation")
    assert _digest(db) == db_before
    assert {p.name: _digest(p) for p in tmp_path.iterdir() if "audit" in p.name} == audit_before


def test_read_only_refuses_a_store_that_needs_migrating(tmp_path: Path):
    db = tmp_path / "memory.db"
    Store(db).close()
    conn = sqlite3.connect(db)
    conn.execute(f"PRAGMA user_version={SCHEMA_VERSION - 1}")
    conn.close()
    with pytest.raises(StoreDatabaseError, match="does not migrate"):
        Store(db, read_only=True)
