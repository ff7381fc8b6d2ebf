"""A record reuses the redaction settings it read last, and never a policy that changed.

Issue #25: a record no longer reads the settings from ``meta`` each time. The settings are
checked inside the record's transaction (``Dialect.data_version`` on SQLite; PostgreSQL
reads them there every time), so a policy another process set, or this store set, applies
to the very next record, on both backends.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import pytest
from anneal_memory import Store
from anneal_memory.errors import SecretRefusedError
from backends import backend_store, pg_url, target  # noqa: F401 - fixtures

KEY = "AKIAIOSFODNN7EXAMPLE"
NOTE = f"deploy used {KEY}"
MARKER = "[redacted:aws-access-key]"


@pytest.fixture
def store(backend_store: Store) -> Store:  # noqa: F811
    return backend_store


def _set_elsewhere(where: str, policy: str) -> None:
    """Another process changes the policy (its own connection, its own commit)."""
    code = "import sys; from anneal_memory import Store\n"
    code += "with Store(sys.argv[1]) as s: s.set_redaction(sys.argv[2])"
    subprocess.run([sys.executable, "-c", code, where, policy], check=True, timeout=120)


@pytest.mark.e2e
def test_a_policy_set_by_another_process_applies_to_the_next_record(
    store: Store,
    target: str,  # noqa: F811
) -> None:
    assert store.record(NOTE, "observation").content == f"deploy used {MARKER}"
    _set_elsewhere(target, "off")
    assert store.record(NOTE, "observation").content == NOTE
    _set_elsewhere(target, "refuse")
    with pytest.raises(SecretRefusedError):
        store.record(NOTE, "observation")
    assert store.recall(keyword="deploy").total_matching == 2  # the refused one wrote nothing
    _set_elsewhere(target, "redact")
    assert store.record(NOTE, "observation").content == f"deploy used {MARKER}"


def test_a_policy_set_by_another_store_object_applies_to_the_next_record(
    store: Store,
    target: str,  # noqa: F811
) -> None:
    store.record("warm the cache", "observation")
    with Store(target) as other:
        other.set_redaction("off")
        assert store.record(NOTE, "observation").content == NOTE
        other.set_redaction("refuse")
        with pytest.raises(SecretRefusedError):
            store.record(NOTE, "observation")
        store.set_redaction("redact")  # this store's own change, then the other's record
        assert other.record(NOTE, "observation").content == f"deploy used {MARKER}"
    assert store.record(NOTE, "observation").content == f"deploy used {MARKER}"


def test_this_stores_own_change_applies_at_once(store: Store) -> None:
    store.record(NOTE, "observation")
    store.set_redaction("off")
    assert store.record(NOTE, "observation").content == NOTE
    store.set_redaction("refuse", personal=True)
    with pytest.raises(SecretRefusedError):
        store.record(NOTE, "observation")
    store.set_redaction("redact")
    assert store.record("mail me at ann@example.com", "observation").content == (
        "mail me at [redacted:email]"
    )


@pytest.fixture
def statements(store: Store) -> Iterator[list[str]]:
    seen: list[str] = []
    with store.reading("test") as reader:
        reader.conn.set_trace_callback(seen.append)  # type: ignore[attr-defined]
    yield seen
    with store.reading("test") as reader:
        reader.conn.set_trace_callback(None)  # type: ignore[attr-defined]


@pytest.mark.sqlite_only(reason="reads SQLite's statement trace")
def test_a_record_reads_no_settings_while_nobody_changed_them(
    store: Store, statements: list[str]
) -> None:
    store.record("the first record reads them", "observation")
    assert any("redaction_policy" in sql for sql in statements)
    statements.clear()
    store.record("the second one does not", "observation")
    assert not any("redaction_" in sql for sql in statements), statements
    assert statements[0] == "BEGIN IMMEDIATE"  # nothing outside the record's transaction
