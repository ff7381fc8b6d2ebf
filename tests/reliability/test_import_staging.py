"""An import stages beside its store, removes the staging on every exit, and orphans go.

The staging folder ``.<stem>.import-<hex>`` (0700) sits beside the destination database,
never in the system temp folder; it is removed on success, on error and on
``KeyboardInterrupt``. A SIGKILLed importer leaves it: ``check`` names it, and the next
write-capable open or import removes it, but never a live import's folder, another user's,
or anything else that merely looks like one.
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from anneal_memory import ImportFormatError, Store

pytestmark = pytest.mark.reliability

_EPISODES = 30_000


def _export(path: Path, episodes: int) -> Path:
    """Our export format, written directly: large enough that an import takes a while."""
    with path.open("w", encoding="utf-8") as out:
        out.write('{"format": "anneal-memory-export", "format_version": 1, "episodes": [\n')
        for i in range(episodes):
            row = {
                "content": f"staged episode {i} " + "about sockets and queues " * 8,
                "id": f"{i:08x}",
                "metadata": {},
                "source": "agent",
                "timestamp": "2026-03-02T09:00:00.000000Z",
                "trust": "agent",
                "type": "observation",
            }
            out.write(("," if i else "") + json.dumps(row) + "\n")
        out.write('], "tombstones": []}\n')
    return path


def _staging(db: Path) -> list[Path]:
    return sorted(db.parent.glob(f".{db.stem}.import-*"))


def _age(folder: Path, seconds: float = 3600) -> None:
    then = time.time() - seconds
    os.utime(folder, (then, then))


@pytest.fixture
def private_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The system temp folder for this test: nothing may be left in it."""
    folder = tmp_path / "system-tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    monkeypatch.setenv("TMPDIR", str(folder))
    return folder


def test_an_import_stages_beside_the_store_and_leaves_nothing(tmp_path: Path, private_tmp: Path):
    db = tmp_path / "store" / "memory.db"
    source = _export(tmp_path / "export.json", 200)
    with Store(db) as store:
        report = store.import_from(source)
    assert report.count("episodes").imported == 200
    assert _staging(db) == []
    assert list(private_tmp.iterdir()) == []


def test_a_failed_import_removes_its_staging(tmp_path: Path, private_tmp: Path):
    db = tmp_path / "store" / "memory.db"
    source = _export(tmp_path / "export.json", 50)
    source.write_text(source.read_text(encoding="utf-8")[:-40], encoding="utf-8")  # truncated
    with Store(db) as store, pytest.raises(ImportFormatError):
        store.import_from(source)
    assert _staging(db) == []
    assert list(private_tmp.iterdir()) == []


