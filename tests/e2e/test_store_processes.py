"""Several processes of one agent write one store at once."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from anneal_memory import Store

pytestmark = pytest.mark.e2e

WRITER = """
import sys
from anneal_memory import Store
path, worker, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
with Store(path) as store:
    for i in range(count):
        store.record(f"worker {worker} note {i} marker{worker}x{i}", "observation")
"""


def test_four_processes_times_250_records_lose_nothing(tmp_path: Path) -> None:
    db = tmp_path / "shared.db"
    with Store(db):
        pass
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(db), str(worker), "250"],
            stderr=subprocess.PIPE,
            text=True,
        )
        for worker in range(4)
    ]
    errors = [proc.communicate(timeout=240)[1] for proc in procs]
    assert [proc.returncode for proc in procs] == [0, 0, 0, 0], errors
    assert errors == ["", "", "", ""]
    with Store(db) as store:
        assert store.status().total_episodes == 1000
        everything = store.recall(limit=1000)
        contents = {e.content for e in everything.episodes}
        expected = {f"worker {w} note {i} marker{w}x{i}" for w in range(4) for i in range(250)}
        assert contents == expected
        assert len({e.id for e in everything.episodes}) == 1000
        assert store.recall(keyword="marker3x249").total_matching == 1
