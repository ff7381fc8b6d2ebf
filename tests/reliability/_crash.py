"""Helpers shared by the kill -9 tests and bench/battery.py: children, kills, gap counts."""

from __future__ import annotations

import random
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from anneal_memory import Store
from anneal_memory.audit import iter_entries

__all__ = [
    "CONCURRENT_WRAPPER",
    "KILL_AFTER_RENAME",
    "RECORDER",
    "SAVER",
    "WRAPPER",
    "WRITER",
    "continuity_agreement",
    "finish",
    "kill_after",
    "kill_after_rename",
    "kill_before_append",
    "record_gaps",
    "spawn",
    "wrap_gaps",
]

# Records until killed; an idempotent retry of every fifth key repeats the previous record.
RECORDER = r"""
import os, sys
from anneal_memory import Store
pid = os.getpid()
with Store(sys.argv[1]) as store:
    print("ready", flush=True)
    i = 0
    while True:
        n = i // 2
        store.record(f"note {pid} {n}", "observation", idempotency_key=f"k{pid}-{n}")
        i += 1
"""

# Prepares and saves wraps until killed.
WRAPPER = r"""
import sys
from anneal_memory import Store, prepare_wrap, validated_save_continuity, wrap_cancel
from anneal_memory.continuity import wrap_status
TEXT = "## State\n- crash test {n}\n## Patterns\n## Decisions\n## Context\n- wrap {n}\n"
with Store(sys.argv[1]) as store:
    if wrap_status(store) is not None:  # left open by the previous child's kill
        wrap_cancel(store)
    print("ready", flush=True)
    n = 0
    while True:
        for i in range(3):
            store.record(f"wrap {n} note {i}", "observation")
        prep = prepare_wrap(store)
        validated_save_continuity(store, TEXT.format(n=n), wrap_token=prep.wrap_token)
        n += 1
"""

# Saves continuity through wraps until killed (the continuity file's atomic write).
SAVER = WRAPPER


