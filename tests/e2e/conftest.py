"""End-to-end tests: the ``anneal-memory`` command line as a real process (``run_cli``).

Everything here is marked ``e2e`` (see ``tests/tiers.py``). A test that only needs the
command's output and exit code belongs in ``tests/core/cli`` instead, where ``run_cli`` runs
``main()`` in process.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from clirun import CliResult, CliRunner, clean_env, cli_runner

__all__ = ["CliResult", "CliRunner", "clean_env"]  # where e2e modules imported them from


@pytest.fixture
def run_cli(tmp_path: Path, cli_db: Path) -> CliRunner:
    """Run ``python -m anneal_memory [--db cli_db] ARGS`` in a child process (see ``clirun``)."""
    return cli_runner(tmp_path, cli_db, in_process=False)
