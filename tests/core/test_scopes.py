"""Scopes: one store holds the memories of several users / threads / agents side by side.

The tests taking ``store`` run on SQLite and on PostgreSQL (``tests/backends.py``).
"""

from __future__ import annotations

import contextlib
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from anneal_memory import (
    AgentMemory,
    EpisodeType,
    InvalidEpisodeError,
    InvalidQueryError,
    Store,
)
from anneal_memory.store.sqlite._schema import SCHEMA_VERSION
from anneal_memory.testing import FrozenClock

sys.path.insert(0, str(Path(__file__).parents[1]))

from backends import pg_url, target  # noqa: F401 - fixtures


@pytest.fixture
def store(target: str, clock: FrozenClock) -> Iterator[Store]:  # noqa: F811
    with Store(target, project_name="TestAgent", clock=clock) as opened:
        yield opened


@pytest.fixture
def sqlite_store(db_path: Path, clock: FrozenClock) -> Iterator[Store]:
    with Store(db_path, project_name="TestAgent", clock=clock) as opened:
        yield opened


FACT = "The staging database listens on port {port}."


def _contents(store: Store, **filters: object) -> list[str]:
    found = store.recall("staging database port", **filters)  # type: ignore[arg-type]
    return sorted(e.content for e in found.episodes)


def test_recall_in_a_scope_finds_only_that_scope(store: Store) -> None:
    store.record(FACT.format(port=1111), EpisodeType.OBSERVATION, scope="user:alice")
    store.record(FACT.format(port=2222), EpisodeType.OBSERVATION, scope="user:bob")
    store.record(FACT.format(port=3333), EpisodeType.OBSERVATION)
    assert _contents(store, scope="user:alice") == [FACT.format(port=1111)]
    assert _contents(store, scope="user:bob") == [FACT.format(port=2222)]
    assert _contents(store, scope="") == [FACT.format(port=3333)]
    assert len(_contents(store)) == 3  # no scope given: every scope
    assert [e.content for e in store.recall(scope="user:alice").episodes] == [
        FACT.format(port=1111)
    ]
    assert store.recall(scope="nobody").total_matching == 0


def test_a_scope_is_a_bounded_printable_string(store: Store) -> None:
    with pytest.raises(InvalidEpisodeError, match="scope"):
        store.record("x", EpisodeType.OBSERVATION, scope="a\nb")
    with pytest.raises(InvalidEpisodeError, match="scope"):
        store.record("x", EpisodeType.OBSERVATION, scope="s" * 65)
    with pytest.raises(InvalidQueryError, match="scope"):
        store.recall(scope=7)  # type: ignore[arg-type]
    assert store.recall().total_matching == 0


def test_the_scope_column_comes_with_one_migration(sqlite_store: Store) -> None:
    with contextlib.closing(sqlite3.connect(sqlite_store.path)) as conn:
        columns = {row[1] for row in conn.execute("PRAGMA table_info(episodes)")}
        version = conn.execute("PRAGMA user_version").fetchone()[0]
    assert "scope" in columns
    assert version == SCHEMA_VERSION


def test_agent_memories_in_different_scopes_share_one_store(store: Store) -> None:
    alice = AgentMemory(store, scope="user:alice")
    bob = AgentMemory(store, scope="user:bob")
    everyone = AgentMemory(store)
    alice.record_tool_result("lookup", FACT.format(port=1111))
    bob.record_tool_result("lookup", FACT.format(port=2222))
    assert "1111" in alice.context_for("staging database port")
    assert "2222" not in alice.context_for("staging database port")
    assert "2222" in bob.context_for("staging database port")
    both = everyone.context_for("staging database port")
    assert "1111" in both
    assert "2222" in both
    # A call may name another scope; the same text in two scopes is two episodes.
    assert everyone.record_tool_result("lookup", "x", scope="user:carol") is not None
    assert everyone.record_tool_result("lookup", "x", scope="user:dave") is not None
    assert "2222" in alice.context_for("staging database port", scope="user:bob")


def test_turn_blocks_are_kept_per_scope(store: Store) -> None:
    memory = AgentMemory(store)
    memory.record(FACT.format(port=1111), scope="a")
    memory.record(FACT.format(port=2222), scope="b")
    assert "1111" in memory.turn_context("staging database port", turn=1, scope="a")
    assert "2222" in memory.turn_context("staging database port", turn=1, scope="b")
