from __future__ import annotations

import datetime as dt
import gzip
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from anneal_memory.audit import AuditPaths, AuditTrail
from anneal_memory.audit._chain import link_hash
from anneal_memory.testing import FrozenClock

START = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.timezone.utc)
SEALED = "memory.audit.2026-W10.jsonl.gz"
ACTIVE = "memory.audit.jsonl"
MANIFEST = "memory.audit.manifest.json"
FIRST_ACTIVE_SEQ = 5  # five entries sealed in week 10, then fifteen in the active file


@pytest.fixture
def trail_db(tmp_path: Path) -> Path:
    db_path = tmp_path / "memory.db"
    clock = FrozenClock(START, step=dt.timedelta(minutes=1))
    trail = AuditTrail(db_path, clock=clock)
    for i in range(20):
        if i == FIRST_ACTIVE_SEQ:
            clock.advance(days=7)
        trail.append("record", actor="agent", data={"episode_id": f"{i:08x}", "n": i})
    trail.close()
    assert AuditTrail.verify(db_path).valid
    return db_path


def _edit_active(db_path: Path, change: Callable[[list[bytes]], None]) -> None:
    active = AuditPaths.for_db(db_path).active
    lines = active.read_bytes().splitlines()
    change(lines)
    active.write_bytes(b"".join(line + b"\n" for line in lines))


def _at(seq: int) -> int:
    """Index in the active file of the entry with this seq."""
    return seq - FIRST_ACTIVE_SEQ


def _edit_field(lines: list[bytes]) -> None:
    lines[_at(9)] = lines[_at(9)].replace(b'"actor":"agent"', b'"actor":"admin"')


def _flip_hash_bit(lines: list[bytes]) -> None:
    entry = json.loads(lines[_at(9)])
    digest = entry["prev_hash"].removeprefix("sha256:")
    flipped = f"{int(digest[0], 16) ^ 1:x}" + digest[1:]
    lines[_at(9)] = lines[_at(9)].replace(digest.encode(), flipped.encode())


def _delete(lines: list[bytes]) -> None:
    del lines[_at(9)]


def _duplicate(lines: list[bytes]) -> None:
    lines.insert(_at(9) + 1, lines[_at(9)])


def _swap(lines: list[bytes]) -> None:
    lines[_at(9)], lines[_at(10)] = lines[_at(10)], lines[_at(9)]


def _insert(lines: list[bytes]) -> None:
    forged = json.loads(lines[_at(9)])
    forged["prev_hash"] = link_hash(lines[_at(9)])
    forged["seq"] = 10
    forged["data"] = {"episode_id": "deadbeef"}
    encoded = json.dumps(forged, sort_keys=True, separators=(",", ":")).encode()
    lines.insert(_at(10), encoded)


def _forge_with_recomputed_hash(lines: list[bytes]) -> None:
    lines[_at(9)] = lines[_at(9)].replace(b'"n":9', b'"n":99')
    following = json.loads(lines[_at(10)])
    following["prev_hash"] = link_hash(lines[_at(9)])
    lines[_at(10)] = json.dumps(following, sort_keys=True, separators=(",", ":")).encode()


@pytest.mark.parametrize(
    ("tamper", "break_seq", "break_line"),
    [
        (_edit_field, 10, _at(10) + 1),  # the next entry no longer links to it
        (_flip_hash_bit, 9, _at(9) + 1),
        (_delete, 9, _at(9) + 1),
        (_duplicate, 10, _at(10) + 1),
        (_swap, 9, _at(9) + 1),
        (_insert, 11, _at(11) + 1),  # the forged line links, the real one after it does not
        (_forge_with_recomputed_hash, 11, _at(11) + 1),
    ],
    ids=lambda v: getattr(v, "__name__", str(v)).strip("_"),
)
def test_tampering_with_the_active_file_is_detected_at_the_first_bad_link(
    trail_db: Path, tamper, break_seq: int, break_line: int
):
    _edit_active(trail_db, tamper)
    result = AuditTrail.verify(trail_db)
    assert not result.valid
    assert result.chain_break_file == ACTIVE
    assert result.chain_break_at == break_seq
    assert result.chain_break_line == break_line
    assert result.total_entries == break_seq
    assert f"seq {break_seq}" in result.summary()


def test_editing_the_manifest_is_detected(trail_db: Path):
    manifest = trail_db.with_name(MANIFEST)
    body = json.loads(manifest.read_text(encoding="utf-8"))
    body["files"][0]["entries"] = 4
    manifest.write_text(json.dumps(body), encoding="utf-8")
    result = AuditTrail.verify(trail_db)
    assert not result.valid
    assert result.chain_break_file == MANIFEST
    assert result.chain_break_at == 0


