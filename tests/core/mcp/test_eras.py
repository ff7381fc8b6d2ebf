"""Both protocol eras through one ``McpServer.handle``: 2026-07-28 requests beside the handshake."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pytest
from anneal_memory import Store, __version__
from anneal_memory.mcp import McpServer, ServerConfig

MODERN = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
}
SERVER_INFO = {"name": "anneal-memory", "version": __version__}


@pytest.fixture
def server(store: Store) -> McpServer:
    return McpServer(ServerConfig(db_path=store.path, session_id="s"), store=store)


def _send(
    server: McpServer, method: str, params: Mapping[str, Any] | None = None, *, meta: Any = META
) -> dict[str, Any]:
    body: dict[str, Any] = dict(params or {})
    if meta is not None:
        body["_meta"] = meta
    reply = server.handle(json.dumps({"jsonrpc": "2.0", "id": 7, "method": method, "params": body}))
    assert reply is not None
    assert reply["id"] == 7
    return reply


def test_discover_advertises_both_eras_without_opening_the_store(db_path: Any) -> None:
    server = McpServer(ServerConfig(db_path=db_path))
    result = _send(server, "server/discover")["result"]
    assert result["resultType"] == "complete"
    assert result["supportedVersions"] == [
        MODERN,
        "2025-11-25",
        "2025-06-18",
        "2025-03-26",
        "2024-11-05",
    ]
    assert set(result["capabilities"]) == {"tools", "resources"}
    assert "read_continuity" in result["instructions"]
    assert result["_meta"] == {"io.modelcontextprotocol/serverInfo": SERVER_INFO}
    assert (result["ttlMs"], result["cacheScope"]) == (3_600_000, "public")
    assert not db_path.exists()


def test_discover_without_meta_is_invalid_params_not_method_not_found(server: McpServer) -> None:
    error = _send(server, "server/discover", meta=None)["error"]
    assert error["code"] == -32602
    assert "io.modelcontextprotocol/protocolVersion" in error["message"]


@pytest.mark.parametrize("version", ["2099-01-01", "2026-01-01", ""])
def test_an_unknown_version_is_unsupported_with_the_supported_list(
    server: McpServer, version: str
) -> None:
    meta = {**META, "io.modelcontextprotocol/protocolVersion": version}
    error = _send(server, "tools/list", meta=meta)["error"]
    assert error["code"] == -32022
    assert error["data"]["requested"] == version
    assert error["data"]["supported"][0] == MODERN
    assert "2025-11-25" in error["data"]["supported"]


@pytest.mark.parametrize(
    "meta",
    [
        {"io.modelcontextprotocol/protocolVersion": MODERN},
        {**META, "io.modelcontextprotocol/clientCapabilities": []},
        {**META, "io.modelcontextprotocol/protocolVersion": 20260728},
        "not an object",
    ],
)
def test_malformed_meta_is_invalid_params(server: McpServer, meta: Any) -> None:
    assert _send(server, "tools/list", meta=meta)["error"]["code"] == -32602


def test_modern_lists_carry_result_type_server_info_and_cache_hints(server: McpServer) -> None:
    for method in ("tools/list", "resources/list", "resources/templates/list"):
        result = _send(server, method)["result"]
        assert result["resultType"] == "complete", method
        assert result["_meta"]["io.modelcontextprotocol/serverInfo"] == SERVER_INFO
        assert (result["ttlMs"], result["cacheScope"]) == (3_600_000, "public"), method
    tools = _send(server, "tools/list")["result"]["tools"]
    legacy = server.handle('{"jsonrpc":"2.0","id":1,"method":"tools/list"}')
    assert legacy is not None
    assert tools == legacy["result"]["tools"]


def test_the_continuity_is_never_cached_the_manifest_is(server: McpServer) -> None:
    live = _send(server, "resources/read", {"uri": "anneal://continuity"})["result"]
    assert (live["ttlMs"], live["cacheScope"]) == (0, "private")
    static = _send(server, "resources/read", {"uri": "anneal://integrity/manifest"})["result"]
    assert (static["ttlMs"], static["cacheScope"]) == (3_600_000, "public")


def test_modern_unknown_resource_is_invalid_params_legacy_keeps_32002(server: McpServer) -> None:
    error = _send(server, "resources/read", {"uri": "anneal://nothing"})["error"]
    assert error["code"] == -32602
    assert error["data"] == {"uri": "anneal://nothing"}
    legacy = _send(server, "resources/read", {"uri": "anneal://nothing"}, meta=None)["error"]
    assert legacy["code"] == -32002


def test_modern_tool_call_is_complete_with_structured_content(
    server: McpServer, store: Store
) -> None:
    arguments = {"content": "chose WAL", "episode_type": "decision"}
    result = _send(server, "tools/call", {"name": "record", "arguments": arguments})["result"]
    assert result["resultType"] == "complete"
    assert "ttlMs" not in result
    assert result["isError"] is False
    episode_id = result["structuredContent"]["id"]
    assert store.get(episode_id) is not None
    assert episode_id in result["content"][0]["text"]


def test_ping_is_not_part_of_the_modern_era(server: McpServer) -> None:
    error = _send(server, "ping")["error"]
    assert error["code"] == -32601
    assert MODERN in error["message"]
    assert _send(server, "ping", meta=None)["result"] == {}


def test_a_handshake_version_in_meta_is_served_as_the_handshake_era(server: McpServer) -> None:
    meta = {**META, "io.modelcontextprotocol/protocolVersion": "2025-11-25"}
    result = _send(server, "tools/list", meta=meta)["result"]
    assert "resultType" not in result
    assert result["tools"]


def test_both_eras_interleave_in_one_process(server: McpServer) -> None:
    init = _send(server, "initialize", {"protocolVersion": "2025-06-18"}, meta=None)["result"]
    assert init["protocolVersion"] == "2025-06-18"
    assert _send(server, "tools/list")["result"]["resultType"] == "complete"
    assert "resultType" not in _send(server, "tools/list", meta=None)["result"]
    assert _send(server, "server/discover")["result"]["supportedVersions"][0] == MODERN
