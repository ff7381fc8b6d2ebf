"""SIGKILL between the continuity file's rename and the save's COMMIT (issue #24 item 10).

The child replaces ``os.replace`` with one that kills the process right after renaming the
continuity file, the exact point where the file holds the new text and the database does
not. After reopening, the file is the last committed save's text; ``check`` before the
reopen names the interrupted save (not a hand edit), and after it is clean.
"""

from __future__ import annotations

import random
from pathlib import Path

from _crash import SAVER, continuity_agreement, kill_after, kill_after_rename
from anneal_memory import Store
from anneal_memory.audit import read_entries


def _codes(db: Path) -> list[str]:
    with Store(db, read_only=True) as reader:
        return [p.code for p in reader.check(full=False).problems if p.severity.value == "error"]


def test_a_kill_right_after_the_rename_is_rolled_back_on_reopen(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    Store(db).close()
    for trial in range(3):
        assert kill_after_rename(db, trial) == -9  # the kill point was reached
        assert _codes(db) == ["continuity-interrupted"]
        agrees, wrap_open = continuity_agreement(db)  # reopens write-capable first
        assert agrees
        assert wrap_open  # the killed save never closed its wrap
        assert _codes(db) == []
    assert len(read_entries(db, event="continuity_restored")) == 3
    assert read_entries(db, event="continuity_saved") == []


def test_random_kills_during_saves_leave_file_and_database_agreeing(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    Store(db).close()
    rng = random.Random(24)
    for _ in range(12):
        kill_after(SAVER, db, low=0.05, high=0.4, rng=rng)
        agrees, _wrap_open = continuity_agreement(db)
        assert agrees
        assert _codes(db) == []
