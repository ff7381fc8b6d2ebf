"""LangGraph-specific behaviour of AnnealMiddleware beyond the shared contract."""

from __future__ import annotations

import asyncio
from typing import Any

import _contract
import pytest
from anneal_langgraph import AnnealMiddleware
from anneal_langgraph._convert import message_text
from anneal_memory import AgentMemory, Store
from langchain.agents import create_agent
from langchain_core.messages import BaseMessage
from langgraph.checkpoint.memory import InMemorySaver

QUESTION = {"messages": [{"role": "user", "content": _contract.FIRST_PROMPT}]}
FOLLOW_UP = {"messages": [{"role": "user", "content": _contract.SECOND_PROMPT}]}


def system_text(messages: list[BaseMessage]) -> str:
    """The system prompt one model call received ("" when it had none)."""
    return message_text(messages[0]) if messages and messages[0].type == "system" else ""


def run(agent: Any, state: dict[str, Any], thread: str, *, use_async: bool = False) -> None:
    config = {"configurable": {"thread_id": thread}}
    if use_async:
        asyncio.run(agent.ainvoke(state, config))
    else:
        agent.invoke(state, config)


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
    assert "anneal_run" not in result


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
    middleware = AnnealMiddleware(store, wrap_model=wrap_model, wrap_on_end=True)
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
    middleware = AnnealMiddleware(AgentMemory(store), wrap_on_end=True)
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
    middleware = AnnealMiddleware(AgentMemory(store), wrap_on_end=True)
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


@pytest.mark.parametrize("use_async", [False, True], ids=["sync", "async"])
def test_a_tool_result_is_recalled_in_the_next_turn_not_in_its_own(
    store: Store, scripted_model: Any, use_async: bool
) -> None:
    memory = AgentMemory(store)
    seeded = memory.record("The staging database moved to a new host last week.")
    assert seeded is not None
    steps = [
        _contract.call_tool,
        _contract.answer(_contract.ANSWER),
        _contract.answer(_contract.SECOND_ANSWER),
    ]
    model = scripted_model(steps=steps)
    agent = create_agent(
        model,
        tools=[_contract.lookup_fact],
        middleware=[AnnealMiddleware(memory, wrap_on_end=False)],
        checkpointer=InMemorySaver(),
    )
    run(agent, QUESTION, "chat", use_async=use_async)
    (tool_episode,) = store.recall(source="tool").episodes
    first, after_tool = (system_text(m) for m in model.received[:2])
    assert f"({seeded.id}) [observation]" in first
    assert after_tool == first  # one block for the whole turn, recalled before the tool ran
    assert tool_episode.id not in after_tool
    assert _contract.TOOL_OUTPUT not in after_tool
    tool_message = model.received[1][-1]
    assert (tool_message.type, message_text(tool_message)) == ("tool", _contract.TOOL_OUTPUT)

    run(agent, FOLLOW_UP, "chat", use_async=use_async)
    next_turn = system_text(model.received[2])
    assert f"({tool_episode.id}) [observation]" in next_turn
    assert _contract.TOOL_OUTPUT in next_turn


def test_threads_sharing_a_middleware_do_not_share_a_block(
    store: Store, scripted_model: Any
) -> None:
    steps = [_contract.call_tool, _contract.answer(_contract.ANSWER)] * 2
    model = scripted_model(steps=steps)
    agent = create_agent(
        model,
        tools=[_contract.lookup_fact],
        middleware=[AnnealMiddleware(AgentMemory(store), wrap_on_end=False)],
        checkpointer=InMemorySaver(),
    )
    run(agent, QUESTION, "alice")
    assert [system_text(m) for m in model.received] == ["", ""]  # nothing known yet
    (tool_episode,) = store.recall(source="tool").episodes
    run(agent, QUESTION, "bob")  # the same question, at the same point of its thread
    bob_first, bob_after_tool = (system_text(m) for m in model.received[2:])
    assert f"({tool_episode.id}) [observation]" in bob_first
    assert bob_after_tool == bob_first


def test_a_repeated_question_after_a_wrap_gets_the_new_continuity(
    store: Store, scripted_model: Any
) -> None:
    packages: list[str] = []
    steps = [
        _contract.answer(_contract.ANSWER),
        _contract.compress_step(store, packages),
        _contract.answer(_contract.ANSWER),
    ]
    model = scripted_model(steps=steps)
    middleware = AnnealMiddleware(AgentMemory(store), wrap_on_end=False)
    agent = create_agent(model, middleware=[middleware])
    agent.invoke(QUESTION)
    assert system_text(model.received[0]) == ""
    assert middleware.wrap().status == "saved"
    agent.invoke(QUESTION)
    assert f"# {store.project_name} — Memory (v1)" in system_text(model.received[2])


