"""A full disk (a small tmpfs): named errors, nothing half-written, nothing left behind."""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from _cli import run_cli
from anneal_memory import (
    AnnealMemoryError,
    Store,
    StoreError,
    prepare_wrap,
    validated_save_continuity,
)

pytestmark = [pytest.mark.reliability, pytest.mark.e2e]

TEXT = "## State\n- {fill}\n## Patterns\n## Decisions\n## Context\n- full disk\n"


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=512k,mode=0700", "tmpfs", str(mount)],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here (needs root): {done.stderr.decode()[:80]}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _fill(folder: Path) -> None:
    """Leave no free block: one file takes every byte it can get."""
    fd = os.open(folder / "ballast", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        with contextlib.suppress(OSError):
            while True:
                os.write(fd, b"\0" * 4096)
        with contextlib.suppress(OSError):
            while True:
                os.write(fd, b"\0")
    finally:
        os.close(fd)


def test_init_on_a_full_disk_leaves_nothing_and_works_once_space_is_back(small_disk: Path):
    _fill(small_disk)
    db = small_disk / "store" / "memory.db"
    proc = run_cli(db, "init")
    assert proc.returncode == 1
    assert len(proc.stderr.strip().splitlines()) == 1
    assert not db.exists()
    assert not (small_disk / "store").exists()
    (small_disk / "ballast").unlink()
    assert run_cli(db, "init").returncode == 0


def test_records_until_full_fail_with_the_library_error_and_reads_keep_working(small_disk: Path):
    db = small_disk / "memory.db"
    acknowledged = []
    with Store(db) as store:
        store.record("first", "observation")
        _fill(small_disk)
        failures = 0
        for i in range(200):
            try:
                acknowledged.append(store.record(f"note {i} " + "x" * 2000, "observation").id)
            except AnnealMemoryError:
                failures += 1
        assert failures > 0
        assert store.recall("first").episodes
    (small_disk / "ballast").unlink()
    with Store(db) as reopened:
        for ident in acknowledged:
            assert reopened.get(ident) is not None


def test_a_continuity_save_on_a_full_disk_raises_a_store_error_and_saves_nothing(
    small_disk: Path,
):
    db = small_disk / "memory.db"
    with Store(db) as store:
        store.record("before the disk filled", "observation")
        prep = prepare_wrap(store)
        _fill(small_disk)
        with pytest.raises(StoreError):
            validated_save_continuity(
                store, TEXT.format(fill="y" * 5000), wrap_token=prep.wrap_token
            )
        assert not store.sidecar(".continuity.md").exists()
    assert not [p for p in small_disk.iterdir() if ".tmp-" in p.name]
