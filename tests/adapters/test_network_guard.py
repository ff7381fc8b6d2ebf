"""The adapters' network guard itself: it must block TCP and DNS, and allow AF_UNIX."""

from __future__ import annotations

import os
import socket

import pytest
from _contract import TELEMETRY_OFF, NetworkBlockedError


def test_tcp_connect_is_blocked_and_reported(no_network: list[str]) -> None:
    with pytest.raises(NetworkBlockedError):
        socket.create_connection(("127.0.0.1", 9), timeout=1)
    with (
        socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock,
        pytest.raises(NetworkBlockedError),
    ):
        sock.connect(("127.0.0.1", 9))
    assert len(no_network) == 2
    no_network.clear()  # the attempts above were on purpose; don't fail this test


def test_name_lookup_is_blocked(no_network: list[str]) -> None:
    with pytest.raises(NetworkBlockedError):
        socket.getaddrinfo("example.com", 443)
    assert no_network == ["getaddrinfo 'example.com'"]
    no_network.clear()


def test_unix_sockets_still_work(no_network: list[str]) -> None:
    left, right = socket.socketpair(socket.AF_UNIX)
    with left, right:
        left.sendall(b"ping")
        assert right.recv(4) == b"ping"
    assert no_network == []


def test_telemetry_is_switched_off() -> None:
    for key, value in TELEMETRY_OFF.items():
        assert os.environ[key] == value
    assert "LANGSMITH_API_KEY" not in os.environ
