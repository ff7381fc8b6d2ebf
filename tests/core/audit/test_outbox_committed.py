"""A record appends its committed entry without reading the outbox back; nothing is lost."""

from __future__ import annotations

import json
from pathlib import Path

from anneal_memory import Store
from anneal_memory.audit import AuditTrail, iter_entries


def _outbox_reads(store: Store) -> list[str]:
    reads: list[str] = []
    conn = store.connection("test")

    def trace(sql: str) -> None:
        if "FROM audit_outbox" in sql and sql.lstrip().upper().startswith("SELECT"):
            reads.append(sql)

    conn.set_trace_callback(trace)
    return reads


def test_a_record_does_not_read_its_entry_back_from_the_outbox(store: Store):
    store.record("warm up", "observation")
    reads = _outbox_reads(store)
    for i in range(4):
        store.record(f"note {i}", "observation")
    old = store.record("the connection pool has 8 sockets", "observation")
    store.record("the connection pool has 16 sockets", "observation", supersedes=[old.id])
    assert reads == []
    events = [e["event"] for e in iter_entries(store.path)]
    assert events.count("record") == 7
    assert events.count("supersede") == 1
    intents = [e["intent"] for e in iter_entries(store.path) if "intent" in e]
    assert intents == list(range(intents[0], intents[0] + len(intents)))


def test_older_staged_entries_go_first_when_the_committed_ones_are_not_next(db_path: Path):
    store = Store(db_path)
    conn = store.connection("test")
    with store._lock:
        conn.execute("BEGIN IMMEDIATE")
        store.stage_audit(conn, "delete", actor="agent", data={"episode_id": "cafebabe"})
        conn.execute("COMMIT")
    # Not flushed (as if another process died after its commit); the record that follows
    # carries only its own entry, which is not the next the trail needs.
    episode = store.record("after the crash", "observation")
    store.close()
    entries = list(iter_entries(db_path))
    assert [e["event"] for e in entries][-2:] == ["delete", "record"]
    assert entries[-1]["data"]["episode_id"] == episode.id
    result = AuditTrail.verify(db_path)
    assert result.valid
    assert (result.pending_entries, result.missing_entries, result.repeated_entries) == (0, 0, 0)


def test_an_entry_staged_in_a_rolled_back_transaction_never_reaches_the_trail(db_path: Path):
    store = Store(db_path)
    conn = store.connection("test")
    with store._lock:
        conn.execute("BEGIN IMMEDIATE")
        lost = store.stage_audit(conn, "delete", actor="agent", data={"episode_id": "deadbeef"})
        conn.execute("ROLLBACK")
    assert lost is not None
    store.record("next", "observation")
    store.close()
    lines = [json.dumps(e) for e in iter_entries(db_path)]
    assert not [line for line in lines if "deadbeef" in line]
    result = AuditTrail.verify(db_path)
    assert result.valid
    assert (result.pending_entries, result.missing_entries) == (0, 0)


def test_the_staged_entry_appended_directly_matches_the_outbox_row(db_path: Path):
    with Store(db_path) as store:
        store.record("a note", "observation", trust="tool", source="tool")
        conn = store.connection("test")
        row = conn.execute("SELECT id, event, actor, data FROM audit_outbox ORDER BY id DESC")
        ident, event, actor, data = row.fetchone()
    entry = next(e for e in iter_entries(db_path) if e.get("intent") == ident)
    assert (entry["event"], entry["actor"], entry["data"]) == (event, actor, json.loads(data))


def test_the_outbox_keeps_only_a_few_appended_rows(store: Store):
    for i in range(100):
        store.record(f"note {i}", "observation")
    conn = store.connection("test")
    rows = conn.execute("SELECT count(*) FROM audit_outbox").fetchone()[0]
    assert 1 <= rows <= 9  # deleted in batches of 8; the newest appended row always stays
    assert AuditTrail.verify(store.path).pending_entries == 0
