"""MCP Streamable HTTP as a small ASGI application around the pure ``McpServer.handle``.

One endpoint (``/mcp``) takes one JSON-RPC message per POST and answers with one JSON object
(never an SSE stream: this server sends no request-related notifications). Checked in this
order, the first failure deciding the status:

1. another path 404; an ``Origin`` header not on the allowed list 403 (DNS rebinding);
2. no ``Authorization: Bearer`` token from the token file 401 (revocation is immediate);
3. GET 405 (no server-initiated stream), DELETE ends a handshake-era session, other methods
   405; a body over the limit 413; not ``application/json`` 415; an ``Accept`` without
   ``application/json`` 406;
4. the protocol era of the message: a 2026-07-28 request must carry ``MCP-Protocol-Version``
   and ``Mcp-Method`` (and ``Mcp-Name`` for ``tools/call`` and ``resources/read``) equal to its
   body, else 400 with ``-32020`` (HeaderMismatch); it has no session. A handshake-era
   ``initialize`` opens a session (``Mcp-Session-Id`` in the reply); every later handshake-era
   request must name a session of the same token (400 without, 404 for an unknown one) and
   may not declare an unsupported ``MCP-Protocol-Version`` (400).

The message then goes to the token's server (see :mod:`anneal_memory.mcp._http._scopes`) in a
worker thread. Notifications and responses get 202.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import secrets
import sys
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, NamedTuple

from anneal_memory._asgi import headers_of, lifespan
from anneal_memory.errors import AnnealMemoryError
from anneal_memory.mcp import _eras
from anneal_memory.mcp import _jsonrpc as rpc
from anneal_memory.mcp._http._scopes import ScopeServers
from anneal_memory.mcp._http._tokens import HttpToken, TokenFile

__all__ = ["HEADER_MISMATCH", "MAX_BODY_BYTES", "MAX_SESSIONS", "HttpSettings", "McpHttpApp"]

MAX_BODY_BYTES = 1024 * 1024
"""The largest request body accepted by default (1 MiB); larger ones get 413."""
MAX_SESSIONS = 10_000
"""Handshake-era sessions remembered per token; past it, that token's oldest is forgotten first
(its client re-initializes). One token opening sessions in a loop never ends another's."""
HEADER_MISMATCH = -32020

Scope = Mapping[str, Any]
Receive = Callable[[], Awaitable[Mapping[str, Any]]]
Send = Callable[[Mapping[str, Any]], Awaitable[None]]
_NAMED_METHODS = {"tools/call": "name", "resources/read": "uri"}


class HttpSettings(NamedTuple):
    """What the endpoint accepts.

    Attributes:
        allowed_origins: ``Origin`` values accepted (a request without ``Origin`` is accepted).
        max_body_bytes: The largest request body.
        path: The MCP endpoint's path.
        max_sessions: Handshake-era sessions remembered per token.
    """

    allowed_origins: frozenset[str]
    max_body_bytes: int = MAX_BODY_BYTES
    path: str = "/mcp"
    max_sessions: int = MAX_SESSIONS


class _RefusedError(Exception):
    def __init__(self, status: int, message: str, *, code: int = rpc.INVALID_REQUEST) -> None:
        super().__init__(message)
        self.status = status
        self.code = code


class _Request(NamedTuple):
    method: str
    headers: dict[str, str]
    token: HttpToken


