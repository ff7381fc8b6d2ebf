"""Helpers for wrap tests: build a continuity text for the default schema, run a wrap."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest
from anneal_memory import PrepareResult, Store, prepare_wrap

TextBuilder = Callable[..., str]


def build_text(
    patterns: Sequence[str] = (),
    *,
    durable: Sequence[str] = (),
    context: str = "- a quiet session",
    state: str = "- working",
) -> str:
    lines = ["# TestAgent \u2014 Memory (v1)", "", "## State", state, ""]
    if durable:
        lines += ["## Durable Facts", *durable, ""]
    lines += ["## Patterns", *patterns, "", "## Decisions", "- none yet", "", "## Context"]
    lines += [context, ""]
    return "\n".join(lines)


@pytest.fixture
def text() -> TextBuilder:
    return build_text


@pytest.fixture
def open_wrap(store: Store) -> Callable[..., PrepareResult]:
    """Record the given (type, text) episodes, then prepare a wrap over them."""

    def run(*episodes: tuple[str, str]) -> PrepareResult:
        for kind, content in episodes:
            store.record(content, kind)
        return prepare_wrap(store)

    return run
