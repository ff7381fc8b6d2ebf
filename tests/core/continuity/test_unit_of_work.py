"""The wrap enters the store as few times as its steps need, and decides the gate in its writes.

SQLite's statement trace shows the transactions: a prepare is one ``BEGIN IMMEDIATE`` ...
``COMMIT`` holding every statement it runs (the gate's decision included); a save reads,
then writes once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from anneal_memory import (
    Store,
    StoreDatabaseError,
    claim_baton,
    prepare_wrap,
    set_consolidate_policy,
    validated_save_continuity,
)
from anneal_memory.associations import associations
from anneal_memory.continuity import wrap_history
from anneal_memory.crystal import list_crystals
from anneal_memory.spores import list_spores
from anneal_memory.testing import demo_compress


@pytest.fixture
def gated(store: Store) -> Store:
    set_consolidate_policy(store, True)
    claim_baton(store, "holder")
    for i in range(3):
        store.record(f"The connection pool ran out of sockets under load, run {i}", "observation")
    return store


@pytest.fixture
def statements(gated: Store) -> Iterator[list[str]]:
    seen: list[str] = []

    def trace(sql: str) -> None:
        # A prepare commits without its own fsync (the safety level is set around it).
        if not sql.startswith("PRAGMA synchronous"):
            seen.append(sql)

    with gated.reading("test") as reader:
        reader.conn.set_trace_callback(trace)
    yield seen
    with gated.reading("test") as reader:
        reader.conn.set_trace_callback(None)


def _gate_reads(seen: list[str]) -> list[int]:
    return [i for i, sql in enumerate(seen) if "'baton_holder'" in sql and sql.startswith("SELECT")]


@pytest.mark.sqlite_only(reason="reads SQLite's statement trace")
def test_prepare_is_one_transaction_holding_the_gate_decision(
    gated: Store, statements: list[str]
) -> None:
    prepared = prepare_wrap(gated, session_id="holder")
    assert prepared.status == "ready"
    assert statements[0] == "BEGIN IMMEDIATE"
    assert statements[-1] == "COMMIT"
    assert statements.count("BEGIN IMMEDIATE") == 1
    assert _gate_reads(statements)  # the decision is read inside that transaction
    assert any(sql.startswith("INSERT INTO wraps") for sql in statements)


@pytest.mark.sqlite_only(reason="reads SQLite's statement trace")
def test_a_downgraded_prepare_writes_nothing(gated: Store, statements: list[str]) -> None:
    prepared = prepare_wrap(gated, session_id="someone-else")
    assert prepared.status == "downgraded"
    assert statements[0] == "BEGIN IMMEDIATE"
    assert statements[-1] == "COMMIT"
    assert [s for s in statements if s.startswith(("INSERT", "UPDATE", "DELETE"))] == []


@pytest.mark.sqlite_only(reason="reads SQLite's statement trace")
def test_a_save_reads_then_writes_once(gated: Store, statements: list[str]) -> None:
    prepared = prepare_wrap(gated, session_id="holder")
    statements.clear()
    text = demo_compress(prepared.text or "")
    validated_save_continuity(gated, text, wrap_token=prepared.wrap_token, session_id="holder")
    begin = statements.index("BEGIN IMMEDIATE")
    assert statements.count("BEGIN IMMEDIATE") == 1
    assert statements[-1] == "COMMIT"
    # Read before the transaction (the gate's first check), then re-checked inside it.
    assert [i < begin for i in _gate_reads(statements)] == [True, False]
    assert all(s.startswith("SELECT") for s in statements[:begin])


@pytest.mark.sqlite_only(reason="reads SQLite's statement trace")
def test_a_save_reads_its_snapshot_episodes_once(gated: Store, statements: list[str]) -> None:
    """Text, replacement, trust and sources of the snapshot come from one read (#25)."""
    prepared = prepare_wrap(gated, session_id="holder")
    statements.clear()
    text = demo_compress(prepared.text or "")
    validated_save_continuity(gated, text, wrap_token=prepared.wrap_token, session_id="holder")
    reads = [s for s in statements if s.startswith("SELECT") and "FROM episodes" in s]
    assert len([s for s in reads if s.startswith("SELECT id") and "seq >" in s]) == 1
    assert [s for s in reads if "WHERE id IN" in s] == []


def test_a_read_only_store_still_reports_the_gates_downgrade(gated: Store, target: str) -> None:
    with Store(target, read_only=True) as reader:
        assert prepare_wrap(reader, session_id="someone-else").status == "downgraded"
        with pytest.raises(StoreDatabaseError):
            prepare_wrap(reader, session_id="holder")


@pytest.mark.parametrize(
    ("tables", "read"),
    [
        (("crystal_evidence", "crystals"), list_crystals),
        (("spore_notes", "spores"), list_spores),
        (("associations",), associations),
        (("pattern_history", "associations", "wraps"), wrap_history),
    ],
)
def test_reads_of_the_rooms_raise_the_documented_error(
    store: Store, tables: tuple[str, ...], read: Callable[[Store], object]
) -> None:
    with store.writing("test") as tx:
        for table in tables:
            tx.conn.execute(f"DROP TABLE {table}")
    with pytest.raises(StoreDatabaseError):
        read(store)