def test_editing_the_manifest_anchor_of_the_active_file_is_detected(trail_db: Path):
    manifest = trail_db.with_name(MANIFEST)
    body = json.loads(manifest.read_text(encoding="utf-8"))
    body["active_first_seq"] = 6
    manifest.write_text(json.dumps(body), encoding="utf-8")
    result = AuditTrail.verify(trail_db)
    assert not result.valid
    assert result.chain_break_file == ACTIVE
    assert "manifest" in (result.error or "")


def test_a_corrupt_manifest_is_reported(trail_db: Path):
    trail_db.with_name(MANIFEST).write_text("{", encoding="utf-8")
    result = AuditTrail.verify(trail_db)
    assert not result.valid
    assert result.chain_break_file == MANIFEST
    assert "audit-repair" in (result.error or "")


def test_a_truncated_sealed_week_is_detected(trail_db: Path):
    sealed = trail_db.with_name(SEALED)
    sealed.write_bytes(sealed.read_bytes()[:-10])
    result = AuditTrail.verify(trail_db)
    assert not result.valid
    assert result.chain_break_file == SEALED
    assert result.chain_break_at == 0
    assert "sha256" in (result.error or "")


def test_a_deleted_sealed_week_is_detected(trail_db: Path):
    trail_db.with_name(SEALED).unlink()
    result = AuditTrail.verify(trail_db)
    assert not result.valid
    assert result.chain_break_file == SEALED


def test_a_sealed_week_rewritten_with_a_matching_manifest_hash_still_breaks_the_chain(trail_db):
    sealed = trail_db.with_name(SEALED)
    lines = gzip.decompress(sealed.read_bytes()).splitlines()
    lines[2] = lines[2].replace(b'"n":2', b'"n":7')
    forged = gzip.compress(b"".join(line + b"\n" for line in lines))
    sealed.write_bytes(forged)
    manifest = trail_db.with_name(MANIFEST)
    body = json.loads(manifest.read_text(encoding="utf-8"))
    import hashlib

    body["files"][0]["sha256"] = hashlib.sha256(forged).hexdigest()
    manifest.write_text(json.dumps(body), encoding="utf-8")
    result = AuditTrail.verify(trail_db)
    assert not result.valid
    assert result.chain_break_file == SEALED
    assert result.chain_break_at == 3


@pytest.mark.reliability  # a sweep over every byte offset: the battery's CI tier runs it
def test_a_torn_tail_cut_at_every_byte_offset_verifies_and_is_set_aside(tmp_path: Path):
    base = tmp_path / "base"
    base.mkdir()
    clock = FrozenClock(START, step=dt.timedelta(seconds=1))
    trail = AuditTrail(base / "memory.db", clock=clock)
    for i in range(5):
        trail.append("record", actor="agent", data={"episode_id": f"{i:08x}"})
    trail.close()
    full = (base / ACTIVE).read_bytes()
    last_start = full.rstrip(b"\n").rfind(b"\n") + 1
    last_len = len(full) - last_start  # includes the newline
    for keep in range(last_len + 1):
        case = tmp_path / f"cut{keep}"
        shutil.copytree(base, case)
        (case / ACTIVE).write_bytes(full[: last_start + keep])
        torn = 0 < keep < last_len
        complete = 5 if keep == last_len else 4
        result = AuditTrail.verify(case / "memory.db")
        assert result.valid, (keep, result.error)
        assert result.total_entries == complete
        assert result.skipped_lines == int(torn)
        entry = AuditTrail(case / "memory.db", clock=clock).append("record", actor="agent", data={})
        assert entry["seq"] == complete
        assert entry.get("dropped_before", 0) == int(torn)
        after = AuditTrail.verify(case / "memory.db")
        assert after.valid
        assert after.total_entries == complete + 1
        assert after.skipped_lines == 0
        set_aside = list(case.glob(f"{ACTIVE}.torn-*"))
        assert [p.read_bytes() for p in set_aside] == (
            [full[last_start : last_start + keep]] if torn else []
        )


def test_a_store_without_audit_files_verifies_empty(tmp_path: Path):
    result = AuditTrail.verify(tmp_path / "nothing.db")
    assert result.valid
    assert result.total_entries == 0
    assert result.files_verified == 0
    assert result.to_dict()["valid"] is True
