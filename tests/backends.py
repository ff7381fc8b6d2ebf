"""Both store backends for the shared contract suite: SQLite files and PostgreSQL schemas.

PostgreSQL tests need ``ANNEAL_TEST_PG_URL`` (``.ci/run`` starts a throwaway cluster and
exports it; ``.ci/pg-cluster start DIR`` does the same by hand). Without it they are skipped,
unless ``ANNEAL_REQUIRE_PG=1`` (CI), where a missing database fails them. Each test gets a
schema of its own (``search_path`` in the URL), dropped afterwards.
"""

from __future__ import annotations

import os
import urllib.parse
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

PG_ENV = "ANNEAL_TEST_PG_URL"
BACKENDS = ("sqlite", "postgresql")


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


@pytest.fixture(params=BACKENDS)
def target(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """What ``Store(...)`` opens: a SQLite path or a PostgreSQL URL."""
    if request.param == "sqlite":
        return str(tmp_path / "agent" / "memory.db")
    return str(request.getfixturevalue("pg_url"))


def audit_events(store: object) -> list[dict[str, object]]:
    """Every audit entry of an open store, oldest first: the trail file or the database's."""
    read = getattr(store, "read_audit", None)
    if read is not None:
        return list(read())
    import json

    trail = store.sidecar(".audit.jsonl")  # type: ignore[attr-defined]
    return [json.loads(line) for line in trail.read_text(encoding="utf-8").splitlines()]
