"""The ``anneal-memory`` process ends without the interpreter's teardown (issue #25).

``console_main()`` (the console script and ``python -m anneal_memory``) flushes its output
and leaves with ``os._exit`` once the command has run: the teardown cost about a fifth of a
``record``'s start-to-exit CPU time. Each test starts a real interpreter (the e2e tier) with
an object whose finaliser reports at teardown, and checks what the process did: the store
holds the episode, stdout has the answer, the exit code is the command's, and the teardown
ran only when someone's code was still waiting for it (an ``atexit`` callback, a live
non-daemon thread).
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e  # each test starts a fresh interpreter (docs/testing.md)

_DRIVER = """
import sys
from anneal_memory.cli import console_main

class Probe:
    def __del__(self):
        sys.stderr.write("teardown ran\\n")

probe = Probe()  # a global of __main__: finalised by the interpreter's teardown
setup = sys.argv.pop(1)
if setup == "atexit":
    import atexit
    atexit.register(lambda: sys.stderr.write("atexit ran\\n"))
elif setup == "thread":
    import threading, time
    threading.Thread(target=time.sleep, args=(2,)).start()  # outlives the command
sys.argv[0] = "anneal-memory"
sys.exit(console_main())
"""


def _run(tmp_path: Path, setup: str, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _DRIVER, setup, "--db", str(tmp_path / "memory.db"), *argv],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_a_record_leaves_without_teardown_and_its_episode_and_output_are_kept(
    tmp_path: Path,
) -> None:
    proc = _run(tmp_path, "none", "record", "the fast exit keeps this", "--type", "observation")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("Recorded observation ")  # flushed before the exit
    assert "teardown ran" not in proc.stderr
    assert not (tmp_path / "memory.db-wal").exists()  # the store was closed first
    with closing(sqlite3.connect(tmp_path / "memory.db")) as conn:  # 3.13 warns if left open
        rows = conn.execute("SELECT content FROM episodes").fetchall()
    assert rows == [("the fast exit keeps this",)]


def test_the_exit_code_of_a_failed_command_is_kept(tmp_path: Path) -> None:
    proc = _run(tmp_path, "none", "get", "deadbeef")
    assert proc.returncode == 1
    assert proc.stderr.startswith("Error:")
    assert "teardown ran" not in proc.stderr


def test_an_atexit_callback_still_runs(tmp_path: Path) -> None:
    proc = _run(tmp_path, "atexit", "record", "a note", "--type", "observation")
    assert proc.returncode == 0, proc.stderr
    assert "atexit ran" in proc.stderr
    assert "teardown ran" in proc.stderr  # the normal exit, as before


def test_a_live_non_daemon_thread_is_waited_for(tmp_path: Path) -> None:
    proc = _run(tmp_path, "thread", "record", "a note", "--type", "observation")
    assert proc.returncode == 0, proc.stderr
    assert "teardown ran" in proc.stderr
