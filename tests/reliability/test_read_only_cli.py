"""Every command that only reads leaves the store's files exactly as they were."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest
from _cli import run_cli
from anneal_memory import Store, prepare_wrap, validated_save_continuity
from anneal_memory.store.sqlite._schema import SCHEMA_VERSION

pytestmark = pytest.mark.reliability

TEXT = "## State\n- reading\n## Patterns\n## Decisions\n## Context\n- wrap\n"


def _snapshot(folder: Path) -> dict[str, str]:
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.iterdir())
        if p.is_file() and not p.name.endswith(".lock")
    }


@pytest.fixture(scope="module")
def filled(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    db = tmp_path_factory.mktemp("ro") / "memory.db"
    with Store(db) as store:
        first = store.record("socket pools need a timeout", "observation")
        store.record("chose bounded retries", "decision")
        prep = prepare_wrap(store)
        validated_save_continuity(store, TEXT, wrap_token=prep.wrap_token)
        store.record("after the wrap", "observation")
    return db, first.id


READ_COMMANDS = [
    ["status"],
    ["stats"],
    ["get", "{id}"],
    ["search", "socket", "--no-exposure"],  # without it, a search records its exposure
    ["recall", "socket", "--no-exposure"],
    ["crystal", "recall", "socket pools", "--no-exposure"],
    ["episodes"],
    ["export"],
    ["wrap-status"],
    ["continuity"],
    ["history"],
    ["diff"],
    ["associations"],
    ["graph"],
    ["baton", "status"],
    ["verify"],
    ["audit"],
    ["prune", "--older-than", "1", "--dry-run"],
]


@pytest.mark.parametrize("command", READ_COMMANDS, ids=lambda c: " ".join(c))
def test_a_read_command_writes_nothing(filled: tuple[Path, str], command: list[str]):
    db, first_id = filled
    before = _snapshot(db.parent)
    proc = run_cli(db, *[a.format(id=first_id) for a in command])
    assert proc.returncode == 0, proc.stderr
    assert _snapshot(db.parent) == before


def test_a_read_command_does_not_migrate_an_older_store(tmp_path: Path):
    db = tmp_path / "memory.db"
    Store(db).close()
    conn = sqlite3.connect(db)
    conn.execute(f"PRAGMA user_version={SCHEMA_VERSION - 1}")
    conn.close()
    before = _snapshot(tmp_path)
    proc = run_cli(db, "status")
    assert proc.returncode == 1
    assert "migrate" in proc.stderr
    assert _snapshot(tmp_path) == before
