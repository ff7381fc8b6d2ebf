"""Helpers for wrap tests: record episodes and open a wrap over them."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from anneal_memory import PrepareResult, Store, prepare_wrap

# Wrap tests share test_save's continuity builder (pytest runs with --import-mode=importlib).
sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[2]))

from backends import backend_store, pg_url, target  # noqa: F401 - fixtures


@pytest.fixture
def store(backend_store: Store) -> Store:  # noqa: F811
    """Every wrap test runs on SQLite and on PostgreSQL (one test body)."""
    return backend_store


@pytest.fixture
def open_wrap(store: Store) -> Callable[..., PrepareResult]:
    """Record the given (type, text) episodes, then prepare a wrap over them."""

    def run(*episodes: tuple[str, str]) -> PrepareResult:
        for kind, content in episodes:
            store.record(content, kind)
        return prepare_wrap(store)

    return run
