"""Both store backends for the shared contract suite: SQLite files and PostgreSQL schemas.

PostgreSQL tests need ``ANNEAL_TEST_PG_URL`` (``.ci/run`` starts a throwaway cluster and
exports it; ``.ci/pg-cluster start DIR`` does the same by hand). Without it they are skipped,
unless ``ANNEAL_REQUIRE_PG=1`` (CI), where a missing database fails them. Each test gets a
schema of its own (``search_path`` in the URL), dropped afterwards.
"""

from __future__ import annotations

import importlib.util
import os
import urllib.parse
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from anneal_memory import Store
from anneal_memory.testing import FrozenClock

PG_ENV = "ANNEAL_TEST_PG_URL"
UNREACHABLE = (
    "PostgreSQL failed during open"
    if importlib.util.find_spec("psycopg")
    else "install the PostgreSQL extra"
)
"""What opening an unreachable URL says: the driver's failure, or the extra to install."""
PG_FIXTURE = "pg_url"
"""A test that takes this fixture (or the ``postgresql`` param of ``target``) runs on PostgreSQL."""


def pg_base_url() -> str:
    url = os.environ.get(PG_ENV)
    if not url:
        if os.environ.get("ANNEAL_REQUIRE_PG") == "1":
            pytest.fail(f"{PG_ENV} is not set but ANNEAL_REQUIRE_PG=1")
        pytest.skip(f"PostgreSQL tests need {PG_ENV} (see .ci/pg-cluster)")
    return url


def with_schema(url: str, schema: str) -> str:
    options = urllib.parse.quote(f"-csearch_path={schema}")
    return f"{url}{'&' if '?' in url else '?'}options={options}"


def drop_schema(url: str, schema: str) -> None:
    import psycopg
    from psycopg import sql

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A PostgreSQL URL whose tables land in a fresh schema, dropped after the test."""
    base = pg_base_url()
    schema = f"t_{uuid.uuid4().hex[:12]}"
    yield with_schema(base, schema)
    drop_schema(base, schema)


def mark_postgresql(items: list[pytest.Item]) -> None:
    """Mark ``postgresql`` every test that takes ``pg_url`` (``target``'s param marks itself).

    The PostgreSQL tier (``pytest -m postgresql``) is therefore every test that can reach a
    PostgreSQL database, with no list of files to keep.
    """
    for item in items:
        if PG_FIXTURE in getattr(item, "fixturenames", ()):
            item.add_marker("postgresql")


@pytest.fixture(
    params=[pytest.param("sqlite"), pytest.param("postgresql", marks=pytest.mark.postgresql)]
)
def target(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """What ``Store(...)`` opens: a SQLite path or a PostgreSQL URL."""
    if request.param == "sqlite":
        return str(tmp_path / "agent" / "memory.db")
    return str(request.getfixturevalue("pg_url"))


@pytest.fixture
def backend_store(
    request: pytest.FixtureRequest, target: str, clock: FrozenClock
) -> Iterator[Store]:
    """The ``TestAgent`` store of the wrap, immune and memory suites, on each backend.

    A test marked ``sqlite_only`` (it checks files beside the database, or file locks) is
    skipped on PostgreSQL.
    """
    mark = request.node.get_closest_marker("sqlite_only")
    if mark is not None and target.startswith("postgresql"):
        pytest.skip(mark.kwargs.get("reason", "checks SQLite files beside the store"))
    with Store(target, project_name="TestAgent", clock=clock) as opened:
        yield opened


@pytest.fixture(name="store")
def store_on_both_backends(backend_store: Store) -> Store:
    """The ``store`` fixture on both backends: import it into a module whose bodies are neutral."""
    return backend_store


@pytest.fixture
def sqlite_store(db_path: Path, clock: FrozenClock) -> Iterator[Store]:
    """A SQLite store, for the tests that read its FTS5 tables or its file."""
    with Store(db_path, project_name="TestAgent", clock=clock) as opened:
        yield opened


def put_continuity(store: Store, text: str) -> None:
    """Replace the store's continuity text as a save would (its file, or its row)."""
    place = store.continuity_place()
    with place.lock():
        with store.writing("test") as tx:
            place.write(tx.conn, text, now="2026-03-02T09:00:00.000Z")
        place.committed()


def audit_entries(store: Store, event: str | None = None) -> list[dict[str, Any]]:
    """The store's audit entries, oldest first: the JSONL trail, or the PostgreSQL table."""
    from anneal_memory.audit import read_entries

    if store.url is not None:
        return store.read_audit(event=event)
    return read_entries(store.path, event=event)


def parsed_words(store: Store, text: str) -> set[str]:
    """The words the store's own full-text parser finds in ``text`` on PostgreSQL (empty on
    SQLite): "p¼" is "p" and "¼" there, "pasta²" is "pasta" and "²"."""
    if store.url is None:
        return set()
    with store.reading("test words") as reader:
        rows = reader.conn.execute(
            "SELECT unnest(tsvector_to_array(to_tsvector('simple', ?)))",
            (text.replace("\x00", " "),),
        ).fetchall()
    return {str(row[0]) for row in rows}
