"""The DSPy tests run offline: caches in a temporary directory, LiteLLM's cost map local.

(Sockets are blocked for every adapter test by tests/adapters/conftest.py.)
"""

from __future__ import annotations

import os
from pathlib import Path

from dspy.utils import caching


def test_dspy_caches_live_in_the_temporary_directory(
    offline_env: tuple[str, dict[str, str]],
) -> None:
    root, _ = offline_env
    assert Path(caching.DSPY_CACHEDIR).is_relative_to(root)
    assert Path(os.environ["XDG_DATA_HOME"]).is_relative_to(root)


def test_the_offline_environment_is_set(offline_env: tuple[str, dict[str, str]]) -> None:
    _, env = offline_env
    assert env["LITELLM_LOCAL_MODEL_COST_MAP"] == "True"
    for key, value in env.items():
        assert os.environ[key] == value
