"""LangGraph-specific behaviour of AnnealMiddleware beyond the shared contract."""

from __future__ import annotations

import asyncio
from typing import Any

import _contract
import pytest
from anneal_langgraph import AnnealMiddleware
from anneal_memory import AgentMemory, Store
from langchain.agents import create_agent

QUESTION = {"messages": [{"role": "user", "content": _contract.FIRST_PROMPT}]}


def test_the_system_prompt_is_kept_and_memory_appended(store: Store, scripted_model: Any) -> None:
    memory = AgentMemory(store)
    hit = memory.record("The staging database listens on port 6543.")
    assert hit is not None
    model = scripted_model(steps=[_contract.answer("6543")])
    agent = create_agent(
        model,
        system_prompt="You are terse.",
        middleware=[AnnealMiddleware(memory, wrap_on_end=False)],
    )
    agent.invoke(QUESTION)
    (system, *_rest) = model.received[0]
    assert system.type == "system"
    assert system.content.startswith("You are terse.\n\nRelevant memory:\n")
    assert f"({hit.id}) [observation]" in system.content


def test_nothing_relevant_leaves_the_request_untouched(store: Store, scripted_model: Any) -> None:
    model = scripted_model(steps=[_contract.answer("no idea")])
    agent = create_agent(model, middleware=[AnnealMiddleware(store, wrap_on_end=False)])
    agent.invoke(QUESTION)
    assert [m.type for m in model.received[0]] == ["human"]


def test_the_startup_context_stays_out_of_the_output(store: Store, scripted_model: Any) -> None:
    model = scripted_model(steps=[_contract.answer("ok")])
    agent = create_agent(model, middleware=[AnnealMiddleware(store, wrap_on_end=False)])
    result = agent.invoke(QUESTION)
    assert "anneal_startup" not in result


def test_without_wrap_on_end_the_session_wraps_when_told(store: Store, scripted_model: Any) -> None:
    packages: list[str] = []
    steps = [_contract.answer(_contract.ANSWER), _contract.compress_step(store, packages)]
    model = scripted_model(steps=steps)
    middleware = AnnealMiddleware(AgentMemory(store), wrap_on_end=False)
    create_agent(model, middleware=[middleware]).invoke(QUESTION)
    assert middleware.last_wrap is None
    assert packages == []
    outcome = middleware.wrap()
    assert outcome.status == "saved", outcome.message
    assert middleware.last_wrap is outcome
    assert len(packages) == 1


def test_wrap_model_overrides_the_agent_model(store: Store, scripted_model: Any) -> None:
    packages: list[str] = []
    agent_model = scripted_model(steps=[_contract.answer(_contract.ANSWER)])
    wrap_model = scripted_model(steps=[_contract.compress_step(store, packages)])
    middleware = AnnealMiddleware(store, wrap_model=wrap_model)
    create_agent(agent_model, middleware=[middleware]).invoke(QUESTION)
    assert middleware.last_wrap is not None
    assert middleware.last_wrap.status == "saved"
    assert (len(agent_model.received), len(wrap_model.received)) == (1, 1)
    middleware.memory.close()


def test_wrapping_before_any_model_call_needs_a_model(store: Store) -> None:
    with pytest.raises(RuntimeError, match="wrap_model"):
        AnnealMiddleware(store).wrap()


def test_the_wrap_reply_is_not_streamed_to_the_user(store: Store, scripted_model: Any) -> None:
    packages: list[str] = []
    steps = [_contract.answer(_contract.ANSWER), _contract.compress_step(store, packages)]
    middleware = AnnealMiddleware(AgentMemory(store))
    agent = create_agent(scripted_model(steps=steps), middleware=[middleware])
    streamed = [chunk.content for chunk, _meta in agent.stream(QUESTION, stream_mode="messages")]
    assert middleware.last_wrap is not None
    assert middleware.last_wrap.status == "saved"
    assert len(packages) == 1
    assert _contract.ANSWER in "".join(streamed)
    assert not any("Memory (v1)" in text for text in streamed)


def test_async_agents_use_the_async_hooks(store: Store, scripted_model: Any) -> None:
    packages: list[str] = []
    steps = [
        _contract.call_tool,
        _contract.answer(_contract.ANSWER),
        _contract.compress_step(store, packages),
    ]
    middleware = AnnealMiddleware(AgentMemory(store))
    agent = create_agent(
        scripted_model(steps=steps), tools=[_contract.lookup_fact], middleware=[middleware]
    )

    async def main() -> None:
        async for _ in agent.astream(QUESTION, stream_mode="updates"):
            pass

    asyncio.run(main())
    assert middleware.last_wrap is not None
    assert middleware.last_wrap.status == "saved"
    assert store.status().total_episodes == 2
