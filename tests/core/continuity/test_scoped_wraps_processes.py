"""Wraps of two scopes run at the same time in two processes and both complete.

On SQLite and on PostgreSQL (``target``: a file path or a URL with a schema of its own).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from anneal_memory import Store
from anneal_memory.continuity import unwrapped_in_scope, wrap_history

pytestmark = pytest.mark.e2e

# Each child opens the wrap of its scope, and its fake model answers only once the other
# child's wrap is open too, so both wraps are open at the same moment.
CHILD = textwrap.dedent(
    """
    import json, sys, time
    from pathlib import Path
    from anneal_memory import AgentMemory

    db, scope, mine, theirs = sys.argv[1], sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4])

    def compress(package):
        mine.write_text("open")
        deadline = time.monotonic() + 60
        while not theirs.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        return "\\n".join([
            "# Agent \\u2014 Memory (v1)", "", "## State", f"- wrapped {scope}", "",
            "## Patterns", "", "## Decisions", "- none yet", "", "## Context",
            "- " + str(package.count("(")) + " lines", "",
        ])

    with AgentMemory(db, scope=scope, project_name="Agent") as memory:
        outcome = memory.wrap(compress)
    print(json.dumps({"status": str(outcome.status), "message": outcome.message,
                      "both_open": theirs.exists()}))
    """
)


def test_wraps_of_two_scopes_in_two_processes_both_complete(tmp_path: Path, target: str) -> None:
    db = target  # the conftest's fixture: a SQLite path, then a PostgreSQL URL
    with Store(db, project_name="Agent") as store:
        for i in range(3):
            store.record(f"Alice note {i}", "observation", scope="alice")
            store.record(f"Bob note {i}", "observation", scope="bob")
    flags = {s: tmp_path / f"{s}.open" for s in ("alice", "bob")}
    children = [
        subprocess.Popen(
            [sys.executable, "-c", CHILD, str(db), s, str(flags[s]), str(flags[other])],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for s, other in (("alice", "bob"), ("bob", "alice"))
    ]
    results = []
    for child in children:
        out, err = child.communicate(timeout=120)
        assert child.returncode == 0, err
        results.append(json.loads(out))
    assert [r["status"] for r in results] == ["saved", "saved"], results
    assert all(r["both_open"] for r in results)
    with Store(db, project_name="Agent") as store:
        assert sorted(w.scope for w in wrap_history(store)) == ["alice", "bob"]
        assert {w.status for w in wrap_history(store)} == {"completed"}
        assert unwrapped_in_scope(store, "alice") == unwrapped_in_scope(store, "bob") == 0
        assert "wrapped alice" in (store.load_continuity("alice") or "")
        assert "wrapped bob" in (store.load_continuity("bob") or "")
