"""Writers and wrappers in separate processes on one PostgreSQL store, one of them killed.

Four processes record 250 episodes each while three others prepare and save wraps in a
loop; one wrapper is killed with SIGKILL between its prepare and its save, another at a
random moment (possibly inside its save's transaction). Afterwards: nothing was lost, the
audit chain verifies, every prepare made exactly one wrap, and every episode was in the
package of exactly one completed wrap (a record can never commit into a range a wrap has
already read).
"""

from __future__ import annotations

import itertools
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from anneal_memory import Store, WrapStatus, prepare_wrap, validated_save_continuity
from anneal_memory.continuity import wrap_history

sys.path.insert(0, str(Path(__file__).parents[1]))

from backends import pg_url  # noqa: F401 - fixture

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX"),
]

WRITER = """
import sys
from anneal_memory import Store
url, name, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
with Store(url) as store:
    for i in range(count):
        store.record(f"{name} wrote note {i} about the fleet", "observation", source=name)
"""

TEXT = (
    "# Fleet \u2014 Memory (v1)\n\n## State\n- wrapping, save {n}\n\n## Patterns\n\n"
    "## Decisions\n- none yet\n\n## Context\n- a fleet of writers\n"
)

WRAPPER = f"""
import json, os, sys, time
from anneal_memory import Store, WrapStatus, prepare_wrap, validated_save_continuity
from anneal_memory.errors import WrapInProgressError
url, name, stop, mode = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
TEXT = {TEXT!r}
with Store(url, project_name="Fleet") as store:
    n = 0
    while True:
        try:
            prep = prepare_wrap(store, session_id=name, max_package_chars=20_000)
        except WrapInProgressError:
            time.sleep(0.01)
            continue
        if prep.status is WrapStatus.EMPTY:
            if os.path.exists(stop):
                break
            time.sleep(0.01)
            continue
        ids = [e.id for e in prep.package.episodes]
        print(json.dumps({{"token": prep.wrap_token, "ids": ids}}), flush=True)
        if mode == "hang":
            time.sleep(3600)
        validated_save_continuity(store, TEXT.format(n=n), wrap_token=prep.wrap_token,
                                  session_id=name)
        print(json.dumps({{"saved": prep.wrap_token}}), flush=True)
        n += 1
"""


def _wrapper(url: str, name: str, stop: Path, mode: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", WRAPPER, url, name, str(stop), mode],
        stdout=subprocess.PIPE,
        text=True,
    )


def _prepares(lines: str, into: dict[str, list[str]]) -> set[str]:
    """Collect each prepare's package ids by token; return the tokens reported saved."""
    saved = set()
    for line in lines.splitlines():
        item = json.loads(line)
        if "token" in item:
            assert item["token"] not in into, "two prepares handed out one token"
            into[item["token"]] = item["ids"]
        else:
            saved.add(item["saved"])
    return saved


def _drain(store: Store, into: dict[str, list[str]]) -> set[str]:
    """Wrap whatever is left, in this process (reclaiming wraps of killed processes)."""
    saved = set()
    for n in range(1000):
        prep = prepare_wrap(store, session_id="drain", max_package_chars=20_000)
        if prep.status is WrapStatus.EMPTY:
            return saved
        assert prep.wrap_token is not None
        into[prep.wrap_token] = [e.id for e in prep.package.episodes]
        validated_save_continuity(
            store, TEXT.format(n=n), wrap_token=prep.wrap_token, session_id="drain"
        )
        saved.add(prep.wrap_token)
    pytest.fail("the store never ran out of unwrapped episodes")


def test_writers_and_wrappers_in_processes_lose_nothing(pg_url: str, tmp_path: Path) -> None:  # noqa: F811
    with Store(pg_url, project_name="Fleet") as store:
        store.record("the first note, so the first wrapper has something", "observation")
    stop = tmp_path / "stop"
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, pg_url, f"w{n}", "250"]) for n in range(4)
    ]
    hung = _wrapper(pg_url, "hung", stop, "hang")
    assert hung.stdout is not None
    hung_line = hung.stdout.readline()  # it prepared a wrap and now sleeps inside it
    wrappers = [_wrapper(pg_url, f"wrapper{n}", stop, "loop") for n in range(3)]
    os.kill(hung.pid, signal.SIGKILL)
    hung.wait(timeout=60)
    hung.stdout.close()
    time.sleep(random.uniform(0.2, 1.5))
    os.kill(wrappers[0].pid, signal.SIGKILL)  # wherever it is: maybe inside a save
    assert [w.wait(timeout=600) for w in writers] == [0, 0, 0, 0]
    stop.touch()
    outputs = [w.communicate(timeout=600)[0] for w in wrappers]
    assert [w.returncode for w in wrappers] == [-signal.SIGKILL, 0, 0]

    packages: dict[str, list[str]] = {}
    saved = _prepares(hung_line, packages)
    for out in outputs:
        saved |= _prepares(out, packages)
    with Store(pg_url, project_name="Fleet") as store:
        saved |= _drain(store, packages)
        everything = store.recall(limit=1000)
        rest = store.recall(limit=1000, offset=1000)
        ids = [e.id for e in everything.episodes + rest.episodes]
        assert everything.total_matching == len(set(ids)) == 1001  # nothing lost
        for n in range(4):
            assert store.recall(source=f"w{n}").total_matching == 250
        wraps = wrap_history(store, limit=10_000)
        audit = store.verify_audit()
        completed_entries = store.read_audit(event="wrap_completed")
    assert audit.valid, audit.error

    # Exactly one wrap per prepare: the wrap rows are the prepares, token for token.
    assert sorted(w.token for w in wraps) == sorted(packages)
    status = {w.token: w.status for w in wraps}
    assert all(status[t] == "completed" for t in saved)
    assert status[json.loads(hung_line)["token"]] == "cancelled"  # reclaimed, not saved
    assert "open" not in status.values()
    completed = [w for w in wraps if w.status == "completed"]
    assert len(completed_entries) == len(completed)

    # Every episode was in the package of exactly one completed wrap ...
    wrapped = [i for w in completed for i in packages[w.token]]
    assert sorted(wrapped) == sorted(ids)
    # ... and the completed seq ranges tile the episodes with no gap and no overlap.
    ranges = sorted((w.after_seq, w.through_seq) for w in completed)
    assert ranges[0][0] == 0
    assert all(prev[1] == nxt[0] for prev, nxt in itertools.pairwise(ranges))
    assert all(w.episode_count == len(packages[w.token]) for w in completed)
