"""The memory inspector as a small ASGI application: static page files and a read-only JSON API.

Paths, under the app's prefix (``""`` for ``anneal-memory inspect``, ``/inspect`` under
``serve --http``):

- ``/``: the page; ``/static/<name>``: its scripts and styles (a fixed list inside the wheel);
- ``/api/<endpoint>?...``: JSON, only with ``Authorization: Bearer <token>``: the token
  decides which store is read (:class:`StoreAccess`).

Checked in this order, the first failure deciding the status: a method other than GET/HEAD
405; a ``Host`` not on the allowed list 403 (when the app has one: the loopback command does);
an ``Origin`` not on the allowed list 403; an unknown path 404; an API call without a valid
token 401. Every response forbids framing, sniffing, referrers and inline script (CSP). The
page itself holds no data: it reads the token from its URL's fragment (never sent to a
server) and sends it as the bearer on each API call.
"""

from __future__ import annotations

import asyncio
import json
import sys
import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from anneal_memory._asgi import Receive, Scope, Send, headers_of, lifespan
from anneal_memory.errors import AnnealMemoryError, InvalidInputError, StoreDatabaseError
from anneal_memory.inspect import _episodes, _memory, _overview
from anneal_memory.inspect._params import Params
from anneal_memory.inspect._static import StaticFiles

if TYPE_CHECKING:
    from anneal_memory.store import Store

__all__ = ["CSP", "ENDPOINTS", "InspectSettings", "InspectorApp", "StoreAccess"]

Endpoint = Callable[["Store", Params], dict[str, Any]]

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
_SECURITY_HEADERS = (
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-resource-policy", b"same-origin"),
    (b"cache-control", b"no-store"),
)

ENDPOINTS: dict[str, Endpoint] = {
    "overview": _overview.overview,
    "verify": _overview.verify,
    "audit": _overview.audit,
    "episodes": _episodes.episodes,
    "episode": _episodes.episode,
    "continuity": _memory.continuity,
    "patterns": _memory.patterns,
    "pattern": _memory.pattern,
    "wraps": _memory.wraps,
    "crystals": _memory.crystals,
    "spores": _memory.spores,
    "probes": _memory.probes,
    "graph": _memory.graph,
}
"""Every JSON endpoint: ``/api/<name>`` -> a function of the store and the query."""


class StoreAccess(Protocol):
    """Which store a bearer token may read (None: the token is not valid)."""

    def store_for(self, bearer: str) -> Store | None:
        """The read-only store ``bearer`` opens, or None."""
        ...  # pragma: no cover - protocol

    def close(self) -> None:
        """Close the stores opened."""
        ...  # pragma: no cover - protocol


@dataclass(frozen=True, slots=True, kw_only=True)
class InspectSettings:
    """Where the app answers and whom it answers.

    Attributes:
        prefix: The path the app is mounted at ("" or e.g. ``/inspect``, no trailing slash).
        allowed_hosts: ``Host`` values accepted; None accepts any (behind ``serve --http``).
        allowed_origins: ``Origin`` values accepted (a request without one is accepted).
    """

    prefix: str = ""
    allowed_hosts: frozenset[str] | None = None
    allowed_origins: frozenset[str] = frozenset()


class _RefusedError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


_Reply = tuple[int, bytes, list[tuple[bytes, bytes]]]


def _json(status: int, data: Any) -> _Reply:
    body = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return status, body, [(b"content-type", b"application/json; charset=utf-8")]


def _query(scope: Scope) -> Params:
    raw = bytes(scope.get("query_string", b"")).decode("latin-1")
    pairs = urllib.parse.parse_qsl(raw, keep_blank_values=True, errors="strict")
    values: dict[str, str] = {}
    for key, value in pairs:
        values.setdefault(key, value)
    return Params(values)


class InspectorApp:
    """The ASGI application.

    Args:
        access: Which store each bearer token reads.
        settings: Prefix, hosts and origins.
    """

    def __init__(self, access: StoreAccess, settings: InspectSettings) -> None:
        self._access = access
        self._settings = settings
        self._static = StaticFiles()

    def close(self) -> None:
        """Close the stores this app opened."""
        self._access.close()

    @property
    def prefix(self) -> str:
        """The path the app answers under."""
        return self._settings.prefix

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one ASGI connection scope."""
        if scope["type"] == "lifespan":
            await lifespan(receive, send, self.close)
            return
        if scope["type"] != "http":
            return
        try:
            status, body, extra = await self._serve(scope)
        except _RefusedError as exc:
            status, body, extra = _json(exc.status, {"error": str(exc)})
        if scope.get("method") == "HEAD":
            body = b""
        await _respond(send, status, body, extra)

    def _check(self, scope: Scope) -> tuple[str, dict[str, str]]:
        if scope.get("method") not in {"GET", "HEAD"}:
            raise _RefusedError(405, "Method not allowed: the inspector only reads")
        headers = headers_of(scope)
        hosts = self._settings.allowed_hosts
        if hosts is not None and headers.get("host") not in hosts:
            raise _RefusedError(403, "Forbidden: this Host is not the inspector's address")
        origin = headers.get("origin")
        if origin is not None and origin not in self._settings.allowed_origins:
            raise _RefusedError(403, f"Forbidden: origin {origin[:200]!r} is not allowed")
        path = str(scope.get("path", ""))
        prefix = self._settings.prefix
        if not (path == prefix or path.startswith(prefix + "/")):
            raise _RefusedError(404, "Not found")
        return path[len(prefix) :], headers

    async def _serve(self, scope: Scope) -> _Reply:
        rest, headers = self._check(scope)
        if rest == "":
            return 308, b"", [(b"location", (self._settings.prefix + "/").encode("latin-1"))]
        if rest == "/":
            return self._static.reply("index.html")
        if rest.startswith("/static/") and self._static.has(rest[len("/static/") :]):
            return self._static.reply(rest[len("/static/") :])
        endpoint = ENDPOINTS.get(rest[len("/api/") :]) if rest.startswith("/api/") else None
        if endpoint is None:
            raise _RefusedError(404, "Not found")
        store = await asyncio.to_thread(self._store, headers)
        return await asyncio.to_thread(_call, endpoint, store, _query(scope))

    def _store(self, headers: Mapping[str, str]) -> Store:
        kind, _, value = headers.get("authorization", "").partition(" ")
        bearer = value.strip() if kind.lower() == "bearer" else ""
        try:
            store = self._access.store_for(bearer) if bearer else None
        except AnnealMemoryError as exc:
            raise _RefusedError(503, f"Service unavailable: {exc}") from None
        if store is None:
            raise _RefusedError(401, "Unauthorized: open the inspector's URL with its token")
        return store


def _call(endpoint: Endpoint, store: Store, params: Params) -> _Reply:
    try:
        return _json(200, endpoint(store, params))
    except (InvalidInputError, ValueError, LookupError) as exc:
        return _json(400, {"error": str(exc)})
    except StoreDatabaseError as exc:
        return _json(500, {"error": str(exc)})
    except AnnealMemoryError as exc:
        return _json(400, {"error": str(exc)})
    except Exception as exc:  # one failed read must not stop the server
        sys.stderr.write(f"anneal-memory inspect: {type(exc).__name__}: {exc}\n")
        return _json(500, {"error": "internal error (see the server's stderr)"})


async def _respond(send: Send, status: int, body: bytes, extra: list[tuple[bytes, bytes]]) -> None:
    headers = [*_SECURITY_HEADERS, *extra, (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
