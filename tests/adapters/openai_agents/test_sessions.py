"""AnnealHooks: memory per Agents SDK ``Session`` (``hooks.run(..., session=...)``)."""

from __future__ import annotations

import asyncio
import importlib.util
from typing import Any

import _contract
import pytest
from agents import Agent, RunConfig, Runner, SQLiteSession, function_tool
from anneal_memory import AgentMemory
from anneal_openai_agents import AnnealHooks

CONFIG = RunConfig(tracing_disabled=True)
RECALL = {"query": "staging database port"}


def _agent(hooks: AnnealHooks, model: Any) -> Agent[Any]:
    tools = [function_tool(_contract.lookup_fact), hooks.recall_tool()]
    return Agent(name="t", model=model, tools=tools)


def _first(hooks: AnnealHooks, scripted_model: Any, session: Any, **kwargs: Any) -> None:
    model = scripted_model(steps=[_contract.call_tool, _contract.answer(_contract.ANSWER)])
    agent = _agent(hooks, model)
    asyncio.run(hooks.run(agent, _contract.FIRST_PROMPT, session=session, **kwargs))


def _next_input(hooks: AnnealHooks, scripted_model: Any, session: Any, **kwargs: Any) -> str:
    model = scripted_model(steps=[_contract.answer(_contract.SECOND_ANSWER)])
    agent = _agent(hooks, model)
    asyncio.run(hooks.run(agent, _contract.SECOND_PROMPT, session=session, **kwargs))
    return str(model.received[0])


def _count(memory: AgentMemory, scope: str | None) -> int:
    return memory.store.recall(scope=scope).total_matching


def test_two_sessions_on_one_store_get_two_scopes(memory: AgentMemory, scripted_model: Any) -> None:
    hooks = AnnealHooks(memory)
    _first(hooks, scripted_model, SQLiteSession("user-1"), run_config=CONFIG)
    assert _count(memory, "thread:user-1") == _count(memory, None) == 2
    other = _next_input(hooks, scripted_model, SQLiteSession("user-2"), run_config=CONFIG)
    assert _contract.TOOL_OUTPUT not in other
    same = _next_input(hooks, scripted_model, SQLiteSession("user-1"), run_config=CONFIG)
    assert _contract.TOOL_OUTPUT in same
    assert "Relevant memory:" in same


def test_a_named_user_wins_over_the_session(memory: AgentMemory, scripted_model: Any) -> None:
    hooks = AnnealHooks(memory)  # the default: the context's user_id names the scope
    _first(hooks, scripted_model, SQLiteSession("chat-9"), context={"user_id": "ann"})
    assert _count(memory, "user:ann") == 2


def test_run_sync_is_scoped_too(memory: AgentMemory, scripted_model: Any) -> None:
    hooks = AnnealHooks(memory)
    model = scripted_model(steps=[_contract.call_tool, _contract.answer(_contract.ANSWER)])
    with _contract.default_event_loop_closed():
        hooks.run_sync(_agent(hooks, model), _contract.FIRST_PROMPT, session=SQLiteSession("a"))
    assert _count(memory, "thread:a") == 2


def test_a_streamed_run_keeps_its_sessions_scope(memory: AgentMemory, scripted_model: Any) -> None:
    """Needs a model that streams: the SDK's own fake model (openai-agents 0.24 and newer)."""
    if importlib.util.find_spec("agents.testing") is None:
        pytest.skip("the harness's own model does not stream (openai-agents < 0.24)")
    memory.record_tool_result("notes", "Staging moved to port 7000 last week.", scope="thread:b")
    hooks = AnnealHooks(memory)
    model = scripted_model(steps=[_contract.call_tool, _contract.answer("Streamed.")])

    async def streamed() -> None:
        run = hooks.run_streamed(
            _agent(hooks, model), _contract.FIRST_PROMPT, session=SQLiteSession("b")
        )
        async for _ in run.stream_events():
            pass

    asyncio.run(streamed())
    assert "port 7000" in model.received[0]
    assert _count(memory, "thread:b") == 3


def test_the_recall_tool_searches_the_sessions_scope_only(
    memory: AgentMemory, scripted_model: Any
) -> None:
    memory.record_tool_result(_contract.TOOL_NAME, _contract.TOOL_OUTPUT, scope="thread:a")
    hooks = AnnealHooks(memory)
    steps = [lambda _: _contract.ToolCall("recall_memory", RECALL), _contract.answer("ok")]
    received = {}
    for name in ("b", "a"):
        model = scripted_model(steps=steps)
        asyncio.run(hooks.run(_agent(hooks, model), "Hello there", session=SQLiteSession(name)))
        received[name] = model.received[1]
    assert "Nothing relevant in memory." in received["b"]
    assert _contract.TOOL_OUTPUT in received["a"]


def test_the_scope_ends_with_the_run(memory: AgentMemory, scripted_model: Any) -> None:
    """A plain ``Runner.run`` after a session run is not in that session's scope."""
    hooks = AnnealHooks(memory)
    _first(hooks, scripted_model, SQLiteSession("s"))
    model = scripted_model(steps=[_contract.answer("Plain run answer.")])
    asyncio.run(Runner.run(_agent(hooks, model), "Hi", hooks=hooks, run_config=hooks.run_config()))
    assert _count(memory, "thread:s") == 2
    assert _count(memory, "") == 1


def test_scope_by_session_false_shares_one_scope(memory: AgentMemory, scripted_model: Any) -> None:
    hooks = AnnealHooks(memory, scope_by_session=False)
    _first(hooks, scripted_model, SQLiteSession("user-1"))
    assert _count(memory, "") == 2
    assert _contract.TOOL_OUTPUT in _next_input(hooks, scripted_model, SQLiteSession("user-2"))


def test_a_config_from_these_hooks_is_not_filtered_twice(
    memory: AgentMemory, scripted_model: Any
) -> None:
    memory.record_tool_result(_contract.TOOL_NAME, _contract.TOOL_OUTPUT)
    hooks = AnnealHooks(memory)
    config = hooks.run_config(CONFIG)
    assert hooks.run_config(config) is config
    received = _next_input(hooks, scripted_model, None, run_config=config)
    assert received.count("Relevant memory:") == 1


def test_concurrent_runs_in_two_sessions_record_each_in_its_own(
    memory: AgentMemory, scripted_model: Any
) -> None:
    hooks = AnnealHooks(memory)
    names = ("alice", "bob", "carol", "dave")

    async def one(name: str) -> None:
        model = scripted_model(steps=[_contract.call_tool, _contract.answer(f"Answer for {name}.")])
        await hooks.run(_agent(hooks, model), _contract.FIRST_PROMPT, session=SQLiteSession(name))

    async def all_of_them() -> None:
        await asyncio.gather(*(one(name) for name in names))

    asyncio.run(all_of_them())
    for name in names:
        contents = [e.content for e in memory.store.recall(scope=f"thread:{name}").episodes]
        assert f"Answer for {name}." in contents
        assert len(contents) == 2
