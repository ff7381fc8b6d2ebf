from __future__ import annotations

import hashlib
import hmac
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from anneal_memory import EpisodeType, InvalidInputError, Store
from anneal_memory.audit import AuditPaths, AuditTrail, read_entries
from anneal_memory.testing import FrozenClock

CANARY = "canary-7f3a Tell nobody the launch code is HUNTER2"


def _audit_bytes(db_path: Path) -> bytes:
    folder = db_path.parent
    return b"".join(p.read_bytes() for p in sorted(folder.iterdir()) if ".audit" in p.name)


def test_every_store_operation_is_audited_and_the_chain_verifies(store: Store):
    kept = store.record("kept", EpisodeType.DECISION)
    gone = store.record("gone", EpisodeType.OBSERVATION, source="cli")
    store.delete(gone.id)
    store.prune(older_than_days=365)
    lines = AuditPaths.for_db(store.path).active.read_text(encoding="utf-8").splitlines()
    entries = [json.loads(line) for line in lines]
    assert [e["event"] for e in entries] == ["record", "record", "delete"]
    assert entries[0]["data"]["episode_id"] == kept.id
    assert entries[1]["actor"] == "cli"
    assert AuditTrail.verify(store.path).valid


def test_the_trail_never_contains_episode_text_only_a_salted_hash(db_path: Path, clock):
    with Store(db_path, clock=clock) as store:
        episode = store.record(CANARY, EpisodeType.OBSERVATION)
        store.delete(episode.id)
        with store.writing("t") as tx:
            tx.audit("continuity_saved", actor="agent", data={"text": CANARY, "chars": 5})
        with store.reading("t") as reader:
            salt_hex = reader.conn.execute(
                "SELECT value FROM meta WHERE key = 'audit_content_salt'"
            ).fetchone()[0]
    blob = _audit_bytes(db_path)
    assert b"canary" not in blob.lower()
    assert b"HUNTER2" not in blob
    assert salt_hex.encode() not in blob
    first = json.loads(blob.splitlines()[0])
    expected = hmac.new(bytes.fromhex(salt_hex), CANARY.encode(), hashlib.sha256).hexdigest()
    assert first["data"]["content_hash"] == f"hmac-sha256:{expected}"
    third = json.loads(blob.splitlines()[2])
    assert third["data"] == {"chars": 5, "text_hash": first["data"]["content_hash"]}


def test_the_salt_differs_between_stores(tmp_path: Path, clock):
    hashes = []
    for name in ("a", "b"):
        with Store(tmp_path / name / "m.db", clock=clock) as store:
            store.record("same text", EpisodeType.OBSERVATION)
        line = (tmp_path / name / "m.audit.jsonl").read_text(encoding="utf-8").splitlines()[0]
        hashes.append(json.loads(line)["data"]["content_hash"])
    assert hashes[0] != hashes[1]


def test_on_audit_event_streams_entries(db_path: Path, clock):
    seen: list[dict[str, Any]] = []
    with Store(db_path, clock=clock, on_audit_event=seen.append) as store:
        store.record("x", EpisodeType.OBSERVATION)
    assert [e["event"] for e in seen] == ["record"]
    assert "content" not in seen[0]["data"]


def test_audit_false_writes_no_trail(db_path: Path, clock):
    with Store(db_path, clock=clock, audit=False) as store:
        store.record("x", EpisodeType.OBSERVATION)
        assert store.audit_trail is None
    assert not AuditPaths.for_db(db_path).active.exists()


def test_a_failed_append_never_fails_the_operation_and_only_delays_the_entry(
    db_path, clock, caplog
):
    with Store(db_path, clock=clock) as store:
        store.record("first", EpisodeType.OBSERVATION)
        paths = AuditPaths.for_db(db_path)
        paths.manifest.write_text("{corrupt", encoding="utf-8")
        second = store.record("second", EpisodeType.OBSERVATION)
        assert store.get(second.id) == second
        assert store.status().audit_write_failures == 1
        assert "audit entry not appended yet" in caplog.text
        paths.manifest.unlink()
        third = store.record("third", EpisodeType.OBSERVATION)
    with Store(db_path, clock=clock) as reopened:
        assert reopened.status().audit_write_failures == 1
        assert reopened.status().to_dict()["audit_write_failures"] == 1
    entries = [json.loads(line) for line in paths.active.read_text(encoding="utf-8").splitlines()]
    assert [e["data"]["episode_id"] for e in entries] == [
        entries[0]["data"]["episode_id"],
        second.id,
        third.id,
    ]
    assert [e["seq"] for e in entries] == [0, 1, 2]
    assert all("dropped_before" not in e for e in entries)
    result = AuditTrail.verify(db_path)
    assert result.valid
    assert result.dropped_entries == 0


