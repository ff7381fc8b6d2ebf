"""anneal-llamaindex: memory per LlamaIndex session (``Memory(session_id=...)``)."""

from __future__ import annotations

import asyncio
from typing import Any

import _contract
from anneal_llamaindex import AnnealLlamaIndex
from anneal_memory import AgentMemory
from llama_index.core.agent.workflow import AgentWorkflow, FunctionAgent
from llama_index.core.memory import ChatMemoryBuffer, Memory
from llama_index.core.tools import FunctionTool
from sqlalchemy.ext.asyncio import create_async_engine


def _agent(anneal: AnnealLlamaIndex, llm: Any) -> FunctionAgent:
    tools = [FunctionTool.from_defaults(_contract.lookup_fact), anneal.recall_tool()]
    return FunctionAgent(tools=tools, llm=llm, system_prompt="Answer briefly.")


def _first_session(anneal: AnnealLlamaIndex, make_llm: Any, run_agent: Any, **kwargs: Any) -> None:
    llm, _ = make_llm([_contract.call_tool, _contract.answer(_contract.ANSWER)])
    run_agent(_agent(anneal, llm), _contract.FIRST_PROMPT, anneal, **kwargs)


def _next_input(anneal: AnnealLlamaIndex, make_llm: Any, run_agent: Any, **kwargs: Any) -> str:
    llm, script = make_llm([_contract.answer(_contract.SECOND_ANSWER)])
    run_agent(_agent(anneal, llm), _contract.SECOND_PROMPT, anneal, **kwargs)
    return str(script.received[0])


def _all_in(memory: AgentMemory, scope: str) -> bool:
    """Whether the store has episodes and every one is in ``scope``."""
    everywhere = len(memory.store.recall().episodes)
    return everywhere > 0 and len(memory.store.recall(scope=scope).episodes) == everywhere


def test_two_sessions_on_one_store_do_not_see_each_other(
    memory: AgentMemory, make_llm: Any, run_agent: Any
) -> None:
    with AnnealLlamaIndex(memory) as anneal:
        _first_session(anneal, make_llm, run_agent, session_id="alice")
        assert _all_in(memory, "thread:alice")
        assert _contract.TOOL_OUTPUT not in _next_input(
            anneal, make_llm, run_agent, session_id="bob"
        )
        again = _next_input(anneal, make_llm, run_agent, session_id="alice")
    assert _contract.TOOL_OUTPUT in again
    assert "Relevant memory:" in again


def test_a_memory_built_by_hand_is_scoped_by_its_session_id(
    memory: AgentMemory, make_llm: Any
) -> None:
    """``Memory.from_defaults(session_id=..., memory_blocks=[anneal.memory_block()])``."""

    def run(anneal: AnnealLlamaIndex, steps: list[Any], prompt: str, session: str) -> list[str]:
        llm, script = make_llm(steps)

        async def go() -> None:
            engine = create_async_engine("sqlite+aiosqlite:///:memory:")
            chat = Memory.from_defaults(
                session_id=session, memory_blocks=[anneal.memory_block()], async_engine=engine
            )
            try:
                await _agent(anneal, llm).run(prompt, memory=chat)
            finally:
                await engine.dispose()

        asyncio.run(go())
        return list(script.received)

    with AnnealLlamaIndex(memory) as anneal:
        run(anneal, [_contract.call_tool, _contract.answer("ok")], _contract.FIRST_PROMPT, "u-1")
        other = run(anneal, [_contract.answer("?")], _contract.SECOND_PROMPT, "u-2")[0]
        same = run(anneal, [_contract.answer("!")], _contract.SECOND_PROMPT, "u-1")[0]
    in_u1 = memory.store.recall(scope="thread:u-1").episodes
    assert any(_contract.TOOL_OUTPUT in e.content for e in in_u1)
    assert _contract.TOOL_OUTPUT not in other
    assert _contract.TOOL_OUTPUT in same


