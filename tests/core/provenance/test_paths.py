"""Cued durable facts on every path (library, CLI search, MCP recall)."""

from __future__ import annotations

import json

import pytest
from anneal_memory import Store, prepare_wrap, validated_save_continuity
from anneal_memory.cli import main
from anneal_memory.continuity import cued_facts
from anneal_memory.mcp import McpServer, ServerConfig

CONTINUITY = "\n".join(
    [
        "# TestAgent \u2014 Memory (v1)",
        "## State",
        "- planning",
        "## Durable Facts",
        "- Allergic to penicillin \u2014 cues: allergy, medicine",
        "- Lives in Lisbon | cues: home city",
        "## Patterns",
        "## Decisions",
        "- none",
        "## Context",
        "- quiet",
        "",
    ]
)


@pytest.fixture
def with_facts(store: Store) -> Store:
    store.record("Started the weekly medicine review", "observation")
    prepare_wrap(store)
    validated_save_continuity(store, CONTINUITY)
    return store


def test_library(with_facts: Store) -> None:
    assert cued_facts(with_facts, "which medicine?") == ["Allergic to penicillin"]
    assert cued_facts(with_facts, "nothing relevant") == []
    assert cued_facts(with_facts, None) == []


def test_cli_search(with_facts: Store, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(with_facts.path)
    assert main(["--db", db, "search", "medicine for my home city", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["facts"] == ["Allergic to penicillin", "Lives in Lisbon"]
    assert main(["--db", db, "search", "medicine"]) == 0
    assert "Durable facts:\n- Allergic to penicillin" in capsys.readouterr().out


def test_mcp_recall(with_facts: Store) -> None:
    server = McpServer(ServerConfig(db_path=with_facts.path), store=with_facts)
    message = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "recall", "arguments": {"keyword": "medicine review"}},
    }
    reply = server.handle(json.dumps(message))
    assert reply is not None
    text = reply["result"]["content"][0]["text"]
    assert "Durable facts:\n- Allergic to penicillin" in text
