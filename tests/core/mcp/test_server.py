"""``McpServer.handle`` in memory: the handshake, every error code, tools and resources."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from anneal_memory import Store
from anneal_memory.mcp import (
    LATEST_PROTOCOL_VERSION,
    SUPPORTED_PROTOCOL_VERSIONS,
    TOOLS,
    McpServer,
    ServerConfig,
    Tool,
    ToolContext,
)
from anneal_memory.mcp._integrity import MANIFEST_PATH
from anneal_memory.mcp._resources import CONTINUITY_PLACEHOLDER
from anneal_memory.mcp._toolkit import hints


@pytest.fixture
def server(store: Store) -> McpServer:
    return McpServer(ServerConfig(db_path=store.path, session_id="session-a"), store=store)


def _request(
    server: McpServer, method: str, params: Mapping[str, Any] | None = None, request_id: int = 1
) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    reply = server.handle(json.dumps(message))
    assert reply is not None
    assert reply["id"] == request_id
    return reply


def _call(server: McpServer, name: str, **arguments: Any) -> tuple[str, bool]:
    reply = _request(server, "tools/call", {"name": name, "arguments": arguments})
    result = reply["result"]
    assert [c["type"] for c in result["content"]] == ["text"]
    return result["content"][0]["text"], result["isError"]


@pytest.mark.parametrize("version", SUPPORTED_PROTOCOL_VERSIONS)
def test_initialize_answers_the_version_the_client_asks_for(
    server: McpServer, version: str
) -> None:
    result = _request(server, "initialize", {"protocolVersion": version, "capabilities": {}})[
        "result"
    ]
    assert result["protocolVersion"] == version
    assert result["serverInfo"]["name"] == "anneal-memory"
    assert set(result["capabilities"]) == {"tools", "resources"}
    assert "anneal://continuity" in result["instructions"]


@pytest.mark.parametrize("version", ["2099-01-01", "2024-10-07", "", "2026-07-28"])
def test_initialize_answers_the_newest_for_an_unknown_version(
    server: McpServer, version: str
) -> None:
    result = _request(server, "initialize", {"protocolVersion": version})["result"]
    assert result["protocolVersion"] == LATEST_PROTOCOL_VERSION == "2025-11-25"


@pytest.mark.parametrize("params", [{}, {"protocolVersion": 20241105}])
def test_initialize_without_a_version_string_is_invalid_params(
    server: McpServer, params: dict[str, Any]
) -> None:
    assert _request(server, "initialize", params)["error"]["code"] == -32602


def test_ping_and_empty_listings(server: McpServer) -> None:
    assert _request(server, "ping")["result"] == {}
    assert _request(server, "resources/templates/list")["result"] == {"resourceTemplates": []}


@pytest.mark.parametrize("method", ["prompts/list", "tools/run", "Ping"])
def test_unknown_methods_are_method_not_found(server: McpServer, method: str) -> None:
    error = _request(server, method, {})["error"]
    assert error == {"code": -32601, "message": f"Method not found: {method}"}


def test_tools_list_is_the_table(server: McpServer) -> None:
    tools = _request(server, "tools/list")["result"]["tools"]
    assert [t["name"] for t in tools] == [t.name for t in TOOLS]
    for tool in tools:
        assert {"name", "title", "description", "inputSchema", "annotations"} <= set(tool)
        assert len(tool["description"]) > 40
        schema = tool["inputSchema"]
        assert schema["type"] == "object"
        assert schema["additionalProperties"] is False
        assert set(schema.get("required", ())) <= set(schema["properties"])
        assert "session_id" not in schema["properties"]
        assert "source" not in schema["properties"] or tool["name"] in {"recall", "record"}


def test_record_sets_the_source_itself(server: McpServer, store: Store) -> None:
    text, is_error = _call(
        server, "record", content="chose WAL mode", episode_type="decision", metadata={"ticket": 7}
    )
    assert not is_error
    episode_id = text.split("(")[1].split(")")[0]
    assert text.startswith(f"Recorded decision ({episode_id}) at 2026-03-02T09:00:")
    episode = store.get(episode_id)
    assert episode is not None
    assert (episode.source, episode.content, dict(episode.metadata)) == (
        "agent",
        "chose WAL mode",
        {"ticket": 7},
    )


def test_a_configured_source_is_used(store: Store) -> None:
    server = McpServer(ServerConfig(db_path=store.path, source="mcp-test"), store=store)
    text, _ = _call(server, "record", content="x marks", episode_type="context")
    assert store.recall("marks").episodes[0].source == "mcp-test"
    assert "Recorded context" in text


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        (
            {"content": "x", "episode_type": "decision", "trust": "operator"},
            "trust must be one of: agent, tool, external",
        ),
        (
            {"content": "x", "episode_type": "decision", "derived_from": "0a1b2c3d"},
            "derived_from must be an array",
        ),
        ({"content": "x"}, "episode_type is required"),
        ({"content": "", "episode_type": "decision"}, "content must not be empty"),
        ({"content": 5, "episode_type": "decision"}, "content must be a string"),
        ({"content": "x", "episode_type": "rumour"}, "episode_type must be one of"),
        (
            {"content": "x", "episode_type": "decision", "metadata": [1]},
            "metadata must be an object",
        ),
    ],
)
def test_bad_record_arguments_are_tool_errors(
    server: McpServer, store: Store, arguments: dict[str, Any], expected: str
) -> None:
    text, is_error = _call(server, "record", **arguments)
    assert is_error
    assert text.startswith("Error: invalid arguments for record: ")
    assert expected in text
    assert store.status().total_episodes == 0


def test_library_refusals_are_tool_errors(server: McpServer) -> None:
    text, is_error = _call(server, "record", content="x" * 70_000, episode_type="observation")
    assert is_error
    assert "64 KiB" in text or "65,536" in text
    text, is_error = _call(server, "recall", since="not a time")
    assert is_error
    assert text.startswith("Error: since")


def test_recall_matches_the_library_ranking(server: McpServer, store: Store) -> None:
    for content in [
        "the deploy script failed on staging",
        "deploy went fine after the fix",
        "lunch was late",
        "script failed again: the deploy script needs a retry",
    ]:
        store.record(content, "observation")
    text, is_error = _call(server, "recall", keyword="deploy script")
    assert not is_error
    library = store.recall("deploy script", limit=20)
    lines = text.splitlines()
    assert lines[0] == f"Episodes 1-{len(library.episodes)} of {library.total_matching} matching:"
    assert [line[3:11] for line in lines[1:-1]] == [e.id for e in library.episodes]
    assert lines[-1].startswith("Exposure x")  # a recall that showed something (issue 28)


def test_recall_filters_and_paging(server: McpServer, store: Store) -> None:
    store.record("alpha note one", "observation", source="tool")
    store.record("alpha note two", "decision")
    store.record("alpha note three", "decision")
    text, _ = _call(server, "recall", keyword="alpha", episode_type="decision", limit=1, offset=1)
    expected = store.recall("alpha", episode_type="decision", limit=1, offset=1)
    assert text.splitlines()[0] == "Episodes 2-2 of 2 matching:"
    assert expected.episodes[0].id in text
    text, _ = _call(server, "recall", source="tool")
    assert "(tool): alpha note one" in text
    assert "Episodes 1-1 of 1" in text
    text, _ = _call(server, "recall", keyword="alpha", offset=10)
    assert text == "No episodes at offset 10; 3 matched in all."
    text, _ = _call(server, "recall", keyword="zebra")
    assert text == "No episodes match."
    text, is_error = _call(server, "recall", limit=0)
    assert is_error
    assert "limit must be at least 1" in text


def test_recall_shows_metadata_and_indents_lines(server: McpServer, store: Store) -> None:
    store.record("first line\nsecond line", "observation", metadata={"k": "v"})
    text, _ = _call(server, "recall")
    assert 'first line\n  second line\n  metadata: {"k": "v"}' in text


def test_delete_episode(server: McpServer, store: Store) -> None:
    episode = store.record("delete me", "context")
    text, is_error = _call(server, "delete_episode", episode_id=episode.id)
    assert not is_error
    assert episode.id in text
    assert store.get(episode.id) is None
    text, is_error = _call(server, "delete_episode", episode_id=episode.id)
    assert is_error
    assert "no episode with id" in text


def test_status_reports_counts_and_session(server: McpServer, store: Store) -> None:
    store.record("one", "decision")
    text, is_error = _call(server, "status")
    assert not is_error
    assert "Episodes: 1 (observation 0, decision 1," in text
    assert "Session id: session-a" in text


def test_tools_call_protocol_errors(server: McpServer) -> None:
    for params in ({}, {"name": 3}, {"name": "status", "arguments": [1]}):
        assert _request(server, "tools/call", params)["error"]["code"] == -32602
    error = _request(server, "tools/call", {"name": "forget_all"})["error"]
    assert error["code"] == -32602
    assert error["message"].startswith("Unknown tool: forget_all")


def test_a_failing_handler_is_a_tool_error_and_the_server_keeps_serving(store: Store) -> None:
    def explode(ctx: ToolContext, args: Mapping[str, Any]) -> str:
        raise RuntimeError("kaboom")

    logged: list[str] = []
    broken = Tool(
        name="explode",
        description="always fails",
        handler=explode,
        input_schema={"type": "object", "properties": {}},
        title="Explode",
        annotations=hints(read_only=True, destructive=False, idempotent=True),
        output_schema=None,
    )
    server = McpServer(
        ServerConfig(db_path=store.path, tools=(broken, *TOOLS), log=logged.append), store=store
    )
    text, is_error = _call(server, "explode")
    assert is_error
    assert text == "Error: explode failed unexpectedly (RuntimeError: kaboom)"
    assert "Traceback" in logged[0]
    assert _request(server, "ping")["result"] == {}


def test_resources_list_and_read(server: McpServer, store: Store) -> None:
    resources = _request(server, "resources/list")["result"]["resources"]
    assert [r["uri"] for r in resources] == ["anneal://continuity", "anneal://integrity/manifest"]
    contents = _request(server, "resources/read", {"uri": "anneal://continuity"})["result"][
        "contents"
    ]
    assert contents == [
        {"uri": "anneal://continuity", "mimeType": "text/markdown", "text": CONTINUITY_PLACEHOLDER}
    ]
    manifest = _request(server, "resources/read", {"uri": "anneal://integrity/manifest"})["result"][
        "contents"
    ][0]
    assert manifest["mimeType"] == "application/json"
    assert json.loads(manifest["text"]) == json.loads(MANIFEST_PATH.read_text(encoding="utf-8"))


def test_continuity_resource_serves_the_file(server: McpServer, store: Store) -> None:
    store.sidecar(".continuity.md").write_text("# TestAgent\n\nremember this\n", encoding="utf-8")
    contents = _request(server, "resources/read", {"uri": "anneal://continuity"})["result"][
        "contents"
    ]
    assert contents[0]["text"] == "# TestAgent\n\nremember this\n"


def test_resource_errors(server: McpServer) -> None:
    error = _request(server, "resources/read", {"uri": "anneal://nothing"})["error"]
    assert error == {"code": -32002, "message": "Resource not found: anneal://nothing"}
    assert _request(server, "resources/read", {})["error"]["code"] == -32602


def test_store_failures_outside_tools_are_internal_errors(tmp_path: Path) -> None:
    server = McpServer(ServerConfig(db_path=tmp_path))  # a directory is no database
    error = _request(server, "resources/read", {"uri": "anneal://continuity"})["error"]
    assert error["code"] == -32603
    assert f"{tmp_path} is a directory" in error["message"]
    text, is_error = _call(server, "status")
    assert is_error
    assert text.startswith(f"Error: the database {tmp_path} is a directory")


def test_server_opens_its_store_lazily_and_closes_it(db_path: Path) -> None:
    server = McpServer(ServerConfig(db_path=db_path))
    assert _request(server, "tools/list")["result"]["tools"]
    assert not db_path.exists()
    _call(server, "record", content="first", episode_type="context")
    assert db_path.exists()
    server.close()
    with Store(db_path) as reopened:
        assert reopened.status().total_episodes == 1


def test_handle_never_prints(server: McpServer, capsys: pytest.CaptureFixture[str]) -> None:
    server.handle("garbage")
    server.handle('{"jsonrpc":"2.0","id":1,"method":"tools/list"}')
    assert capsys.readouterr() == ("", "")


def test_unexpected_failures_are_logged_to_stderr_only(
    store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    def explode(ctx: ToolContext, args: Mapping[str, Any]) -> str:
        raise KeyError("boom")

    broken = Tool(
        name="explode",
        description="fails",
        handler=explode,
        input_schema={"type": "object", "properties": {}},
        title="Explode",
        annotations=hints(read_only=True, destructive=False, idempotent=True),
        output_schema=None,
    )
    server = McpServer(ServerConfig(db_path=store.path, tools=(broken,)), store=store)
    _, is_error = _call(server, "explode")
    assert is_error
    out, err = capsys.readouterr()
    assert out == ""
    assert "Traceback" in err
    assert "KeyError: 'boom'" in err
