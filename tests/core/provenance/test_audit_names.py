"""Names in the audit trail: a non-plain actor or session id is written as its salted hash,
the same on SQLite (the JSONL trail) and PostgreSQL (the audit rows), by one implementation.

The tests run on SQLite and on PostgreSQL (``tests/backends.py``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from anneal_memory import Store
from anneal_memory.gate import claim_baton

sys.path.insert(0, str(Path(__file__).parents[2]))

from backends import audit_entries, backend_store, pg_url, store_on_both_backends, target  # noqa: F401


@pytest.mark.parametrize("name", ["Alice-Smith", "alice smith", "sk-12345", "x" * 40])
def test_a_non_plain_actor_is_hashed_on_every_backend(store: Store, name: str) -> None:
    store.record("a note", "observation", source=name)
    [entry] = audit_entries(store, "record")
    assert entry["actor"].startswith("hmac-sha256:")
    assert name not in str(entry)


def test_a_plain_actor_stays_as_it_is(store: Store) -> None:
    store.record("a note", "observation", source="langgraph")
    [entry] = audit_entries(store, "record")
    assert entry["actor"] == "langgraph"


def test_the_same_name_hashes_the_same_within_a_store(store: Store) -> None:
    store.record("one", "observation", source="Alice-Smith")
    store.record("two", "observation", source="Alice-Smith")
    store.record("three", "observation", source="Bob-Jones")
    actors = [e["actor"] for e in audit_entries(store, "record")]
    assert actors[0] == actors[1] != actors[2]


def test_session_ids_in_data_are_hashed_on_every_backend(store: Store) -> None:
    claim_baton(store, "Session-Of-Alice")
    entries = [e for e in audit_entries(store) if e["event"].startswith("baton")]
    assert entries
    assert "Session-Of-Alice" not in str(entries)
