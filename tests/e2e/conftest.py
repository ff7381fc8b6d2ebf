"""Fixtures for end-to-end tests of the ``anneal-memory`` command line (real subprocesses)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest


@dataclass(frozen=True)
class CliResult:
    """What one ``anneal-memory`` process did."""

    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)

    def assert_ok(self) -> CliResult:
        assert self.code == 0, (self.code, self.out, self.err)
        assert "Traceback" not in self.err
        return self

    def assert_error(self, code: int = 1) -> str:
        """Exit ``code``, no traceback; for exit 1 exactly one ``Error:`` line. Returns stderr."""
        assert self.code == code, (self.code, self.out, self.err)
        assert "Traceback" not in self.err
        if code == 1:
            lines = self.err.strip().splitlines()
            assert len(lines) == 1, self.err
            assert lines[0].startswith("Error: "), self.err
        return self.err


CliRunner = Callable[..., CliResult]


def clean_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """A minimal environment: no ANNEAL_* variables from the developer's shell."""
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path / "home")}
    if "SYSTEMROOT" in os.environ:  # Windows needs it to start Python
        env["SYSTEMROOT"] = os.environ["SYSTEMROOT"]
    for name in ("TMPDIR", "TEMP", "TMP"):  # temporary folders (the demo's) stay in tmp_path
        env[name] = str(tmp_path)
    env.update(extra)
    return env


@pytest.fixture
def cli_env(tmp_path: Path) -> Callable[..., dict[str, str]]:
    """Build a clean environment: ``cli_env(ANNEAL_MEMORY_SOURCE="x")``."""
    return lambda **extra: clean_env(tmp_path, **extra)


@pytest.fixture
def cli_db(tmp_path: Path) -> Path:
    return tmp_path / "store" / "memory.db"


@pytest.fixture
def run_cli(tmp_path: Path, cli_db: Path) -> CliRunner:
    """Run ``python -m anneal_memory [--db cli_db] ARGS`` and capture UTF-8 output.

    Keyword arguments: ``stdin`` (str or bytes), ``env`` (replaces the clean env),
    ``db=False`` to leave out ``--db``, ``timeout``.
    """

    def run(
        *args: str,
        stdin: str | bytes | None = None,
        env: Mapping[str, str] | None = None,
        db: bool = True,
        timeout: float = 30,
    ) -> CliResult:
        argv = [sys.executable, "-m", "anneal_memory"]
        if db:
            argv += ["--db", str(cli_db)]
        data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
        proc = subprocess.run(
            [*argv, *args],
            input=data if data is not None else b"",
            capture_output=True,
            env=dict(env) if env is not None else clean_env(tmp_path),
            cwd=tmp_path,
            timeout=timeout,
            check=False,
        )
        return CliResult(
            code=proc.returncode,
            out=proc.stdout.decode("utf-8"),
            err=proc.stderr.decode("utf-8"),
        )

    return run
