"""Drive an ASGI app in process: one request, the whole response."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from typing import Any, NamedTuple


class Response(NamedTuple):
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


def request(
    app: Any,
    path: str,
    *,
    query: str = "",
    headers: Mapping[str, str] | None = None,
    method: str = "GET",
) -> Response:
    scope = {
        "type": "http",
        "method": method,
        "path": path,
        "query_string": query.encode(),
        "headers": [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()],
    }
    sent: list[Mapping[str, Any]] = []

    async def receive() -> Mapping[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Mapping[str, Any]) -> None:
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    start = sent[0]
    found = {k.decode(): v.decode() for k, v in start["headers"]}
    return Response(start["status"], found, b"".join(m.get("body", b"") for m in sent[1:]))
