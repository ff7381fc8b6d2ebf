from __future__ import annotations

import datetime as dt
import gzip
import json
import threading
from pathlib import Path
from typing import Any

import pytest
from anneal_memory import InvalidInputError
from anneal_memory.audit import GENESIS_HASH, AuditEvent, AuditPaths, AuditTrail
from anneal_memory.audit._chain import link_hash, period_of
from anneal_memory.testing import FrozenClock

START = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.timezone.utc)  # a Monday, ISO week 2026-W10


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines()


def _trail(db_path: Path, clock: FrozenClock, **kwargs: Any) -> AuditTrail:
    return AuditTrail(db_path, clock=clock, **kwargs)


def test_entries_are_canonical_sorted_json_chained_by_sha256(db_path: Path, clock: FrozenClock):
    db_path.parent.mkdir(parents=True)
    trail = _trail(db_path, clock)
    first = trail.append("record", actor="agent", data={"episode_id": "0a1b2c3d"})
    trail.append(AuditEvent.DELETE, actor="cli", data={"episode_id": "0a1b2c3d"})
    raw = _lines(AuditPaths.for_db(db_path).active)
    assert len(raw) == 2
    assert raw[0].startswith(b'{"actor":"agent","data":{"episode_id":"0a1b2c3d"},"event":"record",')
    parsed = [json.loads(line) for line in raw]
    assert list(parsed[0]) == sorted(parsed[0])
    assert parsed[0] == first
    assert parsed[0]["prev_hash"] == GENESIS_HASH
    assert parsed[0]["seq"] == 0
    assert parsed[1]["seq"] == 1
    assert parsed[1]["prev_hash"] == link_hash(raw[0])
    assert parsed[0]["ts"] == "2026-03-02T09:00:00.000000Z"
    assert parsed[0]["v"] == 1
    assert "dropped_before" not in parsed[0]


def test_unknown_events_are_refused_and_not_counted(db_path: Path, clock: FrozenClock):
    db_path.parent.mkdir(parents=True)
    trail = _trail(db_path, clock)
    with pytest.raises(InvalidInputError, match="vocabulary is closed"):
        trail.append("rewrite_history", actor="agent", data={})
    assert trail.pending_drops == 0
    assert not AuditPaths.for_db(db_path).active.exists()


def test_two_trail_objects_on_one_db_keep_one_chain(db_path: Path, clock: FrozenClock):
    db_path.parent.mkdir(parents=True)
    one, two = _trail(db_path, clock), _trail(db_path, clock)
    for i in range(10):
        (one if i % 3 else two).append("record", actor="agent", data={"i": i})
    result = AuditTrail.verify(db_path)
    assert result.valid, result.error
    assert result.total_entries == 10
    seqs = [json.loads(line)["seq"] for line in _lines(one.paths.active)]
    assert seqs == list(range(10))


def test_threads_sharing_one_trail_keep_one_chain(db_path: Path, clock: FrozenClock):
    db_path.parent.mkdir(parents=True)
    trail = _trail(db_path, clock)

    def work(n: int) -> None:
        for i in range(25):
            trail.append("record", actor=f"t{n}", data={"i": i})

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    result = AuditTrail.verify(db_path)
    assert result.valid
    assert result.total_entries == 100


def test_a_new_iso_week_seals_the_active_file_and_the_manifest_links_it(db_path: Path):
    db_path.parent.mkdir(parents=True)
    clock = FrozenClock(START, step=dt.timedelta(minutes=1))
    trail = _trail(db_path, clock)
    for i in range(3):
        trail.append("record", actor="agent", data={"i": i})
    clock.advance(days=7)
    trail.append("record", actor="agent", data={"i": 3})
    paths = trail.paths
    sealed = paths.sealed("2026-W10")
    assert sealed.exists()
    assert len(gzip.decompress(sealed.read_bytes()).splitlines()) == 3
    manifest = json.loads(paths.manifest.read_text(encoding="utf-8"))
    assert manifest["active_period"] == "2026-W11"
    assert manifest["active_first_seq"] == 3
    [entry] = manifest["files"]
    assert entry["filename"] == sealed.name
    assert entry["entries"] == 3
    [active_line] = _lines(paths.active)
    assert json.loads(active_line)["seq"] == 3
    assert json.loads(active_line)["prev_hash"] == entry["last_hash"]
    result = AuditTrail.verify(db_path)
    assert result.valid
    assert result.total_entries == 4
    assert result.files_verified == 2


