"""The public surface of anneal-pydantic-ai: its names, version and import guard."""

from __future__ import annotations

import importlib
import importlib.metadata
import sys

import anneal_pydantic_ai
import pytest


def test_public_names() -> None:
    assert anneal_pydantic_ai.__all__ == ["AnnealCapability", "__version__"]
    assert anneal_pydantic_ai.AnnealCapability.__doc__


def test_version_matches_distribution_metadata() -> None:
    assert anneal_pydantic_ai.__version__ == importlib.metadata.version("anneal-pydantic-ai")


def test_import_guard_names_the_pip_install(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [m for m in sys.modules if m.startswith("anneal_pydantic_ai")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "pydantic_ai", None)
    with pytest.raises(ImportError, match="pip install anneal-pydantic-ai"):
        importlib.import_module("anneal_pydantic_ai")
