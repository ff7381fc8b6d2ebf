"""What the two ASGI apps of the core share (the HTTP MCP server and the inspector).

Header parsing, the lifespan handshake and running an app on uvicorn (the optional
``anneal-memory[http]`` extra, imported inside :func:`run_uvicorn` only, so importing this
module needs no extra).
"""

from __future__ import annotations

import socket
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

__all__ = ["HTTP_EXTRA_HINT", "Receive", "Scope", "Send", "headers_of", "lifespan", "run_uvicorn"]

HTTP_EXTRA_HINT = "install the HTTP extra: pip install 'anneal-memory[http]'"
Scope = Mapping[str, Any]
Receive = Callable[[], Awaitable[Mapping[str, Any]]]
Send = Callable[[Mapping[str, Any]], Awaitable[None]]


def headers_of(scope: Scope) -> dict[str, str]:
    """The request headers, names lower-cased (the last value of a repeated name wins)."""
    found: dict[str, str] = {}
    for raw_name, raw_value in scope.get("headers", ()):
        found[raw_name.decode("latin-1").lower()] = raw_value.decode("latin-1")
    return found


async def lifespan(receive: Receive, send: Send, on_shutdown: Callable[[], None]) -> None:
    """Answer the lifespan protocol; ``on_shutdown`` runs before shutdown completes."""
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            on_shutdown()
            await send({"type": "lifespan.shutdown.complete"})
            return


def run_uvicorn(
    app: Any,
    *,
    host: str | None = None,
    port: int | None = None,
    sock: socket.socket | None = None,
    log_level: str = "warning",
    graceful_seconds: int = 5,
) -> None:
    """Serve ``app`` on ``host:port`` (or on the bound ``sock``) until interrupted.

    Raises:
        ModuleNotFoundError: uvicorn is not installed (the message says what to install).
    """
    try:
        import uvicorn
    except ModuleNotFoundError:
        raise ModuleNotFoundError(HTTP_EXTRA_HINT) from None
    where: dict[str, Any] = {} if sock is not None else {"host": host, "port": port}
    config = uvicorn.Config(
        app,
        **where,
        log_level=log_level,
        lifespan="on",
        server_header=False,
        access_log=False,
        timeout_graceful_shutdown=graceful_seconds,
    )
    uvicorn.Server(config).run(sockets=None if sock is None else [sock])
