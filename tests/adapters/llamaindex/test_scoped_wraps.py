"""Per-session wraps end to end: each session's continuity reaches only its own next run."""

from __future__ import annotations

import asyncio
from typing import Any

import _contract
import pytest
from anneal_llamaindex import AnnealLlamaIndex
from anneal_memory import AgentMemory, InvalidInputError, Store
from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.memory import Memory
from llama_index.core.tools import FunctionTool
from sqlalchemy.ext.asyncio import create_async_engine


def _agent(llm: Any) -> FunctionAgent:
    tools = [FunctionTool.from_defaults(_contract.lookup_fact)]
    return FunctionAgent(tools=tools, llm=llm, system_prompt="Answer briefly.")


def _session(store: Store, make_llm: Any, run_agent: Any, session_id: str, steps: list[Any]) -> str:
    """One session: a run in ``session_id``, then its wrap; what its first model call got."""
    llm, script = make_llm(steps)
    with AnnealLlamaIndex(AgentMemory(store)) as anneal:
        run_agent(_agent(llm), _contract.FIRST_PROMPT, anneal, session_id=session_id)
        outcome = asyncio.run(anneal.awrap(llm, session_id=session_id))
    assert outcome.status == "saved", outcome.message
    return str(script.received[0])


def test_each_sessions_continuity_reaches_only_that_sessions_next_run(
    store: Store, make_llm: Any, run_agent: Any
) -> None:
    packages: dict[str, str] = {}
    answer = _contract.answer(_contract.ANSWER)

    def wrap(name: str) -> Any:
        return _contract.scoped_compress(store, name, packages)

    _session(store, make_llm, run_agent, "alice", [_contract.call_tool, answer, wrap("alice")])
    _session(store, make_llm, run_agent, "bob", [answer, wrap("bob")])
    assert _contract.TOOL_OUTPUT in packages["alice"]
    assert _contract.TOOL_OUTPUT not in packages["bob"]  # Bob's wrap saw only Bob's episodes
    alice_next = _session(store, make_llm, run_agent, "alice", [answer, wrap("alice")])
    bob_next = _session(store, make_llm, run_agent, "bob", [answer, wrap("bob")])
    assert "ALICE-WORD" in alice_next
    assert "BOB-WORD" not in alice_next
    assert "BOB-WORD" in bob_next
    assert "ALICE-WORD" not in bob_next
    assert store.load_continuity() is None  # the shared scope was never wrapped
    assert "ALICE-WORD" in (store.load_continuity("thread:alice") or "")


def test_a_wrap_given_the_runs_memory_covers_its_session(store: Store, make_llm: Any) -> None:
    steps = [_contract.answer(_contract.ANSWER), _contract.scoped_compress(store, "carol", {})]
    llm, _ = make_llm(steps)
    with AnnealLlamaIndex(AgentMemory(store)) as anneal:

        async def run() -> Memory:
            engine = create_async_engine("sqlite+aiosqlite:///:memory:")
            chat = anneal.chat_memory(session_id="carol", async_engine=engine)
            try:
                await _agent(llm).run("Hello", memory=chat)
            finally:
                await engine.dispose()
            return chat

        chat = asyncio.run(run())
        assert anneal.wrap(llm).status == "empty"  # the AgentMemory's own (shared) scope
        assert anneal.wrap(llm, memory=chat).status == "saved"
        with pytest.raises(InvalidInputError, match="not both"):
            anneal.wrap(llm, memory=chat, session_id="carol")
    assert "CAROL-WORD" in (store.load_continuity("thread:carol") or "")


def test_without_scope_by_session_every_wrap_is_the_shared_scope(
    store: Store, make_llm: Any, run_agent: Any
) -> None:
    steps = [_contract.answer(_contract.ANSWER), _contract.scoped_compress(store, "all", {})]
    llm, _ = make_llm(steps)
    with AnnealLlamaIndex(AgentMemory(store), scope_by_session=False) as anneal:
        run_agent(_agent(llm), "Hello", anneal, session_id="dave")
        assert anneal.wrap(llm, session_id="dave").status == "saved"
    assert "ALL-WORD" in (store.load_continuity() or "")