def test_another_process_rotating_is_noticed_by_a_stale_trail(db_path: Path):
    db_path.parent.mkdir(parents=True)
    clock = FrozenClock(START)
    late = FrozenClock(START)
    one, two = _trail(db_path, clock), _trail(db_path, late)
    one.append("record", actor="a", data={})
    two.append("record", actor="b", data={})
    clock.advance(days=7)
    one.append("record", actor="a", data={})  # rotates
    two.append("record", actor="b", data={})  # its clock still says last week: no rotation
    two.append("record", actor="b", data={})
    result = AuditTrail.verify(db_path)
    assert result.valid, result.error
    assert result.total_entries == 5
    assert result.files_verified == 2


def test_an_idle_week_does_not_label_the_sealed_file_with_the_creation_week(db_path: Path):
    db_path.parent.mkdir(parents=True)
    clock = FrozenClock(START)
    trail = _trail(db_path, clock)
    trail.append("record", actor="a", data={})
    clock.advance(days=7)
    trail.append("record", actor="a", data={})
    clock.advance(days=21)
    trail.append("record", actor="a", data={})
    names = [p.name for p in trail.paths.sealed_on_disk()]
    assert names == ["memory.audit.2026-W10.jsonl.gz", "memory.audit.2026-W11.jsonl.gz"]
    assert period_of(clock.now()) == "2026-W14"
    assert AuditTrail.verify(db_path).valid


def test_a_torn_tail_is_set_aside_and_reported_on_the_next_entry(db_path: Path, clock):
    db_path.parent.mkdir(parents=True)
    trail = _trail(db_path, clock)
    for i in range(3):
        trail.append("record", actor="agent", data={"i": i})
    active = trail.paths.active
    with active.open("ab") as handle:
        handle.write(b'{"actor":"agent","data":{"i":3},"ev')
    reopened = _trail(db_path, clock)
    entry = reopened.append("record", actor="agent", data={"i": 4})
    assert entry["dropped_before"] == 1
    assert entry["seq"] == 3
    torn = list(active.parent.glob("memory.audit.jsonl.torn-*"))
    assert [p.read_bytes() for p in torn] == [b'{"actor":"agent","data":{"i":3},"ev']
    manifest = json.loads(trail.paths.manifest.read_text(encoding="utf-8"))
    assert manifest["set_aside"][0]["kind"] == "torn-tail"
    result = AuditTrail.verify(db_path)
    assert result.valid
    assert result.total_entries == 4
    assert result.dropped_entries == 1


def test_on_event_receives_each_entry_and_its_errors_are_swallowed(db_path, clock, caplog):
    db_path.parent.mkdir(parents=True)
    seen: list[dict[str, Any]] = []

    def callback(entry: dict[str, Any]) -> None:
        seen.append(entry)
        raise RuntimeError("siem is down")

    trail = _trail(db_path, clock, on_event=callback)
    returned = trail.append("wrap_started", actor="agent", data={"wrap_token": "ab"})
    assert seen == [returned]
    assert "siem is down" in caplog.text
    assert AuditTrail.verify(db_path).valid


