"""Scopes meet updated facts and deletion: a scope's state keys, links, sources and deletes
never reach another scope's episodes (a scope-bound agent cannot hide, replace, probe or
delete another user's memory).

The tests run on SQLite and on PostgreSQL (``tests/backends.py``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from anneal_memory import Store
from anneal_memory.errors import InvalidEpisodeError, SupersessionError
from anneal_memory.mcp import McpServer, ServerConfig

sys.path.insert(0, str(Path(__file__).parents[2]))

from backends import backend_store, pg_url, store_on_both_backends, target  # noqa: F401
from mcp_calls import call_tool as _call

ALICE, BOB = "user:alice", "user:bob"


def test_each_scope_keeps_its_own_value_of_a_state_key(store: Store) -> None:
    alice = store.record("Home city: Porto", "context", state_key="user.city", scope=ALICE)
    bob = store.record("Home city: Oslo", "context", state_key="user.city", scope=BOB)
    assert store.get(alice.id).superseded_by is None  # type: ignore[union-attr]
    assert [e.id for e in store.recall("home city", scope=ALICE).episodes] == [alice.id]
    slots = {(s.scope, s.current) for s in store.state_key_report("user.city")}
    assert slots == {(ALICE, (alice.id,)), (BOB, (bob.id,))}
    newer = store.record("Home city: Lisbon", "context", state_key="user.city", scope=ALICE)
    assert store.get(alice.id).superseded_by == newer.id  # type: ignore[union-attr]
    assert store.get(bob.id).superseded_by is None  # type: ignore[union-attr]
    store.delete(newer.id)
    assert store.get(alice.id).superseded_by is None  # type: ignore[union-attr]
    assert store.get(bob.id).superseded_by is None  # type: ignore[union-attr]


def test_a_link_across_scopes_is_refused(store: Store) -> None:
    alice = store.record("Alice's invoice 4711 is overdue", "observation", scope=ALICE)
    with pytest.raises(SupersessionError, match="another scope"):
        store.record("Invoice 4711 is paid now", "observation", supersedes=[alice.id], scope=BOB)
    bob = store.record("Invoice 4711 is overdue, says Bob", "observation", scope=BOB)
    with pytest.raises(SupersessionError, match="another scope"):
        store.supersede(alice.id, bob.id)
    assert store.get(alice.id).superseded_by is None  # type: ignore[union-attr]


def test_a_source_in_another_scope_is_refused(store: Store) -> None:
    alice = store.record("Alice's note", "observation", scope=ALICE)
    with pytest.raises(InvalidEpisodeError, match="another scope"):
        store.record("derived", "observation", derived_from=[alice.id], scope=BOB)


def test_a_scope_bound_mcp_server_cannot_read_or_delete_another_scope(
    store: Store,
    target: str,  # noqa: F811
    tmp_path: Path,
) -> None:
    alice = store.record("Alice's invoice 4711 is overdue", "observation", scope=ALICE)
    where = tmp_path / "unused.db" if "://" in target else Path(target)
    bob = McpServer(ServerConfig(db_path=where, session_id="s", scope=BOB), store=store)
    text, is_error = _call(bob, "get", episode_id=alice.id)
    assert is_error
    assert "4711" not in text
    text, is_error = _call(bob, "delete_episode", episode_id=alice.id)
    assert is_error
    assert store.get(alice.id) is not None
    shared = McpServer(ServerConfig(db_path=where, session_id="s"), store=store)
    text, is_error = _call(shared, "get", episode_id=alice.id)
    assert not is_error
    assert "4711" in text
