"""Agent text carrying words an outside episode brought in this wrap counts at its trust (#30).

The pure rule (``immune._outside``), then the save on SQLite and PostgreSQL: a fetched page
and the agent's own rewording of it do not confirm each other, through ``AgentMemory``,
MCP ``record`` and the CLI's ``record``.
"""

from __future__ import annotations

import contextlib
import io
import re
import sys
from pathlib import Path

import pytest
from anneal_memory import AgentMemory, Store, Trust
from anneal_memory.cli import main as cli_main
from anneal_memory.immune._outside import OutsideWords, outside_words
from anneal_memory.mcp import McpServer, ServerConfig
from anneal_memory.testing import FrozenClock

sys.path.insert(0, str(Path(__file__).parents[2]))

from backends import backend_store, pg_url, target  # noqa: F401 - fixtures
from mcp_calls import call_tool

PAGE = "Kelvora Cloud pricing page: Kelvora Cloud is the approved provider for payments."
MINE = "I read that Kelvora Cloud is the approved host for our payments workloads."
WHY = "kelvora cloud approved provider payments"
A, T, E = Trust.AGENT, Trust.TOOL, Trust.EXTERNAL


def test_an_agent_rewording_of_a_page_derives_from_it() -> None:
    found = outside_words({"p1": PAGE, "a1": MINE}, {"p1": E, "a1": A}, None)
    assert found == {"a1": OutsideWords("p1", ("approved", "cloud", "kelvora", "payments"))}


def test_words_the_memory_held_are_not_brought() -> None:
    known = "## State\n- Kelvora Cloud runs the approved payments ledger.\n"
    assert outside_words({"p1": PAGE, "a1": MINE}, {"p1": E, "a1": A}, known) == {}
    earlier = "We weighed Kelvora Cloud for the payments ledger last week."
    snapshot = {"a0": earlier, "p1": PAGE, "a1": MINE}
    assert outside_words(snapshot, {"a0": A, "p1": E, "a1": A}, None) == {}


def test_one_word_order_and_operators() -> None:
    one = "Kelvora support answered within the hour."
    assert outside_words({"p1": PAGE, "a1": one}, {"p1": T, "a1": A}, None) == {}
    before = {"a1": MINE, "p1": PAGE}  # the agent wrote it first: the page brought nothing
    assert outside_words(before, {"a1": A, "p1": E}, None) == {}
    assert outside_words({"p1": PAGE, "o1": MINE}, {"p1": E, "o1": Trust.OPERATOR}, None) == {}


@pytest.fixture
def store(backend_store: Store) -> Store:  # noqa: F811
    return backend_store


def _model(ids: list[str], today: str, level: int = 2, why: str = WHY) -> str:
    stance = " [no-contradicts]" if level >= 2 else ""
    return (
        f"# Agent \u2014 Memory (v1)\n\n## State\n- working\n\n## Patterns\n"
        f'- kelvora | {level}x ({today}) [evidence: {", ".join(ids)} "{why}"]{stance}\n\n'
        "## Decisions\n- none\n\n## Context\n- a session\n"
    )


def _one_id(text: str) -> str:
    found = re.search(r"\b([0-9a-f]{8})\b", text)
    assert found is not None
    return found.group(1)


def _pair(path: str, store: Store, memory: AgentMemory, where: str, tmp: Path) -> list[str]:
    if path == "agent":
        page = memory.record_tool_result("web_fetch", PAGE)
        mine = memory.record_answer(MINE)
        assert page is not None
        assert mine is not None
        return [page.id, mine.id]
    if path == "mcp":
        server = McpServer(ServerConfig(db_path=tmp / "unused.db", session_id="m"), store=store)
        page_reply, _ = call_tool(server, "record", content=PAGE, episode_type="observation",
                                  trust="external")  # fmt: skip
        mine_reply, _ = call_tool(server, "record", content=MINE, episode_type="observation")
        return [_one_id(page_reply.split("(", 1)[1]), _one_id(mine_reply.split("(", 1)[1])]
    ids = []
    for extra in (["--trust", "external", "--source", "web"], []):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert (
                cli_main(["--db", where, "record", "--json", *extra, PAGE if extra else MINE]) == 0
            )
        ids.append(re.search(r'"id": "([0-9a-f]{8})"', out.getvalue()).group(1))  # type: ignore[union-attr]
    return ids


@pytest.mark.parametrize("path", ["agent", "mcp", "cli"])
def test_a_page_and_the_agents_rewording_do_not_confirm_each_other(
    store: Store,
    clock: FrozenClock,
    target: str,  # noqa: F811 - the fixture
    tmp_path: Path,
    path: str,
) -> None:
    first = AgentMemory(store, session_id="s1")
    note = first.record("Kelvora Cloud was on the shortlist for the payments move.")
    assert note is not None
    today = clock.now().date().isoformat()
    why = "kelvora shortlist payments move"  # the memory holds kelvora and payments only
    assert first.wrap(lambda _p: _model([note.id], today, 1, why)).saved
    clock.advance(days=1)
    memory = AgentMemory(store, session_id="s2")
    ids = _pair(path, store, memory, target, tmp_path)
    outcome = memory.wrap(lambda _p: _model(ids, clock.now().date().isoformat()))
    assert outcome.saved
    codes = [f.code.value for f in outcome.findings]
    assert "uncorroborated" in codes
    noted = [f for f in outcome.findings if f.code.value == "outside-words"]
    assert [f.episode_ids for f in noted] == [(ids[1], ids[0])]
    assert re.search(r"^- kelvora \| 1x", store.load_continuity() or "", re.M)
    assert store.get(ids[1]).trust is Trust.AGENT  # type: ignore[union-attr]  # row unchanged
