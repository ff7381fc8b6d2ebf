"""Run the inspector on uvicorn (the optional ``anneal-memory[http]`` extra), on a bound socket.

The socket is bound first, so the URL (with the port the system chose) is printed before the
server starts.
"""

from __future__ import annotations

import socket
from typing import Any

from anneal_memory._asgi import run_uvicorn

__all__ = ["bind_loopback", "serve_socket"]

LOOPBACK = "127.0.0.1"


def bind_loopback(port: int) -> socket.socket:
    """A listening socket on ``127.0.0.1:port`` (0: a free port chosen by the system).

    Raises:
        OSError: The port is taken or not allowed.
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((LOOPBACK, port))
        sock.listen(64)
    except OSError:
        sock.close()
        raise
    return sock


def serve_socket(app: Any, sock: socket.socket) -> None:
    """Serve ``app`` on ``sock`` until interrupted.

    Raises:
        ModuleNotFoundError: uvicorn is not installed (the message says what to install).
    """
    run_uvicorn(app, sock=sock, graceful_seconds=2)
