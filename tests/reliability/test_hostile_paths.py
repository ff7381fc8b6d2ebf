"""Hostile database paths: every file lands exactly beside the named database, nowhere else."""

from __future__ import annotations

from pathlib import Path

import pytest
from _cli import run_cli
from anneal_memory import Store
from anneal_memory.audit import AuditTrail

pytestmark = pytest.mark.reliability

NAMES = [
    "with space.db",
    "ünïcødé-記憶.db",
    "-leading-dash.db",
    "file:evil.db?mode=memory&cache=shared",
    "quote'double\"semi;colon.db",
    "$(touch pwned).db",
    "new\nline.db",
    "star*glob?[x].db",
    "a" * 200 + ".db",
    "no-extension",
]


@pytest.mark.parametrize("name", NAMES, ids=range(len(NAMES)))
def test_a_hostile_name_is_just_a_file_name(tmp_path: Path, name: str):
    folder = tmp_path / "store"
    folder.mkdir()
    db = folder / name
    with Store(db) as store:
        store.record("hello", "observation")
        assert store.recall("hello").episodes
    assert db.is_file()
    stem = db.stem
    assert all(p.name.startswith(stem) for p in folder.iterdir()), sorted(folder.iterdir())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["store"]
    assert not (tmp_path / "pwned").exists()
    assert not Path("pwned").exists()
    assert AuditTrail.verify(db).total_entries == 1
    proc = run_cli(db, "status")
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["store"]
