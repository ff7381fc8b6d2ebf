"""The PostgreSQL connection the library modules run their ``?`` SQL on.

The translator is pure (no server needed); everything else runs on a real PostgreSQL
(``ANNEAL_TEST_PG_URL``, see ``tests/backends.py``) and compares with SQLite where the two
must agree.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest
from anneal_memory import Store
from anneal_memory.errors import StoreDatabaseError
from anneal_memory.store import SqlConnection, Tx
from anneal_memory.store.postgres._sql import SqlTextError, arrange, translate

sys.path.insert(0, str(Path(__file__).parents[2]))

from backends import pg_url, target  # noqa: F401 - fixtures


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("SELECT 1", "SELECT 1"),
        ("SELECT ? , ?", "SELECT %s , %s"),
        ("WHERE key LIKE ?", "WHERE key LIKE %s"),
        ("SELECT '50%' || ?", "SELECT '50%%' || %s"),
        ("SELECT 'what?' , ?", "SELECT 'what?' , %s"),
        ("SELECT 'it''s ?', ?", "SELECT 'it''s ?', %s"),
        ('SELECT "odd?""name" FROM t WHERE a = ?', 'SELECT "odd?""name" FROM t WHERE a = %s'),
        ("SELECT 1 -- why? 5%\n, ?", "SELECT 1 -- why? 5%%\n, %s"),
        ("SELECT /* a ? b % */ ?", "SELECT /* a ? b %% */ %s"),
        ("SELECT 10 % 3, 4 / 2, 5 - ?", "SELECT 10 %% 3, 4 / 2, 5 - %s"),
        ("SELECT '%s'", "SELECT '%%s'"),
    ],
)
def test_translate_turns_placeholders_outside_quotes_and_escapes_percent(
    sql: str, expected: str
) -> None:
    translated = translate(sql)
    assert (translated.text, translated.order) == (expected, None)
    assert arrange(translated, ("a", "b")) == ("a", "b")


def test_numbered_placeholders_take_their_parameter_each_time() -> None:
    translated = translate("SELECT ?2, '?1', ?1 WHERE k = ?1 -- ?3")
    assert translated.text == "SELECT %s, '?1', %s WHERE k = %s -- ?3"
    assert arrange(translated, ("one", "two")) == ("two", "one", "one")


@pytest.mark.parametrize(
    "sql",
    ["SELECT 'open", 'SELECT "open', "SELECT /* open", "SELECT $1", "SELECT ?, ?1", "SELECT ?0"],
)
def test_translate_refuses_text_it_cannot_translate_safely(sql: str) -> None:
    with pytest.raises(SqlTextError):
        translate(sql)


def _fill(conn: SqlConnection) -> None:
    conn.execute(
        "INSERT INTO meta (key, value) VALUES (?, ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        ("probe 50%", "it's ?"),
    )
    conn.executemany(
        "INSERT INTO meta (key, value) VALUES (?, ?)",
        [(f"row {n}", str(n)) for n in range(3)],
    )


def test_library_sql_runs_alike_on_both_backends(target: str) -> None:  # noqa: F811
    with Store(target) as store, store.writing("probe") as tx:
        _fill(tx.conn)
    with Store(target) as store, store.writing("probe") as tx:
        conn = tx.conn
        cursor = conn.execute(
            "SELECT key, value FROM meta WHERE key LIKE ? ORDER BY key", ("row %",)
        )
        assert [tuple(r) for r in cursor] == [("row 0", "0"), ("row 1", "1"), ("row 2", "2")]
        row = conn.execute("SELECT value FROM meta WHERE key = ?", ("probe 50%",)).fetchone()
        assert row[0] == "it's ?"
        assert conn.execute("SELECT count(*) FROM meta WHERE key LIKE 'row%'").fetchone()[0] == 3
        changed = conn.execute("UPDATE meta SET value = ? WHERE key LIKE ?", ("x", "row %"))
        assert changed.rowcount == 3
        assert conn.execute("SELECT 1 WHERE 1 = 0").fetchall() == []
        same = conn.execute("SELECT ?1 || ?2 || ?1", ("a", "b")).fetchone()
        assert same[0] == "aba"


def _twice(store: Store) -> None:
    with store.writing("probe") as tx:
        tx.conn.execute("INSERT INTO meta (key, value) VALUES (?, ?)", ("half", "1"))
        tx.conn.execute("INSERT INTO meta (key, value) VALUES (?, ?)", ("half", "2"))


def _given_up(store: Store, then: object) -> None:
    with store.writing("probe") as tx:
        tx.conn.execute("INSERT INTO meta (key, value) VALUES (?, ?)", ("half", "1"))
        if callable(then):
            then(tx)
        raise RuntimeError("the caller gave up")


def _meta(store: Store, key: str) -> str | None:
    with store.reading("probe") as reader:
        row = reader.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return None if row is None else str(row[0])


def test_a_failed_write_transaction_leaves_nothing(target: str) -> None:  # noqa: F811
    with Store(target) as store:
        with pytest.raises(StoreDatabaseError):
            _twice(store)
        with pytest.raises(RuntimeError):
            _given_up(store, None)
        assert _meta(store, "half") is None
        with store.writing("probe") as tx:  # the connection is usable again
            tx.conn.execute("INSERT INTO meta (key, value) VALUES (?, ?)", ("whole", "1"))
        assert _meta(store, "whole") == "1"


def test_library_writes_on_pg_are_serialised_by_the_advisory_lock(pg_url: str) -> None:  # noqa: F811
    """A second store (another host, as far as the database knows) waits for the first."""
    with Store(pg_url) as first, Store(pg_url) as second:
        entered = threading.Event()
        order: list[str] = []

        def other() -> None:
            entered.set()
            with second.writing("probe"):
                order.append("second")

        with first.writing("probe"):
            worker = threading.Thread(target=other)
            worker.start()
            entered.wait(timeout=30)
            probe = second._backend._open_pool("probe")  # type: ignore[attr-defined]
            with probe.read("probe") as watcher:  # the second writer is waiting on our lock
                for _ in range(600):
                    waits = watcher.execute(
                        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
                    ).fetchone()
                    if waits and waits[0] >= 1:
                        break
                    threading.Event().wait(0.05)
                else:
                    pytest.fail("the second writer never waited for the advisory lock")
            order.append("first")
        worker.join(timeout=30)
        assert order == ["first", "second"]


def _schema_set(tx: Tx, schema: str) -> None:
    tx.audit("section_schema_set", actor="operator", data={"schema": schema})


def test_tx_audit_on_pg_commits_with_the_change_or_not_at_all(pg_url: str) -> None:  # noqa: F811
    with Store(pg_url) as store:
        with store.writing("probe") as tx:
            tx.conn.execute("INSERT INTO meta (key, value) VALUES ('k', 'v')")
            _schema_set(tx, "x")
        with pytest.raises(RuntimeError):
            _given_up(store, lambda tx: _schema_set(tx, "y"))
        with store.writing("probe", durable=False) as tx:  # an entry alone, not flushed
            _schema_set(tx, "z")
        entries = store.read_audit()
        assert [e["data"]["schema"] for e in entries] == ["x", "z"]
        assert store.verify_audit().valid


def test_an_upgrade_from_the_first_pg_schema_keeps_the_baton(pg_url: str) -> None:  # noqa: F811
    import psycopg
    from anneal_memory import baton_status
    from anneal_memory.audit._chain import GENESIS_HASH
    from anneal_memory.store.postgres._schema import PG_MIGRATIONS, PG_SCHEMA_VERSION
    from psycopg import sql

    with psycopg.connect(pg_url, autocommit=True) as raw:
        schema = pg_url.rsplit("%3D", 1)[1]
        raw.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
        with raw.transaction():
            for statement in PG_MIGRATIONS[0]:
                raw.execute(statement)
            raw.execute(
                "UPDATE baton SET requires_baton = true, holder = 'alice', epoch = 3,"
                " claimed_at = '2026-01-01T00:00:00.000Z'"
            )
            raw.execute(
                "INSERT INTO meta VALUES ('pg_schema_version', '1'), ('audit_content_salt', '00')"
            )
            raw.execute("INSERT INTO audit_tip VALUES (1, 1, %s)", (GENESIS_HASH,))
    with Store(pg_url) as store:
        status = baton_status(store)
        assert (status.consolidate_requires_baton, status.holder) == (True, "alice")
        assert store.status().schema_version == PG_SCHEMA_VERSION
        assert [e["event"] for e in store.read_audit()] == ["schema_migrated"]
        assert _meta(store, "baton_epoch") == "3"


def test_a_writer_stuck_behind_the_lock_fails_retryably_instead_of_waiting_forever(
    pg_url: str,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from anneal_memory.store.postgres import _conn

    monkeypatch.setattr(_conn, "LOCK_TIMEOUT_S", 0.2)
    with Store(pg_url) as holder, Store(pg_url) as writer:
        with holder.writing("probe"):  # a wrap holding the lock, stuck
            with pytest.raises(StoreDatabaseError) as caught:
                writer.record("waits behind the wrap", "observation")
            assert caught.value.retryable
        assert writer.recall().total_matching == 0
        assert writer.record("after the wrap", "observation").content == "after the wrap"
