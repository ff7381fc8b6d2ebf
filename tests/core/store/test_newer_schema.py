"""A store whose schema is newer than this code is refused by every open, with one message.

Item 17 of #24: read-only commands (status, stats, episodes, export, check) used to open such a
store and ``check`` called it OK; now every open, on both backends, raises
:class:`StoreVersionError` naming both versions, and every command exits 1 with that line.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest
from anneal_memory import AgentMemory, EpisodeType, Store
from anneal_memory.errors import StoreDatabaseError, StoreVersionError
from backends import pg_url, target  # noqa: F401 - fixtures
from clirun import cli_runner


def _bump(where: str) -> tuple[int, int]:
    """Make the store at ``where`` one schema version newer; (supported, found)."""
    with Store(where) as opened:
        opened.record("kept as it was", EpisodeType.OBSERVATION)
        supported = opened.status().schema_version
    if where.startswith("postgresql"):
        import psycopg

        with psycopg.connect(where, autocommit=True) as conn:
            conn.execute(
                "UPDATE meta SET value = %s WHERE key = 'pg_schema_version'",
                (str(supported + 1),),
            )
    else:
        raw = sqlite3.connect(where)
        raw.execute(f"PRAGMA user_version={supported + 1:d}")
        raw.commit()
        raw.close()
    return supported, supported + 1


def _message(supported: int, found: int) -> str:
    return (
        f"has schema version {found}, newer than this anneal-memory supports ({supported}); "
        "upgrade anneal-memory to open it"
    )


@pytest.mark.parametrize("read_only", [False, True])
def test_every_library_open_refuses_a_newer_store(target: str, read_only: bool) -> None:  # noqa: F811
    supported, found = _bump(target)
    with pytest.raises(StoreVersionError, match=re.escape(_message(supported, found))) as caught:
        Store(target, read_only=read_only)
    assert isinstance(caught.value, StoreDatabaseError)
    assert (caught.value.found, caught.value.supported) == (found, supported)


def test_agent_memory_refuses_a_newer_store(target: str) -> None:  # noqa: F811
    supported, found = _bump(target)
    with pytest.raises(StoreVersionError, match=re.escape(_message(supported, found))):
        AgentMemory(Store(target))


COMMANDS = [
    ("status",),
    ("stats",),
    ("episodes",),
    ("export", "-o", "out.json"),
    ("recall", "kept"),
    ("continuity",),
    ("migrate",),
    ("record", "one more"),
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_every_command_refuses_a_newer_store(
    target: str,  # noqa: F811
    tmp_path: Path,
    command: tuple[str, ...],
) -> None:
    supported, found = _bump(target)
    run = cli_runner(tmp_path, Path(target), in_process=True)
    result = run("--db", target, *command, db=False)
    err = result.assert_error(1)
    assert _message(supported, found) in err + result.out
    assert "OK" not in result.out
    assert not (tmp_path / "out.json").exists()


def test_check_names_the_newer_schema(target: str, tmp_path: Path) -> None:  # noqa: F811
    supported, found = _bump(target)
    run = cli_runner(tmp_path, Path(target), in_process=True)
    report = run("--db", target, "--json", "check", db=False)
    assert report.code == 1
    problems = report.json()["problems"]
    assert [p["code"] for p in problems] == ["schema-newer"]
    assert _message(supported, found) in problems[0]["message"]


def test_serve_refuses_a_newer_sqlite_store_before_serving(tmp_path: Path) -> None:
    db = tmp_path / "agent" / "memory.db"
    supported, found = _bump(str(db))
    run = cli_runner(tmp_path, db, in_process=True)
    result = run("serve", "--skip-integrity", stdin="")
    assert _message(supported, found) in result.assert_error(1)


def test_refuse_newer_schema_checks_only_the_version(tmp_path: Path) -> None:
    # Issue #25: the server's pre-check without the Store facade; it raises exactly where a
    # read-only open raises StoreVersionError and leaves every other problem to that open.
    from anneal_memory.store import refuse_newer_schema

    refuse_newer_schema(tmp_path / "missing.db")  # no file: nothing to refuse
    (tmp_path / "other.db").write_bytes(b"not a database at all" * 100)
    refuse_newer_schema(tmp_path / "other.db")  # not a store: the open reports it
    current = tmp_path / "current.db"
    Store(current).close()
    refuse_newer_schema(current)
    older = tmp_path / "older.db"
    Store(older).close()
    raw = sqlite3.connect(older)
    raw.execute("PRAGMA user_version=1")
    raw.commit()
    raw.close()
    refuse_newer_schema(older)  # older: the write-capable open migrates it
    newer = tmp_path / "newer.db"
    supported, found = _bump(str(newer))
    before = newer.read_bytes()
    with pytest.raises(StoreVersionError, match=re.escape(_message(supported, found))):
        refuse_newer_schema(newer)
    assert newer.read_bytes() == before  # read only: nothing written
