"""AnnealHooks beyond the shared contract: the recall tool, filter chaining, explicit wraps."""

from __future__ import annotations

import asyncio
from typing import Any

import _contract
import pytest
from agents import Agent, RunConfig, Runner, function_tool
from agents.run_config import CallModelData, ModelInputData
from anneal_memory import AgentMemory, EpisodeType
from anneal_memory.agent._recall_block import DATA_HEADER
from anneal_openai_agents import AnnealHooks
from anneal_openai_agents._convert import HIDDEN_ERROR

CONFIG = RunConfig(tracing_disabled=True)


def _run(agent: Agent[Any], prompt: str, hooks: AnnealHooks, config: RunConfig) -> Any:
    return asyncio.run(Runner.run(agent, prompt, hooks=hooks, run_config=config))


def _seed(memory: AgentMemory) -> str:
    episode = memory.record_tool_result(_contract.TOOL_NAME, _contract.TOOL_OUTPUT)
    assert episode is not None
    return episode.id


def test_recall_tool_returns_memory_and_its_result_is_not_recorded(
    memory: AgentMemory, scripted_model: Any
) -> None:
    seeded = _seed(memory)
    hooks = AnnealHooks(memory, wrap_on_end=False)
    model = scripted_model(
        steps=[
            lambda _: _contract.ToolCall("recall_memory", {"query": "staging database port"}),
            _contract.answer("6543"),
        ]
    )
    agent = Agent(name="t", model=model, tools=[hooks.recall_tool()])
    _run(agent, "Hello there", hooks, hooks.run_config(CONFIG))
    assert f"tool: Relevant memory:\n{DATA_HEADER}\n- ({seeded}) [observation]" in model.received[1]
    observations = memory.store.recall(episode_type=EpisodeType.OBSERVATION).episodes
    assert [e.id for e in observations] == [seeded]


def test_recall_tool_says_so_when_nothing_is_relevant(
    memory: AgentMemory, scripted_model: Any
) -> None:
    hooks = AnnealHooks(memory, wrap_on_end=False, recall_tool_name="search_memory")
    model = scripted_model(
        steps=[
            lambda _: _contract.ToolCall("search_memory", {"query": "zebra migration"}),
            _contract.answer("nothing found"),
        ]
    )
    agent = Agent(name="t", model=model, tools=[hooks.recall_tool()])
    _run(agent, "Hello there", hooks, hooks.run_config(CONFIG))
    assert "tool: Nothing relevant in memory." in model.received[1]


@pytest.mark.parametrize("use_async", [False, True])
def test_a_filter_already_on_the_config_runs_first(
    memory: AgentMemory, scripted_model: Any, use_async: bool
) -> None:
    seeded = _seed(memory)

    def mark(data: CallModelData[Any]) -> ModelInputData:
        return ModelInputData(input=data.model_data.input, instructions="Rules from the app.")

    async def amark(data: CallModelData[Any]) -> ModelInputData:
        return mark(data)

    hooks = AnnealHooks(memory, wrap_on_end=False)
    config = hooks.run_config(
        RunConfig(tracing_disabled=True, call_model_input_filter=amark if use_async else mark)
    )
    model = scripted_model(steps=[_contract.answer("ok")])
    _run(Agent(name="t", model=model), _contract.SECOND_PROMPT, hooks, config)
    (received,) = model.received
    assert received.startswith("system: Rules from the app.\n\nRelevant memory:\n")
    assert f"({seeded})" in received


def test_recall_runs_once_per_user_message(memory: AgentMemory, scripted_model: Any) -> None:
    hooks = AnnealHooks(memory, wrap_on_end=False)
    model = scripted_model(steps=[_contract.call_tool, _contract.answer(_contract.ANSWER)])
    agent = Agent(name="t", model=model, tools=[function_tool(_contract.lookup_fact)])
    _run(agent, _contract.FIRST_PROMPT, hooks, hooks.run_config(CONFIG))
    # The tool result recorded during the run is not echoed back into the same turn.
    assert "Relevant memory:" not in model.received[1]


@pytest.mark.parametrize("use_async", [False, True])
def test_explicit_wrap_after_a_chat_loop(
    memory: AgentMemory, scripted_model: Any, use_async: bool
) -> None:
    hooks = AnnealHooks(memory, wrap_on_end=False)
    config = hooks.run_config(CONFIG)
    tools = [function_tool(_contract.lookup_fact)]
    chat = Agent(
        name="t",
        model=scripted_model(steps=[_contract.call_tool, _contract.answer(_contract.ANSWER)]),
        tools=tools,
    )
    _run(chat, _contract.FIRST_PROMPT, hooks, config)
    assert hooks.last_wrap is None
    packages: list[str] = []
    wrapper = Agent(
        name="t", model=scripted_model(steps=[_contract.compress_step(memory.store, packages)])
    )
    outcome = asyncio.run(hooks.awrap(wrapper)) if use_async else hooks.wrap(wrapper)
    assert outcome is hooks.last_wrap
    assert outcome.status == "saved", outcome.message
    assert outcome.episodes_compressed == 2
    assert len(packages) == 1
    assert "You are compressing this agent's working memory" in packages[0]
    saved = memory.store.load_continuity()
    assert saved is not None
    assert _contract.PATTERN_NAME in saved


