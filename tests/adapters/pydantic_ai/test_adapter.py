"""AnnealCapability beyond the shared contract: the recall tool, instructions, explicit wraps."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import _contract
import pytest
from anneal_memory import AgentMemory, EpisodeType
from anneal_memory.agent._recall_block import DATA_HEADER
from anneal_pydantic_ai import AnnealCapability
from pydantic_ai import Agent
from pydantic_ai.messages import ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel


def _seed(memory: AgentMemory) -> str:
    episode = memory.record_tool_result(_contract.TOOL_NAME, _contract.TOOL_OUTPUT)
    assert episode is not None
    return episode.id


def test_recall_tool_returns_memory_and_its_result_is_not_recorded(
    memory: AgentMemory, scripted_function: Any
) -> None:
    seeded = _seed(memory)
    function = scripted_function(
        [
            lambda _: _contract.ToolCall("recall_memory", {"query": "staging database port"}),
            _contract.answer("6543"),
        ]
    )
    capability = AnnealCapability(memory, wrap_on_end=False, recall_tool=True)
    agent = Agent(FunctionModel(function), capabilities=[capability])
    asyncio.run(agent.run("Hello there"))
    assert (
        f"tool-return: Relevant memory:\n{DATA_HEADER}\n- ({seeded}) [observation]"
        in function.received[1]
    )
    observations = memory.store.recall(episode_type=EpisodeType.OBSERVATION).episodes
    assert [e.id for e in observations] == [seeded]


def test_no_recall_tool_unless_asked(memory: AgentMemory) -> None:
    seen: list[list[str]] = []

    def function(messages: Any, info: AgentInfo) -> ModelResponse:
        seen.append([tool.name for tool in info.function_tools])
        return ModelResponse(parts=[TextPart("ok")])

    agent = Agent(
        FunctionModel(function), capabilities=[AnnealCapability(memory, wrap_on_end=False)]
    )
    asyncio.run(agent.run("Hello there"))
    assert seen == [[]]


def test_the_agents_own_instructions_come_first(
    memory: AgentMemory, scripted_function: Any
) -> None:
    seeded = _seed(memory)
    function = scripted_function([_contract.answer("ok")])
    capability = AnnealCapability(memory, wrap_on_end=False)
    agent = Agent(FunctionModel(function), instructions="Rules.", capabilities=[capability])
    asyncio.run(agent.run(_contract.SECOND_PROMPT))
    (received,) = function.received
    assert received.startswith("instructions: Rules.\n\nRelevant memory:\n")
    assert f"({seeded})" in received


def test_recall_runs_once_per_prompt(memory: AgentMemory, scripted_function: Any) -> None:
    function = scripted_function([_contract.call_tool, _contract.answer(_contract.ANSWER)])
    capability = AnnealCapability(memory, wrap_on_end=False)
    agent = Agent(FunctionModel(function), tools=[_contract.lookup_fact], capabilities=[capability])
    asyncio.run(agent.run(_contract.FIRST_PROMPT))
    # The tool result recorded during the run is not echoed back into the same run.
    assert "Relevant memory:" not in function.received[1]


def test_explicit_wrap_after_a_chat_loop(memory: AgentMemory, scripted_function: Any) -> None:
    capability = AnnealCapability(memory, wrap_on_end=False)
    chat = scripted_function([_contract.call_tool, _contract.answer(_contract.ANSWER)])
    agent = Agent(FunctionModel(chat), tools=[_contract.lookup_fact], capabilities=[capability])
    asyncio.run(agent.run(_contract.FIRST_PROMPT))
    assert capability.last_wrap is None
    packages: list[str] = []
    compressor = scripted_function([_contract.compress_step(memory.store, packages)])
    outcome = capability.wrap(FunctionModel(compressor))
    assert outcome is capability.last_wrap
    assert outcome.status == "saved", outcome.message
    assert outcome.episodes_compressed == 2
    assert "You are compressing this agent's working memory" in packages[0]
    saved = memory.store.load_continuity()
    assert saved is not None
    assert _contract.PATTERN_NAME in saved


def test_capability_opens_a_store_from_a_path(tmp_path: Any, scripted_function: Any) -> None:
    capability = AnnealCapability(tmp_path / "memory.db", session_id="laptop", wrap_on_end=False)
    assert capability.memory.session_id == "laptop"
    function = scripted_function([_contract.call_tool, _contract.answer(_contract.ANSWER)])
    agent = Agent(FunctionModel(function), tools=[_contract.lookup_fact], capabilities=[capability])
    asyncio.run(agent.run(_contract.FIRST_PROMPT))
    assert capability.memory.store.status().total_episodes == 2
    capability.memory.close()


def test_wrap_before_any_run_needs_a_model(memory: AgentMemory) -> None:
    with pytest.raises(RuntimeError, match="run the agent first or pass wrap_model="):
        AnnealCapability(memory).wrap()


def test_wrap_model_replaces_the_runs_model(memory: AgentMemory, scripted_function: Any) -> None:
    packages: list[str] = []
    compressor = scripted_function([_contract.compress_step(memory.store, packages)])
    capability = AnnealCapability(memory, wrap_model=FunctionModel(compressor), wrap_on_end=True)
    chat = scripted_function([_contract.call_tool, _contract.answer(_contract.ANSWER)])
    agent = Agent(FunctionModel(chat), tools=[_contract.lookup_fact], capabilities=[capability])
    asyncio.run(agent.run(_contract.FIRST_PROMPT))
    assert capability.last_wrap is not None
    assert capability.last_wrap.status == "saved", capability.last_wrap.message
    assert len(chat.received) == 2
    assert len(packages) == 1


def test_capability_survives_dataclass_replace(memory: AgentMemory) -> None:
    capability = AnnealCapability(memory, wrap_on_end=False, recall_tool=True)
    copy = dataclasses.replace(capability)
    assert copy.memory is memory
    assert (copy.wrap_on_end, copy.recall_tool, copy.id) == (False, True, "anneal_memory")


def test_memory_is_not_stored_as_a_message(memory: AgentMemory, scripted_function: Any) -> None:
    _seed(memory)
    function = scripted_function([_contract.answer(_contract.SECOND_ANSWER)])
    capability = AnnealCapability(memory, wrap_on_end=False)
    agent = Agent(FunctionModel(function), capabilities=[capability])
    result = asyncio.run(agent.run(_contract.SECOND_PROMPT))
    assert "Relevant memory:" in function.received[0]
    parts = [part for message in result.all_messages() for part in message.parts]
    assert all("Relevant memory:" not in str(getattr(part, "content", "")) for part in parts)


def test_a_failing_wrap_model_keeps_the_output_and_leaves_no_wrap_open(
    memory: AgentMemory, scripted_function: Any
) -> None:
    def broken(_: str) -> _contract.Reply:
        raise ConnectionError("model unreachable")

    function = scripted_function([_contract.call_tool, _contract.answer(_contract.ANSWER), broken])
    capability = AnnealCapability(memory, wrap_on_end=True)
    agent = Agent(FunctionModel(function), tools=[_contract.lookup_fact], capabilities=[capability])
    result = asyncio.run(agent.run(_contract.FIRST_PROMPT))
    assert result.output == _contract.ANSWER
    assert capability.last_wrap is not None
    assert capability.last_wrap.status == "failed"
    assert memory.store.status().total_episodes == 2  # everything was recorded
    packages: list[str] = []
    compressor = scripted_function([_contract.compress_step(memory.store, packages)])
    assert capability.wrap(FunctionModel(compressor)).status == "saved"  # not left open


def test_concurrent_runs_on_one_capability_keep_their_own_turn(
    memory: AgentMemory, scripted_function: Any
) -> None:
    """Run B starts and ends while run A waits on its tool: A's request after the tool still
    gets A's turn block (empty here), and ``last_wrap`` reaches the capability you hold."""
    capability = AnnealCapability(memory, wrap_on_end=False)
    first = scripted_function([_contract.call_tool, _contract.answer(_contract.ANSWER)])
    second = scripted_function([_contract.answer(_contract.SECOND_ANSWER)])
    agent_a = Agent(FunctionModel(first), tools=[_contract.lookup_fact], capabilities=[capability])
    agent_b = Agent(FunctionModel(second), tools=[_contract.lookup_fact], capabilities=[capability])

    async def both() -> None:
        await asyncio.gather(
            agent_a.run(_contract.FIRST_PROMPT), agent_b.run(_contract.FIRST_PROMPT)
        )

    asyncio.run(both())
    assert _contract.TOOL_OUTPUT in first.received[1]
    assert "Relevant memory:" not in first.received[1]


