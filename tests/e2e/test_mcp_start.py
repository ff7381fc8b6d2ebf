"""How the server starts: no command on a pipe serves, on a terminal prints usage; a bad --db."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

_LIST = b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n'


def _run(args: list[str], data: bytes, tmp_path: Path) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANNEAL_MEMORY_")}
    return subprocess.run(
        [sys.executable, "-m", "anneal_memory", *args],
        input=data,
        capture_output=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
        check=False,
    )


def test_no_command_with_a_piped_stdin_serves_with_the_global_flags(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    init = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "record", "arguments": {"content": "x", "episode_type": "context"}},
    }
    data = _LIST + json.dumps(init).encode() + b"\n"
    done = _run(["--db", str(db), "--project-name", "MyProject"], data, tmp_path)
    assert done.returncode == 0, done.stderr
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["id"] for r in replies] == [1, 2]
    assert "record" in {t["name"] for t in replies[0]["result"]["tools"]}
    assert replies[1]["result"]["isError"] is False
    assert db.exists()


def test_no_command_on_a_terminal_prints_usage(tmp_path: Path) -> None:
    leader, follower = pty.openpty()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "anneal_memory", "--db", str(tmp_path / "m.db")],
            stdin=follower,
            capture_output=True,
            timeout=60,
            check=False,
        )
    finally:
        os.close(follower)
        os.close(leader)
    assert done.returncode == 2
    assert b"usage:" in done.stderr
    assert done.stdout == b""
    assert not (tmp_path / "m.db").exists()


@pytest.mark.parametrize("args", [["serve"], []])
def test_a_directory_as_db_is_refused_naming_the_path(tmp_path: Path, args: list[str]) -> None:
    folder = tmp_path / "a folder"
    folder.mkdir()
    done = _run(["--db", str(folder), *args], _LIST, tmp_path)
    assert done.returncode == 1
    assert done.stdout == b""
    err = done.stderr.decode().strip()
    assert err.startswith("Error: ")
    assert f"{folder} is a directory" in err
    assert str(folder / "memory.db") in err