def test_a_failed_append_is_counted_and_reported_on_the_next_entry(db_path, clock):
    db_path.parent.mkdir(parents=True)
    trail = _trail(db_path, clock)
    trail.append("record", actor="agent", data={})
    paths = trail.paths
    paths.manifest.write_text("{not json", encoding="utf-8")
    with pytest.raises(Exception, match="manifest"):
        trail.append("record", actor="agent", data={})
    assert trail.pending_drops == 1
    paths.manifest.unlink()
    entry = trail.append("record", actor="agent", data={})
    assert entry["dropped_before"] == 1
    assert entry["seq"] == 1
    assert trail.pending_drops == 0


def test_a_garbled_last_line_does_not_stop_the_trail_and_stays_visible(db_path: Path, clock):
    db_path.parent.mkdir(parents=True)
    trail = _trail(db_path, clock)
    for i in range(3):
        trail.append("record", actor="agent", data={"i": i})
    active = trail.paths.active
    lines = active.read_bytes().splitlines()
    lines[-1] = b"this is not json"
    active.write_bytes(b"".join(line + b"\n" for line in lines))
    entry = _trail(db_path, clock).append("record", actor="agent", data={"i": 3})
    assert entry["seq"] == 3
    assert entry["prev_hash"] == link_hash(b"this is not json")
    result = AuditTrail.verify(db_path)
    assert not result.valid
    assert result.chain_break_at == 2
    assert result.chain_break_line == 3


def test_a_rotation_that_died_before_emptying_the_active_file_is_finished(db_path: Path):
    db_path.parent.mkdir(parents=True)
    clock = FrozenClock(START, step=dt.timedelta(minutes=1))
    trail = _trail(db_path, clock)
    for i in range(3):
        trail.append("record", actor="agent", data={"i": i})
    before = trail.paths.active.read_bytes()
    clock.advance(days=7)
    trail.append("record", actor="agent", data={"i": 3})
    trail.close()
    # The state a crash between "manifest written" and "active file emptied" leaves:
    trail.paths.active.write_bytes(before)
    result = AuditTrail.verify(db_path)
    assert result.valid, result.error
    assert result.total_entries == 3
    entry = _trail(db_path, clock).append("record", actor="agent", data={"i": 4})
    assert entry["seq"] == 3
    assert [json.loads(line)["seq"] for line in _lines(trail.paths.active)] == [3]
    after = AuditTrail.verify(db_path)
    assert after.valid, after.error
    assert after.total_entries == 4


def test_a_rotation_that_died_before_the_manifest_is_redone(db_path: Path):
    db_path.parent.mkdir(parents=True)
    clock = FrozenClock(START, step=dt.timedelta(minutes=1))
    trail = _trail(db_path, clock)
    for i in range(3):
        trail.append("record", actor="agent", data={"i": i})
    # The state a crash between "sealed file written" and "manifest written" leaves:
    sealed = trail.paths.sealed("2026-W10")
    sealed.write_bytes(gzip.compress(trail.paths.active.read_bytes()[:10]))
    result = AuditTrail.verify(db_path)
    assert result.valid
    assert result.untracked == (sealed.name,)
    clock.advance(days=7)
    trail.append("record", actor="agent", data={"i": 3})
    assert len(gzip.decompress(sealed.read_bytes()).splitlines()) == 3
    after = AuditTrail.verify(db_path)
    assert after.valid, after.error
    assert after.total_entries == 4
    assert after.untracked == ()


def test_the_cached_week_agrees_with_the_iso_calendar(db_path: Path):
    trail = AuditTrail(db_path, clock=FrozenClock(START))
    moment = dt.datetime(2026, 12, 27, 23, 0, tzinfo=dt.timezone.utc)  # across a year end
    for _ in range(24 * 20):
        assert trail._period(moment) == period_of(moment)
        moment += dt.timedelta(minutes=37)
    backwards = dt.datetime(2026, 3, 9, 0, 0, tzinfo=dt.timezone.utc)
    assert trail._period(backwards) == "2026-W11"
    assert trail._period(backwards - dt.timedelta(microseconds=1)) == "2026-W10"
