"""The public surface of anneal-crewai: its names, version and import guard."""

from __future__ import annotations

import importlib
import importlib.metadata
import sys

import anneal_crewai
import pytest
from crewai.events import BaseEventListener


def test_public_names() -> None:
    assert anneal_crewai.__all__ == ["AnnealListener", "__version__"]
    assert anneal_crewai.AnnealListener.__doc__
    assert issubclass(anneal_crewai.AnnealListener, BaseEventListener)


def test_version_matches_distribution_metadata() -> None:
    assert anneal_crewai.__version__ == importlib.metadata.version("anneal-crewai")


def test_import_guard_names_the_pip_install(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [m for m in sys.modules if m.startswith("anneal_crewai")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "crewai", None)
    with pytest.raises(ImportError, match="pip install anneal-crewai"):
        importlib.import_module("anneal_crewai")
