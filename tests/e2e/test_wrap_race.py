"""A save in one process and records in another race without losing an episode."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from anneal_memory import Store, prepare_wrap, validated_save_continuity
from anneal_memory.store.sqlite._connection import connect

pytestmark = pytest.mark.e2e

WRITER = textwrap.dedent(
    """
    import sys
    from anneal_memory import Store
    with Store(sys.argv[1]) as store:
        for i in range(int(sys.argv[2])):
            store.record(f"writer episode {i} about socket pools", "observation")
    """
)
TEXT = "## State\n- racing\n## Patterns\n## Decisions\n## Context\n- wrap {n}\n"


def test_save_and_record_race_without_loss(tmp_path: Path) -> None:
    db = tmp_path / "race" / "memory.db"
    writes = 300
    with Store(db) as store:
        for i in range(5):
            store.record(f"seed episode {i}", "observation")
        writer = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(db), str(writes)], stderr=subprocess.PIPE
        )
        compressed = 0
        wraps = 0
        while writer.poll() is None or store.status().episodes_since_wrap:
            prep = prepare_wrap(store)
            if prep.status.value == "empty":
                continue
            result = validated_save_continuity(
                store, TEXT.format(n=wraps), wrap_token=prep.wrap_token
            )
            assert result.episodes_compressed == prep.episode_count
            compressed += result.episodes_compressed
            wraps += 1
        _out, err = writer.communicate(timeout=60)
        assert writer.returncode == 0, err
        status = store.status()
    assert status.total_episodes == writes + 5
    assert compressed == writes + 5
    assert wraps >= 2  # the race really interleaved saves with records
    conn = connect(db)
    try:
        # Every episode lies in exactly one completed wrap's snapshot range.
        covered = conn.execute(
            "SELECT count(*) FROM wraps w JOIN episodes e"
            " ON e.seq > w.after_seq AND e.seq <= w.through_seq WHERE w.status = 'completed'"
        ).fetchone()[0]
        distinct = conn.execute(
            "SELECT count(DISTINCT e.seq) FROM wraps w JOIN episodes e"
            " ON e.seq > w.after_seq AND e.seq <= w.through_seq WHERE w.status = 'completed'"
        ).fetchone()[0]
    finally:
        conn.close()
    assert covered == distinct == writes + 5
    assert status.episodes_since_wrap == 0


def test_two_processes_cannot_open_two_wraps(tmp_path: Path) -> None:
    db = tmp_path / "race" / "memory.db"
    with Store(db) as store:
        store.record("one", "observation")
    script = textwrap.dedent(
        """
        import sys
        from anneal_memory import Store, prepare_wrap
        from anneal_memory.errors import WrapInProgressError
        with Store(sys.argv[1]) as store:
            try:
                prepare_wrap(store)
                print("opened", flush=True)
            except WrapInProgressError:
                print("refused", flush=True)
            sys.stdin.read()  # stay alive (the wrap's owner) until every process has tried
        """
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        for _ in range(4)
    ]
    outcomes = sorted(p.stdout.readline().decode().strip() for p in procs if p.stdout)
    for proc in procs:
        proc.communicate(timeout=60)
    assert outcomes == ["opened", "refused", "refused", "refused"]