def kill_after(script: str, db: Path, *, low: float, high: float, rng: random.Random) -> None:
    """Start ``script`` on ``db``, wait until it is ready, SIGKILL it after a random delay."""
    child = subprocess.Popen(
        [sys.executable, "-c", script, str(db)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        line = child.stdout.readline()
        if line.strip() != "ready":
            child.wait(timeout=30)
            _out, err = child.communicate(timeout=30)
            raise AssertionError(f"the child did not start: {line!r} {err}")
        time.sleep(rng.uniform(low, high))
    finally:
        child.kill()
        child.communicate(timeout=30)


def _entries(db: Path, event: str, key: str) -> list[object]:
    return [e["data"][key] for e in iter_entries(db) if e["event"] == event]


def record_gaps(db: Path) -> tuple[int, int, int]:
    """Reopen the store (which appends staged entries), then count.

    Returns (episodes, episodes without a ``record`` entry, duplicate ``record`` entries).
    """
    Store(db).close()
    conn = sqlite3.connect(db)
    try:
        ids = {str(r[0]) for r in conn.execute("SELECT id FROM episodes")}
    finally:
        conn.close()
    recorded = _entries(db, "record", "episode_id")
    return len(ids), len(ids - set(map(str, recorded))), len(recorded) - len(set(recorded))


def wrap_gaps(db: Path) -> tuple[int, int]:
    """Reopen, then return (completed wraps, completed wraps without ``wrap_completed``)."""
    Store(db).close()
    conn = sqlite3.connect(db)
    try:
        done = {int(r[0]) for r in conn.execute("SELECT id FROM wraps WHERE status='completed'")}
    finally:
        conn.close()
    logged = {int(str(w)) for w in _entries(db, "wrap_completed", "wrap_id")}
    return len(done), len(done - logged)


# Dies by SIGKILL at the worst moment: the change is committed, its audit line not yet
# written (the trail's low-level write is patched to kill the process first).
KILL_BEFORE_APPEND = r"""
import os, signal, sys
from anneal_memory import Store, prepare_wrap, validated_save_continuity
from anneal_memory.audit import _trail
event = sys.argv[2].encode()
real_write = _trail.write_all
def write_all(fd, payload):
    if b'"event":"' + event + b'"' in payload:
        os.kill(os.getpid(), signal.SIGKILL)
    real_write(fd, payload)
_trail.write_all = write_all
TEXT = "## State\n- crash test\n## Patterns\n## Decisions\n## Context\n- wrap\n"
with Store(sys.argv[1]) as store:
    store.record("about to die", "observation")
    prep = prepare_wrap(store)
    validated_save_continuity(store, TEXT, wrap_token=prep.wrap_token)
"""


def kill_before_append(db: Path, event: str) -> int:
    """Run :data:`KILL_BEFORE_APPEND` for ``event``; return its exit code."""
    child = subprocess.run(
        [sys.executable, "-c", KILL_BEFORE_APPEND, str(db), event],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return child.returncode


# Records COUNT episodes, printing each id once record() returned.
WRITER = r"""
import sys
from anneal_memory import Store
db, worker, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
with Store(db) as store:
    for i in range(count):
        print(store.record(f"{worker} note {i}", "observation", source="worker").id, flush=True)
"""

# Wraps whenever something waits, COUNT times, while writers record.
CONCURRENT_WRAPPER = r"""
import sys, time
from anneal_memory import Store, prepare_wrap, validated_save_continuity
from anneal_memory.errors import NoWrapInProgressError, WrapInProgressError, WrapTokenMismatchError
TEXT = "## State\n- concurrent {w} {n}\n## Patterns\n## Decisions\n## Context\n- wrap\n"
db, worker, count, total = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
saved = n = 0
deadline = time.monotonic() + 60
with Store(db) as store:
    # At least ``count`` tries, and on until the writer is done (``total`` episodes; at most a
    # minute), so the wrappers race the writer however late a loaded machine starts them.
    while n < count or (store.status().total_episodes < total and time.monotonic() < deadline):
        n += 1
        try:
            prep = prepare_wrap(store)
            if prep.wrap_token is None:
                continue
            validated_save_continuity(store, TEXT.format(w=worker, n=n), wrap_token=prep.wrap_token)
            saved += 1
        except (WrapInProgressError, NoWrapInProgressError, WrapTokenMismatchError):
            pass
print(saved, flush=True)
"""


def spawn(script: str, *args: str) -> subprocess.Popen[str]:
    """Start ``script`` with ``args`` (stdout and stderr captured)."""
    return subprocess.Popen(
        [sys.executable, "-c", script, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(child: subprocess.Popen[str], timeout: float = 600) -> list[str]:
    """Wait for ``child``; return its stdout lines (it must exit 0)."""
    out, err = child.communicate(timeout=timeout)
    assert child.returncode == 0, err
    return out.split()


# Dies by SIGKILL right after the continuity file's rename, before the save commits: every
# rename onto a ``.continuity.md`` path is followed by the kill (``os.replace`` is patched,
# so the kill point does not depend on how the save is laid out).
KILL_AFTER_RENAME = r"""
import os, signal, sys
from anneal_memory import Store, prepare_wrap, validated_save_continuity, wrap_cancel
from anneal_memory.continuity import wrap_status
real_replace = os.replace
def replace(src, dst, *args, **kwargs):
    real_replace(src, dst, *args, **kwargs)
    if os.fspath(dst).endswith(".continuity.md"):
        os.kill(os.getpid(), signal.SIGKILL)
os.replace = replace
n = int(sys.argv[2])
TEXT = "## State\n- renamed {n}\n## Patterns\n## Decisions\n## Context\n- wrap {n}\n"
with Store(sys.argv[1]) as store:
    if wrap_status(store) is not None:  # left open by the previous child's kill
        wrap_cancel(store)
    store.record(f"rename trial {n}", "observation")
    prep = prepare_wrap(store)
    validated_save_continuity(store, TEXT.format(n=n), wrap_token=prep.wrap_token)
"""


def kill_after_rename(db: Path, trial: int) -> int:
    """Run :data:`KILL_AFTER_RENAME` once; its exit code (-9 when the kill point was reached)."""
    child = subprocess.run(
        [sys.executable, "-c", KILL_AFTER_RENAME, str(db), str(trial)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return child.returncode


def continuity_agreement(db: Path) -> tuple[bool, bool]:
    """Reopen the store, then: (the continuity file is the last committed save's text,
    a wrap is still open)."""
    import hashlib

    Store(db).close()
    conn = sqlite3.connect(db)
    try:
        row = conn.execute(
            "SELECT continuity_sha256 FROM wraps WHERE scope = '' AND status = 'completed' "
            "ORDER BY id DESC LIMIT 1"
        ).fetchone()
        open_wraps = conn.execute("SELECT count(*) FROM wraps WHERE status = 'open'").fetchone()[0]
    finally:
        conn.close()
    path = db.with_name(db.stem + ".continuity.md")
    found = hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else None
    committed = None if row is None else row[0]
    return found == committed, bool(open_wraps)