UNCLOSED_SYNC_STREAM = """
import sys
from pydantic_ai import Agent
from pydantic_ai.models.test import TestModel
from anneal_pydantic_ai import AnnealCapability

capability = AnnealCapability(sys.argv[1], recall_tool=True)
agent = Agent(TestModel(custom_output_text="hello there", call_tools=[]), capabilities=[capability])
result = agent.run_stream_sync("hi")
print("".join(result.stream_text(delta=True)))
"""


def test_an_unclosed_sync_stream_lets_the_process_exit(tmp_path: Any) -> None:
    """A sync stream read but never closed: the memory hooks leave no worker thread behind,
    so the interpreter exits (it used to wait forever at shutdown)."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", UNCLOSED_SYNC_STREAM, str(tmp_path / "m.db")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "hello there"


def test_scope_from_the_run_deps_keeps_users_apart(
    memory: AgentMemory, scripted_function: Any
) -> None:
    capability = AnnealCapability(memory, scope_from=lambda ctx: f"user:{ctx.deps}")

    def run(user: str, steps: list[Any]) -> str:
        function = scripted_function(steps)
        agent = Agent(
            FunctionModel(function),
            deps_type=str,
            tools=[_contract.lookup_fact],
            capabilities=[capability],
        )
        asyncio.run(agent.run(_contract.FIRST_PROMPT, deps=user))
        return function.received[0]

    run("alice", [_contract.call_tool, _contract.answer(_contract.ANSWER)])
    assert _contract.TOOL_OUTPUT not in run("bob", [_contract.answer("No idea.")])
    assert _contract.TOOL_OUTPUT in run("alice", [_contract.answer(_contract.ANSWER)])
    assert memory.store.recall(scope="user:bob").total_matching == 1


def test_a_run_that_raises_is_the_runs_failure(memory: AgentMemory) -> None:
    """Issue 28: the exposure the run recalled gets result failure (report-only)."""
    from anneal_memory.worth import Result, get_outcome

    _seed(memory)

    def broken(messages: Any, info: AgentInfo) -> ModelResponse:
        raise RuntimeError("model down")

    agent = Agent(FunctionModel(broken), capabilities=[AnnealCapability(memory, wrap_on_end=False)])
    with pytest.raises(RuntimeError, match="model down"):
        asyncio.run(agent.run(_contract.FIRST_PROMPT))
    assert memory.offloop.drain(30)
    exposure = memory.last_exposure
    assert exposure is not None
    outcome = get_outcome(memory.store, exposure)
    assert outcome is not None
    assert outcome.result is Result.FAILURE
    assert outcome.note == "raised RuntimeError"
