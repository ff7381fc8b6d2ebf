"""The gate covers cancel: a second MCP server cannot cancel the holder's wrap (the CLI:
tests/core/cli/test_wrap_cancel_gate.py)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import mcp
import pytest
from mcp import StdioServerParameters

pytestmark = pytest.mark.e2e

CONTINUITY = (
    "# Agent \u2014 Memory (v1)\n\n## State\n- ok\n## Patterns\n\n## Decisions\n\n## Context\n"
)


def _params(db: Path, session_id: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "anneal_memory", "--db", str(db), "serve", "--session-id", session_id],
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )


@contextlib.asynccontextmanager
async def _connect(params: StdioServerParameters) -> AsyncIterator[Any]:
    if hasattr(mcp, "Client"):
        async with mcp.Client(params) as client:
            yield client
        return
    from mcp.client.stdio import stdio_client

    async with stdio_client(params) as (read, write), mcp.ClientSession(read, write) as session:
        await session.initialize()
        yield session


async def _call(session: Any, name: str, **arguments: Any) -> tuple[str, bool]:
    result = (await session.call_tool(name, arguments)).model_dump(by_alias=True, mode="json")
    texts = [item["text"] for item in result["content"] if item["type"] == "text"]
    return "\n".join(texts), bool(result.get("isError", False))


def test_a_second_mcp_server_cannot_cancel_the_holders_wrap(tmp_path: Path) -> None:
    from anneal_memory import Store, claim_baton, prepare_wrap, validated_save_continuity

    db = tmp_path / "m.db"
    with Store(db, consolidate_requires_baton_on_create=True) as store:
        store.record("The deploy needs the staging flag", "observation")
        claim_baton(store, "holder")
        token = prepare_wrap(store, session_id="holder").wrap_token
    assert token is not None

    async def main() -> None:
        async with _connect(_params(db, "intruder")) as session:
            for arguments in ({}, {"wrap_token": token}):
                text, is_error = await _call(session, "wrap_cancel", **arguments)
                assert is_error
                assert "'holder'" in text
                assert token[:4] not in text

    asyncio.run(main())
    with Store(db) as store:
        saved = validated_save_continuity(store, CONTINUITY, wrap_token=token, session_id="holder")
    assert saved.episodes_compressed == 1
