"""Numbers and times at their extremes: only the documented error tree escapes, on every path."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from _cli import run_cli
from anneal_memory import AnnealMemoryError, Store, prepare_wrap, wrap_cancel
from anneal_memory.associations import associations
from anneal_memory.continuity import pattern_history, wrap_history

pytestmark = pytest.mark.reliability

HUGE_INTS = [2**63, 2**64, 10**30, -(2**63) - 1, -1, 0]
HUGE_NUMBERS = [*HUGE_INTS, 1e308, float("inf"), float("nan")]
TIMES = [
    "99999999999999999999d",
    "1e308d",
    "9999999999999h",
    "10000-01-01T00:00:00Z",
    "0001-01-01T00:00:00Z",
    "-5d",
    "nan",
]


def _library_calls(store: Store) -> list[tuple[str, Callable[[], Any]]]:
    calls: list[tuple[str, Callable[[], Any]]] = []
    for v in HUGE_NUMBERS:
        calls += [
            (f"recall(limit={v})", lambda v=v: store.recall("hello", limit=v)),
            (f"recall(offset={v})", lambda v=v: store.recall("hello", offset=v)),
            (f"recall(None, limit={v})", lambda v=v: store.recall(limit=v)),
            (f"prune({v})", lambda v=v: store.prune(v)),
            (f"prepare_wrap(max_chars={v})", lambda v=v: prepare_wrap(store, max_chars=v)),
            (f"prepare_wrap(staleness={v})", lambda v=v: prepare_wrap(store, staleness_days=v)),
            (f"wrap_history(limit={v})", lambda v=v: wrap_history(store, limit=v)),
            (f"pattern_history(limit={v})", lambda v=v: pattern_history(store, "x", limit=v)),
            (f"associations(limit={v})", lambda v=v: associations(store, limit=v)),
            (f"associations(min={v})", lambda v=v: associations(store, min_strength=v)),
        ]
    for t in TIMES:
        calls += [
            (f"recall(since={t})", lambda t=t: store.recall(since=t)),
            (f"recall(until={t})", lambda t=t: store.recall(until=t)),
            (f"record(timestamp={t})", lambda t=t: store.record("x", "context", timestamp=t)),
        ]
    return calls


def test_library_calls_raise_only_the_error_tree(tmp_path: Path):
    escaped = []
    with Store(tmp_path / "memory.db") as store:
        store.record("hello", "observation")
        for name, call in _library_calls(store):
            try:
                call()
            except AnnealMemoryError:
                pass
            except Exception as exc:
                escaped.append(f"{name}: {type(exc).__name__}: {exc}")
            with contextlib.suppress(AnnealMemoryError):
                wrap_cancel(store)
    assert escaped == []


CLI_VALUES = ["9" * 30, "9223372036854775808", "1e308", "inf", "nan", "-1"]
CLI_COMMANDS = [
    ["search", "hello", "--limit"],
    ["search", "hello", "--offset"],
    ["episodes", "--limit"],
    ["prune", "--dry-run", "--older-than"],
    ["prune", "--older-than"],
    ["stats", "--days"],
    ["history", "--limit"],
    ["diff", "--wraps"],
    ["associations", "--limit"],
    ["associations", "--min-strength"],
    ["prepare-wrap", "--max-chars"],
    ["prepare-wrap", "--staleness-days"],
    ["audit", "--limit"],
]
CLI_TIMES = [["search", "hello", "--since"], ["search", "hello", "--until"], ["audit", "--since"]]


def test_cli_exits_1_or_2_with_one_line_never_unexpected(tmp_path: Path):
    db = tmp_path / "memory.db"
    assert run_cli(db, "record", "hello").returncode == 0
    bad = []
    runs = [[*c, v] for c in CLI_COMMANDS for v in CLI_VALUES]
    runs += [[*c, t] for c in CLI_TIMES for t in TIMES]
    for args in runs:
        proc = run_cli(db, *args)
        if proc.returncode not in (0, 1, 2, 3) or "Traceback" in proc.stderr:
            bad.append((args, proc.returncode, proc.stderr[-200:]))
        elif "unexpected" in proc.stderr.lower():
            bad.append((args, proc.returncode, proc.stderr.strip()))
        if args[0] == "prepare-wrap" and proc.returncode == 0:
            run_cli(db, "wrap-cancel")
    assert bad == []


def _mcp_calls() -> list[tuple[str, dict[str, Any]]]:
    calls: list[tuple[str, dict[str, Any]]] = []
    for v in [*HUGE_INTS, 1e308]:
        calls += [
            ("recall", {"keyword": "hello", "limit": v}),
            ("recall", {"keyword": "hello", "offset": v}),
            ("prepare_wrap", {"max_chars": v}),
            ("wrap_cancel", {}),
            ("prepare_wrap", {"staleness_days": v}),
            ("wrap_cancel", {}),
        ]
    for t in TIMES:
        calls += [("recall", {"since": t}), ("recall", {"until": t})]
    return calls


@pytest.mark.e2e
def test_mcp_answers_every_extreme_with_a_result_or_an_error_and_logs_nothing(tmp_path: Path):
    db = tmp_path / "memory.db"
    Store(db).close()
    lines: list[dict[str, Any]] = [
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {"protocolVersion": "2025-03-26", "capabilities": {}},
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]
    calls = _mcp_calls()
    for n, (name, arguments) in enumerate(calls, start=1):
        lines.append(
            {
                "jsonrpc": "2.0",
                "id": n,
                "method": "tools/call",
                "params": {"name": name, "arguments": arguments},
            }
        )
    data = "".join(json.dumps(line) + "\n" for line in lines).encode()
    done = subprocess.run(
        [sys.executable, "-m", "anneal_memory", "--db", str(db), "serve", "--session-id", "t"],
        input=data,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0
    assert done.stderr == b""
    replies = [json.loads(line) for line in done.stdout.splitlines() if line]
    assert len(replies) == len(calls) + 1
    for reply in replies[1:]:
        assert "result" in reply or "error" in reply
        if "result" in reply:
            text = json.dumps(reply["result"])
            assert "Traceback" not in text
            assert "unexpected" not in text.lower()
