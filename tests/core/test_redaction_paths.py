"""Every path that records goes through the store's redaction: AgentMemory, MCP, the CLI.

The adapters record only through ``AgentMemory`` (their recording policy), so the
``AgentMemory`` tests cover them; the MCP ``record`` tool and the CLI ``record`` command
call ``Store.record``. The operator sets the policy with ``anneal-memory redaction``; MCP
``status`` reports it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from anneal_memory import AgentMemory, Store
from anneal_memory.cli import main
from anneal_memory.mcp import McpServer, ServerConfig
from anneal_memory.testing import demo_compress
from backends import audit_entries, backend_store, pg_url, target  # noqa: F401 - fixtures

KEY = "AKIAIOSFODNN7EXAMPLE"
TOKEN = "xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy"


@pytest.fixture
def store(backend_store: Store) -> Store:  # noqa: F811
    return backend_store


def _tool(server: McpServer, name: str, **arguments: Any) -> dict[str, Any]:
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call"}
    message["params"] = {"name": name, "arguments": arguments}
    reply = server.handle(json.dumps(message))
    assert reply is not None
    result: dict[str, Any] = reply["result"]
    return result


def test_agent_memory_records_tool_results_and_answers_redacted(store: Store) -> None:
    memory = AgentMemory(store, session_id="s1")
    tool = memory.record_tool_result("shell", {"stdout": f"export AWS_ACCESS_KEY_ID={KEY}"})
    answer = memory.record_answer(f"Posted with the bot token {TOKEN}.")
    assert tool is not None
    assert answer is not None
    assert KEY not in tool.content
    assert "[redacted:aws-access-key]" in tool.content
    assert answer.content == "Posted with the bot token [redacted:slack-token]."
    block = memory.context_for("which bot token did we post with?")
    assert "[redacted:slack-token]" in block
    assert TOKEN not in block
    outcome = memory.wrap(demo_compress)
    assert outcome.saved
    continuity = store.load_continuity() or ""
    assert KEY not in continuity
    assert TOKEN not in continuity


def test_mcp_record_redacts_and_status_reports_the_policy(store: Store) -> None:
    server = McpServer(ServerConfig(db_path=Path("unused.db"), session_id="s1"), store=store)
    done = _tool(server, "record", content=f"log line {KEY}", episode_type="observation")
    assert not done["isError"]
    episode = store.get(done["structuredContent"]["id"])
    assert episode is not None
    assert episode.content == "log line [redacted:aws-access-key]"
    status = _tool(server, "status")["content"][0]["text"]
    assert "Secrets at the door: redact (personal data kept)" in status
    store.set_redaction("refuse")
    refused = _tool(server, "record", content=f"again {TOKEN}", episode_type="observation")
    assert refused["isError"]
    text = refused["content"][0]["text"]
    assert "slack-token" in text
    assert TOKEN not in text
    assert "Secrets at the door: refuse" in _tool(server, "status")["content"][0]["text"]


def test_cli_record_redacts_and_the_operator_sets_the_policy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "cli" / "memory.db")
    assert main(["--db", db, "record", f"pasted {KEY} by mistake", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["content"] == (
        "pasted [redacted:aws-access-key] by mistake"
    )
    assert main(["--db", db, "--json", "redaction"]) == 0
    assert json.loads(capsys.readouterr().out) == {"policy": "redact", "personal": False}
    assert main(["--db", db, "redaction", "--set", "refuse", "--personal", "on"]) == 0
    shown = capsys.readouterr().out
    assert shown.startswith("Redaction policy: refuse (a record holding a secret is refused")
    assert "(was: redact, personal data off)" in shown
    assert main(["--db", db, "record", "mail me at ann@example.org"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("Error: episode refused: its content holds personal data (email)")
    assert main(["--db", db, "redaction", "--set", "off", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "policy": "off",
        "personal": True,
        "was": {"policy": "refuse", "personal": True},
    }
    with Store(db) as opened:
        assert [e["data"]["policy"] for e in audit_entries(opened, "redaction_policy_set")] == [
            "refuse",
            "off",
        ]


def test_cli_redaction_needs_an_existing_store(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "none.db")
    assert main(["--db", db, "redaction"]) == 1
    assert main(["--db", db, "redaction", "--set", "off"]) == 1
    assert "database not found" in capsys.readouterr().err
    assert not Path(db).exists()