def _importer(db: Path, source: Path, tmp: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "TMPDIR": str(tmp), "HOME": str(tmp)}
    return subprocess.Popen(
        [sys.executable, "-m", "anneal_memory", "--db", str(db), "import", str(source)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def _wait_for_staging(db: Path, child: subprocess.Popen[bytes]) -> Path:
    while child.poll() is None:
        found = [p for p in _staging(db) if (p / "stage.db").exists()]
        if found:
            return found[0]
        time.sleep(0.002)
    pytest.fail(f"the import ended (exit {child.returncode}) before its staging was seen")


@pytest.mark.e2e
def test_an_interrupted_import_removes_its_staging(tmp_path: Path, private_tmp: Path):
    db = tmp_path / "store" / "memory.db"
    Store(db).close()
    source = _export(tmp_path / "export.json", _EPISODES)
    child = _importer(db, source, private_tmp)
    _wait_for_staging(db, child)
    # Stopped the moment its staging is seen, so a loaded machine cannot let the import finish
    # before the interrupt lands; the interrupt is delivered as it continues.
    child.send_signal(signal.SIGSTOP)
    child.send_signal(signal.SIGINT)
    child.send_signal(signal.SIGCONT)
    _out, err = child.communicate(timeout=300)
    assert child.returncode == 130, err
    assert _staging(db) == []
    assert list(private_tmp.iterdir()) == []
    with Store(db, read_only=True) as store:
        assert store.status().total_episodes == 0  # nothing half-imported


@pytest.mark.e2e
def test_a_killed_import_leaves_an_orphan_that_check_names_and_the_next_open_removes(
    tmp_path: Path, private_tmp: Path
):
    db = tmp_path / "store" / "memory.db"
    Store(db).close()
    source = _export(tmp_path / "export.json", _EPISODES)
    child = _importer(db, source, private_tmp)
    folder = _wait_for_staging(db, child)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE((folder / "stage.db").stat().st_mode) == 0o600
    child.kill()
    child.communicate(timeout=60)
    assert list(private_tmp.iterdir()) == []  # never in the system temp folder
    assert _staging(db) == [folder]
    with Store(db) as store:  # a minute old at least before it counts: this one is fresh
        assert store.status().total_episodes == 0
    assert _staging(db) == [folder]
    _age(folder)
    with Store(db, read_only=True) as reader:
        problems = reader.check(full=False).problems
    assert [p.code for p in problems if folder.name in p.message] == ["import-orphan"]
    assert _staging(db) == [folder]  # read-only: named, not removed
    Store(db).close()
    assert _staging(db) == []


def test_the_next_import_removes_an_orphan_too(tmp_path: Path):
    db = tmp_path / "store" / "memory.db"
    Store(db).close()
    orphan = db.with_name(".memory.import-0123456789ab")
    orphan.mkdir(mode=0o700)
    (orphan / "stage.db").write_bytes(b"x" * 1000)
    _age(orphan)
    with Store(db, read_only=True):  # opening read-only leaves it
        pass
    assert orphan.exists()
    with Store(db) as store:
        assert orphan.exists() is False  # the write-capable open removed it
        orphan.mkdir(mode=0o700)
        _age(orphan)
        store.import_from(_export(tmp_path / "export.json", 3))
    assert not orphan.exists()


def test_only_orphans_of_ours_are_removed(tmp_path: Path):
    from anneal_memory._staging import orphaned_staging, staging_folder

    db = tmp_path / "store" / "memory.db"
    Store(db).close()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.txt").write_text("keep", encoding="utf-8")
    keep = {
        "link": db.with_name(".memory.import-aaaaaaaaaaaa"),
        "not-hex": db.with_name(".memory.import-zzzzzzzzzzzz"),
        "other-store": db.with_name(".other.import-bbbbbbbbbbbb"),
        "file": db.with_name(".memory.import-cccccccccccc"),
    }
    os.symlink(elsewhere, keep["link"])
    for name in ("not-hex", "other-store"):
        keep[name].mkdir()
    keep["file"].write_text("not a folder", encoding="utf-8")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        keep["other-user"] = db.with_name(".memory.import-dddddddddddd")
        keep["other-user"].mkdir()
        os.chown(keep["other-user"], 54321, 54321)
    for path in keep.values():
        os.utime(path, (time.time() - 3600,) * 2, follow_symlinks=False)
    with staging_folder(db) as live:  # a live import in this process
        _age(live)
        assert orphaned_staging(db) == []
        Store(db).close()
        assert live.is_dir()
    assert all(os.path.lexists(p) for p in keep.values())
    assert (elsewhere / "keep.txt").exists()


@pytest.mark.e2e
def test_import_from_stdin_copies_it_beside_the_store_not_to_the_temp_folder(
    tmp_path: Path, private_tmp: Path
):
    db = tmp_path / "store" / "memory.db"
    Store(db).close()
    source = _export(tmp_path / "export.json", 20)
    env = {**os.environ, "TMPDIR": str(private_tmp), "HOME": str(private_tmp)}
    done = subprocess.run(
        [sys.executable, "-m", "anneal_memory", "--db", str(db), "import", "-"],
        input=source.read_bytes(),
        env=env,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert list(private_tmp.iterdir()) == []
    assert _staging(db) == []
