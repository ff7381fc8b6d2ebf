"""Shared by every adapter test: the ``adapters`` tier marker, no network, no telemetry, and
the contract suite importable.

Telemetry switches are set when this file is imported, before any framework is imported,
because several frameworks read them once at import time. Sockets are blocked per test: any
connect or name lookup raises and fails the test, even if a framework swallows the error.
"""

from __future__ import annotations

import os
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from anneal_memory import AgentMemory, Store

# `import _contract` from the adapter test modules (pytest runs with --import-mode=importlib).
sys.path.insert(0, str(Path(__file__).parent))

import _contract
from _contract import TELEMETRY_OFF, NetworkBlockedError

os.environ.update(TELEMETRY_OFF)
for _key in ("LANGSMITH_API_KEY", "LANGCHAIN_API_KEY", "OTEL_EXPORTER_OTLP_ENDPOINT"):
    os.environ.pop(_key, None)


HERE = Path(__file__).resolve().parent


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by it
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test under ``tests/adapters`` is in the ``adapters`` tier."""
    for item in items:
        if item.path.resolve().is_relative_to(HERE):
            item.add_marker("adapters")


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Fail the test on any socket connect or DNS lookup (AF_UNIX stays allowed)."""
    attempts: list[str] = []
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex

    def guard(real: Any) -> Any:
        def connect(self: socket.socket, address: Any) -> Any:
            if self.family == socket.AF_UNIX:
                return real(self, address)
            attempts.append(f"connect {address!r}")
            raise NetworkBlockedError(f"network access in a test: connect to {address!r}")

        return connect

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        attempts.append(f"getaddrinfo {host!r}")
        raise NetworkBlockedError(f"network access in a test: name lookup of {host!r}")

    monkeypatch.setattr(socket.socket, "connect", guard(real_connect))
    monkeypatch.setattr(socket.socket, "connect_ex", guard(real_connect_ex))
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    for key, value in TELEMETRY_OFF.items():
        monkeypatch.setenv(key, value)
    yield attempts
    if attempts:
        pytest.fail(f"the test tried to use the network: {attempts}")


@pytest.fixture
def memory(store: Store) -> AgentMemory:
    """The ``AgentMemory`` every adapter's contract harness drives (on the shared store).

    Its off-loop waits are long, so a loaded test machine never turns a slow write into a
    skipped recall; the event-loop test sets the default bound itself.
    """
    memory = AgentMemory(store, session_id=_contract.SESSION_ID)
    memory.offloop.wait = 60.0
    return memory
