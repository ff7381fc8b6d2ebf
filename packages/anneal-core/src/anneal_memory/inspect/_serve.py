"""Run the inspector on uvicorn (the optional ``anneal-memory[http]`` extra), on a bound socket.

The only module of this room that imports a third-party package, inside :func:`serve_socket`.
The socket is bound by the caller, so the URL (with the port the system chose) is printed
before the server starts.
"""

from __future__ import annotations

import socket
from typing import Any

__all__ = ["HTTP_EXTRA_HINT", "bind_loopback", "serve_socket"]

HTTP_EXTRA_HINT = "install the HTTP extra: pip install 'anneal-memory[http]'"
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


def serve_socket(app: Any, sock: socket.socket, *, log_level: str = "warning") -> None:
    """Serve ``app`` on ``sock`` until interrupted.

    Raises:
        ModuleNotFoundError: uvicorn is not installed (the message says what to install).
    """
    try:
        import uvicorn
    except ModuleNotFoundError:
        raise ModuleNotFoundError(HTTP_EXTRA_HINT) from None
    config = uvicorn.Config(
        app,
        log_level=log_level,
        lifespan="on",
        server_header=False,
        access_log=False,
        timeout_graceful_shutdown=2,
    )
    uvicorn.Server(config).run(sockets=[sock])
