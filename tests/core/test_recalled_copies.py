"""The self-feeding loop: a recalled text recorded back derives from what recall showed.

``AgentMemory.context_for`` and MCP ``recall`` remember the episodes they showed this session;
a record that repeats one (near word for word) is written ``derived_from`` it, so its trust
is the original's, and the save counts it as the original's evidence (``recalled-copy``),
never as new evidence.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from anneal_memory import AgentMemory, Store, Trust
from anneal_memory.mcp import McpServer, ServerConfig
from anneal_memory.testing import FrozenClock

sys.path.insert(0, str(Path(__file__).parents[1]))

from backends import backend_store, pg_url, target  # noqa: F401 - fixtures
from mcp_calls import call_tool

NOTE = "The zorblax cache doubles throughput when it is warmed before noon"
ASK = "how do we speed up the zorblax cache?"


@pytest.fixture
def store(backend_store: Store) -> Store:  # noqa: F811
    """Every test here runs on SQLite and on PostgreSQL (one test body)."""
    return backend_store


def continuity(level: int, ids: list[str]) -> str:
    """A continuity whose one pattern claims ``level`` citing ``ids`` (a promoting model)."""
    cited = ", ".join(ids)
    line = f'- zorblax | {level}x [evidence: {cited} "zorblax cache doubles throughput"]'
    line += " [no-contradicts]" if level >= 2 else ""
    return (
        "# Agent \u2014 Memory (v1)\n\n## State\n- working\n\n## Patterns\n"
        f"{line}\n\n## Decisions\n- none\n\n## Context\n- a session\n"
    )


def level_of(store: Store) -> int:
    found = re.search(r"^- zorblax \| (\d+)x", store.load_continuity() or "", re.M)
    assert found is not None
    return int(found.group(1))


def test_a_recalled_note_recorded_again_derives_from_it(store: Store) -> None:
    original = store.record(NOTE, "observation")
    memory = AgentMemory(store, session_id="s2")
    assert original.id in memory.context_for(ASK)
    copy = memory.record(NOTE, "observation")
    assert copy is not None
    assert copy.derived_from == (original.id,)
    echoed = memory.record_tool_result("notes_search", NOTE)  # a tool echoing it
    assert echoed is not None
    assert echoed.derived_from == (original.id,)


def test_only_what_recall_showed_counts(store: Store) -> None:
    store.record(NOTE, "observation")
    memory = AgentMemory(store, session_id="s2")
    again = memory.record(NOTE, "observation")  # seen again, not recalled: new evidence
    assert again is not None
    assert again.derived_from == ()
    memory.context_for(ASK)
    other = memory.record("The zorblax cache is cold on Mondays after the deploy", "observation")
    assert other is not None
    assert other.derived_from == ()  # a different text


def test_an_agent_copy_of_an_outside_page_stays_outside(store: Store) -> None:
    page = store.record(NOTE, "observation", trust="external")
    memory = AgentMemory(store, session_id="s2")
    assert page.id in memory.context_for(ASK)
    copy = memory.record(NOTE, "observation")  # the agent quotes it as its own (MINJA)
    assert copy is not None
    assert store.effective_trusts([copy.id]) == {copy.id: Trust.EXTERNAL}


def test_a_copy_is_no_new_evidence_at_the_save(store: Store, clock: FrozenClock) -> None:
    first = AgentMemory(store, session_id="s1")
    original = first.record(NOTE, "observation")
    assert original is not None
    assert first.wrap(lambda _p: continuity(1, [original.id])).saved
    clock.advance(days=1)
    second = AgentMemory(store, session_id="s2")
    second.context_for(ASK)
    copy = second.record(NOTE, "observation")
    assert copy is not None
    outcome = second.wrap(lambda _p: continuity(2, [copy.id]))
    assert outcome.saved
    assert "recalled-copy" in [f.code.value for f in outcome.findings]
    assert level_of(store) == 1


def test_context_for_keeps_one_slot_for_the_copies(store: Store, clock: FrozenClock) -> None:
    store.record(NOTE, "observation")
    for day in range(5):
        clock.advance(days=1)
        memory = AgentMemory(store, session_id=f"s{day}")
        memory.context_for(ASK)
        memory.record(NOTE, "observation")
    block = AgentMemory(store).context_for(ASK)
    assert block.lower().count("zorblax cache doubles") == 1


def test_mcp_recall_then_record_derives_from_the_recalled(store: Store, tmp_path: Path) -> None:
    original = store.record(NOTE, "observation")
    server = McpServer(ServerConfig(db_path=tmp_path / "unused.db", session_id="m"), store=store)
    shown, is_error = call_tool(server, "recall", keyword="zorblax cache")
    assert not is_error
    assert original.id in shown
    reply, is_error = call_tool(server, "record", content=NOTE, episode_type="observation")
    assert not is_error
    copy_id = re.search(r"\(([0-9a-f]{8})\)", reply)
    assert copy_id is not None
    copy = store.get(copy_id.group(1))
    assert copy is not None
    assert copy.derived_from == (original.id,)
    fresh = McpServer(ServerConfig(db_path=tmp_path / "unused.db", session_id="n"), store=store)
    reply, _ = call_tool(fresh, "record", content=NOTE, episode_type="observation")
    other = store.get(re.search(r"\(([0-9a-f]{8})\)", reply).group(1))  # type: ignore[union-attr]
    assert other is not None
    assert other.derived_from == ()  # another session, nothing recalled there


def test_a_chain_longer_than_the_bound_does_not_launder(store: Store) -> None:
    page = store.record("The pricing page says the API is free", "observation", trust="external")
    last = page
    for n in range(12):  # each note derived from the one before: a chain of 12 links
        last = store.record(f"Note {n}: the API is free", "observation", derived_from=[last.id])
    trusts = store.effective_trusts([last.id, page.id])
    assert trusts[last.id] is Trust.EXTERNAL


def test_mcp_recall_lists_a_text_once(store: Store, tmp_path: Path) -> None:
    original = store.record(NOTE, "observation")
    for n in range(3):
        server = McpServer(ServerConfig(db_path=tmp_path / "u.db", session_id=f"m{n}"), store=store)
        call_tool(server, "recall", keyword="zorblax cache")
        call_tool(server, "record", content=NOTE, episode_type="observation")
    server = McpServer(ServerConfig(db_path=tmp_path / "u.db", session_id="last"), store=store)
    text, is_error = call_tool(server, "recall", keyword="zorblax cache")
    assert not is_error
    assert text.count(NOTE) == 1  # the original or one copy, whichever ranks first
    assert store.get(original.id) is not None
    assert "3 recalled copies of the episodes above not listed" in text
    assert "next page starts at offset 4" in text


def test_a_library_record_of_what_recall_showed_derives_from_it(
    store: Store, clock: FrozenClock
) -> None:
    page = store.record(NOTE, "observation", trust="external")
    memory = AgentMemory(store, session_id="s1")
    assert page.id in memory.context_for(ASK)  # an exposure of the scope
    clock.advance(seconds=30)
    copy = store.record(NOTE, "observation")  # the library: no session, no in-process memory
    assert copy.derived_from == (page.id,)
    assert store.effective_trusts([copy.id])[copy.id] is Trust.EXTERNAL
    told = store.record(NOTE, "observation", derived_from=[])  # [] : no link, no look
    assert told.derived_from == ()
    clock.advance(minutes=61)
    later = store.record(NOTE, "observation")  # past the look-back: an observation of its own
    assert later.derived_from == ()


def test_a_library_record_in_another_scope_does_not_look_at_this_ones(
    store: Store, clock: FrozenClock
) -> None:
    store.record(NOTE, "observation")
    AgentMemory(store, session_id="s1").context_for(ASK)
    clock.advance(seconds=30)
    assert store.record(NOTE, "observation", scope="bob").derived_from == ()
