"""The public surface of anneal-dspy: its names, version and import guard."""

from __future__ import annotations

import importlib
import importlib.metadata
import sys

import anneal_dspy
import pytest


def test_public_names() -> None:
    assert anneal_dspy.__all__ == ["AnnealCallback", "AnnealModule", "__version__"]
    assert anneal_dspy.AnnealCallback.__doc__
    assert anneal_dspy.AnnealModule.__doc__


def test_version_matches_distribution_metadata() -> None:
    assert anneal_dspy.__version__ == importlib.metadata.version("anneal-dspy")


def test_import_guard_names_the_pip_install(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [m for m in sys.modules if m.startswith("anneal_dspy")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "dspy", None)
    with pytest.raises(ImportError, match="pip install anneal-dspy"):
        importlib.import_module("anneal_dspy")
