"""The public surface of anneal-openai-agents: its names, version and import guard."""

from __future__ import annotations

import importlib
import importlib.metadata
import sys

import anneal_openai_agents
import pytest


def test_public_names() -> None:
    assert anneal_openai_agents.__all__ == ["AnnealHooks", "__version__"]
    assert anneal_openai_agents.AnnealHooks.__doc__


def test_version_matches_distribution_metadata() -> None:
    assert anneal_openai_agents.__version__ == importlib.metadata.version("anneal-openai-agents")


def test_import_guard_names_the_pip_install(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [m for m in sys.modules if m.startswith("anneal_openai_agents")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "agents", None)
    with pytest.raises(ImportError, match="pip install anneal-openai-agents"):
        importlib.import_module("anneal_openai_agents")
