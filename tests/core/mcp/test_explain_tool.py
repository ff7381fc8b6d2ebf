"""The read-only MCP ``explain`` tool: one subject per call, text and structured content."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from anneal_memory import Store, prepare_wrap, validated_save_continuity
from anneal_memory.mcp import McpServer, ServerConfig
from anneal_memory.mcp._tools import TOOLS_BY_NAME
from anneal_memory.testing import DEMO_GROUNDED, demo_compress


@pytest.fixture
def server(store: Store) -> McpServer:
    return McpServer(ServerConfig(db_path=store.path, session_id="s1"), store=store)


def _call(server: McpServer, **arguments: Any) -> dict[str, Any]:
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": "explain", "arguments": arguments}}  # fmt: skip
    reply = server.handle(json.dumps(message))
    assert reply is not None
    result: dict[str, Any] = reply["result"]
    if not result["isError"]:
        jsonschema.validate(result["structuredContent"], TOOLS_BY_NAME["explain"].output_schema)
    return result


def test_the_tool_is_read_only_and_idempotent() -> None:
    hints = TOOLS_BY_NAME["explain"].annotations
    assert hints["readOnlyHint"]
    assert hints["idempotentHint"]
    assert not hints["destructiveHint"]


def test_explain_a_pattern_and_an_episode(server: McpServer, store: Store) -> None:
    for text in ("The parallel pytest workers share one Postgres database",
                 "Give each parallel pytest worker its own Postgres database"):  # fmt: skip
        store.record(text, "observation")
    for _ in range(2):
        prepared = prepare_wrap(store)
        validated_save_continuity(
            store, demo_compress(prepared.text or ""), wrap_token=prepared.wrap_token
        )
        store.record("Per worker Postgres databases keep parallel pytest workers apart", "outcome")
    pattern = _call(server, pattern=DEMO_GROUNDED)
    assert not pattern["isError"]
    assert pattern["structuredContent"]["kind"] == "pattern"
    assert pattern["structuredContent"]["found"] is True
    assert pattern["structuredContent"]["audit"]["verdict"] is None
    assert "Steps, newest first:" in pattern["content"][0]["text"]
    verified = _call(server, pattern=DEMO_GROUNDED, verify=True)
    assert verified["structuredContent"]["audit"]["verdict"]["valid"] is True
    episode_id = store.recall(limit=1).episodes[0].id
    episode = _call(server, episode_id=episode_id)
    assert episode["structuredContent"]["kind"] == "episode"
    assert episode["structuredContent"]["id"] == episode_id
    assert episode["structuredContent"]["worth"]["surfaced"] == 0


def test_explain_carries_worth_counts_and_probes(server: McpServer, store: Store) -> None:
    from anneal_memory.probes import add_probe
    from anneal_memory.worth import record_exposure, record_outcome

    store.record("The parallel pytest workers share one Postgres database", "observation")
    prepared = prepare_wrap(store)
    validated_save_continuity(
        store, demo_compress(prepared.text or ""), wrap_token=prepared.wrap_token
    )
    ident = record_exposure(store, "test", [f"p:{DEMO_GROUNDED}"])
    assert ident is not None
    record_outcome(store, ident, result="failure", items={f"p:{DEMO_GROUNDED}": "ignored"})
    probe = add_probe(store, pattern=DEMO_GROUNDED, min_level=2)
    result = _call(server, pattern=DEMO_GROUNDED)
    data = result["structuredContent"]
    assert data["worth"]["ignored_failure"] == 1
    assert [(p["id"], p["last_status"]) for p in data["probes"]] == [(probe.id, None)]
    text = result["content"][0]["text"]
    assert "worth: surfaced 1;" in text
    assert f"{probe.id} (at least 2x): not checked yet" in text


def test_exactly_one_subject(server: McpServer) -> None:
    for arguments in ({}, {"pattern": "a", "episode_id": "0000000a"}):
        result = _call(server, **arguments)
        assert result["isError"]
        assert "exactly one of question, pattern or episode_id" in result["content"][0]["text"]
    missing = _call(server, pattern="nothing_here")
    assert missing["structuredContent"]["found"] is False


def test_explain_a_recall_in_recalls_order(server: McpServer, store: Store) -> None:
    for text in ("The parallel pytest workers share one Postgres database",
                 "Give each parallel pytest worker its own Postgres database",
                 "The coffee machine is broken"):  # fmt: skip
        store.record(text, "observation")
    result = _call(server, question="parallel Postgres workers")
    assert not result["isError"]
    data = result["structuredContent"]
    assert (data["kind"], data["found"], data["stage"]) == ("recall", True, "words")
    assert [r["id"] for r in data["results"]] == [
        e.id for e in store.recall("parallel Postgres workers", limit=10).episodes
    ]
    assert all(r["matched"] for r in data["results"])
    assert "found by" in result["content"][0]["text"]
    assert _call(server, question="zzzqqq")["structuredContent"]["found"] is False


def test_a_scoped_server_never_shows_another_scopes_episode(tmp_path: Any) -> None:
    db = tmp_path / "memory.db"
    with Store(db) as store:
        mine = store.record("The deploy key rotates weekly", "observation", scope="alice")
        theirs = store.record("The deploy key of bob is hunter2", "observation", scope="bob")
        server = McpServer(ServerConfig(db_path=db, scope="alice"), store=store)
        result = _call(server, question="deploy key")
        text = json.dumps(result)
        assert mine.id in text
        assert theirs.id not in text
        assert "hunter2" not in text
