"""The DSPy tests run offline: caches in a temporary directory, LiteLLM's cost map local."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest
from conftest_offline import CACHE_ROOT, OFFLINE_ENV
from dspy.utils import caching


def test_dspy_caches_live_in_the_temporary_directory() -> None:
    assert Path(caching.DSPY_CACHEDIR).is_relative_to(CACHE_ROOT)
    assert Path(os.environ["XDG_DATA_HOME"]).is_relative_to(CACHE_ROOT)


def test_the_offline_environment_is_set() -> None:
    for key, value in OFFLINE_ENV.items():
        assert os.environ[key] == value


def test_sockets_are_blocked(no_network: list[str]) -> None:
    with pytest.raises(Exception, match="network access in a test"):
        socket.getaddrinfo("api.openai.com", 443)
    no_network.clear()  # the attempt was expected here
