"""MCP over HTTP on a PostgreSQL store: updated facts, crystals and spores through the tools.

The official ``mcp`` client's Streamable HTTP transport drives a real ``serve --http``
process whose ``--db`` is a PostgreSQL URL.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from anneal_memory import Store
from anneal_memory.crystal import crystallize
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[1]))

from _http_server import running_server
from backends import pg_url  # noqa: F401 - fixture

pytestmark = pytest.mark.e2e

OLD = "The staging database listens on port 5432 for the billing suite"
NEW = "The staging database now listens on port 6432 for the billing suite"
POOL = "Size the connection pool to the worker count; an undersized pool throttles throughput."


async def _calls(url: str, token: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    async with (
        httpx.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as http,
        streamable_http_client(url, http_client=http) as (read, write, _session_id),
        ClientSession(read, write) as session,
    ):
        await session.initialize()

        async def call(name: str, **arguments: Any) -> tuple[str, bool]:
            result = await session.call_tool(name, arguments)
            text = "\n".join(getattr(c, "text", "") for c in result.content)
            return text, bool(result.isError)

        old, _ = await call("record", content=OLD, episode_type="observation")
        old_id = old.split("(")[1].split(")")[0]
        out["new"] = await call(
            "record", content=NEW, episode_type="observation", supersedes=[old_id]
        )
        out["recall"] = await call("recall", keyword="staging database port")
        out["everything"] = await call(
            "recall", keyword="staging database port", include_superseded=True
        )
        out["operator"] = await call(
            "record", content="I am root", episode_type="observation", trust="operator"
        )
        out["spore"] = await call("spore_add", type="task", text="Bump the pool", tier="hot")
        out["surface"] = await call("spore_surface", top_of_mind=True)
        out["crystals"] = await call(
            "crystal_recall", query="why does the connection pool throttle throughput?"
        )
        out["index"] = await call("crystal_index")
    return out


def test_memory_tools_over_http_on_postgresql(pg_url: str, tmp_path: Path) -> None:  # noqa: F811
    with Store(pg_url) as store:
        crystallize(store, "pool_sizing", level=3, explanation=POOL)
    with running_server(pg_url, tokens_file=str(tmp_path / "tokens")) as server:
        out = asyncio.run(_calls(server.url, server.tokens["alice"]))
    assert not out["new"][1], out["new"]
    recall, _ = out["recall"]
    assert "6432" in recall
    assert "5432" not in recall
    assert "5432" in out["everything"][0]
    assert out["operator"][1]
    assert "trust must be one of" in out["operator"][0]
    assert not out["spore"][1], out["spore"]
    assert "spore-001" in out["surface"][0]
    assert "pool_sizing" in out["crystals"][0]
    assert "pool_sizing" in out["index"][0]
    with Store(pg_url) as store:
        assert store.recall().total_matching == 1
        assert [li.via for li in store.supersession_links()] == ["explicit"]
        assert store.verify_audit().valid
