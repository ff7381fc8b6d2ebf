"""The same recall on every path: library, CLI ``search``, MCP ``recall``, ``context_for``."""

from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path

import pytest
from anneal_memory import AgentMemory, Store
from clirun import CliRunner
from mcp import StdioServerParameters

from .test_mcp_client import MODES, _call, _connect

pytestmark = pytest.mark.e2e

QUESTIONS = [
    "which database did we choose for the billing ledger?",
    "staging cluster deploys",
    "Postgre",
    "SQL",
    "gresq",
    'NEAR(billing OR "ledger") *',
    # word forms, an outcome question and a second hop (#29)
    "which database was chosen for billing?",
    "what went wrong with the staging cluster?",
    "how was the disk problem fixed?",
]


def _seed(path: Path) -> None:
    with Store(path, project_name="E2E") as store:
        store.record("We chose PostgreSQL for the billing ledger", "decision")
        store.record("The billing ledger needs nightly backups", "observation")
        store.record("Deploys go through the staging cluster", "decision")
        store.record("The staging cluster ran out of disk", "outcome")
        store.record("Ledger totals are checked against the bank export", "observation")
        store.record("Lunch was pasta", "context")
        store.record("Grew the staging volumes to 200 GB; the disk alerts stopped", "outcome")
        for i in range(30):
            store.record(f"routine billing run {i} finished", "outcome")


async def _mcp_ids(db: Path, question: str) -> list[str]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "anneal_memory", "--db", str(db), "serve", "--session-id", "paths"],
    )
    async with _connect(params, MODES[0]) as (session, _version):
        text, is_error = await _call(session, "recall", keyword=question, limit=5)
    assert not is_error, text
    return re.findall(r"^- \[([0-9a-f]{8})\]", text, flags=re.MULTILINE)


@pytest.mark.parametrize("question", QUESTIONS)
def test_every_path_returns_the_same_episodes(
    run_cli: CliRunner, cli_db: Path, question: str
) -> None:
    _seed(cli_db)
    with Store(cli_db) as store:
        library = [e.id for e in store.recall(keyword=question, limit=5).episodes]
        with AgentMemory(store, recall_limit=5) as memory:
            block = memory.context_for(question)
    assert library
    cli = [
        e["id"]
        for e in run_cli("search", question, "-n", "5", "--json").assert_ok().json()["episodes"]
    ]
    mcp_ids = asyncio.run(_mcp_ids(cli_db, question))
    context = re.findall(r"^- \(([0-9a-f]{8})\)", block, flags=re.MULTILINE)
    assert cli == library
    assert mcp_ids == library
    assert context == library
