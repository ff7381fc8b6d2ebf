"""A process killed with SIGKILL in the middle of a wrap does not block the next one."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from anneal_memory import AgentMemory, Store
from anneal_memory.audit import iter_entries
from anneal_memory.continuity import wrap_status
from anneal_memory.testing import demo_compress

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL and /proc are POSIX"),
]

# The child opens a wrap, then hangs inside its model call until it is killed.
CHILD = """
import sys, time
from anneal_memory import AgentMemory
def compress(package):
    print("compressing", flush=True)
    time.sleep(120)
    return ""
AgentMemory(sys.argv[1], session_id=sys.argv[2] or None).wrap(compress)
"""


def _crash_mid_wrap(db: Path, session: str) -> int:
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(db), session],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        line = child.stdout.readline()
        assert line.strip() == "compressing", child.stderr.read() if child.stderr else ""
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.wait(timeout=30)
        for stream in (child.stdout, child.stderr):
            if stream is not None:
                stream.close()
    assert child.returncode == -signal.SIGKILL
    return child.pid


@pytest.mark.parametrize("session", ["", "nightly"])
def test_the_next_wrap_proceeds_after_a_kill_9_between_prepare_and_save(
    tmp_path: Path, session: str
) -> None:
    db = tmp_path / "memory.db"
    with Store(db) as store:
        store.record("The retry with backoff fixed the flaky upload", "outcome")
        store.record("Uploads failed under load without retries", "observation")
    pid = _crash_mid_wrap(db, session)
    with Store(db) as store:
        stuck = wrap_status(store)
        assert stuck is not None
        assert stuck.owner_pid == pid
        outcome = AgentMemory(store, session_id=session or None).wrap(demo_compress)
        assert outcome.status == "saved", outcome.message
        assert outcome.episodes_compressed == 2
        assert wrap_status(store) is None
        cancels = [e for e in iter_entries(store.path) if e["event"] == "wrap_cancelled"]
    assert [(c["data"]["reason"], c["data"]["cause"]) for c in cancels] == [
        ("expired", "owner-gone")
    ]
    assert cancels[0]["data"]["wrap_id"] == stuck.id


def test_the_cli_prepare_reclaims_a_crashed_wrap(cli_db: Path, run_cli) -> None:
    run_cli("init", "--no-baton").assert_ok()
    run_cli("record", "The retry with backoff fixed the flaky upload").assert_ok()
    _crash_mid_wrap(cli_db, "")
    prepared = run_cli("prepare-wrap").assert_ok()
    assert "Wrap token:" in prepared.out


def test_a_cli_prepare_records_no_process_so_its_wrap_outlives_the_command(run_cli) -> None:
    run_cli("init", "--no-baton").assert_ok()
    run_cli("record", "The retry with backoff fixed the flaky upload").assert_ok()
    run_cli("prepare-wrap").assert_ok()
    status = run_cli("wrap-status", "--json").assert_ok().json()
    assert status["wrap"]["owner_pid"] is None
    assert status["wrap"]["lease_expires_at"]
    again = run_cli("prepare-wrap").assert_error(1)
    assert "If it is yours, finish it" in again