def test_hooks_open_a_store_from_a_path(tmp_path: Any, scripted_model: Any) -> None:
    hooks = AnnealHooks(tmp_path / "memory.db", session_id="laptop", wrap_on_end=False)
    assert hooks.memory.session_id == "laptop"
    model = scripted_model(steps=[_contract.call_tool, _contract.answer(_contract.ANSWER)])
    agent = Agent(name="t", model=model, tools=[function_tool(_contract.lookup_fact)])
    _run(agent, _contract.FIRST_PROMPT, hooks, hooks.run_config(CONFIG))
    assert hooks.memory.store.status().total_episodes == 2
    hooks.memory.close()


def test_wrap_before_any_run_needs_a_model(memory: AgentMemory) -> None:
    with pytest.raises(RuntimeError, match="run the agent first or pass wrap_model="):
        AnnealHooks(memory).wrap()


def test_wrap_model_replaces_the_agents_model_and_defaults_to_the_last_agent(
    memory: AgentMemory, scripted_model: Any
) -> None:
    packages: list[str] = []
    compressor = scripted_model(steps=[_contract.compress_step(memory.store, packages)])
    hooks = AnnealHooks(memory, wrap_on_end=False, wrap_model=compressor)
    chat = scripted_model(steps=[_contract.call_tool, _contract.answer(_contract.ANSWER)])
    agent = Agent(name="t", model=chat, tools=[function_tool(_contract.lookup_fact)])
    _run(agent, _contract.FIRST_PROMPT, hooks, hooks.run_config(CONFIG))
    outcome = hooks.wrap()
    assert outcome.status == "saved", outcome.message
    assert len(chat.received) == 2
    assert len(packages) == 1


def test_memory_stays_out_of_the_runs_conversation_items(
    memory: AgentMemory, scripted_model: Any
) -> None:
    _seed(memory)
    hooks = AnnealHooks(memory, wrap_on_end=False)
    model = scripted_model(steps=[_contract.answer(_contract.SECOND_ANSWER)])
    result = _run(
        Agent(name="t", model=model), _contract.SECOND_PROMPT, hooks, hooks.run_config(CONFIG)
    )
    assert "Relevant memory:" in model.received[0]
    assert "Relevant memory:" not in repr(result.to_input_list())


def test_a_failing_wrap_model_keeps_the_result_and_leaves_no_wrap_open(
    memory: AgentMemory, scripted_model: Any
) -> None:
    def broken(_: str) -> _contract.Reply:
        raise ConnectionError("model unreachable")

    hooks = AnnealHooks(memory, wrap_on_end=True)
    model = scripted_model(steps=[_contract.call_tool, _contract.answer(_contract.ANSWER), broken])
    agent = Agent(name="t", model=model, tools=[function_tool(_contract.lookup_fact)])
    result = _run(agent, _contract.FIRST_PROMPT, hooks, hooks.run_config(CONFIG))
    assert result.final_output == _contract.ANSWER
    assert hooks.last_wrap is not None
    assert hooks.last_wrap.status == "failed"
    assert hooks.memory.store.status().total_episodes == 2  # everything was recorded
    packages: list[str] = []
    retry = Agent(
        name="t", model=scripted_model(steps=[_contract.compress_step(memory.store, packages)])
    )
    assert hooks.wrap(retry).status == "saved"  # the failed wrap was cancelled, not left open


def test_the_wrap_follows_a_run_config_model_override(
    memory: AgentMemory, scripted_model: Any
) -> None:
    packages: list[str] = []
    model = scripted_model(
        steps=[
            _contract.call_tool,
            _contract.answer(_contract.ANSWER),
            _contract.compress_step(memory.store, packages),
        ]
    )
    hooks = AnnealHooks(memory, wrap_on_end=True)
    config = hooks.run_config(RunConfig(model=model, tracing_disabled=True))
    agent = Agent(name="t", tools=[function_tool(_contract.lookup_fact)])  # no model of its own
    _run(agent, _contract.FIRST_PROMPT, hooks, config)
    assert hooks.last_wrap is not None
    assert hooks.last_wrap.status == "saved", hooks.last_wrap.message
    assert len(packages) == 1


