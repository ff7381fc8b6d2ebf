"""One ASGI application in front of two: the inspector under its prefix, everything else inner."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

__all__ = ["Mount"]

Scope = Mapping[str, Any]
Receive = Callable[[], Awaitable[Mapping[str, Any]]]
Send = Callable[[Mapping[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


class Mount:
    """Send HTTP requests for ``prefix`` (and below) to ``mounted``, the rest to ``inner``.

    The lifespan goes to ``inner`` (the server's own app); the caller closes what ``mounted``
    opened when serving ends.
    """

    def __init__(self, inner: App, mounted: App, prefix: str) -> None:
        self._inner = inner
        self._mounted = mounted
        self._prefix = prefix

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Route one ASGI connection scope."""
        path = str(scope.get("path", ""))
        if scope["type"] == "http" and (
            path == self._prefix or path.startswith(self._prefix + "/")
        ):
            await self._mounted(scope, receive, send)
            return
        await self._inner(scope, receive, send)
