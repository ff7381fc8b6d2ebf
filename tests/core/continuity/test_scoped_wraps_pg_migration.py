"""A PostgreSQL store made before scoped wraps upgrades with every old wrap in scope "".

The tables are built with the schema steps before the scoped-wraps step, filled the way a
wrap of that version filled them, then opened by this anneal-memory (a real server,
``ANNEAL_TEST_PG_URL``).
"""

from __future__ import annotations

from anneal_memory import Store, prepare_wrap, validated_save_continuity
from anneal_memory.continuity import (
    pattern_history,
    unwrapped_in_scope,
    wrap_history,
    wrap_status,
)
from test_save import build_text

_WRAP = (
    "INSERT INTO wraps (token, status, started_at, today, schema_name, max_chars,"
    " episode_count, after_seq, through_seq, save_no, completed_at)"
    " VALUES (%s, %s, '2026-03-01T09:00:00.000Z', '2026-03-01', 'default', 20000,"
    " %s, %s, %s, %s, %s)"
)


def _old_store(url: str) -> None:
    """Tables at the step before scoped wraps: two completed wraps, one open, a pattern."""
    import psycopg
    from anneal_memory.audit._chain import GENESIS_HASH
    from anneal_memory.store.postgres._schema import PG_MIGRATIONS
    from anneal_memory.store.postgres._schema_scopes import SCOPED_WRAPS_V4
    from psycopg import sql

    steps = PG_MIGRATIONS[: PG_MIGRATIONS.index(SCOPED_WRAPS_V4)]
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
            for n, (content, scope) in enumerate(
                [
                    ("The pool ran out of sockets", ""),
                    ("Doubling the pool fixed it", ""),
                    ("The nightly job ran late", ""),
                    ("Alice prefers the window seat", "alice"),
                    ("The cache warmed slowly", ""),
                ],
                start=1,
            ):
                raw.execute(
                    "INSERT INTO episodes (id, ts, type, content, source, scope)"
                    " VALUES (%s, %s, 'observation', %s, 'agent', %s)",
                    (f"{n:08x}", f"2026-03-01T08:0{n}:00.000Z", content, scope),
                )
            done = "2026-03-01T09:30:00.000Z"
            raw.execute(_WRAP, ("a" * 32, "completed", 2, 0, 2, 1, done))  # wrap 1
            raw.execute(_WRAP, ("b" * 32, "completed", 1, 2, 3, 2, done))  # wrap 2
            raw.execute(_WRAP, ("c" * 32, "open", 1, 3, 5, None, None))  # wrap 3
            raw.execute(
                "INSERT INTO patterns VALUES ('pool_sizing', 'pool_sizing', 2, 2, 1, 2, %s)",
                ("2026-03-01",),
            )
            for wrap_id, level in ((1, 1), (2, 2)):
                raw.execute(
                    "INSERT INTO pattern_history (identity, wrap_id, level, written_level,"
                    " line_date, explanation, validated, marks)"
                    " VALUES ('pool_sizing', %s, %s, %s, '2026-03-01', 'pool ran out', 1, '')",
                    (wrap_id, level, level),
                )
            raw.execute(
                "INSERT INTO continuity VALUES ('', %s, %s)",
                (build_text(["- pool_sizing | 2x (2026-03-01)"]), done),
            )


def test_an_old_postgresql_store_upgrades_with_its_wraps_in_the_shared_scope(pg_url: str) -> None:
    from anneal_memory.store.postgres._schema import PG_SCHEMA_VERSION

    _old_store(pg_url)
    with Store(pg_url, project_name="Fixture") as store:
        assert store.status().schema_version == PG_SCHEMA_VERSION
        assert [(w.id, w.status, w.scope) for w in wrap_history(store)] == [
            (3, "open", ""),
            (2, "completed", ""),
            (1, "completed", ""),
        ]
        assert [e.level for e in pattern_history(store, "pool_sizing")] == [2, 1]
        assert pattern_history(store, "pool_sizing", scope="alice") == ()
        assert "pool_sizing | 2x" in (store.load_continuity() or "")
        assert store.load_continuity("alice") is None
        # The open wrap is the shared scope's; Alice's episode waits for Alice's first wrap.
        assert wrap_status(store) is not None
        assert wrap_status(store, "alice") is None
        assert unwrapped_in_scope(store) == 1
        assert unwrapped_in_scope(store, "alice") == 1
        alice = prepare_wrap(store, scope="alice")
        assert [e.content for e in alice.package.episodes] == ["Alice prefers the window seat"]
        old_open = wrap_status(store)
        assert old_open is not None
        saved = validated_save_continuity(
            store, store.load_continuity() or "", wrap_token=old_open.token
        )
        assert saved.episodes_compressed == 1
        assert unwrapped_in_scope(store) == 0
        with store.reading("probe") as probe:
            indexes = {
                str(r[0])
                for r in probe.conn.execute(
                    "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema()"
                )
            }
            key = probe.conn.execute(
                "SELECT array_to_string(array_agg(a.attname ORDER BY k.n), ',')"
                " FROM pg_index i CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(att, n)"
                " JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.att"
                " WHERE i.indrelid = 'patterns'::regclass AND i.indisprimary"
            ).fetchone()
    assert "wraps_one_open_per_scope" in indexes
    assert "wraps_one_open" not in indexes
    assert key is not None
    assert key[0] == "scope,identity"
