"""A store made before pattern history kept cited ids upgrades, on SQLite and on PostgreSQL.

The tables are built with the schema steps before ``PATTERN_CITATIONS``, a validated line is
saved the way that version saved it (its explanation, no ids), then this anneal-memory opens
the store: the step adds the columns ("" for the old row), ``TRUST_KEPT`` still runs last,
the old step is explained by recomputing its grounding, and the next save keeps its ids.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from anneal_memory import Store
from anneal_memory.explain import explain_pattern
from anneal_memory.testing import DEMO_GROUNDED
from explain_helpers import FOLLOW_UP, SESSION, demo_wrap, record_all

_EPISODES = (
    ("00000001", "The parallel pytest workers share one Postgres database and see rows"),
    ("00000002", "Give each parallel pytest worker its own Postgres database from a template"),
)
_EXPLANATION = "parallel pytest workers need their own Postgres database"


def _sqlite_old_store(db: Path) -> None:
    from anneal_memory.store.sqlite._schema import MIGRATIONS
    from anneal_memory.store.sqlite._schema_cited import PATTERN_CITATIONS

    steps = MIGRATIONS[: MIGRATIONS.index(PATTERN_CITATIONS)]
    db.parent.mkdir(parents=True)
    conn = sqlite3.connect(db)
    try:
        for step in steps:
            for statement in step:
                conn.execute(statement)
        for n, (ident, text) in enumerate(_EPISODES, start=1):
            conn.execute(
                "INSERT INTO episodes (id, ts, type, content, source) VALUES (?, ?, ?, ?, ?)",
                (ident, f"2026-03-01T08:0{n}:00.000000Z", "observation", text, "agent"),
            )
        _old_rows(conn.execute, "?")
        conn.execute(f"PRAGMA user_version={len(steps)}")
        conn.commit()
    finally:
        conn.close()


def _old_rows(run: Callable[..., Any], mark: str) -> None:
    """One completed wrap that validated the pattern, saved without ids (``mark``: "?"/"%s")."""
    wrap = (
        "INSERT INTO wraps (token, status, started_at, today, schema_name, max_chars,"
        " episode_count, after_seq, through_seq, save_no, completed_at)"
        f" VALUES ({mark}, 'completed', '2026-03-01T09:00:00.000000Z', '2026-03-01', 'default',"
        f" 20000, 2, 0, 2, 1, '2026-03-01T09:30:00.000000Z')"
    )
    run(wrap, ("a" * 32,))
    run(
        "INSERT INTO patterns (scope, identity, name, level, max_level, first_wrap_id,"
        f" last_wrap_id, last_grounded) VALUES ('', {mark}, {mark}, 2, 2, 1, 1, '2026-03-01')",
        (DEMO_GROUNDED, DEMO_GROUNDED),
    )
    run(
        "INSERT INTO pattern_history (scope, identity, wrap_id, level, written_level, line_date,"
        " explanation, validated, marks)"
        f" VALUES ('', {mark}, 1, 2, 2, '2026-03-01', {mark}, 1, '')",
        (DEMO_GROUNDED, _EXPLANATION),
    )


def _pg_old_store(url: str) -> None:
    import psycopg
    from anneal_memory.audit._chain import GENESIS_HASH
    from anneal_memory.store.postgres._schema import PG_MIGRATIONS
    from anneal_memory.store.postgres._schema_cited import PATTERN_CITATIONS
    from psycopg import sql

    steps = PG_MIGRATIONS[: PG_MIGRATIONS.index(PATTERN_CITATIONS)]
    with psycopg.connect(url, autocommit=True) as raw:
        schema = url.rsplit("%3D", 1)[1]
        raw.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
        with raw.transaction():
            for step in steps:
                for statement in step:
                    raw.execute(statement)
            raw.execute(
                "INSERT INTO meta VALUES ('pg_schema_version', %s), ('audit_content_salt', '00')",
                (str(len(steps)),),
            )
            raw.execute("INSERT INTO audit_tip VALUES (1, 1, %s)", (GENESIS_HASH,))
            for n, (ident, text) in enumerate(_EPISODES, start=1):
                raw.execute(
                    "INSERT INTO episodes (id, ts, type, content, source, scope)"
                    " VALUES (%s, %s, 'observation', %s, 'agent', '')",
                    (ident, f"2026-03-01T08:0{n}:00.000000Z", text),
                )
            _old_rows(raw.execute, "%s")


def _check_upgraded(store: Store) -> None:
    found = explain_pattern(store, DEMO_GROUNDED)
    [old] = found.steps
    assert old.citations == "recomputed"  # the old row kept no ids: grounding recomputed
    assert [c.id for c in old.cited] == ["00000001", "00000002"]
    assert all(c.validated is None for c in old.cited)
    record_all(store, SESSION)
    demo_wrap(store)
    record_all(store, FOLLOW_UP)
    demo_wrap(store)
    newest, before, _old = explain_pattern(store, DEMO_GROUNDED).steps
    assert before.citations == "history"
    assert before.cited
    assert all(c.validated is not None for c in before.cited)
    assert newest.citations == "continuity"
    assert all(c.validated for c in newest.cited)


def test_an_old_sqlite_store_gets_the_columns_and_keeps_explaining(tmp_path: Path) -> None:
    from anneal_memory.store.sqlite._schema import MIGRATIONS, SCHEMA_VERSION
    from anneal_memory.store.sqlite._schema_trust import TRUST_KEPT

    assert MIGRATIONS[-1] is TRUST_KEPT
    db = tmp_path / "old" / "memory.db"
    _sqlite_old_store(db)
    with Store(db) as store:
        assert store.status().schema_version == SCHEMA_VERSION
        _check_upgraded(store)


def test_an_old_postgresql_store_gets_the_columns_and_keeps_explaining(pg_url: str) -> None:
    from anneal_memory.store.postgres._schema import PG_MIGRATIONS, PG_SCHEMA_VERSION
    from anneal_memory.store.postgres._schema_trust import TRUST_KEPT

    assert PG_MIGRATIONS[-1] is TRUST_KEPT
    _pg_old_store(pg_url)
    with Store(pg_url, project_name="Fixture") as store:
        assert store.status().schema_version == PG_SCHEMA_VERSION
        _check_upgraded(store)
