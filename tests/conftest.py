"""Shared fixtures: a frozen clock and a store on a real SQLite file in a temp dir."""

from __future__ import annotations

import datetime as dt
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from anneal_memory import Store
from anneal_memory.testing import FrozenClock

# The shared test helpers beside this file (backends, stems) import by their module name.
sys.path.insert(0, str(Path(__file__).parent))


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
