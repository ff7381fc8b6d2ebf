"""Run the real ``anneal-memory`` command line in a child process (clean environment)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

__all__ = ["run_cli"]


def run_cli(
    db: Path, *args: str, stdin: str | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """``anneal-memory --db DB ARGS...``; returns the finished process (never raises on exit)."""
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(db.parent / "home")}
    if "PYTHONPATH" in os.environ:  # comparing against another checkout of the library
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return subprocess.run(
        [sys.executable, "-m", "anneal_memory", "--db", str(db), *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        env=env,
    )
