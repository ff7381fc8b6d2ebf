"""The public surface of anneal-openai-agents: its names, version and import guard."""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import sys
from typing import Any

import anneal_openai_agents
import pytest


def test_public_names() -> None:
    assert anneal_openai_agents.__all__ == ["AnnealHooks", "AnnealSession", "__version__"]
    assert anneal_openai_agents.AnnealHooks.__doc__


def test_version_matches_distribution_metadata() -> None:
    assert anneal_openai_agents.__version__ == importlib.metadata.version("anneal-openai-agents")


def test_import_guard_names_the_pip_install(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [m for m in sys.modules if m.startswith("anneal_openai_agents")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "agents", None)
    with pytest.raises(ImportError, match="pip install anneal-openai-agents"):
        importlib.import_module("anneal_openai_agents")


def _release() -> tuple[int, ...]:
    version = importlib.metadata.version("openai-agents")
    return tuple(int(part) for part in version.split(".")[:2] if part.isdigit())


def test_the_sdks_own_fake_model_plays_the_model_from_0_24(scripted_model: Any) -> None:
    """What the docs page says: 0.24 ships ``agents.testing.ScriptedModel``; the tests use it."""
    has_one = importlib.util.find_spec("agents.testing") is not None
    if _release() < (0, 24):
        assert not has_one
        pytest.skip("openai-agents < 0.24 has no fake model (CI's newest-release block has one)")
    from agents.testing import ScriptedModel

    assert issubclass(scripted_model, ScriptedModel)
