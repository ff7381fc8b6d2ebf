"""Several processes add spores and update crystals at once: nothing is lost or duplicated."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from anneal_memory import Store
from anneal_memory.crystal import crystallize, get_crystal, list_crystals
from anneal_memory.spores import list_spores

pytestmark = pytest.mark.e2e

WORKER = """
import sys
from anneal_memory import Store
from anneal_memory.crystal import crystallize, update_crystal
from anneal_memory.spores import add_spore
path, worker, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
with Store(path) as store:
    for i in range(count):
        add_spore(store, type="task", text=f"worker {worker} task {i}")
        crystallize(store, f"w{worker}_rule_{i}", level=2, explanation=f"rule {i} of {worker}")
        update_crystal(store, "shared", add_note=f"{worker}-{i}")
"""


def test_four_processes_lose_no_spore_crystal_or_note(tmp_path: Path) -> None:
    db = tmp_path / "shared.db"
    with Store(db) as store:
        crystallize(store, "shared", level=2, explanation="a crystal every worker notes on")
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(db), str(worker), "30"],
            stderr=subprocess.PIPE,
            text=True,
        )
        for worker in range(4)
    ]
    errors = [proc.communicate(timeout=240)[1] for proc in procs]
    assert [proc.returncode for proc in procs] == [0, 0, 0, 0], errors
    with Store(db) as store:
        spores = list_spores(store)
        assert len(spores) == 120
        assert sorted(s.id for s in spores) == [f"spore-{n:03d}" for n in range(1, 121)]
        assert {s.text for s in spores} == {
            f"worker {w} task {i}" for w in range(4) for i in range(30)
        }
        assert len(list_crystals(store)) == 121
        shared = get_crystal(store, "shared")
        assert len(shared.notes) == 120
        assert shared.revision == 121


CRASHER = """
import sys
from anneal_memory import Store
from anneal_memory.crystal import crystallize
from anneal_memory.spores import add_spore, update_spore
with Store(sys.argv[1]) as store:
    ep = store.record("the evidence every crystal cites", "observation")
    print("ready", flush=True)
    i = 0
    while True:
        crystallize(store, f"rule_{i}", level=2, explanation=f"rule {i}", evidence=[ep.id])
        spore = add_spore(store, type="task", text=f"task {i}")
        update_spore(store, spore.id, salience=1, add_note=f"note {i}")
        i += 1
"""


def test_sigkill_mid_write_leaves_every_crystal_and_spore_whole(tmp_path: Path) -> None:
    import signal
    import sqlite3

    db = tmp_path / "crash.db"
    proc = subprocess.Popen(
        [sys.executable, "-c", CRASHER, str(db)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "ready"
    conn = sqlite3.connect(db)
    while conn.execute("SELECT count(*) FROM spores").fetchone()[0] < 40:
        pass
    conn.close()
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    proc.stdout.close()
    with Store(db) as store:
        with store.reading("check") as reader:
            assert reader.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        crystals = list_crystals(store)
        assert len(crystals) >= 40
        assert all(len(c.evidence) == 1 for c in crystals)
        for spore in list_spores(store):
            assert len(spore.notes) == spore.revision - 1
            assert spore.salience == (1 if spore.notes else 0)
