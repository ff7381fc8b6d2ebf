"""Run the real ``anneal-memory`` command line: in this process, or in a child process.

Both take a clean environment (``PATH``, ``HOME`` beside the database) and the current
working directory; both return a finished ``subprocess.CompletedProcess`` (never raising on
the exit code). A child process is for what could hang a test (FIFOs, devices: it has a
timeout) or what only a process shows.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from clirun import run_in_process

__all__ = ["run_cli", "run_cli_process"]


def _env(db: Path) -> dict[str, str]:
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(db.parent / "home")}
    if "PYTHONPATH" in os.environ:  # comparing against another checkout of the library
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return env


def run_cli(db: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """``anneal-memory --db DB ARGS...`` run by ``main()`` in this process."""
    argv = ["--db", str(db), *args]
    done = run_in_process(argv, stdin=stdin, env=_env(db), cwd=Path.cwd())
    return subprocess.CompletedProcess(argv, done.code, done.out, done.err)


def run_cli_process(
    db: Path, *args: str, stdin: str | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """``anneal-memory --db DB ARGS...`` in a child process."""
    return subprocess.run(
        [sys.executable, "-m", "anneal_memory", "--db", str(db), *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        env=_env(db),
    )
