"""A record appends its committed entry without reading the outbox back; nothing is lost."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from anneal_memory import Store
from anneal_memory.audit import AuditPaths, AuditTrail, iter_entries


def _outbox_reads(store: Store) -> list[str]:
    reads: list[str] = []
    with store.reading("test") as reader:
        conn = reader.conn  # SQLite's own connection: it can trace statements

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
    store.record("before", "observation")
    manifest = AuditPaths.for_db(db_path).manifest
    kept = manifest.read_bytes()
    manifest.write_text("{corrupt", encoding="utf-8")  # the append after the commit fails
    with store.writing("test") as tx:
        tx.audit("delete", actor="agent", data={"episode_id": "cafebabe"})
    manifest.write_bytes(kept)
    # Not appended (as if another process died after its commit); the record that follows
    # carries only its own entry, which is not the next the trail needs.
    episode = store.record("after the crash", "observation")
    store.close()
    entries = list(iter_entries(db_path))
    assert [e["event"] for e in entries][-2:] == ["delete", "record"]
    assert entries[-1]["data"]["episode_id"] == episode.id
    result = AuditTrail.verify(db_path)
    assert result.valid
    assert (result.pending_entries, result.missing_entries, result.repeated_entries) == (0, 0, 0)


def _stage_then_fail(store: Store, staged: list[object]) -> None:
    with store.writing("test") as tx:
        tx.audit("delete", actor="agent", data={"episode_id": "deadbeef"})
        staged += tx.staged
        raise RuntimeError("the change fails after staging its entry")


def test_an_entry_staged_in_a_rolled_back_transaction_never_reaches_the_trail(db_path: Path):
    store = Store(db_path)
    staged: list[object] = []
    with pytest.raises(RuntimeError, match="after staging"):
        _stage_then_fail(store, staged)
    assert staged
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
        with store.reading("test") as reader:
            row = reader.conn.execute(
                "SELECT id, event, actor, data FROM audit_outbox ORDER BY id DESC"
            )
            ident, event, actor, data = row.fetchone()
    entry = next(e for e in iter_entries(db_path) if e.get("intent") == ident)
    assert (entry["event"], entry["actor"], entry["data"]) == (event, actor, json.loads(data))


def test_the_outbox_keeps_only_a_few_appended_rows(store: Store):
    for i in range(100):
        store.record(f"note {i}", "observation")
    with store.reading("test") as reader:
        rows = reader.conn.execute("SELECT count(*) FROM audit_outbox").fetchone()[0]
    assert 1 <= rows <= 9  # deleted in batches of 8; the newest appended row always stays
    assert AuditTrail.verify(store.path).pending_entries == 0


def test_a_non_durable_write_is_flushed_to_disk_before_the_trail_gets_its_entry(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
):
    import os

    wal = db_path.with_name(db_path.name + "-wal")
    log_syncs: list[str] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        found, log = os.fstat(fd), wal.stat()
        if (found.st_dev, found.st_ino) == (log.st_dev, log.st_ino):
            log_syncs.append("wal")
        real_fsync(fd)

    with Store(db_path) as store:
        store.record("warm up", "observation")
        monkeypatch.setattr(os, "fsync", fsync)
        with store.writing("test", durable=False) as tx:  # no entry: harmless to lose
            tx.conn.execute("INSERT INTO meta (key, value) VALUES ('probe', '1')")
        assert log_syncs == []
        with store.writing("test", durable=False) as tx:  # the trail gets an entry
            tx.audit("section_schema_set", actor="operator", data={"schema": "x"})
        assert log_syncs == ["wal"]
        assert [e["event"] for e in iter_entries(db_path)][-1] == "section_schema_set"
    assert AuditTrail.verify(db_path).pending_entries == 0


def test_the_entries_of_one_write_reach_the_disk_with_one_flush(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
):
    import os

    from anneal_memory.audit import _trail

    active = AuditPaths.for_db(db_path).active
    trail_syncs: list[int] = []
    real = _trail._fdatasync

    def fdatasync(fd: int) -> None:  # the OS call, counted for the trail's file
        if os.fstat(fd).st_ino == active.stat().st_ino:
            trail_syncs.append(fd)
        real(fd)

    with Store(db_path) as store:
        store.record("warm up", "observation")
        monkeypatch.setattr(_trail, "_fdatasync", fdatasync)
        with store.writing("test") as tx:
            for name in ("default", "project", "partnership"):
                tx.audit("section_schema_set", actor="operator", data={"schema": name})
        assert len(trail_syncs) == 1  # after the third line: each counts once it is on disk
        store.record("one more", "observation")
        assert len(trail_syncs) == 2
    events = [e["event"] for e in iter_entries(db_path)]
    assert events[-4:] == ["section_schema_set"] * 3 + ["record"]
    result = AuditTrail.verify(db_path)
    assert result.valid
    assert result.pending_entries == 0
    assert result.complete
