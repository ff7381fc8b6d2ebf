"""The audit tamper matrix on a real store whose trail spans three rotated weeks."""

from __future__ import annotations

import datetime as dt
import gzip
import hashlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from anneal_memory import Store
from anneal_memory.audit import AuditPaths, AuditTrail
from anneal_memory.audit._chain import GENESIS_HASH, link_hash
from anneal_memory.audit._events import AuditEvent, encode_entry
from anneal_memory.testing import FrozenClock

pytestmark = pytest.mark.reliability

START = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.timezone.utc)


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("pristine") / "memory.db"
    clock = FrozenClock(START, step=dt.timedelta(minutes=1))
    with Store(db, clock=clock) as store:
        for week in range(3):
            for i in range(6):
                store.record(f"week {week} note {i}", "observation")
            clock.advance(days=7)
    result = AuditTrail.verify(db)
    assert result.valid
    assert result.complete
    assert result.files_verified == 3
    return db


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines()


def _write(path: Path, lines: list[bytes]) -> None:
    path.write_bytes(b"".join(line + b"\n" for line in lines))


def _active(db: Path, change: Callable[[list[bytes]], None]) -> None:
    path = AuditPaths.for_db(db).active
    lines = _lines(path)
    change(lines)
    _write(path, lines)


def _relinked(lines: list[bytes], start_seq: int, prev: str) -> list[bytes]:
    out = []
    for seq, raw in enumerate(lines, start=start_seq):
        entry = json.loads(raw)
        _e, line = encode_entry(
            seq=seq,
            ts=entry["ts"],
            event=AuditEvent(entry["event"]),
            actor=entry["actor"],
            data=entry["data"],
            prev_hash=prev,
            intent=entry.get("intent"),
        )
        out.append(line)
        prev = link_hash(line)
    return out


def _sealed(db: Path) -> list[Path]:
    return AuditPaths.for_db(db).sealed_on_disk()


def _edit_sealed(db: Path, change: Callable[[list[bytes]], None], *, fix_manifest: bool) -> None:
    path = _sealed(db)[0]
    lines = gzip.decompress(path.read_bytes()).splitlines()
    change(lines)
    raw = gzip.compress(b"".join(line + b"\n" for line in lines), mtime=0)
    path.write_bytes(raw)
    if fix_manifest:
        manifest_path = AuditPaths.for_db(db).manifest
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        manifest["files"][0]["sha256"] = hashlib.sha256(raw).hexdigest()
        manifest_path.write_text(json.dumps(manifest), encoding="utf-8")


def _relink_without_second(lines: list[bytes]) -> None:
    first = json.loads(lines[0])
    kept = [lines[0], *lines[2:]]
    lines[:] = _relinked(kept, first["seq"], first["prev_hash"])


def _relink_all_active_without_one(db: Path) -> None:
    """The subtlest edit: drop one entry and recompute every hash after it."""
    paths = AuditPaths.for_db(db)
    manifest = json.loads(paths.manifest.read_text(encoding="utf-8"))
    lines = _lines(paths.active)
    kept = [lines[0], *lines[2:]]
    start = manifest.get("active_first_seq", 0)
    prev = manifest.get("active_first_prev_hash", GENESIS_HASH)
    _write(paths.active, _relinked(kept, start, prev))


MUTATIONS: dict[str, Callable[[Path], None]] = {
    "active: edit a field": lambda db: _active(
        db, lambda ls: ls.__setitem__(2, ls[2].replace(b'"type":"observation"', b'"type":"x"'))
    ),
    "active: delete a line": lambda db: _active(db, lambda ls: ls.__delitem__(2)),
    "active: duplicate a line": lambda db: _active(db, lambda ls: ls.insert(2, ls[2])),
    "active: swap two lines": lambda db: _active(
        db, lambda ls: ls.__setitem__(slice(1, 3), [ls[2], ls[1]])
    ),
    "active: drop the first line": lambda db: _active(db, lambda ls: ls.__delitem__(0)),
    "active: garbage line": lambda db: _active(db, lambda ls: ls.insert(3, b"not json")),
    "active: relinked removal": _relink_all_active_without_one,
    "sealed: edit, manifest hash kept": lambda db: _edit_sealed(
        db, lambda ls: ls.__setitem__(1, ls[1].replace(b"agent", b"admin")), fix_manifest=False
    ),
    "sealed: edit, manifest hash fixed": lambda db: _edit_sealed(
        db, lambda ls: ls.__setitem__(1, ls[1].replace(b"agent", b"admin")), fix_manifest=True
    ),
    "sealed: relinked removal, manifest fixed": lambda db: _edit_sealed(
        db, _relink_without_second, fix_manifest=True
    ),
    "sealed: week deleted": lambda db: _sealed(db)[0].unlink(),
    "sealed: weeks swapped": lambda db: (
        shutil.copy(_sealed(db)[1], _sealed(db)[1].with_suffix(".tmp")),
        shutil.copy(_sealed(db)[0], _sealed(db)[1]),
        shutil.move(_sealed(db)[1].with_suffix(".tmp"), _sealed(db)[0]),
    ),
    "manifest: anchor edited": lambda db: AuditPaths.for_db(db).manifest.write_text(
        AuditPaths.for_db(db)
        .manifest.read_text(encoding="utf-8")
        .replace('"active_first_seq": ', '"active_first_seq": 1'),
        encoding="utf-8",
    ),
    "manifest: corrupt": lambda db: AuditPaths.for_db(db).manifest.write_text(
        "{nope", encoding="utf-8"
    ),
    "manifest: deleted": lambda db: AuditPaths.for_db(db).manifest.unlink(),
}


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_every_mutation_is_caught(pristine: Path, tmp_path: Path, name: str):
    copy = tmp_path / "copy"
    shutil.copytree(pristine.parent, copy)
    db = copy / pristine.name
    MUTATIONS[name](db)
    result = AuditTrail.verify(db)
    assert not (result.valid and result.complete), f"{name}: not caught"