def _header_value(value: str) -> str:
    if value.startswith("=?base64?") and value.endswith("?="):
        try:
            return base64.b64decode(value[9:-2], validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            raise _RefusedError(400, "Mcp-Name is not valid base64", code=HEADER_MISMATCH) from None
    return value


def _bearer(headers: Mapping[str, str]) -> str | None:
    kind, _, value = headers.get("authorization", "").partition(" ")
    return value.strip() or None if kind.lower() == "bearer" else None


class McpHttpApp:
    """The ASGI application.

    Args:
        tokens: The token file consulted on every request.
        servers: The per-token servers.
        settings: Origins, body limit and path.
    """

    def __init__(self, tokens: TokenFile, servers: ScopeServers, settings: HttpSettings) -> None:
        self._tokens = tokens
        self._servers = servers
        self._settings = settings
        self._sessions: dict[str, OrderedDict[str, None]] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one ASGI connection scope."""
        if scope["type"] == "lifespan":
            await lifespan(receive, send, self._servers.close)
            return
        if scope["type"] != "http":
            return
        try:
            status, body, extra = await self._serve(scope, receive)
        except _RefusedError as exc:
            status, extra = exc.status, {}
            body = rpc.encode({"jsonrpc": "2.0", "error": {"code": exc.code, "message": str(exc)}})
            if status == 401:
                extra["www-authenticate"] = 'Bearer realm="anneal-memory"'
        await _respond(send, status, body, extra)

    def _check(self, scope: Scope) -> _Request:
        if scope.get("path") != self._settings.path:
            raise _RefusedError(404, f"Not found: the MCP endpoint is {self._settings.path}")
        headers = headers_of(scope)
        origin = headers.get("origin")
        if origin is not None and origin not in self._settings.allowed_origins:
            raise _RefusedError(403, f"Forbidden: origin {origin[:200]!r} is not allowed")
        bearer = _bearer(headers)
        try:
            token = None if bearer is None else self._tokens.authenticate(bearer)
        except AnnealMemoryError as exc:  # the file became unreadable or unsafe while serving
            sys.stderr.write(f"anneal-memory: refusing requests: {exc}\n")
            raise _RefusedError(
                503, "Service unavailable: the server cannot read its token file"
            ) from None
        if token is None:
            raise _RefusedError(401, "Unauthorized: send Authorization: Bearer <token>")
        return _Request(str(scope.get("method", "")), headers, token)

    async def _serve(self, scope: Scope, receive: Receive) -> tuple[int, bytes, dict[str, str]]:
        request = await asyncio.to_thread(self._check, scope)
        if request.method == "DELETE":
            return self._end_session(request)
        if request.method != "POST":
            raise _RefusedError(405, "Method not allowed: POST one JSON-RPC message per request")
        self._check_content(request.headers)
        body = await self._body(receive, request.headers)
        return await self._message(request, body)

    def _check_content(self, headers: Mapping[str, str]) -> None:
        declared = headers.get("content-length")
        if (
            declared is not None
            and declared.isdigit()
            and int(declared) > self._settings.max_body_bytes
        ):
            raise _RefusedError(413, f"Payload too large: at most {self._settings.max_body_bytes}")
        kind = headers.get("content-type", "").split(";")[0].strip().lower()
        if kind != "application/json":
            raise _RefusedError(415, "Unsupported media type: send Content-Type: application/json")
        accept = headers.get("accept", "*/*")
        if not any(p in accept for p in ("application/json", "*/*", "application/*")):
            raise _RefusedError(406, "Not acceptable: the server answers with application/json")

    async def _body(self, receive: Receive, headers: Mapping[str, str]) -> bytes:
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                raise _RefusedError(400, "Bad request: the client disconnected")
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self._settings.max_body_bytes:
                raise _RefusedError(
                    413, f"Payload too large: at most {self._settings.max_body_bytes}"
                )
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)

    async def _message(self, request: _Request, body: bytes) -> tuple[int, bytes, dict[str, str]]:
        if not body.strip():
            raise _RefusedError(
                400,
                "Bad request: the body is empty; POST one JSON-RPC message",
                code=rpc.PARSE_ERROR,
            )
        try:
            incoming = rpc.decode(body)
        except rpc.ProtocolError as exc:
            reply = exc.reply()
            return (400, b"", {}) if reply is None else (400, rpc.encode(reply), {})
        if incoming is None:
            return 202, b"", {}
        extra = self._route(request, incoming)
        server = self._servers.server_for(request.token)
        reply = await asyncio.to_thread(server.handle, body)
        if reply is None:
            return 202, b"", {}
        if incoming.method == "initialize" and "result" in reply:
            extra["mcp-session-id"] = self._open_session(request.token)
        return _status(reply, modern=_is_modern(incoming.params)), rpc.encode(reply), extra

    def _route(self, request: _Request, incoming: rpc.Incoming) -> dict[str, str]:
        headers = request.headers
        declared = headers.get("mcp-protocol-version")
        if _is_modern(incoming.params):
            _check_modern_headers(headers, incoming)
            return {}
        if declared in _eras.MODERN_PROTOCOL_VERSIONS:
            raise _RefusedError(
                400,
                f"Header mismatch: MCP-Protocol-Version is {declared} but the body's _meta "
                "does not name it",
                code=HEADER_MISMATCH,
            )
        if declared is not None and declared not in _eras.LEGACY_PROTOCOL_VERSIONS:
            raise _RefusedError(
                400, f"Bad request: unsupported MCP-Protocol-Version {declared[:40]!r}"
            )
        if incoming.method != "initialize":
            self._check_session(headers.get("mcp-session-id"), request.token)
        return {}

    def _open_session(self, token: HttpToken) -> str:
        # Bounded per token: one client opening sessions in a loop ends only its own.
        session = secrets.token_hex(16)
        mine = self._sessions.setdefault(token.name, OrderedDict())
        mine[session] = None
        while len(mine) > self._settings.max_sessions:
            mine.popitem(last=False)
        return session

    def _check_session(self, session: str | None, token: HttpToken) -> None:
        if session is None:
            raise _RefusedError(400, "Bad request: Mcp-Session-Id is required after initialize")
        if session not in self._sessions.get(token.name, ()):
            raise _RefusedError(404, "Session not found: send initialize to start a new session")

    def _end_session(self, request: _Request) -> tuple[int, bytes, dict[str, str]]:
        session = request.headers.get("mcp-session-id")
        self._check_session(session, request.token)
        self._sessions[request.token.name].pop(str(session), None)
        return 204, b"", {}


def _is_modern(params: Mapping[str, Any]) -> bool:
    meta = params.get("_meta")
    return isinstance(meta, dict) and meta.get(_eras.PROTOCOL_KEY) in _eras.MODERN_PROTOCOL_VERSIONS


def _check_modern_headers(headers: Mapping[str, str], incoming: rpc.Incoming) -> None:
    version = incoming.params["_meta"][_eras.PROTOCOL_KEY]
    if headers.get("mcp-protocol-version") != version:
        raise _RefusedError(
            400, f"Header mismatch: MCP-Protocol-Version must be {version}", code=HEADER_MISMATCH
        )
    if headers.get("mcp-method") != incoming.method:
        raise _RefusedError(
            400, f"Header mismatch: Mcp-Method must be {incoming.method}", code=HEADER_MISMATCH
        )
    field = _NAMED_METHODS.get(incoming.method)
    if field is None:
        return
    named = headers.get("mcp-name")
    if named is None or _header_value(named) != incoming.params.get(field):
        raise _RefusedError(
            400, f"Header mismatch: Mcp-Name must be the request's {field}", code=HEADER_MISMATCH
        )


def _status(reply: Mapping[str, Any], *, modern: bool) -> int:
    error = reply.get("error")
    if not isinstance(error, dict):
        return 200
    code = error.get("code")
    if code == rpc.UNSUPPORTED_PROTOCOL_VERSION:
        return 400
    if code == rpc.METHOD_NOT_FOUND and modern:
        return 404
    return 200


async def _respond(send: Send, status: int, body: bytes, extra: Mapping[str, str]) -> None:
    headers = [(b"cache-control", b"no-store")]
    if body:
        headers.append((b"content-type", b"application/json"))
    headers += [(k.encode("latin-1"), v.encode("latin-1")) for k, v in extra.items()]
    headers.append((b"content-length", str(len(body)).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
