"""Inspector tests: the ASGI app driven in process, over stores on both backends."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from anneal_memory import Store

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[1] / "explain"))
sys.path.insert(0, str(Path(__file__).parents[2]))

from backends import backend_store, pg_url, target  # noqa: F401 - fixtures


@pytest.fixture
def store(backend_store: Store) -> Store:  # noqa: F811
    return backend_store
