"""The PostgreSQL tables, created once per schema under an advisory lock.

Tables live in the first schema of the connection's ``search_path`` (``public`` unless the
URL says ``?options=-csearch_path%3Dteam_a``): one schema per scope gives agents, teams or
users their own namespace in one database. ``tsv`` holds the content twice, stemmed
(``english``) and as written (``simple``), so stopword-only keywords still match.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from anneal_memory.audit._chain import GENESIS_HASH
from anneal_memory.store._pg._schema_trigram import ensure_trigram_index, limit_pending_lists

if TYPE_CHECKING:
    import psycopg

__all__ = ["PG_SCHEMA_VERSION", "SALT_KEY", "ensure_schema"]

PG_SCHEMA_VERSION = 1
SALT_KEY = "audit_content_salt"
_LOCK_KEY = "anneal-memory schema"

_TABLES = (
    "CREATE TABLE IF NOT EXISTS meta (key text PRIMARY KEY, value text NOT NULL)",
    """CREATE TABLE IF NOT EXISTS episodes (
        seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id text NOT NULL UNIQUE,
        ts text COLLATE "C" NOT NULL,
        type text NOT NULL,
        content text NOT NULL,
        source text NOT NULL,
        metadata text,
        idempotency_key text UNIQUE,
        trust text NOT NULL DEFAULT 'agent',
        state_key text,
        superseded_by text,
        derived_from text,
        tsv tsvector GENERATED ALWAYS AS (
            to_tsvector('english'::regconfig, content) || to_tsvector('simple'::regconfig, content)
        ) STORED
    )""",
    "CREATE INDEX IF NOT EXISTS episodes_tsv ON episodes USING GIN (tsv)",
    "CREATE INDEX IF NOT EXISTS episodes_ts ON episodes (ts, seq)",
    """CREATE TABLE IF NOT EXISTS tombstones (
        id text PRIMARY KEY, deleted_at text COLLATE "C" NOT NULL, reason text NOT NULL
    )""",
    "CREATE TABLE IF NOT EXISTS audit_entries (seq bigint PRIMARY KEY, line text NOT NULL)",
    """CREATE TABLE IF NOT EXISTS baton (
        one smallint PRIMARY KEY CHECK (one = 1),
        requires_baton boolean NOT NULL,
        holder text,
        claimed_at text,
        previous_holder text,
        epoch bigint NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS audit_tip (
        one smallint PRIMARY KEY CHECK (one = 1),
        next_seq bigint NOT NULL,
        prev_hash text NOT NULL
    )""",
)


def _first_schema(conn: psycopg.Connection[Any]) -> str | None:
    row = conn.execute("SELECT current_schema()").fetchone()
    return None if row is None or row[0] is None else str(row[0])


def _create_named_schema(conn: psycopg.Connection[Any]) -> None:
    # A search_path naming a schema that does not exist yet: create it (the scope's namespace).
    from psycopg import sql

    row = conn.execute("SELECT current_setting('search_path')").fetchone()
    first = str(row[0] if row else "").split(",")[0].strip().strip('"')
    if not first or first.startswith("$"):
        first = "public"
    conn.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(first)))


def ensure_schema(conn: psycopg.Connection[Any]) -> bool:
    """Create the tables if missing, inside the caller's transaction; True when created."""
    conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (_LOCK_KEY,))
    if _first_schema(conn) is None:
        _create_named_schema(conn)
    row = conn.execute("SELECT to_regclass('episodes')").fetchone()
    created = row is None or row[0] is None
    for statement in _TABLES:
        conn.execute(statement)
    ensure_trigram_index(conn)
    limit_pending_lists(conn)
    conn.execute(
        "INSERT INTO audit_tip (one, next_seq, prev_hash) VALUES (1, 1, %s) ON CONFLICT DO NOTHING",
        (GENESIS_HASH,),
    )
    conn.execute(
        "INSERT INTO baton (one, requires_baton, epoch) VALUES (1, false, 0) ON CONFLICT DO NOTHING"
    )
    conn.execute(
        "INSERT INTO meta (key, value) VALUES (%s, %s), ('pg_schema_version', %s)"
        " ON CONFLICT DO NOTHING",
        (SALT_KEY, os.urandom(32).hex(), str(PG_SCHEMA_VERSION)),
    )
    return created
