"""The database schema as numbered migrations keyed on ``PRAGMA user_version``.

A migration is a list of SQL statements run in one write transaction together with the
``user_version`` bump, so a store is always at exactly one schema version. Append new
migrations; never edit a released one.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

from anneal_memory.errors import StoreDatabaseError
from anneal_memory.store._connection import database_error, write_transaction

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "migrate"]

_EPISODES_V1: Sequence[str] = (
    """
    CREATE TABLE episodes (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        ts TEXT NOT NULL,
        type TEXT NOT NULL,
        content TEXT NOT NULL,
        source TEXT NOT NULL,
        metadata TEXT,
        idempotency_key TEXT,
        wrap_id INTEGER
    )
    """,
    "CREATE INDEX episodes_ts ON episodes(ts)",
    # Partial: most episodes carry no key, and a NULL entry would cost an index page per write.
    """
    CREATE UNIQUE INDEX episodes_idempotency ON episodes(idempotency_key)
        WHERE idempotency_key IS NOT NULL
    """,
    # No (type, ts) index: a type filter walks the ts index (six types, each common), and
    # type counts come from episode_counts; one index fewer is one page fewer per record.
    "CREATE INDEX episodes_unwrapped ON episodes(seq) WHERE wrap_id IS NULL",
    """
    CREATE TABLE tombstones (
        id TEXT PRIMARY KEY,
        deleted_at TEXT NOT NULL,
        reason TEXT NOT NULL
    ) WITHOUT ROWID
    """,
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID",
    "CREATE TABLE episode_counts (type TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID",
    """
    CREATE VIRTUAL TABLE episodes_fts USING fts5(
        content, content='episodes', content_rowid='seq', tokenize='porter unicode61'
    )
    """,
    """
    CREATE TRIGGER episodes_after_insert AFTER INSERT ON episodes BEGIN
        INSERT INTO episodes_fts(rowid, content) VALUES (new.seq, new.content);
        INSERT INTO episode_counts(type, n) VALUES (new.type, 1)
            ON CONFLICT(type) DO UPDATE SET n = n + 1;
    END
    """,
    """
    CREATE TRIGGER episodes_after_delete AFTER DELETE ON episodes BEGIN
        INSERT INTO episodes_fts(episodes_fts, rowid, content)
            VALUES ('delete', old.seq, old.content);
        UPDATE episode_counts SET n = n - 1 WHERE type = old.type;
    END
    """,
    """
    CREATE TRIGGER episodes_content_immutable BEFORE UPDATE OF content, type ON episodes BEGIN
        SELECT RAISE(ABORT, 'episode content and type are immutable');
    END
    """,
)

_WRAPS_V2: Sequence[str] = (
    """
    CREATE TABLE wraps (
        id INTEGER PRIMARY KEY,
        token TEXT NOT NULL UNIQUE,
        status TEXT NOT NULL CHECK (status IN ('open', 'completed', 'cancelled')),
        session_id TEXT,
        started_at TEXT NOT NULL,
        today TEXT NOT NULL,
        schema_name TEXT NOT NULL,
        max_chars INTEGER NOT NULL,
        episode_count INTEGER NOT NULL,
        completed_at TEXT,
        continuity_sha256 TEXT,
        continuity_chars INTEGER,
        graduations_validated INTEGER,
        demotions INTEGER,
        findings TEXT,
        affect_tag TEXT,
        affect_intensity REAL
    )
    """,
    "CREATE UNIQUE INDEX wraps_one_open ON wraps(status) WHERE status = 'open'",
    """
    CREATE TABLE wrap_episodes (
        wrap_id INTEGER NOT NULL REFERENCES wraps(id) ON DELETE CASCADE,
        episode_id TEXT NOT NULL,
        PRIMARY KEY (wrap_id, episode_id)
    ) WITHOUT ROWID
    """,
    """
    CREATE TABLE patterns (
        identity TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        level INTEGER NOT NULL,
        max_level INTEGER NOT NULL,
        first_wrap_id INTEGER NOT NULL,
        last_wrap_id INTEGER NOT NULL,
        last_grounded TEXT
    ) WITHOUT ROWID
    """,
    """
    CREATE TABLE pattern_history (
        id INTEGER PRIMARY KEY,
        identity TEXT NOT NULL,
        wrap_id INTEGER NOT NULL REFERENCES wraps(id),
        level INTEGER NOT NULL,
        written_level INTEGER NOT NULL,
        line_date TEXT,
        explanation TEXT NOT NULL,
        validated INTEGER NOT NULL,
        marks TEXT NOT NULL
    )
    """,
    "CREATE INDEX pattern_history_identity ON pattern_history(identity, wrap_id)",
    """
    CREATE TABLE associations (
        a TEXT NOT NULL,
        b TEXT NOT NULL,
        strength REAL NOT NULL,
        affect_tag TEXT,
        affect_intensity REAL,
        created_wrap_id INTEGER NOT NULL,
        last_wrap_id INTEGER NOT NULL,
        PRIMARY KEY (a, b),
        CHECK (a < b)
    ) WITHOUT ROWID
    """,
    "CREATE INDEX associations_b ON associations(b)",
    "CREATE INDEX associations_last_wrap ON associations(last_wrap_id)",
    """
    CREATE TRIGGER episodes_delete_links AFTER DELETE ON episodes BEGIN
        DELETE FROM associations WHERE a = old.id OR b = old.id;
    END
    """,
)

MIGRATIONS: tuple[Sequence[str], ...] = (_EPISODES_V1, _WRAPS_V2)
SCHEMA_VERSION = len(MIGRATIONS)


def _user_version(conn: sqlite3.Connection) -> int:
    row = conn.execute("PRAGMA user_version").fetchone()
    return int(row[0])


def migrate(conn: sqlite3.Connection, *, path: Path) -> int:
    """Bring the schema up to :data:`SCHEMA_VERSION`; return the version found before.

    Safe to run from several processes at once: each migration re-checks the version inside
    its write transaction.

    Raises:
        StoreDatabaseError: The database is newer than this library, or a migration failed.
    """
    try:
        found = _user_version(conn)
    except sqlite3.Error as exc:
        raise database_error(exc, operation="open", path=path) from exc
    if found > SCHEMA_VERSION:
        raise StoreDatabaseError(
            f"{path} has schema version {found}, newer than this anneal-memory supports "
            f"({SCHEMA_VERSION}); upgrade anneal-memory to open it",
            operation="open",
            path=path,
        )
    if found == SCHEMA_VERSION:
        return found
    with write_transaction(conn, operation="migrate", path=path):
        current = _user_version(conn)
        try:
            for version in range(current, SCHEMA_VERSION):
                for statement in MIGRATIONS[version]:
                    conn.execute(statement)
            conn.execute(f"PRAGMA user_version={SCHEMA_VERSION:d}")
        except sqlite3.Error as exc:
            raise database_error(exc, operation="migrate", path=path) from exc
    return found
