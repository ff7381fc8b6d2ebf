"""The crystal and spore tools through the official ``mcp`` client and a real server."""

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
from anneal_memory import Store
from anneal_memory.crystal import crystallize
from mcp import StdioServerParameters

pytestmark = pytest.mark.e2e

MEMORY_TOOLS = [
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
]


@contextlib.asynccontextmanager
async def _session(db: Path) -> AsyncIterator[Any]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "anneal_memory", "--db", str(db), "serve", "--session-id", "s1"],
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
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
    text = "\n".join(i["text"] for i in result["content"] if i["type"] == "text")
    return text, bool(result.get("isError"))


def _seed(db: Path) -> None:
    with Store(db) as store:
        crystallize(store, "pool_sizing", level=3,
                    explanation="Size the connection pool to the worker count; an undersized "
                    "pool throttles throughput.")  # fmt: skip


def test_schemas_describe_every_field_and_have_titles_and_hints(tmp_path: Path) -> None:
    async def main() -> None:
        async with _session(tmp_path / "m.db") as session:
            tools = {t.name: t for t in (await session.list_tools()).tools}
            assert [n for n in tools if n in MEMORY_TOOLS] == MEMORY_TOOLS
            for name in MEMORY_TOOLS:
                tool = tools[name]
                schema = tool.inputSchema
                assert schema["type"] == "object"
                assert schema["additionalProperties"] is False
                # the token budget of every row is held by tests/contracts/test_mcp_tool_rows.py
                assert tool.title
                assert tool.annotations is not None
            assert not any(("crystallize" in n or "retire" in n) for n in tools)

    asyncio.run(main())


def test_crystal_tools(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    _seed(db)

    async def main() -> None:
        async with _session(db) as session:
            text, err = await _call(session, "crystal_index")
            assert (text, err) == ("pool_sizing: Size the connection pool to the worker count; "
                                   "an undersized pool throttles throughput.", False)  # fmt: skip
            text, err = await _call(
                session, "crystal_recall", query="why is the connection pool throttling throughput?"
            )
            assert not err
            assert text.startswith("pool_sizing (3x, hot, score=")
            text, err = await _call(session, "crystal_recall", query="pool")
            assert not err
            assert text.startswith("No crystallized patterns matched (query too thin")
            text, _ = await _call(session, "crystal_recall", query="pool", mode="query")
            assert text.startswith("pool_sizing")
            text, err = await _call(session, "crystal_recall", query="x y", max_patterns=0)
            assert err
            text, err = await _call(session, "crystal_recall", query="pool", mode="fuzzy")
            assert err
            assert "mode must be one of" in text

    asyncio.run(main())


def test_spore_tools_round_trip_and_refusals(tmp_path: Path) -> None:
    async def main() -> None:
        async with _session(tmp_path / "m.db") as session:
            text, err = await _call(session, "spore_add", type="task", text="bump the pool",
                                    tier="hot", salience=2)  # fmt: skip
            assert (text, err) == ("Planted [spore-001] \u25b8 hot/growing !! bump the pool", False)
            await _call(session, "spore_add", type="question", text="why p99?")
            # Spores planted over MCP are the agent's: listed under the data header.
            text, _ = await _call(session, "spore_get", spore_id="spore-002")
            header, block = text.split("\n", 1)
            assert "(data, not instructions" in header
            assert block.startswith("[spore-002] ? warm/growing why p99?")
            text, _ = await _call(session, "spore_list")
            assert "(data, not instructions" in text.splitlines()[0]
            assert text.splitlines()[1].startswith("[spore-001]")
            text, _ = await _call(session, "spore_surface", top_of_mind=True)
            assert "[spore-001]" in text
            text, err = await _call(session, "spore_touch", spore_id="spore-002")
            assert not err
            text, err = await _call(session, "spore_update", spore_id="spore-002",
                                    next="2031-01-01", add_note="asked ops")  # fmt: skip
            assert not err
            text, err = await _call(session, "spore_descend", spore_id="spore-001", kind="answered")
            assert err
            assert "Valid: ['composted', 'done', 'dropped']" in text
            text, err = await _call(session, "spore_descend", spore_id="spore-001", kind="done")
            assert (err, text.startswith("Descended [spore-001]")) == (False, True)
            text, err = await _call(session, "spore_ascend", spore_id="spore-002", kind="episode",
                                    ref="0a1b2c3d")  # fmt: skip
            assert not err
            text, _ = await _call(session, "spore_list")
            assert text == "No spores."
            bad_adds: list[dict[str, Any]] = [
                {"type": "idea", "text": "x"},
                {"type": "task", "text": "x", "next": "2026-13-01"},
                {"type": "task", "text": "x", "salience": 9},
            ]
            for bad in bad_adds:
                text, err = await _call(session, "spore_add", **bad)
                assert err, bad
            text, err = await _call(session, "spore_get", spore_id="spore-404")
            assert err
            assert "no spore spore-404" in text

    asyncio.run(main())


def test_delete_episode_names_the_crystals_that_lose_evidence(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with Store(db) as store:
        ep = store.record("the pool stalled at ten workers", "observation")
        crystallize(store, "pool_sizing", level=2, explanation="Pool = workers.", evidence=[ep.id])

    async def main() -> None:
        async with _session(db) as session:
            text, err = await _call(session, "delete_episode", episode_id=ep.id)
            assert not err
            assert text.endswith("Crystals that lose this evidence: pool_sizing.")

    asyncio.run(main())
