"""AgentMemory's failure policy: a failing store or model never fails the caller's run.

Real failures only: a second SQLite connection holding the write lock, a directory where the
continuity file must be written, a compressor that raises.
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
from collections.abc import Iterator

import pytest
from anneal_memory import AgentMemory, Store, StoreDatabaseError, WrapOutcomeStatus

SESSION = "failure-session"


def _busy_timeout(store: Store, ms: int) -> None:
    with store.reading("test") as reader:
        reader.conn.execute(f"PRAGMA busy_timeout = {int(ms)}")


@contextlib.contextmanager
def write_locked(store: Store) -> Iterator[None]:
    """Hold the store's write lock from a second connection; the store waits only briefly."""
    _busy_timeout(store, 20)
    other = sqlite3.connect(store.path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        yield
    finally:
        other.execute("ROLLBACK")
        other.close()
        _busy_timeout(store, 5000)


def test_a_locked_store_queues_the_record_and_writes_it_later(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    memory = AgentMemory(store, session_id=SESSION)
    with write_locked(store), caplog.at_level(logging.WARNING, logger="anneal_memory"):
        assert memory.record_tool_result("lookup", "port 6543") is None
        assert memory.record_answer("Port 6543.") is None
        assert memory.offloop.pending >= 1
    assert memory.failures.total == 0  # queued, not lost
    assert [r.name for r in caplog.records] == ["anneal_memory", "anneal_memory"]
    assert "the record is queued" in caplog.records[0].getMessage()
    assert memory.offloop.drain(60)
    contents = sorted(e.content for e in store.recall(limit=10).episodes)
    assert contents == ["Port 6543.", "lookup -> port 6543"]
    # Queued means recorded: the same result again is this session's duplicate.
    assert memory.record_tool_result("lookup", "port 6543") is None


def test_a_locked_store_raises_when_strict(store: Store) -> None:
    memory = AgentMemory(store, session_id=SESSION, strict=True)
    with write_locked(store), pytest.raises(StoreDatabaseError):
        memory.record_tool_result("lookup", "port 6543")


def test_a_locked_store_fails_the_wrap_not_the_caller(store: Store) -> None:
    memory = AgentMemory(store, session_id=SESSION)
    memory.record("The staging database listens on port 6543.")
    asked: list[str] = []
    with write_locked(store):
        outcome = memory.wrap(lambda package: asked.append(package) or "")
    assert outcome.status is WrapOutcomeStatus.FAILED
    assert "StoreDatabaseError" in outcome.message
    assert memory.failures.wrap == 1
    assert asked == []


def test_an_unwritable_continuity_fails_start_and_wrap_softly(store: Store) -> None:
    store.sidecar(".continuity.md").mkdir()  # the file cannot be read or replaced
    memory = AgentMemory(store, session_id=SESSION)
    assert memory.start() == ""
    assert memory.turn_context("staging port?", turn=1) == ""
    memory.record("The staging database listens on port 6543.")
    outcome = memory.wrap(lambda package: "# TestAgent — Memory (v1)\n\n## State\n- ok\n")
    assert outcome.status is WrapOutcomeStatus.FAILED
    assert memory.failures.recall >= 2
    assert memory.failures.wrap == 1


def test_a_failing_recall_returns_no_block(store: Store) -> None:
    memory = AgentMemory(store, session_id=SESSION)
    memory.record("The staging database listens on port 6543.")
    store.close()
    assert memory.context_for("staging database port") == ""
    assert memory.failures.recall == 1
    assert memory.failures.last is not None
    assert memory.failures.last.operation == "context_for"


def test_caller_mistakes_still_raise(store: Store) -> None:
    memory = AgentMemory(store, session_id=SESSION)
    with pytest.raises(ValueError, match="text must be str"):
        memory.record(b"bytes")  # type: ignore[arg-type]
    assert memory.failures.total == 0
