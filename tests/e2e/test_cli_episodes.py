"""``delete`` on a real terminal: a process whose stdin is a pseudo-terminal asks first."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e


def _delete_on_a_terminal(cli_db: Path, episode_id: str, answer: str, env) -> tuple[int, str]:
    pty = pytest.importorskip("pty")
    controller, terminal = pty.openpty()
    try:
        os.write(controller, answer.encode())
        proc = subprocess.run(
            [sys.executable, "-m", "anneal_memory", "--db", str(cli_db), "delete", episode_id],
            stdin=terminal,
            capture_output=True,
            env=env,
            timeout=30,
            check=False,
        )
    finally:
        os.close(terminal)
        os.close(controller)
    return proc.returncode, proc.stderr.decode()


@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")
def test_delete_on_a_terminal_asks_first(run_cli, cli_db: Path, cli_env):
    recorded = run_cli("record", "ask before deleting me", "--json").assert_ok().json()
    code, err = _delete_on_a_terminal(cli_db, recorded["id"], "n\n", cli_env())
    assert code == 1
    assert f"Delete observation {recorded['id']}: ask before deleting me? [y/N]" in err
    assert "not confirmed" in err
    run_cli("get", recorded["id"]).assert_ok()
    code, err = _delete_on_a_terminal(cli_db, recorded["id"], "y\n", cli_env())
    assert code == 0, err
    run_cli("get", recorded["id"]).assert_error(1)
