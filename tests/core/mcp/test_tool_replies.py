"""Tool replies as a client reads them: structured content, JSON types, the new tools, wording."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from anneal_memory import Store
from anneal_memory.mcp import TOOLS, McpServer, ServerConfig
from anneal_memory.mcp._resources import CONTINUITY_PLACEHOLDER
from anneal_memory.mcp._tools import TOOLS_BY_NAME
from anneal_memory.mcp._wrap_tools import mcp_wording


@pytest.fixture
def server(store: Store) -> McpServer:
    return McpServer(ServerConfig(db_path=store.path, session_id="s1"), store=store)


def _result(server: McpServer, name: str, **arguments: Any) -> dict[str, Any]:
    message = {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }
    reply = server.handle(json.dumps(message))
    assert reply is not None
    result: dict[str, Any] = reply["result"]
    schema = TOOLS_BY_NAME[name].output_schema
    if not result["isError"] and schema is not None:
        jsonschema.validate(result["structuredContent"], schema)
    return result


def _text(result: dict[str, Any]) -> str:
    return str(result["content"][0]["text"])


def test_an_integral_float_is_an_integer(server: McpServer, store: Store) -> None:
    for n in range(3):
        store.record(f"note {n}", "observation")
    result = _result(server, "recall", limit=2.0, offset=1.0)
    assert not result["isError"], _text(result)
    assert len(result["structuredContent"]["episodes"]) == 2
    assert result["structuredContent"]["total_matching"] == 3
    refused = _result(server, "recall", limit=2.5)
    assert refused["isError"]
    assert "limit must be an integer, got number" in _text(refused)


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"content": {"a": 1}, "episode_type": "context"}, "content must be a string, got object"),
        ({"content": ["x"], "episode_type": "context"}, "content must be a string, got array"),
        ({"content": None, "episode_type": "context"}, "content must be a string, got null"),
        ({"content": True, "episode_type": "context"}, "content must be a string, got boolean"),
        ({"content": "x", "episode_type": 3}, "episode_type must be a string, got integer"),
        ({"content": "x", "episode_type": "rumour"}, 'got "rumour"'),
    ],
)
def test_validation_messages_use_json_type_names(
    server: McpServer, arguments: dict[str, Any], expected: str
) -> None:
    result = _result(server, "record", **arguments)
    assert result["isError"]
    assert expected in _text(result)
    for python_name in ("dict", "list", "NoneType", "str", "bool"):
        assert f"got {python_name}" not in _text(result).replace("got boolean", "")


def test_every_tool_with_an_output_schema_answers_structured_content(
    server: McpServer, store: Store
) -> None:
    recorded = _result(server, "record", content="the first", episode_type="decision")
    episode_id = recorded["structuredContent"]["id"]
    got = _result(server, "get", episode_id=episode_id)
    assert got["structuredContent"]["content"] == "the first"
    assert episode_id in _text(got)
    status = _result(server, "status")["structuredContent"]
    assert status == {"total_episodes": 1, "episodes_since_wrap": 1, "wrap_open": False}
    prepared = _result(server, "prepare_wrap")["structuredContent"]
    assert prepared["status"] == "ready"
    assert len(prepared["wrap_token"]) == 32
    assert _result(server, "status")["structuredContent"]["wrap_open"] is True
    assert "Wrap: 1 open since" in _text(_result(server, "status"))
    cancelled = _result(server, "wrap_cancel", wrap_token=prepared["wrap_token"])
    assert cancelled["structuredContent"] == {"wrap_id": 1, "episode_count": 1}
    assert "Wrap: none open" in _text(_result(server, "status"))
    covered = {"record", "get", "status", "prepare_wrap", "wrap_cancel", "recall"}
    with_schema = {t.name for t in TOOLS if t.output_schema is not None}
    # save_continuity: tests/core/mcp/test_wrap_tools.py; explain: test_explain_tool.py;
    # outcome: tests/core/worth/test_worth_transports.py
    assert with_schema - covered == {"save_continuity", "explain", "outcome"}


def test_get_an_unknown_id_is_a_tool_error(server: McpServer) -> None:
    result = _result(server, "get", episode_id="00000000")
    assert result["isError"]
    assert "no episode with id '00000000'" in _text(result)


def test_read_continuity_is_the_resource_text(server: McpServer, store: Store) -> None:
    assert _text(_result(server, "read_continuity")) == CONTINUITY_PLACEHOLDER
    store.sidecar(".continuity.md").write_text("# A\n\nkept\n", encoding="utf-8")
    assert _text(_result(server, "read_continuity")) == "# A\n\nkept\n"


def test_save_requires_the_wrap_token_in_the_schema(server: McpServer) -> None:
    assert TOOLS_BY_NAME["save_continuity"].input_schema["required"] == ["text", "wrap_token"]
    result = _result(server, "save_continuity", text="# x\n")
    assert result["isError"]
    assert "wrap_token is required" in _text(result)


def test_refusals_name_mcp_arguments_not_cli_flags() -> None:
    message = (
        "This store is baton-protected: a save must name the baton holder's session id "
        "(--session-id or ANNEAL_MEMORY_SESSION_ID) and carry the token its prepare "
        "returned (--wrap-token). Nothing was written."
    )
    worded = mcp_wording(message)
    assert "--wrap-token" not in worded
    assert "(the wrap_token argument)" in worded
    assert "serve --session-id" in worded
    shrink = "Keep what is still true, or pass allow_shrink=True (--allow-shrink) if the"
    assert mcp_wording(shrink).endswith("pass allow_shrink: true if the")


def test_a_baton_refusal_through_the_server_names_no_cli_flag(db_path: Any) -> None:
    from anneal_memory.gate import claim_baton

    server = McpServer(ServerConfig(db_path=db_path, session_id="s1"))
    claim_baton(server.store, "s1")
    _result(server, "record", content="x", episode_type="decision")
    token = _result(server, "prepare_wrap")["structuredContent"]["wrap_token"]
    other = McpServer(ServerConfig(db_path=db_path), store=server.store)
    refused = _result(other, "save_continuity", text="# T\n\n## State\nx\n", wrap_token=token)
    assert refused["isError"]
    assert "--wrap-token" not in _text(refused)
    assert "--allow-shrink" not in _text(refused)
    server.close()


def _no_cli_flags(text: str) -> None:
    for flag in (
        "--wrap-token",
        "--allow-shrink",
        "anneal-memory save-continuity",
        "(wrap-cancel)",
    ):
        assert flag not in text, text


def test_live_refusals_and_downgrades_name_no_cli_flag(db_path: Any) -> None:
    from anneal_memory.gate import claim_baton

    anonymous = McpServer(ServerConfig(db_path=db_path))  # a new store: baton-protected
    _result(anonymous, "record", content="x", episode_type="decision")
    downgraded = _result(anonymous, "prepare_wrap")
    assert downgraded["structuredContent"]["status"] == "downgraded"
    _no_cli_flags(_text(downgraded))
    assert "serve --session-id NAME" in _text(downgraded)
    claim_baton(anonymous.store, "s1")
    server = McpServer(ServerConfig(db_path=db_path, session_id="s1"), store=anonymous.store)
    package = _result(server, "prepare_wrap")
    _no_cli_flags(_text(package))
    again = _result(server, "prepare_wrap")
    assert again["isError"]
    _no_cli_flags(_text(again))
    assert "the save_continuity tool with its wrap_token" in _text(again)
    shrunk = _result(
        server,
        "save_continuity",
        text="# T\n\n## State\nx\n",
        wrap_token=package["structuredContent"]["wrap_token"],
    )
    assert shrunk["isError"]
    _no_cli_flags(_text(shrunk))
    anonymous.close()


def test_prepare_wrap_takes_a_package_budget(server: McpServer, store: Store) -> None:
    for n in range(40):
        store.record(f"note {n} " + "word " * 400, "observation")
    result = _result(server, "prepare_wrap", max_package_chars=5000)
    assert not result["isError"], _text(result)
    fields = result["structuredContent"]
    assert 1 <= fields["episode_count"] < 40
    assert "stay unwrapped for the next wrap" in _text(result)
    refused = _result(server, "wrap_cancel")
    assert not refused["isError"], _text(refused)
    too_small = _result(server, "prepare_wrap", max_package_chars=100)
    assert too_small["isError"]
