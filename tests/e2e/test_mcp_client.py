"""The official ``mcp`` Python client against the real ``anneal-memory serve`` process.

Runs with the locked 1.x client (``ClientSession`` + ``initialize``) and with the newest 2.x
client (``mcp.Client``) twice: ``mode="auto"`` probes ``server/discover``, gets a
DiscoverResult and speaks 2026-07-28 (``_meta`` on every request, no handshake), and
``mode="legacy"`` runs the ``initialize`` handshake::

    uv run --isolated --no-project --with "mcp>=2" --with pytest \\
        --with-editable packages/anneal-core \\
        pytest tests/e2e/test_mcp_client.py -p no:cacheprovider
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any, Protocol

import jsonschema
import mcp
import pytest
from mcp import StdioServerParameters

pytestmark = pytest.mark.e2e

LATEST = "2025-11-25"
MODERN = "2026-07-28"
MODES = ["auto", "legacy"] if hasattr(mcp, "Client") else ["handshake"]
EXPECTED_VERSION = {"auto": MODERN, "legacy": LATEST, "handshake": LATEST}


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest) -> str:
    """How the client connects: 2.x ``auto`` (modern) or ``legacy``; 1.x ``handshake``."""
    return str(request.param)


class Session(Protocol):
    """The calls this test makes; both client generations have them."""

    async def list_tools(self) -> Any: ...

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None) -> Any: ...

    async def read_resource(self, uri: Any) -> Any: ...


def _params(db: Path, session_id: str = "e2e-session") -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=[
            "-m",
            "anneal_memory",
            "--db",
            str(db),
            "--project-name",
            "E2E",
            "serve",
            "--session-id",
            session_id,
        ],
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )


@contextlib.asynccontextmanager
async def _connect(params: StdioServerParameters, mode: str) -> AsyncIterator[tuple[Session, str]]:
    if mode != "handshake":  # mcp 2.x
        async with mcp.Client(params, mode=mode) as client:
            if mode == "auto":  # the probe found a 2026-07-28 server: no handshake at all
                assert client.session.initialize_result is None
            else:
                assert client.session.initialize_result is not None
            yield client, client.protocol_version
        return
    from mcp.client.stdio import stdio_client

    async with stdio_client(params) as (read, write), mcp.ClientSession(read, write) as session:
        result = await session.initialize()
        yield session, result.protocolVersion


def _dump(model: Any) -> dict[str, Any]:
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)  # type: ignore[no-any-return]


async def _call(session: Session, name: str, **arguments: Any) -> tuple[str, bool]:
    result = _dump(await session.call_tool(name, arguments))
    texts = [item["text"] for item in result["content"] if item["type"] == "text"]
    return "\n".join(texts), bool(result.get("isError", False))


async def _read(session: Session, uri: str) -> dict[str, Any]:
    if hasattr(mcp, "Client"):
        return _dump(await session.read_resource(uri))
    from pydantic import AnyUrl

    return _dump(await session.read_resource(AnyUrl(uri)))


def _run(db: Path, body: Callable[[Session, str], Awaitable[None]], mode: str) -> None:
    async def main() -> None:
        async with _connect(_params(db), mode) as (session, version):
            await body(session, version)

    asyncio.run(main())


def test_handshake_and_tool_schemas(tmp_path: Path, mode: str) -> None:
    async def body(session: Session, version: str) -> None:
        assert version == EXPECTED_VERSION[mode]
        tools = _dump(await session.list_tools())["tools"]
        names = [tool["name"] for tool in tools]
        assert names == [
            "record",
            "recall",
            "get",
            "read_continuity",
            "prepare_wrap",
            "save_continuity",
            "wrap_cancel",
            "delete_episode",
            "status",
            "crystal_recall",
            "crystal_index",
            "spore_add",
            "spore_get",
            "spore_list",
            "spore_touch",
            "spore_update",
            "spore_descend",
            "spore_ascend",
            "spore_surface",
            "explain",
            "outcome",
        ]
        for tool in tools:
            for schema in (tool["inputSchema"], tool.get("outputSchema", {})):
                jsonschema.Draft202012Validator.check_schema(schema)
                jsonschema.Draft7Validator.check_schema(schema)
            assert tool["inputSchema"]["type"] == "object"
            assert tool["description"]
            assert tool["title"]
            assert set(tool["annotations"]) >= {"readOnlyHint", "destructiveHint"}

    _run(tmp_path / "m.db", body, mode)


def test_call_every_core_tool(tmp_path: Path, mode: str) -> None:
    async def body(session: Session, version: str) -> None:
        text, is_error = await _call(
            session,
            "record",
            content="picked SQLite over Postgres",
            episode_type="decision",
            metadata={"why": "one file"},
        )
        assert not is_error
        assert text.startswith("Recorded decision (")
        episode_id = text.split("(")[1][:8]
        await _call(
            session, "record", content="postgres would need a server", episode_type="observation"
        )
        text, is_error = await _call(session, "recall", keyword="postgres", limit=5)
        assert not is_error
        assert text.splitlines()[0] == "Episodes 1-2 of 2 matching:"
        assert "(agent): picked SQLite over Postgres" in text
        text, is_error = await _call(session, "status")
        assert not is_error
        assert "Episodes: 2" in text
        assert "Session id: e2e-session" in text
        text, is_error = await _call(session, "delete_episode", episode_id=episode_id)
        assert not is_error
        assert episode_id in text
        text, is_error = await _call(session, "delete_episode", episode_id=episode_id)
        assert is_error
        assert "no episode with id" in text
        text, is_error = await _call(session, "record", content="x", episode_type="gossip")
        assert is_error
        assert "episode_type must be one of" in text
        result = _dump(
            await session.call_tool("record", {"content": "y", "episode_type": "context"})
        )
        new_id = result["structuredContent"]["id"]
        text, is_error = await _call(session, "get", episode_id=new_id)
        assert (is_error, new_id in text) == (False, True)
        text, is_error = await _call(session, "recall", keyword="postgres", limit=5.0)
        assert not is_error
        assert text.startswith("Episodes 1-1 of 1 matching:")
        text, is_error = await _call(session, "read_continuity")
        assert (is_error, text.startswith("(No continuity yet.")) == (False, True)

    _run(tmp_path / "m.db", body, mode)


def test_read_both_resources(tmp_path: Path, mode: str) -> None:
    async def body(session: Session, version: str) -> None:
        listed = _dump(await session.list_resources())["resources"]  # type: ignore[attr-defined]
        assert {r["uri"] for r in listed} == {"anneal://continuity", "anneal://integrity/manifest"}
        continuity = (await _read(session, "anneal://continuity"))["contents"][0]
        assert continuity["mimeType"] == "text/markdown"
        assert continuity["text"].startswith("(No continuity yet.")
        manifest = (await _read(session, "anneal://integrity/manifest"))["contents"][0]
        tools = _dump(await session.list_tools())["tools"]
        assert sorted(json.loads(manifest["text"])["tools"]) == sorted(t["name"] for t in tools)

    _run(tmp_path / "m.db", body, mode)


def _claim_baton(db: Path, session_id: str) -> None:
    from anneal_memory import Store
    from anneal_memory.gate import claim_baton

    with Store(db) as store:
        claim_baton(store, session_id)


async def _wrap_body(session: Session, db: Path) -> None:
    text, _ = await _call(session, "prepare_wrap")
    assert "Wrap token" not in text  # nothing recorded yet: nothing opened
    text, _ = await _call(
        session, "record", content="chose sqlite for the store", episode_type="decision"
    )
    decision = text.split("(")[1][:8]
    # serve created this store, so it is baton-protected until the operator claims it
    text, is_error = await _call(session, "prepare_wrap")
    assert not is_error
    assert text.startswith("Consolidate downgraded to capture-only")
    assert "baton claim e2e-session" in text
    _claim_baton(db, "e2e-session")
    package, is_error = await _call(session, "prepare_wrap", staleness_days=7)
    assert not is_error
    assert f"({decision}) chose sqlite for the store" in package
    token = package.rstrip().splitlines()[-1].removeprefix("Wrap token: ")
    refused, is_error = await _call(
        session, "save_continuity", text="# title only\n", wrap_token=token
    )
    assert is_error
    assert "## State" in refused
    document = (
        "# E2E — Memory (v1)\n\n## State\nSQLite store chosen.\n\n## Patterns\n"
        f'- sqlite_store | 1x (2026-03-02) [evidence: {decision} "chose sqlite"]\n\n'
        '## Decisions\n- SQLite [decided(rationale: "one file", on: "2026-03-02")]\n\n'
        "## Context\nFirst session.\n"
    )
    saved, is_error = await _call(
        session,
        "save_continuity",
        text=document,
        wrap_token=token,
        allow_shrink=False,
        affective_state={"tag": "curious", "intensity": 0.7},
    )
    assert not is_error, saved
    assert "Episodes compressed: 1" in saved
    continuity = (await _read(session, "anneal://continuity"))["contents"][0]["text"]
    assert continuity.startswith("# E2E — Memory (v1)")
    assert "SQLite store chosen." in continuity
    await _call(session, "record", content="second session note", episode_type="context")
    package, _ = await _call(session, "prepare_wrap")
    token = package.rstrip().splitlines()[-1].removeprefix("Wrap token: ")
    text, is_error = await _call(session, "wrap_cancel", wrap_token=token)
    assert not is_error
    assert text.startswith("Cancelled wrap ")


def test_record_prepare_save_round_trip_and_cancel(tmp_path: Path, mode: str) -> None:
    db = tmp_path / "m.db"

    async def body(session: Session, version: str) -> None:
        await _wrap_body(session, db)

    _run(db, body, mode)
