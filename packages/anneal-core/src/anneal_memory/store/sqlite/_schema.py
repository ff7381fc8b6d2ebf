"""The database schema as numbered migrations keyed on ``PRAGMA user_version``.

A migration is a list of SQL statements run in one write transaction together with the
``user_version`` bump, so a store is always at exactly one schema version. Append new
migrations; never edit a released one.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path

from anneal_memory.errors import StoreVersionError
from anneal_memory.store.sqlite._connection import database_error, write_transaction
from anneal_memory.store.sqlite._schema_cited import PATTERN_CITATIONS
from anneal_memory.store.sqlite._schema_trust import TRUST_KEPT
from anneal_memory.store.sqlite._schema_worth import WORTH

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

# A wrap's snapshot becomes the seq range (after_seq, through_seq] it covers, so an episode
# is unwrapped exactly when its seq lies above the newest completed wrap's through_seq. That
# replaces the per-episode wrap_id marking, its partial index (a page per record) and the
# wrap_episodes rows. Ranges of wraps made before this version are rebuilt from the marks.
_SEQ_RANGES_V3: Sequence[str] = (
    "ALTER TABLE wraps ADD COLUMN after_seq INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE wraps ADD COLUMN through_seq INTEGER NOT NULL DEFAULT 0",
    """
    UPDATE wraps SET through_seq = coalesce(
        (SELECT max(e.seq) FROM episodes e WHERE e.wrap_id = wraps.id), 0)
        WHERE status = 'completed'
    """,
    """
    UPDATE wraps SET through_seq = coalesce(
        (SELECT max(e.seq) FROM wrap_episodes w JOIN episodes e ON e.id = w.episode_id
            WHERE w.wrap_id = wraps.id), 0)
        WHERE status != 'completed'
    """,
    # Ranges only grow: a wrap whose episodes were all deleted inherits its predecessor's end.
    """
    UPDATE wraps SET through_seq =
        (SELECT max(w2.through_seq) FROM wraps w2 WHERE w2.id <= wraps.id)
    """,
    """
    UPDATE wraps SET after_seq = coalesce(
        (SELECT max(w2.through_seq) FROM wraps w2
            WHERE w2.id < wraps.id AND w2.status = 'completed'), 0)
    """,
    "DROP INDEX episodes_unwrapped",
    "DROP TABLE wrap_episodes",
    # Associations decay when read instead of by an UPDATE of every link at every save: a link
    # keeps the strength of its last reinforcement and the save number it happened at
    # (``save_no`` counts completed wraps); its strength now is that x 0.9 per save since.
    # ``decay_key`` = ln(strength) + last_save_no * -ln(0.9) orders links by strength now
    # and lets a save prune the ones under 0.1 through an index.
    "ALTER TABLE wraps ADD COLUMN save_no INTEGER",
    """
    UPDATE wraps SET save_no = (SELECT count(*) FROM wraps w2
        WHERE w2.status = 'completed' AND w2.id <= wraps.id)
        WHERE status = 'completed'
    """,
    "ALTER TABLE associations ADD COLUMN last_save_no INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE associations ADD COLUMN decay_key REAL NOT NULL DEFAULT 0",
    """
    UPDATE associations SET last_save_no = coalesce((SELECT max(save_no) FROM wraps), 0)
    """,
    # 0.10536051565782628 = -ln(0.9)
    "UPDATE associations SET decay_key = ln(strength) + last_save_no * 0.10536051565782628",
    "DROP INDEX associations_last_wrap",
    "CREATE INDEX associations_decay ON associations(decay_key)",
    # Per-type counts are folded in every 128 records instead of updated by every insert
    # (see store/sqlite/_watermarks.py); until now they covered every row.
    """
    INSERT INTO meta (key, value)
        SELECT 'counts_through_seq', CAST(coalesce(max(seq), 0) AS TEXT) FROM episodes
    """,
    "DROP TRIGGER episodes_after_insert",
    """
    CREATE TRIGGER episodes_after_insert AFTER INSERT ON episodes BEGIN
        INSERT INTO episodes_fts(rowid, content) VALUES (new.seq, new.content);
    END
    """,
    "DROP TRIGGER episodes_after_delete",
    """
    CREATE TRIGGER episodes_after_delete AFTER DELETE ON episodes BEGIN
        INSERT INTO episodes_fts(episodes_fts, rowid, content)
            VALUES ('delete', old.seq, old.content);
        UPDATE episode_counts SET n = n - 1 WHERE type = old.type AND old.seq <= coalesce(
            (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'counts_through_seq'), 0);
    END
    """,
)

# Provenance and updated facts: each episode's trust class, the state key it fills, the
# episodes it was derived from (JSON list) and the episode that replaced it. ``superseded_by``
# is kept current by the library: for a keyed episode it is the newest episode of its key's
# slot, for any other the newest episode an explicit link in ``supersessions`` names.
_SUPERSESSION_TRUST: Sequence[str] = (
    """
    ALTER TABLE episodes ADD COLUMN trust TEXT NOT NULL DEFAULT 'agent'
        CHECK (trust IN ('external', 'tool', 'agent', 'operator'))
    """,
    "ALTER TABLE episodes ADD COLUMN state_key TEXT",
    "ALTER TABLE episodes ADD COLUMN superseded_by TEXT",
    "ALTER TABLE episodes ADD COLUMN derived_from TEXT",
    "CREATE INDEX episodes_state_key ON episodes(state_key, ts) WHERE state_key IS NOT NULL",
    """
    CREATE INDEX episodes_superseded ON episodes(superseded_by)
        WHERE superseded_by IS NOT NULL
    """,
    """
    CREATE TABLE supersessions (
        old_id TEXT NOT NULL,
        new_id TEXT NOT NULL,
        via TEXT NOT NULL CHECK (via IN ('explicit', 'wrap')),
        created_at TEXT NOT NULL,
        PRIMARY KEY (old_id, new_id)
    ) WITHOUT ROWID
    """,
    "CREATE INDEX supersessions_new ON supersessions(new_id)",
    # A deleted replacement gives its old episodes back their next replacement (or none); a
    # deleted slot value hands the slot to the newest remaining one.
    """
    CREATE TRIGGER episodes_delete_supersessions AFTER DELETE ON episodes BEGIN
        DELETE FROM supersessions WHERE old_id = old.id OR new_id = old.id;
        UPDATE episodes SET superseded_by = (
            SELECT s.new_id FROM supersessions s JOIN episodes n ON n.id = s.new_id
            WHERE s.old_id = episodes.id ORDER BY n.ts DESC, n.seq DESC LIMIT 1)
            WHERE superseded_by = old.id AND state_key IS NULL;
        UPDATE episodes SET superseded_by = nullif((
            SELECT k.id FROM episodes k WHERE k.state_key = old.state_key
            ORDER BY k.ts DESC, k.seq DESC LIMIT 1), episodes.id)
            WHERE old.state_key IS NOT NULL AND state_key = old.state_key;
    END
    """,
)

# The open wrap's lease: the preparing process (pid, host and pid namespace, start mark) and
# when its lease ends, so a later prepare can reclaim a wrap whose owner crashed.
_WRAP_LEASE: Sequence[str] = (
    "ALTER TABLE wraps ADD COLUMN owner_pid INTEGER",
    "ALTER TABLE wraps ADD COLUMN owner_host TEXT",
    "ALTER TABLE wraps ADD COLUMN owner_start TEXT",
    "ALTER TABLE wraps ADD COLUMN lease_expires_at TEXT",
)

# The long-term pattern tier (crystal/) and prospective memory (spores/). Evidence rows are
# kept when their episode is deleted: the crystal reports the id as missing instead.
# Spore numbers come from AUTOINCREMENT, so a deleted spore's id is never handed out again.
# The key columns of the WITHOUT ROWID tables come first: SQLite 3.40's integrity_check
# wrongly reports NULLs in a NOT NULL column placed before a key column.
_CRYSTALS_SPORES: Sequence[str] = (
    """
    CREATE TABLE crystals (
        name TEXT PRIMARY KEY,
        level INTEGER NOT NULL CHECK (level >= 2),
        explanation TEXT NOT NULL,
        permanence TEXT NOT NULL CHECK (permanence IN ('timeless', 'phase-specific')),
        activation_mode TEXT NOT NULL
            CHECK (activation_mode IN ('just-in-time', 'catastrophic')),
        tags TEXT NOT NULL,
        crystallized_on TEXT NOT NULL,
        last_activated_on TEXT NOT NULL,
        source TEXT NOT NULL,
        notes TEXT NOT NULL,
        revision INTEGER NOT NULL,
        updated_at TEXT NOT NULL,
        retired_kind TEXT
            CHECK (retired_kind IN ('falsified', 'superseded', 'merged', 'obsolete')),
        retired_reason TEXT,
        retired_on TEXT,
        retired_at TEXT
    ) WITHOUT ROWID
    """,
    """
    CREATE TABLE crystal_evidence (
        crystal TEXT NOT NULL REFERENCES crystals(name) ON DELETE CASCADE,
        episode_id TEXT NOT NULL,
        position INTEGER NOT NULL,
        PRIMARY KEY (crystal, episode_id)
    ) WITHOUT ROWID
    """,
    "CREATE INDEX crystal_evidence_episode ON crystal_evidence(episode_id)",
    """
    CREATE TABLE spores (
        num INTEGER PRIMARY KEY AUTOINCREMENT,
        type TEXT NOT NULL CHECK (type IN ('task', 'question', 'thought')),
        text TEXT NOT NULL,
        domain TEXT NOT NULL,
        tier TEXT NOT NULL CHECK (tier IN ('hot', 'warm', 'cold', 'parked')),
        salience INTEGER NOT NULL CHECK (salience BETWEEN 0 AND 3),
        seen TEXT,
        next TEXT,
        created TEXT NOT NULL,
        created_at TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('open', 'resolved')),
        resolution TEXT,
        pointer TEXT NOT NULL,
        origin_key TEXT NOT NULL,
        revision INTEGER NOT NULL
    )
    """,
    "CREATE INDEX spores_status ON spores(status, tier)",
    """
    CREATE TABLE spore_notes (
        spore INTEGER NOT NULL REFERENCES spores(num) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        day TEXT NOT NULL,
        text TEXT NOT NULL,
        PRIMARY KEY (spore, position)
    ) WITHOUT ROWID
    """,
)

# Audit entries are written here in the transaction of the change they describe and appended
# to the JSONL trail after the commit (see audit/_sink.py): a crash delays an entry, never
# loses it. ``data`` is already scrubbed (hashes, never episode text). The newest row is
# kept after flushing, so row ids never repeat.
_AUDIT_OUTBOX: Sequence[str] = (
    """
    CREATE TABLE audit_outbox (
        id INTEGER PRIMARY KEY,
        event TEXT NOT NULL,
        actor TEXT NOT NULL,
        data TEXT NOT NULL
    )
    """,
)

# Episodes belong to a scope (a user, a thread, an agent); "" is the shared, unscoped memory.
_EPISODE_SCOPES: Sequence[str] = (
    "ALTER TABLE episodes ADD COLUMN scope TEXT NOT NULL DEFAULT ''",
    "CREATE INDEX episodes_by_scope ON episodes(scope, seq)",
)

# Each wrap belongs to one scope: a scope's episodes are unwrapped exactly when no completed
# wrap of that scope covers them, and each scope may have one open wrap. Pattern levels and
# their history are per scope too. Every existing wrap and pattern lands in the shared "".
_SCOPED_WRAPS: Sequence[str] = (
    "ALTER TABLE wraps ADD COLUMN scope TEXT NOT NULL DEFAULT ''",
    "DROP INDEX wraps_one_open",
    "CREATE UNIQUE INDEX wraps_one_open_per_scope ON wraps(scope) WHERE status = 'open'",
    "CREATE INDEX wraps_by_scope ON wraps(scope, status, id)",
    """
    CREATE TABLE patterns_by_scope (
        scope TEXT NOT NULL DEFAULT '',
        identity TEXT NOT NULL,
        name TEXT NOT NULL,
        level INTEGER NOT NULL,
        max_level INTEGER NOT NULL,
        first_wrap_id INTEGER NOT NULL,
        last_wrap_id INTEGER NOT NULL,
        last_grounded TEXT,
        PRIMARY KEY (scope, identity)
    ) WITHOUT ROWID
    """,
    """
    INSERT INTO patterns_by_scope (scope, identity, name, level, max_level, first_wrap_id,
        last_wrap_id, last_grounded)
        SELECT '', identity, name, level, max_level, first_wrap_id, last_wrap_id, last_grounded
        FROM patterns
    """,
    "DROP TABLE patterns",
    "ALTER TABLE patterns_by_scope RENAME TO patterns",
    "ALTER TABLE pattern_history ADD COLUMN scope TEXT NOT NULL DEFAULT ''",
    "DROP INDEX pattern_history_identity",
    "CREATE INDEX pattern_history_identity ON pattern_history(scope, identity, wrap_id)",
)

# Conversation items of framework sessions (anneal_memory.sessions), bounded per session.
_SESSION_ITEMS = (
    """
    CREATE TABLE session_items (
        session_id TEXT NOT NULL,
        position INTEGER NOT NULL,
        item TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (session_id, position)
    ) WITHOUT ROWID
    """,
)

MIGRATIONS: tuple[Sequence[str], ...] = (
    _EPISODES_V1,
    _WRAPS_V2,
    _SEQ_RANGES_V3,
    _SUPERSESSION_TRUST,
    _WRAP_LEASE,
    _CRYSTALS_SPORES,
    _AUDIT_OUTBOX,
    _EPISODE_SCOPES,
    _SCOPED_WRAPS,
    _SESSION_ITEMS,
    PATTERN_CITATIONS,  # issue 27
    WORTH,  # issue 28; TRUST_KEPT stays the last step
    TRUST_KEPT,
)
SCHEMA_VERSION = len(MIGRATIONS)


def _user_version(conn: sqlite3.Connection) -> int:
    row = conn.execute("PRAGMA user_version").fetchone()
    return int(row[0])


def migrate(
    conn: sqlite3.Connection,
    *,
    path: Path,
    before_commit: Callable[[sqlite3.Connection, Path], None] | None = None,
    on_migrated: Callable[[sqlite3.Connection, int], None] | None = None,
) -> int:
    """Bring the schema up to :data:`SCHEMA_VERSION`; return the version found before.

    Safe to run from several processes at once: each migration re-checks the version inside
    its write transaction. ``before_commit(conn, path)`` and ``on_migrated(conn, found)``
    run inside that transaction after the last migration (when one ran).

    Raises:
        StoreDatabaseError: The database is newer than this library, or a migration failed.
    """
    try:
        found = _user_version(conn)
    except sqlite3.Error as exc:
        raise database_error(exc, operation="open", path=path) from exc
    if found > SCHEMA_VERSION:
        raise StoreVersionError(str(path), found=found, supported=SCHEMA_VERSION, path=path)
    if found == SCHEMA_VERSION:
        return found
    # SQLite builds without the math functions lack ln(); migrations may use it.
    conn.create_function("ln", 1, math.log, deterministic=True)
    with write_transaction(conn, operation="migrate", path=path):
        current = _user_version(conn)
        try:
            for version in range(current, SCHEMA_VERSION):
                for statement in MIGRATIONS[version]:
                    conn.execute(statement)
            conn.execute(f"PRAGMA user_version={SCHEMA_VERSION:d}")
        except sqlite3.Error as exc:
            raise database_error(exc, operation="migrate", path=path) from exc
        if current < SCHEMA_VERSION:
            if before_commit is not None:
                before_commit(conn, path)
            if on_migrated is not None:
                on_migrated(conn, current)
    return found
