"""The two protocol eras one handler serves: the ``initialize`` handshake and 2026-07-28.

Pure functions. A request is *modern* when its ``params._meta`` names a modern protocol
version under ``io.modelcontextprotocol/protocolVersion``; every other request is served as
before (the 2024-11-05 ... 2025-11-25 handshake era). The era is decided per request, never
remembered, so both eras can share one stdio process (2026-07-28 "Versioning and
Compatibility", dual-era servers). A modern request:

- must carry ``io.modelcontextprotocol/clientCapabilities`` (an object), else ``-32602``
  (2026-07-28 "Overview", per-request protocol fields);
- naming a version this server does not know gets ``-32022`` with
  ``data: {supported, requested}`` ("Versioning", protocol version negotiation);
- gets a result with ``resultType: "complete"`` ("Overview", ResultType), the server's name
  and version in ``_meta["io.modelcontextprotocol/serverInfo"]``, and on the cacheable
  methods ``ttlMs`` and ``cacheScope`` ("Caching");
- names an unknown resource with ``-32602`` instead of ``-32002`` ("Resources", error
  handling).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from anneal_memory.mcp import _jsonrpc as rpc

__all__ = [
    "CAPABILITIES_KEY",
    "LEGACY_PROTOCOL_VERSIONS",
    "MODERN_PROTOCOL_VERSIONS",
    "PROTOCOL_KEY",
    "SERVER_INFO_KEY",
    "STATIC_TTL_MS",
    "all_versions",
    "complete",
    "modern_error",
    "modern_version",
]

LEGACY_PROTOCOL_VERSIONS: tuple[str, ...] = (
    "2024-11-05",
    "2025-03-26",
    "2025-06-18",
    "2025-11-25",
)
MODERN_PROTOCOL_VERSIONS: tuple[str, ...] = ("2026-07-28",)

PROTOCOL_KEY = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"

STATIC_TTL_MS = 3_600_000
"""Freshness of what cannot change while the process runs (the tool table, the resources)."""

_STATIC = (STATIC_TTL_MS, "public")
_CACHE_HINTS: Mapping[str, tuple[int, str]] = {
    "server/discover": _STATIC,
    "tools/list": _STATIC,
    "resources/list": _STATIC,
    "resources/templates/list": _STATIC,
}
_LIVE_URIS = frozenset({"anneal://continuity"})


def all_versions() -> list[str]:
    """Every version served, newest first (``supportedVersions`` and ``-32022`` data)."""
    return [*reversed(MODERN_PROTOCOL_VERSIONS), *reversed(LEGACY_PROTOCOL_VERSIONS)]


def _invalid(message: str) -> rpc.ProtocolError:
    return rpc.ProtocolError(code=rpc.INVALID_PARAMS, message=f"Invalid params: {message}")


def modern_version(params: Mapping[str, Any]) -> str | None:
    """The modern protocol version a request declares, or None for a handshake-era request.

    A handshake-era version in ``_meta`` is served as a handshake-era request.

    Raises:
        ProtocolError: ``_meta`` is malformed, the version is unknown (``-32022``), or a
            modern request has no client capabilities.
    """
    meta = params.get("_meta")
    if meta is None:
        return None
    if not isinstance(meta, dict):
        raise _invalid("_meta must be an object")
    if PROTOCOL_KEY not in meta:
        return None
    version = meta[PROTOCOL_KEY]
    if not isinstance(version, str):
        raise _invalid(f"_meta {PROTOCOL_KEY} must be a string")
    if version in LEGACY_PROTOCOL_VERSIONS:
        return None
    if version not in MODERN_PROTOCOL_VERSIONS:
        raise rpc.ProtocolError(
            code=rpc.UNSUPPORTED_PROTOCOL_VERSION,
            message=f"Unsupported protocol version: {version}",
            data={"supported": all_versions(), "requested": version},
        )
    if not isinstance(meta.get(CAPABILITIES_KEY), dict):
        raise _invalid(f"a {version} request needs _meta {CAPABILITIES_KEY} (an object)")
    return version


def _cache_hint(method: str, params: Mapping[str, Any]) -> tuple[int, str] | None:
    if method == "resources/read":
        return (0, "private") if params.get("uri") in _LIVE_URIS else _STATIC
    return _CACHE_HINTS.get(method)


def complete(
    method: str,
    params: Mapping[str, Any],
    result: Mapping[str, Any],
    *,
    server_info: Mapping[str, str],
) -> dict[str, Any]:
    """A handshake-era result made a 2026-07-28 one (resultType, serverInfo, cache hints)."""
    finished = dict(result)
    finished["resultType"] = "complete"
    meta = dict(finished.get("_meta") or {})
    meta[SERVER_INFO_KEY] = dict(server_info)
    finished["_meta"] = meta
    hint = _cache_hint(method, params)
    if hint is not None:
        finished["ttlMs"], finished["cacheScope"] = hint
    return finished


def modern_error(exc: rpc.ProtocolError, params: Mapping[str, Any]) -> rpc.ProtocolError:
    """The 2026-07-28 form of an error: an unknown resource is ``-32602`` with its uri."""
    if exc.code != rpc.RESOURCE_NOT_FOUND:
        return exc
    return rpc.ProtocolError(
        code=rpc.INVALID_PARAMS,
        message=exc.message,
        id=exc.id,
        data={"uri": params.get("uri")},
    )
