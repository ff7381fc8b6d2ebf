"""The test tiers: which tests a run selects, and the markers that say where a test belongs.

``pytest`` alone (the README's command) runs the fast tier: every test without a tier marker.
A tier marker comes from where the test lives (``tests/e2e`` → ``e2e``, ``tests/reliability``
→ ``reliability``, ``tests/docs`` → ``docs``; ``tests/adapters`` marks its own), from its
fixtures (``postgresql`` from the backend fixtures, see ``backends.py``; ``e2e`` from the
public 1.0.2 fixtures, which install and run that package), or from the test itself
(``pytest.mark.e2e`` on a test that starts processes outside ``tests/e2e``).

``-m EXPR`` selects by marker as usual (``pytest -m e2e``); paths on the command line run
everything under them (``pytest tests`` is every tier). ``tests/adapters`` imports six
frameworks while it is collected, so it is collected only when asked for: a path under it
(or above it) on the command line, or an ``-m`` expression that can select an adapters test.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path

import pytest

__all__ = [
    "FAST",
    "FAST_TIMEOUT",
    "TIERS",
    "TIER_TIMEOUT",
    "default_selection",
    "give_timeouts",
    "mark_by_fixture",
    "mark_by_folder",
    "skips_adapters",
]

TIERS = ("e2e", "reliability", "postgresql", "adapters", "docs")
"""The tiers besides the fast one; each is a marker declared in ``pyproject.toml``."""

FAST = f"not ({' or '.join(TIERS)})"
"""The marker expression of the fast tier."""

FAST_TIMEOUT = 60
"""Seconds a fast-tier test may take (pytest-timeout): they take well under 5 s even on a
loaded machine, so a minute means a hang."""

TIER_TIMEOUT = 900
"""Seconds a test of another tier may take: processes, a PostgreSQL server, six frameworks,
a public 1.0.2 install (up to 300 s a step)."""

TESTS = Path(__file__).resolve().parent
_FOLDER_TIERS = {"e2e": "e2e", "reliability": "reliability", "docs": "docs"}
_OTHER_MARKERS = ("slow", "sqlite_only")
"""Our markers that are not tiers (pyproject.toml declares them all)."""
_PROCESS_FIXTURES = frozenset({"public102_python"})
"""Fixtures that start processes: the public 1.0.2 package, installed and run in its venv."""


def _paths_given(config: pytest.Config) -> bool:
    return config.args_source == pytest.Config.ArgsSource.ARGS


def default_selection(config: pytest.Config) -> None:
    """No ``-m`` and no paths on the command line: select the fast tier."""
    if not config.option.markexpr and not _paths_given(config):
        config.option.markexpr = FAST


def _can_select_adapters(markexpr: str) -> bool:
    """Whether ``markexpr`` is true for some adapters test.

    An adapters test carries no other tier marker (the tiers partition the suite), but may
    carry any of ``_OTHER_MARKERS``.
    """
    if not markexpr.strip():
        return True
    try:
        from _pytest.mark.expression import Expression
    except ImportError:  # pytest moved its parser: collect rather than lose tests
        return True
    expression = Expression.compile(markexpr)
    marker_sets = (
        {"adapters", *extra}
        for size in range(len(_OTHER_MARKERS) + 1)
        for extra in itertools.combinations(_OTHER_MARKERS, size)
    )
    return any(expression.evaluate(_has_marker(names)) for names in marker_sets)


def _has_marker(names: set[str]) -> Callable[..., bool]:
    return lambda name, /, **_kwargs: name in names


def skips_adapters(collection_path: Path, config: pytest.Config) -> bool:
    """``tests/adapters`` when this run did not ask for it (see the module docstring)."""
    if collection_path != TESTS / "adapters" or _paths_given(config):
        return False
    return not _can_select_adapters(config.option.markexpr or "")


def mark_by_folder(items: list[pytest.Item]) -> None:
    """Give each test under ``tests/e2e``, ``tests/reliability``, ``tests/docs`` its tier."""
    for item in items:
        try:
            folder = item.path.resolve().relative_to(TESTS).parts[0]
        except ValueError:
            continue
        tier = _FOLDER_TIERS.get(folder)
        if tier is not None:
            item.add_marker(tier)


def mark_by_fixture(items: list[pytest.Item]) -> None:
    """Mark ``e2e`` every test that takes a fixture starting real processes."""
    for item in items:
        if _PROCESS_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker("e2e")


def give_timeouts(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A per-test timeout: ``FAST_TIMEOUT``, or ``TIER_TIMEOUT`` for a test with a tier marker.

    A test's own ``timeout`` marker and ``--timeout`` on the command line win. Nothing to do
    without pytest-timeout (a venv with pytest alone).
    """
    if not config.pluginmanager.hasplugin("timeout"):
        return
    if config.getoption("timeout", None) is not None:  # --timeout 0 turns them off
        return
    for item in items:
        if item.get_closest_marker("timeout") is not None:
            continue
        tiered = any(item.get_closest_marker(tier) for tier in TIERS)
        item.add_marker(pytest.mark.timeout(TIER_TIMEOUT if tiered else FAST_TIMEOUT))
