"""Helpers for wrap tests: record episodes and open a wrap over them."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from anneal_memory import PrepareResult, Store, prepare_wrap


@pytest.fixture
def open_wrap(store: Store) -> Callable[..., PrepareResult]:
    """Record the given (type, text) episodes, then prepare a wrap over them."""

    def run(*episodes: tuple[str, str]) -> PrepareResult:
        for kind, content in episodes:
            store.record(content, kind)
        return prepare_wrap(store)

    return run
