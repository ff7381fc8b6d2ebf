"""``anneal-memory serve --http``: a real uvicorn process on the loopback.

Driven by the official ``mcp`` Python client's Streamable HTTP transport (with the bearer
header) for the handshake era, and by raw HTTP for the 2026-07-28 era and every refusal.
"""

from __future__ import annotations

import asyncio
import base64
import os
import stat
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

sys.path.insert(0, str(Path(__file__).parent))

from _http_server import cli, post, running_server
from backends import UNREACHABLE

pytestmark = pytest.mark.e2e

MODERN = "2026-07-28"
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"},
    },
}


def _meta() -> dict[str, Any]:
    return {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
    }


def _modern(method: str, params: dict[str, Any], request_id: int = 7) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": method,
        "params": {**params, "_meta": _meta()},
    }


def _modern_headers(method: str, name: str | None = None) -> dict[str, str]:
    headers = {"MCP-Protocol-Version": MODERN, "Mcp-Method": method}
    if name is not None:
        headers["Mcp-Name"] = name
    return headers


async def _client_session(url: str, token: str) -> list[str]:
    texts: list[str] = []
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx.AsyncClient(headers=headers, timeout=60) as http,
        streamable_http_client(url, http_client=http) as (read, write, _session_id),
        ClientSession(read, write) as session,
    ):
        init = await session.initialize()
        texts.append(init.protocolVersion)
        tools = await session.list_tools()
        texts.append(",".join(t.name for t in tools.tools))
        for content in ("picked uvicorn for HTTP", "tokens stay hashed on disk"):
            result = await session.call_tool(
                "record", {"content": content, "episode_type": "decision"}
            )
            assert not result.isError, result
        result = await session.call_tool("recall", {"keyword": "uvicorn"})
        texts.append(result.content[0].text)  # type: ignore[union-attr]
        result = await session.call_tool("status", {})
        texts.append(result.content[0].text)  # type: ignore[union-attr]
    return texts


