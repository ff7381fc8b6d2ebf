"""Run the HTTP application on uvicorn (the optional ``anneal-memory[http]`` extra).

uvicorn itself is imported only when serving (``anneal_memory._asgi.run_uvicorn``), so
importing this module (and everything else in the core) needs no extra.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from anneal_memory._asgi import HTTP_EXTRA_HINT, run_uvicorn
from anneal_memory.errors import InvalidInputError

if TYPE_CHECKING:
    from anneal_memory.mcp._http._app import McpHttpApp

__all__ = [
    "DEFAULT_HOST",
    "HTTP_EXTRA_HINT",
    "default_token_path",
    "is_loopback",
    "loopback_origins",
    "parse_address",
    "serve_http",
]

DEFAULT_HOST = "127.0.0.1"


def parse_address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (or ``[IPv6]:PORT``, or ``PORT`` alone for the loopback) as a pair.

    Raises:
        InvalidInputError: The text is not an address.
    """
    host, sep, port = text.rpartition(":")
    if not sep:
        host, port = DEFAULT_HOST, text
    host = host.strip("[]") or DEFAULT_HOST
    if not port.isdigit() or not 0 <= int(port) <= 65535:
        raise InvalidInputError(f"--http wants HOST:PORT (e.g. 127.0.0.1:8765), got {text!r}")
    return host, int(port)


def is_loopback(host: str) -> bool:
    """Whether ``host`` is a loopback name or address."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def loopback_origins(port: int) -> frozenset[str]:
    """The ``Origin`` values of pages served from this machine on ``port``."""
    hosts = ("localhost", "127.0.0.1", "[::1]")
    return frozenset(f"http://{h}:{port}" for h in hosts)


def serve_http(
    app: McpHttpApp | Callable[..., Awaitable[None]],
    host: str,
    port: int,
    *,
    log_level: str = "warning",
) -> None:
    """Serve ``app`` (the MCP app, or an ASGI app in front of it) on ``host:port``.

    Raises:
        ModuleNotFoundError: uvicorn is not installed (the message says what to install).
    """
    run_uvicorn(app, host=host, port=port, log_level=log_level)


def default_token_path(db_path: Path) -> Path:
    """The token file used when ``--tokens`` is not given: ``<db>.http-tokens`` beside it."""
    return Path(str(db_path) + ".http-tokens")