def test_concurrent_runs_on_one_hooks_instance_keep_their_own_turn(
    memory: AgentMemory, scripted_model: Any
) -> None:
    """Run B starts and ends while run A waits on its tool: A's call after the tool still
    gets A's turn block (empty here), not a new recall holding its own tool result."""
    hooks = AnnealHooks(memory, wrap_on_end=False)
    config = hooks.run_config(CONFIG)
    first = scripted_model(steps=[_contract.call_tool, _contract.answer(_contract.ANSWER)])
    second = scripted_model(steps=[_contract.answer(_contract.SECOND_ANSWER)])
    tool = function_tool(_contract.lookup_fact)
    agent_a = Agent(name="a", model=first, tools=[tool])
    agent_b = Agent(name="b", model=second, tools=[tool])

    async def both() -> None:
        await asyncio.gather(
            Runner.run(agent_a, _contract.FIRST_PROMPT, hooks=hooks, run_config=config),
            Runner.run(agent_b, _contract.FIRST_PROMPT, hooks=hooks, run_config=config),
        )

    asyncio.run(both())
    assert _contract.TOOL_OUTPUT in first.received[1]
    assert "Relevant memory:" not in first.received[1]


def test_a_failing_tool_is_recorded_as_a_failure_not_as_knowledge(
    memory: AgentMemory, scripted_model: Any
) -> None:
    def broken_lookup(topic: str) -> str:
        """Look up a fact about the project's infrastructure."""
        raise TimeoutError("the CMDB timed out")

    hooks = AnnealHooks(memory)
    tool = function_tool(broken_lookup, name_override=_contract.TOOL_NAME)
    model = scripted_model(steps=[_contract.call_tool, _contract.answer("The lookup failed.")])
    _run(Agent(name="t", model=model, tools=[tool]), _contract.FIRST_PROMPT, hooks, CONFIG)
    assert memory.store.recall(episode_type=EpisodeType.OBSERVATION).total_matching == 0
    outcomes = [e.content for e in memory.store.recall(episode_type=EpisodeType.OUTCOME).episodes]
    # Before openai-agents 0.24 the SDK's error text names the error; from 0.24 it does not.
    said = f"{_contract.TOOL_NAME} failed: the CMDB timed out"
    hidden = f"{_contract.TOOL_NAME} failed: {HIDDEN_ERROR}"
    assert said in outcomes or hidden in outcomes
    assert not any("Please try again" in text for text in outcomes)


def test_scope_from_the_run_context_keeps_users_apart(
    memory: AgentMemory, scripted_model: Any
) -> None:
    hooks = AnnealHooks(memory, scope_from=lambda ctx: f"user:{ctx['user']}")
    config = hooks.run_config(CONFIG)
    tool = function_tool(_contract.lookup_fact)

    def run(user: str, steps: list[Any]) -> str:
        model = scripted_model(steps=steps)
        agent = Agent(name="t", model=model, tools=[tool])
        asyncio.run(
            Runner.run(
                agent,
                _contract.FIRST_PROMPT,
                hooks=hooks,
                run_config=config,
                context={"user": user},
            )
        )
        return model.received[0]

    run("alice", [_contract.call_tool, _contract.answer(_contract.ANSWER)])
    assert _contract.TOOL_OUTPUT not in run("bob", [_contract.answer("No idea.")])
    assert _contract.TOOL_OUTPUT in run("alice", [_contract.answer(_contract.ANSWER)])
    assert memory.store.recall(scope="user:bob").total_matching == 1


def test_a_failing_tool_is_the_runs_failure(memory: AgentMemory, scripted_model: Any) -> None:
    """Issue 28: the exposure recalled before the tool failed gets result failure."""
    from anneal_memory.worth import Result, get_outcome

    memory.record_tool_result(_contract.TOOL_NAME, _contract.TOOL_OUTPUT)

    def broken_lookup(topic: str) -> str:
        """Look up a fact about the project's infrastructure."""
        raise TimeoutError("the CMDB timed out")

    hooks = AnnealHooks(memory)
    tool = function_tool(broken_lookup, name_override=_contract.TOOL_NAME)
    model = scripted_model(steps=[_contract.call_tool, _contract.answer("The lookup failed.")])
    config = hooks.run_config(CONFIG)
    _run(Agent(name="t", model=model, tools=[tool]), _contract.FIRST_PROMPT, hooks, config)
    assert memory.offloop.drain(30)
    exposure = memory.last_exposure
    assert exposure is not None
    outcome = get_outcome(memory.store, exposure)
    assert outcome is not None
    assert outcome.result is Result.FAILURE
    assert outcome.note == f"tool {_contract.TOOL_NAME} failed"