def test_official_client_over_http_with_a_bearer_token(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with running_server(db) as server:
        version, tools, recall, status = asyncio.run(
            _client_session(server.url, server.tokens["alice"])
        )
    assert version == "2025-11-25"
    assert "record" in tools.split(",")
    assert "prepare_wrap" in tools.split(",")
    assert recall.startswith("Episodes 1-1 of 1 matching:")
    assert "(alice): picked uvicorn for HTTP" in recall  # the token's name is the source
    assert "Session id: alice-session" in status  # the token's session id, not the client's
    assert "Episodes: 2" in status


def test_the_token_file_is_private_and_holds_no_token(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with running_server(db, {"alice": "default"}) as server:
        token = server.tokens["alice"]
    path = Path(str(db) + ".http-tokens")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert token not in path.read_text()
    listed = cli(db, "http-token", "list")
    assert "alice  scope=default  session=alice-session" in listed
    assert token not in listed
    cli(db, "http-token", "revoke", "alice")
    assert cli(db, "http-token", "list").strip() == "no tokens"


def test_refusals(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with running_server(db, {"alice": "default", "bob": "default"}, "--max-body", "4096") as server:
        alice, url = server.tokens["alice"], server.url
        assert post(url, INIT).status == 401
        assert post(url, INIT, token="amt_wrong").status == 401
        assert post(url, INIT, headers={"Authorization": "Basic eDp5"}).status == 401
        assert (
            post(url, INIT, token=alice, headers={"Origin": "https://evil.example"}).status == 403
        )
        assert post(url, INIT, token=alice, headers={"Origin": "http://localhost:1"}).status == 403
        big = b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"' + b"a" * 5000 + b'"}}'
        assert post(url, big, token=alice).status == 413
        assert post(url, INIT, token=alice, headers={"Content-Type": "text/plain"}).status == 415
        assert post(url, INIT, token=alice, headers={"Accept": "text/html"}).status == 406
        assert post(url, INIT, token=alice, method="GET").status == 405
        assert post(url + "x", INIT, token=alice).status == 404
        parse = post(url, b"{not json", token=alice)
        assert (parse.status, parse.body["error"]["code"]) == (400, -32700)
        # handshake-era sessions: required after initialize, bound to the token that opened it
        opened = post(url, INIT, token=alice)
        assert opened.status == 200
        session = opened.headers["mcp-session-id"]
        ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
        assert post(url, ping, token=alice).status == 400
        assert post(url, ping, token=alice, headers={"Mcp-Session-Id": "nope"}).status == 404
        bob = server.tokens["bob"]
        assert post(url, ping, token=bob, headers={"Mcp-Session-Id": session}).status == 404
        headers = {"Mcp-Session-Id": session, "MCP-Protocol-Version": "1999-01-01"}
        assert post(url, ping, token=alice, headers=headers).status == 400
        ok = post(url, ping, token=alice, headers={"Mcp-Session-Id": session})
        assert (ok.status, ok.body) == (200, {"jsonrpc": "2.0", "id": 2, "result": {}})
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        assert post(url, note, token=alice, headers={"Mcp-Session-Id": session}).status == 202
        ended = post(url, b"", token=alice, headers={"Mcp-Session-Id": session}, method="DELETE")
        assert ended.status == 204
        assert post(url, ping, token=alice, headers={"Mcp-Session-Id": session}).status == 404
        # a revoked token is refused at once, without a restart
        cli(db, "http-token", "revoke", "bob")
        assert post(url, INIT, token=bob).status == 401
        # a token file others may read stops the service rather than trusting it
        token_file = Path(str(db) + ".http-tokens")
        token_file.chmod(0o644)
        assert post(url, INIT, token=alice).status == 503
        token_file.chmod(0o600)
        assert post(url, INIT, token=alice).status == 200


def test_modern_era_without_sessions_and_header_checks(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with running_server(db) as server:
        alice, url = server.tokens["alice"], server.url
        discover = post(
            url,
            _modern("server/discover", {}),
            token=alice,
            headers=_modern_headers("server/discover"),
        )
        assert discover.status == 200
        assert MODERN in discover.body["result"]["supportedVersions"]
        call = _modern(
            "tools/call",
            {
                "name": "record",
                "arguments": {"content": "modern era over HTTP", "episode_type": "observation"},
            },
        )
        recorded = post(url, call, token=alice, headers=_modern_headers("tools/call", "record"))
        assert recorded.status == 200
        assert recorded.body["result"]["resultType"] == "complete"
        assert not recorded.body["result"]["isError"]
        encoded = "=?base64?" + base64.b64encode(b"record").decode() + "?="
        again = post(url, call, token=alice, headers=_modern_headers("tools/call", encoded))
        assert again.status == 200
        for headers in (
            _modern_headers("tools/call"),  # no Mcp-Name
            _modern_headers("tools/call", "recall"),  # Mcp-Name not the body's
            _modern_headers("tools/list", "record"),  # Mcp-Method not the body's
            {"Mcp-Method": "tools/call", "Mcp-Name": "record"},  # no MCP-Protocol-Version
        ):
            refused = post(url, call, token=alice, headers=headers)
            assert (refused.status, refused.body["error"]["code"]) == (400, -32020), headers
        unknown = post(
            url, _modern("nope/nothing", {}), token=alice, headers=_modern_headers("nope/nothing")
        )
        assert (unknown.status, unknown.body["error"]["code"]) == (404, -32601)
        future = {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/list",
            "params": {
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": "2099-01-01",
                    "io.modelcontextprotocol/clientCapabilities": {},
                }
            },
        }
        unsupported = post(
            url,
            future,
            token=alice,
            headers={"MCP-Protocol-Version": "2099-01-01", "Mcp-Method": "tools/list"},
        )
        assert unsupported.status == 400


def test_scopes_are_separate_stores(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with running_server(db, {"alice": "team_a", "bob": "team_b"}) as server:
        url = server.url
        for name in ("alice", "bob"):
            call = _modern(
                "tools/call",
                {
                    "name": "record",
                    "arguments": {"content": f"secret plan of {name}", "episode_type": "decision"},
                },
            )
            headers = _modern_headers("tools/call", "record")
            assert post(url, call, token=server.tokens[name], headers=headers).status == 200
        recall = _modern("tools/call", {"name": "recall", "arguments": {"keyword": "secret"}})
        reply = post(
            url,
            recall,
            token=server.tokens["alice"],
            headers=_modern_headers("tools/call", "recall"),
        )
        text = reply.body["result"]["content"][0]["text"]
        assert "secret plan of alice" in text
        assert "bob" not in text
    folder = Path(str(db) + ".scopes")
    assert sorted(p.name for p in folder.glob("*.db")) == ["team_a.db", "team_b.db"]
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700


def test_no_tool_claims_the_baton(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with running_server(db) as server:
        call = _modern("tools/call", {"name": "prepare_wrap", "arguments": {}})
        reply = post(
            server.url,
            call,
            token=server.tokens["alice"],
            headers=_modern_headers("tools/call", "prepare_wrap"),
        )
        text = reply.body["result"]["content"][0]["text"]
        assert "baton claim" in text, text  # a capture-only downgrade: the operator claims
        assert "alice-session" in text
        status = cli(db, "baton", "status")
        assert "Baton holder:     nobody" in status


def test_serve_http_refuses_bad_setups(tmp_path: Path) -> None:
    import subprocess

    db = tmp_path / "m.db"
    base = [sys.executable, "-m", "anneal_memory", "--db", str(db), "serve"]
    for args, message in (
        (["--http", "127.0.0.1:1"], "no tokens in"),
        (["--http", "nonsense:port"], "--http wants HOST:PORT"),
    ):
        done = subprocess.run(
            [*base, *args], capture_output=True, text=True, env={**os.environ}, check=False
        )
        assert done.returncode == 1, done
        assert message in done.stderr
        assert "Traceback" not in done.stderr
    url = [sys.executable, "-m", "anneal_memory", "--db", "postgresql://nobody@127.0.0.1:1/x"]
    for args, message in (
        (["serve"], UNREACHABLE),
        (["serve", "--http", "127.0.0.1:1"], "pass --tokens FILE"),
        (["http-token", "list"], "pass --tokens FILE"),
    ):
        done = subprocess.run(
            [*url, *args], capture_output=True, text=True, env={**os.environ}, check=False
        )
        assert done.returncode == 1, done
        assert message in done.stderr
        assert "Traceback" not in done.stderr


@pytest.mark.postgresql  # it builds its own schemas from pg_base_url(), not pg_url
def test_a_postgresql_store_behind_http_with_scopes_as_schemas(tmp_path: Path) -> None:
    sys.path.insert(0, str(Path(__file__).parents[1]))
    from backends import drop_schema, pg_base_url, with_schema

    base = pg_base_url()
    schema = f"t_http_{os.getpid()}"
    url = with_schema(base, schema)
    tokens = str(tmp_path / "tokens")
    try:
        names = {"alice": "default", "bob": "team_b"}
        with running_server(url, names, tokens_file=tokens) as server:
            for name in ("alice", "bob"):
                call = _modern(
                    "tools/call",
                    {
                        "name": "record",
                        "arguments": {
                            "content": f"fleet note of {name}",
                            "episode_type": "decision",
                        },
                    },
                )
                reply = post(
                    server.url,
                    call,
                    token=server.tokens[name],
                    headers=_modern_headers("tools/call", "record"),
                )
                assert not reply.body["result"]["isError"], reply.body
            recall = _modern("tools/call", {"name": "recall", "arguments": {"keyword": "fleet"}})
            reply = post(
                server.url,
                recall,
                token=server.tokens["alice"],
                headers=_modern_headers("tools/call", "recall"),
            )
            text = reply.body["result"]["content"][0]["text"]
            assert "(alice): fleet note of alice" in text
            assert "bob" not in text
            wrap = _modern("tools/call", {"name": "prepare_wrap", "arguments": {}})
            reply = post(
                server.url,
                wrap,
                token=server.tokens["alice"],
                headers=_modern_headers("tools/call", "prepare_wrap"),
            )
            # The wrap works on this backend; the gate (on for a schema the server creates)
            # downgrades it: alice's session does not hold the baton.
            assert not reply.body["result"]["isError"], reply.body
            assert "capture-only" in reply.body["result"]["content"][0]["text"]
        from anneal_memory import Store

        with Store(with_schema(base, "team_b")) as team_b:
            assert [e.content for e in team_b.recall("fleet").episodes] == ["fleet note of bob"]
    finally:
        drop_schema(base, schema)
        drop_schema(base, "team_b")
