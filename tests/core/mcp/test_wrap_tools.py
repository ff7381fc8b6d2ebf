"""The wrap tools through ``McpServer.handle``: prepare, save, cancel, refusals."""

from __future__ import annotations

import json
from typing import Any

import pytest
from anneal_memory import Store
from anneal_memory.mcp import McpServer, ServerConfig


@pytest.fixture
def server(store: Store) -> McpServer:
    return McpServer(ServerConfig(db_path=store.path, session_id="wrap-session"), store=store)


def _call(server: McpServer, name: str, **arguments: Any) -> tuple[str, bool]:
    message = {
        "jsonrpc": "2.0",
        "id": 9,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }
    reply = server.handle(json.dumps(message))
    assert reply is not None
    return reply["result"]["content"][0]["text"], reply["result"]["isError"]


def _record(server: McpServer, content: str, episode_type: str) -> str:
    text, is_error = _call(server, "record", content=content, episode_type=episode_type)
    assert not is_error
    return text.split("(")[1][:8]


def _document(decision_id: str) -> str:
    return (
        "# TestAgent — Memory (v1)\n\n## State\nThe store runs on SQLite in WAL mode.\n\n"
        f"## Patterns\n- sqlite_store | 1x (2026-03-02) [evidence: {decision_id} "
        '"chose sqlite for the store"]\n\n'
        '## Decisions\n- Use SQLite [decided(rationale: "one file", on: "2026-03-02")]\n\n'
        "## Context\nFirst session: picked the storage engine.\n"
    )


def _token(package: str) -> str:
    last = package.rstrip().splitlines()[-1]
    assert last.startswith("Wrap token: ")
    return last.removeprefix("Wrap token: ")


def test_prepare_with_nothing_to_wrap_opens_nothing(server: McpServer) -> None:
    text, is_error = _call(server, "prepare_wrap")
    assert not is_error
    assert "Wrap token" not in text
    text, is_error = _call(server, "wrap_cancel")
    assert is_error
    assert text.startswith("Error: ")


def test_record_prepare_save_round_trip(server: McpServer, store: Store) -> None:
    decision = _record(server, "chose sqlite for the store", "decision")
    observation = _record(server, "wal mode keeps readers fast", "observation")
    package, is_error = _call(server, "prepare_wrap")
    assert not is_error
    assert f"({decision}) chose sqlite for the store" in package
    assert f"({observation}) wal mode keeps readers fast" in package
    token = _token(package)
    assert len(token) == 32

    again, is_error = _call(server, "prepare_wrap")
    assert is_error
    assert again.startswith("Error: ")

    refused, is_error = _call(server, "save_continuity", text="# just a title\n", wrap_token=token)
    assert is_error
    assert refused.startswith("Error: ")
    assert "## State" in refused
    assert not store.sidecar(".continuity.md").exists()

    wrong, is_error = _call(
        server, "save_continuity", text=_document(decision), wrap_token="0" * 32
    )
    assert is_error
    assert wrong.startswith("Error: ")

    saved, is_error = _call(
        server,
        "save_continuity",
        text=_document(decision),
        wrap_token=token,
        affective_state={"tag": "focused", "intensity": 0.5},
    )
    assert not is_error, saved
    assert saved.startswith("Saved continuity: ")
    assert "Episodes compressed: 2" in saved
    assert "Wrap id: " in saved
    assert "Findings:" in saved

    second, is_error = _call(server, "save_continuity", text=_document(decision), wrap_token=token)
    assert is_error
    assert second.startswith("Error: ")

    reply = server.handle(
        '{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"anneal://continuity"}}'
    )
    assert reply is not None
    assert reply["result"]["contents"][0]["text"] == store.sidecar(".continuity.md").read_text(
        encoding="utf-8"
    )
    assert "The store runs on SQLite in WAL mode." in reply["result"]["contents"][0]["text"]
    status, _ = _call(server, "status")
    assert "Waiting for the next wrap: 0" in status


def test_cancel_keeps_episodes_for_the_next_wrap(server: McpServer) -> None:
    first = _record(server, "a tension between speed and safety", "tension")
    package, _ = _call(server, "prepare_wrap")
    token = _token(package)
    text, is_error = _call(server, "wrap_cancel", wrap_token=token)
    assert not is_error
    assert text.startswith("Cancelled wrap ")
    assert "1 episode(s) stay" in text
    package, is_error = _call(server, "prepare_wrap")
    assert not is_error
    assert f"({first})" in package


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"wrap_token": "x"}, "text is required"),
        (
            {"text": "x", "affective_state": {"tag": "calm", "intensity": 2}},
            "affective_state.intensity must be at most 1",
        ),
        (
            {"text": "x", "affective_state": {"tag": "calm"}},
            "affective_state.intensity is required",
        ),
        ({"text": "x", "session_id": "someone-else"}, "unknown argument session_id"),
        ({"text": "x", "allow_shrink": "yes"}, "allow_shrink must be a boolean"),
    ],
)
def test_save_argument_errors(server: McpServer, arguments: dict[str, Any], expected: str) -> None:
    text, is_error = _call(server, "save_continuity", **arguments)
    assert is_error
    assert expected in text


def test_prepare_argument_errors(server: McpServer) -> None:
    text, is_error = _call(server, "prepare_wrap", max_chars=0)
    assert is_error
    assert "max_chars must be at least 1000" in text
    text, is_error = _call(server, "wrap_cancel", session_id="x")
    assert is_error
    assert "unknown argument session_id" in text


def test_a_store_the_server_creates_is_baton_protected(db_path: Any) -> None:
    from anneal_memory.gate import claim_baton, consolidate_requires_baton

    server = McpServer(ServerConfig(db_path=db_path, session_id="mcp-main"))
    _record(server, "captured while gated", "observation")
    assert consolidate_requires_baton(server.store)
    text, is_error = _call(server, "prepare_wrap")
    assert not is_error
    assert text.startswith("Consolidate downgraded to capture-only")
    assert "baton claim mcp-main" in text
    assert "Wrap token" not in text
    claim_baton(server.store, "mcp-main")
    package, is_error = _call(server, "prepare_wrap")
    assert not is_error
    assert "captured while gated" in package
    assert _token(package)
    server.close()


def test_an_existing_store_keeps_its_policy(store: Store) -> None:
    from anneal_memory.gate import consolidate_requires_baton

    server = McpServer(ServerConfig(db_path=store.path))
    _record(server, "open store", "context")
    assert not consolidate_requires_baton(server.store)
    server.close()


def test_status_shows_who_may_wrap(db_path: Any, store: Store) -> None:
    from anneal_memory.gate import claim_baton

    open_server = McpServer(ServerConfig(db_path=store.path, session_id="s1"), store=store)
    text, _ = _call(open_server, "status")
    assert "Baton: not required (any session may wrap)" in text

    gated = McpServer(ServerConfig(db_path=db_path.with_name("gated.db"), session_id="s1"))
    text, _ = _call(gated, "status")
    assert "Baton: required; nobody holds it" in text
    claim_baton(gated.store, "s1")
    text, _ = _call(gated, "status")
    assert "Baton: required; held by s1 (this session)" in text
    claim_baton(gated.store, "s2", take=True)
    text, _ = _call(gated, "status")
    assert text.endswith("Baton: required; held by s2")
    gated.close()
