"""Which backend a target names, and URLs shown without their passwords."""

from __future__ import annotations

import pytest
from anneal_memory.store._target import database_url, is_database_url, redact_url


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("postgresql://h/db", True),
        ("POSTGRES://h/db", True),
        ("postgresql:///db?host=/run/pg", True),
        ("/tmp/memory.db", False),
        ("postgresql.db", False),
        (None, False),
    ],
)
def test_is_database_url(target: object, expected: bool) -> None:
    assert is_database_url(target) is expected


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("postgresql://bob:s3cret@db.example:5432/mem", "postgresql://bob@db.example:5432/mem"),
        ("postgres://:pw@h/x", "postgres://h/x"),
        ("postgresql://db/mem?password=zz&user=a", "postgresql://db/mem?password=***&user=a"),
        (
            "postgresql:///anneal_test?host=/tmp/pg&port=5432",
            "postgresql:///anneal_test?host=/tmp/pg&port=5432",
        ),
    ],
)
def test_redact_url_never_shows_a_password(url: str, shown: str) -> None:
    assert redact_url(url) == shown
    assert "s3cret" not in redact_url(url)


def test_database_url_prefers_the_flag_over_the_environment() -> None:
    assert database_url("postgresql://a/b", "/tmp/x.db") == "postgresql://a/b"
    assert database_url(None, "postgresql://a/b") == "postgresql://a/b"
    assert database_url("/tmp/x.db", "postgresql://a/b") is None
    assert database_url(None, None) is None


def test_an_unreachable_server_is_a_store_error_without_the_password() -> None:
    pytest.importorskip("psycopg")
    from anneal_memory import Store
    from anneal_memory.errors import StoreDatabaseError

    with pytest.raises(StoreDatabaseError) as caught:
        Store("postgresql://bob:s3cret@127.0.0.1:1/fleet?connect_timeout=5")
    assert "s3cret" not in str(caught.value)
    assert "postgresql://bob@127.0.0.1:1/fleet" in str(caught.value)
    assert caught.value.operation == "open"
