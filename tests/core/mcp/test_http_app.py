"""The HTTP MCP application driven in process, as an ASGI server drives it."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from anneal_memory.mcp._http._app import HttpSettings, McpHttpApp
from anneal_memory.mcp._http._scopes import ScopeServers
from anneal_memory.mcp._http._tokens import TokenFile
from anneal_memory.mcp._tools import TOOLS

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "0"},
    },
}
PING = {"jsonrpc": "2.0", "id": 2, "method": "ping"}


class Client:
    def __init__(self, app: McpHttpApp) -> None:
        self.app = app

    def post(
        self, token: str, body: bytes | dict[str, Any], **headers: str
    ) -> tuple[int, dict[str, str], bytes]:
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        hdrs = {
            "authorization": f"Bearer {token}",
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
            **{k.lower().replace("_", "-"): v for k, v in headers.items()},
        }
        scope = {
            "type": "http",
            "method": "POST",
            "path": "/mcp",
            "headers": [(k.encode(), v.encode()) for k, v in hdrs.items()],
        }
        sent: list[dict[str, Any]] = []

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": raw, "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        asyncio.run(self.app(scope, receive, send))
        start = sent[0]
        out = {k.decode(): v.decode() for k, v in start["headers"]}
        return start["status"], out, b"".join(m.get("body", b"") for m in sent[1:])


AppFactory = Callable[..., tuple[Client, dict[str, str]]]


@pytest.fixture
def make_app(tmp_path: Path) -> Iterator[AppFactory]:
    """Build the app over a store in ``tmp_path``; its stores are closed after the test."""
    opened: list[ScopeServers] = []

    def make(max_sessions: int = 4) -> tuple[Client, dict[str, str]]:
        db = tmp_path / "m.db"
        tokens = TokenFile(Path(str(db) + ".http-tokens"))
        names = ("alice", "bob")
        issued = {name: tokens.add(name, scope="default", session_id=name) for name in names}
        servers = ScopeServers(db, project_name="Agent", tools=TOOLS)
        opened.append(servers)
        settings = HttpSettings(allowed_origins=frozenset(), max_sessions=max_sessions)
        return Client(McpHttpApp(tokens, servers, settings)), issued

    yield make
    for servers in opened:
        servers.close()


def test_one_token_opening_sessions_never_ends_another_tokens(make_app: AppFactory) -> None:
    client, tokens = make_app(max_sessions=4)
    status, headers, _ = client.post(tokens["bob"], INIT)
    assert status == 200
    bobs = headers["mcp-session-id"]
    alices = [client.post(tokens["alice"], INIT)[1]["mcp-session-id"] for _ in range(9)]
    assert client.post(tokens["bob"], PING, mcp_session_id=bobs)[0] == 200
    # alice's own oldest sessions ended; her newest four live on
    assert [client.post(tokens["alice"], PING, mcp_session_id=s)[0] for s in alices] == [
        404
    ] * 5 + [200] * 4


def test_an_empty_or_blank_body_is_a_bad_request(make_app: AppFactory) -> None:
    client, tokens = make_app()
    for body in (b"", b"   ", b"\r\n\t "):
        status, _, reply = client.post(tokens["alice"], body)
        assert status == 400
        assert json.loads(reply)["error"]["code"] == -32700


def test_a_token_file_swapped_for_a_fifo_or_a_link_is_refused_at_once(
    tmp_path: Path, make_app: AppFactory
) -> None:
    import os
    import threading

    client, tokens = make_app()
    path = tmp_path / "m.db.http-tokens"
    outside = tmp_path / "outside.json"
    outside.write_bytes(path.read_bytes())
    answers: list[int] = []
    for swap in (lambda: os.mkfifo(path), lambda: os.symlink(outside, path)):
        path.unlink()
        swap()
        # A FIFO opened for reading blocks until a writer comes: run the request in a daemon
        # thread, where hanging is the failure and cannot hang the test run.
        done = threading.Thread(
            target=lambda: answers.append(client.post(tokens["alice"], PING)[0]), daemon=True
        )
        done.start()
        done.join(timeout=60)
        assert not done.is_alive(), "the request hung on the token file"
    assert answers == [503, 503]
