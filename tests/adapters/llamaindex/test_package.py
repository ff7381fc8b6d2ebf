"""The public surface of anneal-llamaindex: its names, version and import guard."""

from __future__ import annotations

import importlib
import importlib.metadata
import sys

import anneal_llamaindex
import pytest


def test_public_names() -> None:
    assert anneal_llamaindex.__all__ == [
        "AnnealLlamaIndex",
        "AnnealMemoryBlock",
        "AnnealSpanHandler",
        "__version__",
    ]
    for name in anneal_llamaindex.__all__[:-1]:
        assert getattr(anneal_llamaindex, name).__doc__


def test_version_matches_distribution_metadata() -> None:
    assert anneal_llamaindex.__version__ == importlib.metadata.version("anneal-llamaindex")


def test_import_guard_names_the_pip_install(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [m for m in sys.modules if m.startswith("anneal_llamaindex")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "llama_index.core", None)
    with pytest.raises(ImportError, match="pip install anneal-llamaindex"):
        importlib.import_module("anneal_llamaindex")
