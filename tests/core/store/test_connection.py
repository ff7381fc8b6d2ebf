"""The connection policy: every write in BEGIN IMMEDIATE, FULL sync unless asked otherwise."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from anneal_memory.errors import StoreDatabaseError
from anneal_memory.store.sqlite._connection import connect, write_transaction

FULL = (2,)


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    opened = connect(tmp_path / "c.db")
    opened.execute("CREATE TABLE t (x INTEGER)")
    yield opened
    opened.close()


def test_a_non_durable_commit_is_visible_and_full_sync_comes_back(
    conn: sqlite3.Connection, tmp_path: Path
) -> None:
    with write_transaction(conn, operation="test", durable=False):
        assert conn.execute("PRAGMA synchronous").fetchone() == (1,)  # NORMAL
        conn.execute("INSERT INTO t VALUES (1)")
    assert conn.execute("PRAGMA synchronous").fetchone() == FULL
    other = connect(tmp_path / "c.db")
    try:
        assert other.execute("SELECT x FROM t").fetchall() == [(1,)]
    finally:
        other.close()


def test_full_sync_comes_back_after_a_failed_non_durable_transaction(
    conn: sqlite3.Connection,
) -> None:
    def failing_write() -> None:
        with write_transaction(conn, operation="test", durable=False):
            conn.execute("INSERT INTO t VALUES (1)")
            conn.execute("INSERT INTO missing VALUES (1)")

    with pytest.raises(StoreDatabaseError):
        failing_write()
    assert conn.execute("PRAGMA synchronous").fetchone() == FULL
    assert conn.execute("SELECT count(*) FROM t").fetchone() == (0,)  # rolled back
    with write_transaction(conn, operation="test"):
        conn.execute("INSERT INTO t VALUES (2)")
    assert conn.execute("SELECT x FROM t").fetchall() == [(2,)]
