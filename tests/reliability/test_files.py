"""User-named files: no silent overwrite, bounded reads, private folders, no strays."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from _cli import run_cli, run_cli_process
from anneal_memory import ImportFormatError, Store

pytestmark = [pytest.mark.reliability, pytest.mark.e2e]


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "memory.db"
    with Store(path) as store:
        store.record("one episode", "observation")
    return path


@pytest.mark.parametrize("command", [["graph"], ["export"]])
def test_an_existing_output_file_is_refused_without_force(db: Path, command: list[str]):
    target = db.parent / "out.txt"
    target.write_text("keep me", encoding="utf-8")
    proc = run_cli(db, *command, "-o", str(target))
    assert proc.returncode == 1
    assert "--force" in proc.stderr
    assert target.read_text(encoding="utf-8") == "keep me"
    assert run_cli(db, *command, "-o", str(target), "--force").returncode == 0
    assert target.read_text(encoding="utf-8") != "keep me"


@pytest.mark.parametrize("command", [["graph"], ["export"]])
def test_a_fifo_is_never_written_even_with_force(db: Path, command: list[str]):
    fifo = db.parent / "pipe"
    os.mkfifo(fifo)
    proc = run_cli_process(db, *command, "-o", str(fifo), "--force", timeout=30)
    assert proc.returncode == 1
    assert "not a regular file" in proc.stderr
    assert fifo.is_fifo()


@pytest.mark.parametrize(
    "command",
    [
        ["import", "/dev/zero"],
        ["import", "/dev/urandom"],
        ["save-continuity", "/dev/zero"],
    ],
)
def test_devices_are_refused_before_reading(db: Path, command: list[str]):
    proc = run_cli_process(db, *command, timeout=30)
    assert proc.returncode == 1
    assert "not a regular file" in proc.stderr


def test_stdin_is_read_only_up_to_its_bound(db: Path):
    with open("/dev/zero", "rb") as zeros:
        proc = subprocess.run(
            [sys.executable, "-m", "anneal_memory", "--db", str(db), "record", "-"],
            stdin=zeros,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert proc.returncode == 1
    assert "larger than" in proc.stderr


def test_deeply_nested_json_is_an_import_format_error(db: Path, tmp_path: Path):
    nested = "[" * 200_000
    with Store(db) as store, pytest.raises(ImportFormatError):
        store.import_json(nested)
    bad = tmp_path / "nested.json"
    bad.write_text(nested, encoding="utf-8")
    proc = run_cli(db, "import", str(bad))
    assert proc.returncode == 1
    assert "unexpected" not in proc.stderr


_UMASK_CHILD = r"""
import os, sys
os.umask(0)
from anneal_memory import Store
Store(sys.argv[1]).close()
"""


def test_every_folder_the_library_creates_is_0700_under_umask_000(tmp_path: Path):
    target = tmp_path / "a" / "b" / "c" / "memory.db"
    subprocess.run([sys.executable, "-c", _UMASK_CHILD, str(target)], check=True, timeout=60)
    for folder in (tmp_path / "a", tmp_path / "a" / "b", tmp_path / "a" / "b" / "c"):
        assert folder.stat().st_mode & 0o777 == 0o700, folder
    for path in target.parent.iterdir():
        if path.is_file():
            assert path.stat().st_mode & 0o777 == 0o600, path


def test_orphaned_temp_files_are_removed_on_open_and_reported_by_check(db: Path):
    old = db.parent / ".memory.continuity.md.tmp-0123456789ab"
    fresh = db.parent / ".memory.continuity.md.tmp-ba9876543210"
    for path in (old, fresh):
        path.write_text("half a write", encoding="utf-8")
    hour_ago = time.time() - 3600
    os.utime(old, (hour_ago, hour_ago))
    with Store(db, read_only=True) as reader:
        codes = [p.code for p in reader.check().problems]
    assert codes.count("temp-orphan") == 1
    assert old.exists()  # read-only: reported, not removed
    Store(db).close()
    assert not old.exists()
    assert fresh.exists()  # maybe a write in progress in another process


def test_a_failed_import_into_a_new_path_leaves_nothing(tmp_path: Path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"not": "an export"}', encoding="utf-8")
    target = tmp_path / "new" / "deeper" / "memory.db"
    proc = run_cli(target, "import", str(bad))
    assert proc.returncode == 1
    assert not (tmp_path / "new").exists()


def test_an_import_with_text_sqlite_cannot_store_is_an_import_format_error(db: Path):
    with Store(db) as store:
        episode = store.record("x", "observation")
        store.delete(episode.id)
        import io
        import json

        buffer = io.StringIO()
        store.export_json(buffer)
    document = json.loads(buffer.getvalue())
    document["tombstones"][0]["reason"] = "\ud800"
    with Store(db.with_name("other.db")) as target, pytest.raises(ImportFormatError):
        target.import_json(document)
