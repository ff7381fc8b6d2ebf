"""``anneal-memory --db postgresql://... serve`` over stdio, driven by the official ``mcp`` client.

The server is a real subprocess; its URL carries a password (the throwaway cluster trusts
its socket, so any password is accepted) that must never appear in a reply or on stderr.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import urllib.parse
from pathlib import Path
from typing import Any

import mcp
import pytest
from anneal_memory import Store
from anneal_memory.gate import claim_baton
from mcp import StdioServerParameters
from mcp.client.stdio import stdio_client

sys.path.insert(0, str(Path(__file__).parents[1]))

from backends import UNREACHABLE, pg_url  # noqa: F401 - fixture

pytestmark = pytest.mark.e2e

SECRET = "Hunter2-never-echoed"
SESSION = "pg-stdio-session"


def _with_password(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    query = urllib.parse.parse_qs(parts.query)
    user = parts.username or query.get("user", ["postgres"])[0]
    host = parts.netloc.rpartition("@")[2]
    return urllib.parse.urlunsplit(parts._replace(netloc=f"{user}:{SECRET}@{host}"))


def _params(url: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "anneal_memory", "--db", url, "--project-name", "E2E", "serve"],
        env={**os.environ, "PYTHONUNBUFFERED": "1", "ANNEAL_MEMORY_SESSION_ID": SESSION},
    )


async def _session(url: str, errlog: Any) -> list[tuple[str, str, bool]]:
    replies: list[tuple[str, str, bool]] = []
    async with (
        stdio_client(_params(url), errlog=errlog) as (read, write),
        mcp.ClientSession(read, write) as session,
    ):
        await session.initialize()

        async def call(name: str, **arguments: Any) -> str:
            result = await session.call_tool(name, arguments)
            text = "\n".join(getattr(c, "text", "") for c in result.content)
            replies.append((name, text, bool(result.isError)))
            return text

        recorded = await call(
            "record", content="chose postgres for the team store", episode_type="decision"
        )
        decision = recorded.split("(")[1][:8]
        await call("recall", keyword="postgres team store")
        await call("status")
        with Store(url) as store:  # serve created this store: the operator claims the baton
            claim_baton(store, SESSION)
        package = await call("prepare_wrap", staleness_days=7)
        token = package.rstrip().splitlines()[-1].removeprefix("Wrap token: ")
        document = (
            "# E2E — Memory (v1)\n\n## State\nPostgreSQL store chosen.\n\n## Patterns\n"
            f'- postgres_store | 1x (2026-03-02) [evidence: {decision} "chose postgres"]\n\n'
            '## Decisions\n- PostgreSQL [decided(rationale: "one team", on: "2026-03-02")]\n\n'
            "## Context\nFirst session.\n"
        )
        await call("save_continuity", text=document, wrap_token=token)
        await call("read_continuity")
        await call("get", episode_id="ffffffff")  # an error reply
    return replies


def test_serve_over_stdio_on_a_postgresql_url(pg_url: str, tmp_path: Path) -> None:  # noqa: F811
    url = _with_password(pg_url)
    log = tmp_path / "stderr.txt"
    with log.open("w") as errlog:
        replies = asyncio.run(_session(url, errlog))
    by_name = {name: (text, is_error) for name, text, is_error in replies}
    assert not by_name["record"][1], by_name["record"]
    assert by_name["recall"][0].startswith("Episodes 1-1 of 1 matching:"), by_name["recall"]
    assert "chose postgres" in by_name["recall"][0]
    assert "Wrap token: " in by_name["prepare_wrap"][0], by_name["prepare_wrap"]
    saved, failed = by_name["save_continuity"]
    assert not failed, saved
    assert "Episodes compressed: 1" in saved
    assert "PostgreSQL store chosen." in by_name["read_continuity"][0]
    assert by_name["get"][1]
    for name, text, _ in replies:
        assert SECRET not in text, name
    assert SECRET not in log.read_text()
    with Store(pg_url) as store:
        assert store.load_continuity().startswith("# E2E — Memory (v1)")
        assert store.verify_audit().valid


def test_serve_over_stdio_refuses_an_unreachable_url_without_its_password() -> None:
    url = f"postgresql://someone:{SECRET}@127.0.0.1:1/nothing"
    done = subprocess.run(
        [sys.executable, "-m", "anneal_memory", "--db", url, "serve"],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env={**os.environ},
        check=False,
        timeout=60,
    )
    assert done.returncode == 1, done
    assert UNREACHABLE in done.stderr
    assert "Traceback" not in done.stderr
    assert SECRET not in done.stderr + done.stdout