def test_memory_is_scoped_by_the_runs_user_id(memory: AgentMemory, scripted_model: Any) -> None:
    """Alice's tool result is recalled in Alice's next run, never in Bob's."""
    middleware = AnnealMiddleware(memory, wrap_on_end=False)

    def run(user: str, steps: list[Any]) -> str:
        model = scripted_model(steps=steps)
        agent = create_agent(model, tools=[_contract.lookup_fact], middleware=[middleware])
        state = {"messages": [{"role": "user", "content": _contract.FIRST_PROMPT}]}
        agent.invoke(state, config={"configurable": {"user_id": user}})
        return "\n".join(message_text(m) for m in model.received[0])

    run("alice", [_contract.call_tool, _contract.answer(_contract.ANSWER)])
    assert _contract.TOOL_OUTPUT not in run("bob", [_contract.answer("I don't know.")])
    assert _contract.TOOL_OUTPUT in run("alice", [_contract.answer(_contract.ANSWER)])
    scopes = {e.content: e for e in memory.store.recall(scope="user:alice").episodes}
    assert _contract.ANSWER in scopes
    assert memory.store.recall(scope="user:bob").total_matching == 1  # Bob's answer


def test_a_run_wraps_only_when_wrap_every_episodes_wait(
    memory: AgentMemory, scripted_model: Any
) -> None:
    """By default a run (one turn) does not wrap; it does once ``wrap_every`` episodes wait."""
    packages: list[str] = []

    def run(middleware: AnnealMiddleware, steps: list[Any]) -> None:
        agent = create_agent(
            scripted_model(steps=steps), tools=[_contract.lookup_fact], middleware=[middleware]
        )
        agent.invoke({"messages": [{"role": "user", "content": _contract.FIRST_PROMPT}]})

    default = AnnealMiddleware(memory)
    run(default, [_contract.call_tool, _contract.answer(_contract.ANSWER)])
    assert default.last_wrap is None  # two episodes wait: one model call per turn saved
    every_three = AnnealMiddleware(memory, wrap_every=3)
    run(
        every_three,
        [
            _contract.answer(_contract.SECOND_ANSWER),
            _contract.compress_step(memory.store, packages),
        ],
    )
    assert every_three.last_wrap is not None
    assert every_three.last_wrap.status == "saved", every_three.last_wrap.message
    assert every_three.last_wrap.episodes_compressed == 3


def test_the_wrap_reply_is_not_in_the_users_event_stream(store: Store, scripted_model: Any) -> None:
    """``astream_events`` (which ignores the nostream tag) shows the answer, never the wrap."""
    packages: list[str] = []
    steps = [_contract.answer(_contract.ANSWER), _contract.compress_step(store, packages)]
    middleware = AnnealMiddleware(AgentMemory(store), wrap_on_end=True)
    agent = create_agent(scripted_model(steps=steps), middleware=[middleware])

    async def events() -> list[str]:
        return [
            str(event["data"])
            async for event in agent.astream_events(QUESTION, version="v2")
            if event["event"].startswith("on_chat_model")
        ]

    seen = asyncio.run(events())
    assert middleware.last_wrap is not None
    assert middleware.last_wrap.status == "saved"
    assert any(_contract.ANSWER in text for text in seen)
    assert not any("Memory (v1)" in text for text in seen)


def test_memory_failures_show_in_the_runs_result(memory: AgentMemory, scripted_model: Any) -> None:
    """A store locked by another process: the run answers, its result says records are queued."""
    middleware = AnnealMiddleware(memory)
    agent = create_agent(
        scripted_model(steps=[_contract.call_tool, _contract.answer(_contract.ANSWER)]),
        tools=[_contract.lookup_fact],
        middleware=[middleware],
    )
    with _contract.write_locked(memory.store):
        result = agent.invoke(QUESTION)
    assert result["messages"][-1].content == _contract.ANSWER
    report = result["anneal_memory"]
    assert report["wrap"] is None
    assert report["queued"] >= 1  # waiting for the lock, not lost
    assert report["failures"]["record"] == 0
    assert memory.offloop.drain(60)
    assert len(memory.store.recall(limit=10).episodes) == 2


def test_a_run_without_failures_or_wrap_adds_nothing(
    memory: AgentMemory, scripted_model: Any
) -> None:
    agent = create_agent(
        scripted_model(steps=[_contract.answer(_contract.ANSWER)]),
        middleware=[AnnealMiddleware(memory)],
    )
    assert "anneal_memory" not in agent.invoke(QUESTION)


def test_a_model_call_that_raises_is_the_runs_failure(store: Store, scripted_model: Any) -> None:
    """Issue 28: the exposure the failing call was shown gets result failure (report-only)."""
    from anneal_memory.worth import Result, get_outcome

    memory = AgentMemory(store)
    memory.record("The staging database listens on port 6543.")

    def boom(_text: str) -> Any:
        raise RuntimeError("model down")

    agent = create_agent(
        scripted_model(steps=[boom]), middleware=[AnnealMiddleware(memory, wrap_on_end=False)]
    )
    with pytest.raises(RuntimeError, match="model down"):
        agent.invoke(QUESTION)
    exposure = memory.last_exposure
    assert exposure is not None
    outcome = get_outcome(store, exposure)
    assert outcome is not None
    assert outcome.result is Result.FAILURE
    assert outcome.note == "raised RuntimeError"