def test_the_recall_tool_searches_the_runs_session_only(
    memory: AgentMemory, make_llm: Any, run_agent: Any
) -> None:
    memory.record_tool_result(_contract.TOOL_NAME, _contract.TOOL_OUTPUT, scope="thread:a")
    query = {"query": "staging database port"}
    steps = [lambda _: _contract.ToolCall("recall_memory", query), _contract.answer("ok")]
    with AnnealLlamaIndex(memory) as anneal:
        llm, in_b = make_llm(steps)
        run_agent(_agent(anneal, llm), "Hello there", anneal, session_id="b")
        llm, in_a = make_llm(steps)
        run_agent(_agent(anneal, llm), "Hello there", anneal, session_id="a")
    assert "Nothing relevant in memory." in in_b.received[1]
    assert _contract.TOOL_OUTPUT in in_a.received[1]


def test_without_a_session_id_every_conversation_shares_memory(
    memory: AgentMemory, make_llm: Any, run_agent: Any
) -> None:
    with AnnealLlamaIndex(memory) as anneal:
        _first_session(anneal, make_llm, run_agent)
        assert _all_in(memory, "")
        assert _contract.TOOL_OUTPUT in _next_input(anneal, make_llm, run_agent)


def test_scope_by_session_false_shares_memory_across_sessions(
    memory: AgentMemory, make_llm: Any, run_agent: Any
) -> None:
    with AnnealLlamaIndex(memory, scope_by_session=False) as anneal:
        _first_session(anneal, make_llm, run_agent, session_id="alice")
        assert _all_in(memory, "")
        assert _contract.TOOL_OUTPUT in _next_input(anneal, make_llm, run_agent, session_id="bob")


def test_a_named_user_is_one_memory_across_sessions(
    memory: AgentMemory, make_llm: Any, run_agent: Any
) -> None:
    with AnnealLlamaIndex(memory) as anneal:
        _first_session(anneal, make_llm, run_agent, session_id="s1", user_id="alice")
        assert _all_in(memory, "user:alice")
        again = _next_input(anneal, make_llm, run_agent, session_id="s2", user_id="alice")
        assert _contract.TOOL_OUTPUT in again
        assert _contract.TOOL_OUTPUT not in _next_input(
            anneal, make_llm, run_agent, session_id="s1", user_id="bob"
        )


def test_the_scope_of_other_memories(memory: AgentMemory) -> None:
    handler = AnnealLlamaIndex(memory).handler
    assert handler.scope_of(None) is None
    assert handler.scope_of(ChatMemoryBuffer.from_defaults()) is None  # the default key
    keyed = ChatMemoryBuffer.from_defaults(chat_store_key="user-7")
    assert handler.scope_of(keyed) == "thread:user-7"


def test_an_agent_workflow_records_in_its_session(
    memory: AgentMemory, make_llm: Any, run_agent: Any
) -> None:
    llm, _ = make_llm([_contract.call_tool, _contract.answer(_contract.ANSWER)])
    tool = FunctionTool.from_defaults(_contract.lookup_fact)
    with AnnealLlamaIndex(memory) as anneal:
        agent = FunctionAgent(name="ops", description="Ops.", tools=[tool], llm=llm)
        workflow = AgentWorkflow(agents=[agent], root_agent="ops")
        run_agent(workflow, _contract.FIRST_PROMPT, anneal, session_id="team-a")
    assert _all_in(memory, "thread:team-a")


def test_concurrent_runs_in_two_sessions_record_each_in_its_own(
    memory: AgentMemory, make_llm: Any
) -> None:
    with AnnealLlamaIndex(memory) as anneal:

        async def one(session: str) -> None:
            llm, _ = make_llm([_contract.call_tool, _contract.answer(f"Answer for {session}.")])
            engine = create_async_engine("sqlite+aiosqlite:///:memory:")
            try:
                chat = anneal.chat_memory(session_id=session, async_engine=engine)
                await _agent(anneal, llm).run(_contract.FIRST_PROMPT, memory=chat)
            finally:
                await engine.dispose()

        async def both() -> None:
            await asyncio.gather(*(one(name) for name in ("alice", "bob", "carol", "dave")))

        asyncio.run(both())
    assert memory.offloop.drain(60)  # the span handler's records land in the writer thread
    for name in ("alice", "bob", "carol", "dave"):
        contents = [e.content for e in memory.store.recall(scope=f"thread:{name}").episodes]
        assert sorted(contents) == sorted(
            [f"Answer for {name}.", f"{_contract.TOOL_NAME} -> {_contract.TOOL_OUTPUT}"]
        )
