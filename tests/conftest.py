"""Shared fixtures (a frozen clock, a store on a real SQLite file, the CLI in process) and the
tier selection: ``pytest`` alone runs the fast tier (see ``tiers.py`` and docs/testing.md).
"""

from __future__ import annotations

import datetime as dt
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from anneal_memory import Store
from anneal_memory.testing import FrozenClock

# The shared test helpers beside this file (backends, stems) import by their module name.
sys.path.insert(0, str(Path(__file__).parent))

import backends
import profiles
import tiers
from clirun import CliRunner, clean_env, cli_runner

profiles.load()  # before the test modules build their @settings


def pytest_configure(config: pytest.Config) -> None:
    tiers.default_selection(config)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    return True if tiers.skips_adapters(collection_path, config) else None


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by these markers
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    tiers.mark_by_folder(items)
    tiers.mark_by_fixture(items)
    backends.mark_postgresql(items)


def pytest_collection_finish(session: pytest.Session) -> None:
    tiers.give_timeouts(session.config, session.items)  # after every conftest marked its tests


@pytest.fixture
def clock() -> FrozenClock:
    return FrozenClock(
        dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.timezone.utc), step=dt.timedelta(seconds=1)
    )


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "agent" / "memory.db"


@pytest.fixture
def store(db_path: Path, clock: FrozenClock) -> Iterator[Store]:
    with Store(db_path, project_name="TestAgent", clock=clock) as opened:
        yield opened


# -- the command line, run in this process -------------------------------------------------


@pytest.fixture
def cli_db(tmp_path: Path) -> Path:
    return tmp_path / "store" / "memory.db"


@pytest.fixture
def cli_env(tmp_path: Path) -> Callable[..., dict[str, str]]:
    """Build a clean environment: ``cli_env(ANNEAL_MEMORY_SOURCE="x")``."""
    return lambda **extra: clean_env(tmp_path, **extra)


@pytest.fixture
def run_cli(tmp_path: Path, cli_db: Path) -> CliRunner:
    """Run ``anneal-memory [--db cli_db] ARGS`` in this process; returns a ``CliResult``.

    Keyword arguments: ``stdin`` (str or bytes), ``env`` (replaces the clean env),
    ``db=False`` to leave out ``--db``. ``tests/e2e`` overrides it with a real process.
    """
    return cli_runner(tmp_path, cli_db, in_process=True)


# -- the public anneal-memory 1.0.2, for import fixtures -------------------------------------

_PUBLIC_ENV = "ANNEAL_PUBLIC_1_0_2"  # a wheel path or requirement; default from the index
_BUILDER = Path(__file__).parent / "fixtures" / "public102_build.py"


def _install_public(folder: Path) -> Path:
    """An isolated venv with the public 1.0.2 package; skip (with the reason) if impossible."""
    import os
    import shutil
    import subprocess
    import sys

    uv = shutil.which("uv")
    if uv is None:
        pytest.skip("uv is not on PATH: cannot build the public anneal-memory 1.0.2 fixture")
    venv = folder / "venv"
    spec = os.environ.get(_PUBLIC_ENV) or "anneal-memory==1.0.2"
    python = venv / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")
    steps = [
        [uv, "venv", "--quiet", "--python", sys.executable, str(venv)],
        [uv, "pip", "install", "--quiet", "--python", str(python), spec],
    ]
    for step in steps:
        done = subprocess.run(step, capture_output=True, text=True, timeout=300, check=False)
        if done.returncode != 0:
            pytest.skip(
                f"cannot install the public anneal-memory 1.0.2 ({spec}; set {_PUBLIC_ENV} to "
                f"a wheel to use one): {done.stderr.strip()[-300:]}"
            )
    return python


@pytest.fixture(scope="session")
def public102_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Python of a venv holding the real public anneal-memory 1.0.2."""
    return _install_public(tmp_path_factory.mktemp("public102"))


@pytest.fixture(scope="session")
def public102_store(public102_python: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with a 1.0.2 store built by that package (see tests/fixtures)."""
    import subprocess

    folder = tmp_path_factory.mktemp("public102-store")
    subprocess.run(
        [str(public102_python), str(_BUILDER), str(folder)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    return folder


@pytest.fixture
def v1_store(public102_store: Path, tmp_path: Path) -> Path:
    """A private copy of the 1.0.2 store folder; returns the copy's ``mem.db``."""
    import shutil

    copy = tmp_path / "v1"
    shutil.copytree(public102_store, copy)
    return copy / "mem.db"