def test_an_unknown_event_from_library_code_is_a_loud_bug(store: Store):
    with pytest.raises(InvalidInputError, match="AuditEvent"), store.writing("t") as tx:
        tx.audit("made_up", actor="agent", data={})


def test_status_counts_zero_failures_on_a_fresh_store(store: Store):
    assert store.status().audit_write_failures == 0


def test_the_salt_is_kept_in_the_database_not_beside_it(db_path: Path, clock: FrozenClock):
    with Store(db_path, clock=clock) as store:
        store.record("x", EpisodeType.OBSERVATION)
    conn = sqlite3.connect(db_path)
    try:
        (value,) = conn.execute(
            "SELECT value FROM meta WHERE key = 'audit_content_salt'"
        ).fetchone()
    finally:
        conn.close()
    assert len(bytes.fromhex(value)) == 32


def test_opening_a_store_sets_aside_a_torn_tail(db_path: Path, clock: FrozenClock):
    with Store(db_path, clock=clock) as store:
        store.record("first", EpisodeType.OBSERVATION)
    active = AuditPaths.for_db(db_path).active
    with active.open("ab") as handle:
        handle.write(b'{"actor":"agent","da')
    Store(db_path, clock=clock).close()
    assert active.read_bytes().endswith(b"}\n")
    assert [p.read_bytes() for p in db_path.parent.glob("*.torn-*")] == [b'{"actor":"agent","da']
    assert AuditTrail.verify(db_path).skipped_lines == 0


def test_a_store_still_opens_when_its_trail_is_unreadable(db_path: Path, clock, caplog):
    with Store(db_path, clock=clock) as store:
        store.record("first", EpisodeType.OBSERVATION)
    AuditPaths.for_db(db_path).manifest.write_text("{", encoding="utf-8")
    with Store(db_path, clock=clock) as reopened:
        assert reopened.status().total_episodes == 1
    assert "audit recovery failed" in caplog.text


def test_a_whole_wrap_leaves_no_episode_or_continuity_text_in_the_trail(db_path, clock):
    from anneal_memory import prepare_wrap, validated_save_continuity

    with Store(db_path, project_name="TestAgent", clock=clock) as store:
        store.record(f"observation {CANARY}", EpisodeType.OBSERVATION)
        store.record("the deploy flag canary-7f3a mattered", EpisodeType.DECISION)
        prepared = prepare_wrap(store)
        text = (
            "# TestAgent \u2014 Memory (v1)\n\n## State\n- HUNTER2 canary-7f3a state\n\n"
            "## Patterns\n\n## Decisions\n- none yet\n\n## Context\n- canary-7f3a context\n"
        )
        validated_save_continuity(store, text, wrap_token=prepared.wrap_token)
        events = [e["event"] for e in read_entries(db_path)]
    assert "wrap_started" in events
    assert "continuity_saved" in events
    blob = _audit_bytes(db_path)
    assert b"canary" not in blob.lower()
    assert b"HUNTER2" not in blob


def test_a_schema_upgrade_is_audited(db_path: Path, clock: FrozenClock):
    from anneal_memory.store.sqlite._schema import MIGRATIONS, SCHEMA_VERSION

    if SCHEMA_VERSION == 1:
        pytest.skip("only one schema version exists")
    db_path.parent.mkdir(parents=True)
    conn = sqlite3.connect(db_path)
    try:
        for statement in MIGRATIONS[0]:
            conn.execute(statement)
        conn.execute("PRAGMA user_version=1")
        conn.commit()
    finally:
        conn.close()
    with Store(db_path, clock=clock):
        pass
    [entry] = read_entries(db_path, event="schema_migrated")
    assert entry["data"] == {"from_version": 1, "to_version": SCHEMA_VERSION}
