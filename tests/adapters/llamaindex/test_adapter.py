"""anneal-llamaindex beyond the shared contract: recall tool, handler scope, block bounds."""

from __future__ import annotations

import asyncio
from typing import Any

import _contract
import pytest
from anneal_llamaindex import AnnealLlamaIndex, AnnealMemoryBlock, AnnealSpanHandler
from anneal_memory import AgentMemory, EpisodeType, RecordingPolicy, Store
from anneal_memory.agent._recall_block import DATA_HEADER
from llama_index.core.agent.workflow import AgentWorkflow, FunctionAgent, ReActAgent
from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.instrumentation import get_dispatcher
from llama_index.core.memory import InsertMethod
from llama_index.core.tools import BaseTool, FunctionTool, ToolMetadata, ToolOutput


def _seed(memory: AgentMemory) -> str:
    episode = memory.record_tool_result(_contract.TOOL_NAME, _contract.TOOL_OUTPUT)
    assert episode is not None
    return episode.id


def _episodes(memory: AgentMemory, kind: EpisodeType) -> list[Any]:
    return list(memory.store.recall(episode_type=kind).episodes)


def test_recall_tool_returns_memory_and_its_result_is_not_recorded(
    memory: AgentMemory, make_llm: Any, run_agent: Any
) -> None:
    seeded = _seed(memory)
    llm, script = make_llm(
        [
            lambda _: _contract.ToolCall("recall_memory", {"query": "staging database port"}),
            _contract.answer("6543"),
        ]
    )
    with AnnealLlamaIndex(memory) as anneal:
        agent = FunctionAgent(tools=[anneal.recall_tool()], llm=llm)
        run_agent(agent, "Hello there", anneal)
    assert (
        f"tool: Relevant memory:\n{DATA_HEADER}\n- ({seeded}) [observation]" in script.received[1]
    )
    assert [e.id for e in _episodes(memory, EpisodeType.OBSERVATION)] == [seeded]
    assert [e.content for e in _episodes(memory, EpisodeType.OUTCOME)] == ["6543"]


def test_the_handler_is_attached_only_inside_the_with_block(
    memory: AgentMemory, make_llm: Any, run_agent: Any
) -> None:
    anneal = AnnealLlamaIndex(memory)
    root = get_dispatcher()
    with anneal:
        assert anneal.handler in root.span_handlers
        assert anneal.handler.attach() is anneal.handler  # attaching twice adds it once
        assert root.span_handlers.count(anneal.handler) == 1
    assert anneal.handler not in root.span_handlers
    llm, _ = make_llm([_contract.call_tool, _contract.answer(_contract.ANSWER)])
    agent = FunctionAgent(tools=[FunctionTool.from_defaults(_contract.lookup_fact)], llm=llm)
    run_agent(agent, _contract.FIRST_PROMPT, anneal)
    assert memory.store.status().total_episodes == 0
    anneal.handler.detach()  # detaching a detached handler is a no-op


class SyncOnlyTool(BaseTool):
    """A tool without ``acall``: LlamaIndex adapts it, nesting one tool span in another."""

    @property
    def metadata(self) -> ToolMetadata:
        return ToolMetadata(name="lookup_fact", description="Look up a fact.")

    def __call__(self, input: Any) -> ToolOutput:
        return ToolOutput(
            content=_contract.TOOL_OUTPUT,
            tool_name="lookup_fact",
            raw_input={"input": input},
            raw_output=_contract.TOOL_OUTPUT,
        )


def test_a_nested_tool_call_is_recorded_once(store: Store, make_llm: Any, run_agent: Any) -> None:
    memory = AgentMemory(store, policy=RecordingPolicy(skip_duplicates=False))
    call = _contract.ToolCall(_contract.TOOL_NAME, {"input": "staging database"})
    llm, script = make_llm([lambda _: call, _contract.answer(_contract.ANSWER)])
    with AnnealLlamaIndex(memory) as anneal:
        agent = FunctionAgent(tools=[SyncOnlyTool()], llm=llm)
        run_agent(agent, _contract.FIRST_PROMPT, anneal)
    assert _contract.TOOL_OUTPUT in script.received[1]
    (observation,) = _episodes(memory, EpisodeType.OBSERVATION)
    assert observation.content == f"lookup_fact -> {_contract.TOOL_OUTPUT}"


def test_a_failing_tool_is_recorded_as_a_failure(
    memory: AgentMemory, make_llm: Any, run_agent: Any
) -> None:
    def broken(topic: str) -> str:
        """Always fails."""
        raise RuntimeError("backend down")

    llm, script = make_llm(
        [lambda _: _contract.ToolCall("broken", {"topic": "x"}), _contract.answer("sorry")]
    )
    with AnnealLlamaIndex(memory) as anneal:
        agent = FunctionAgent(tools=[FunctionTool.from_defaults(broken)], llm=llm)
        run_agent(agent, "Check the backend", anneal)
    assert "backend down" in script.received[1]
    assert _episodes(memory, EpisodeType.OBSERVATION) == []
    outcomes = [e.content for e in _episodes(memory, EpisodeType.OUTCOME)]
    assert "sorry" in outcomes
    assert any(text.startswith("broken failed:") and "backend down" in text for text in outcomes)


def test_a_handler_for_one_agent_leaves_other_agents_alone(
    store: Any, make_llm: Any, run_agent: Any
) -> None:
    mine, theirs = AgentMemory(store, scope="mine"), AgentMemory(store, scope="theirs")
    llm_a, _ = make_llm([_contract.call_tool, _contract.answer(_contract.ANSWER)])
    llm_b, _ = make_llm([_contract.call_tool, _contract.answer("Not mine.")])
    agent_a = FunctionAgent(tools=[_contract.lookup_fact], llm=llm_a)
    agent_b = FunctionAgent(tools=[_contract.lookup_fact], llm=llm_b)
    with (
        AnnealLlamaIndex(mine, agents=[agent_a]) as anneal_a,
        AnnealLlamaIndex(theirs, agents=[agent_b]) as anneal_b,
    ):
        run_agent(agent_a, _contract.FIRST_PROMPT, anneal_a)
        run_agent(agent_b, _contract.FIRST_PROMPT, anneal_b)
    assert sorted(e.content for e in store.recall(scope="mine").episodes) == sorted(
        [_contract.ANSWER, f"{_contract.TOOL_NAME} -> {_contract.TOOL_OUTPUT}"]
    )
    assert sorted(e.content for e in store.recall(scope="theirs").episodes) == sorted(
        ["Not mine.", f"{_contract.TOOL_NAME} -> {_contract.TOOL_OUTPUT}"]
    )


def test_the_block_can_go_into_the_user_message(
    memory: AgentMemory, make_llm: Any, run_agent: Any
) -> None:
    seeded = _seed(memory)
    llm, script = make_llm([_contract.answer("ok")])
    with AnnealLlamaIndex(memory) as anneal:
        agent = FunctionAgent(tools=[], llm=llm, system_prompt="Be brief.")
        run_agent(agent, _contract.SECOND_PROMPT, anneal, insert_method=InsertMethod.USER)
    system, user = script.received[0].split("\nuser: ", 1)
    assert system == "system: Be brief."
    assert f"({seeded}) [observation]" in user
    assert user.rstrip().endswith(_contract.SECOND_PROMPT)


def test_the_block_recalls_once_per_turn(memory: AgentMemory) -> None:
    block = AnnealMemoryBlock(memory=memory, scope_by_session=False)
    turn = [ChatMessage(role="user", content=_contract.SECOND_PROMPT)]
    assert asyncio.run(block.aget(turn, session_id="s")) == ""
    seeded = _seed(memory)
    assert asyncio.run(block.aget(turn, session_id="s")) == ""  # same turn: same block
    next_turn = [*turn, ChatMessage(role="assistant", content="?"), *turn]
    assert f"({seeded})" in asyncio.run(block.aget(next_turn, session_id="s"))
    assert f"({seeded})" in asyncio.run(block.aget(turn, session_id="other"))


def test_truncation_sheds_recall_before_the_continuity(memory: AgentMemory) -> None:
    block = AnnealMemoryBlock(memory=memory)
    content = "# Continuity\n- state\n\nRelevant memory:\n- (0000abcd) [observation] episode"
    assert asyncio.run(block.atruncate(content, 3)) == "# Continuity\n- state"
    assert asyncio.run(block.atruncate(content, 1000)) is None


def test_a_token_limit_trims_the_block_to_fit_instead_of_dropping_it(
    store: Any, make_llm: Any, run_agent: Any
) -> None:
    """``Memory(token_limit=3000)`` with a continuity larger than that: the block is cut to
    fit (its first lines kept), not dropped whole."""
    lines = [
        f"- host 10.0.{i}.17 serves port {6000 + i} (ticket OPS-{i:04d}, id {i:08x})"
        for i in range(400)
    ]
    store.sidecar(".continuity.md").write_text("# Agent\n\n## State\n" + "\n".join(lines))
    memory = AgentMemory(store, startup_chars=24000)
    llm, script = make_llm([_contract.answer("ok")])
    with AnnealLlamaIndex(memory) as anneal:
        agent = FunctionAgent(tools=[], llm=llm)
        run_agent(agent, _contract.SECOND_PROMPT, anneal, token_limit=3000)
    received = script.received[0]
    assert lines[0] in received
    assert lines[-1] not in received
    assert _contract.SECOND_PROMPT in received


def test_a_tight_token_limit_drops_the_block_not_the_chat(
    memory: AgentMemory, make_llm: Any, run_agent: Any
) -> None:
    _seed(memory)
    llm, script = make_llm([_contract.answer("ok")])
    with AnnealLlamaIndex(memory) as anneal:
        agent = FunctionAgent(tools=[], llm=llm)
        run_agent(agent, _contract.SECOND_PROMPT, anneal, token_limit=20)
    assert "Relevant memory" not in script.received[0]
    assert _contract.SECOND_PROMPT in script.received[0]


def test_sync_wrap_outside_an_event_loop(
    memory: AgentMemory, make_llm: Any, run_agent: Any
) -> None:
    packages: list[str] = []
    llm, _ = make_llm(
        [
            _contract.call_tool,
            _contract.answer(_contract.ANSWER),
            _contract.compress_step(memory.store, packages),
        ]
    )
    with AnnealLlamaIndex(memory) as anneal:
        agent = FunctionAgent(tools=[FunctionTool.from_defaults(_contract.lookup_fact)], llm=llm)
        run_agent(agent, _contract.FIRST_PROMPT, anneal)
        outcome = anneal.wrap(llm)
    assert outcome.status == "saved", outcome.message
    assert anneal.last_wrap is outcome
    assert "You are compressing this agent's working memory" in packages[0]


def test_a_path_opens_and_closes_its_own_memory(tmp_path: Any) -> None:
    with AnnealLlamaIndex(tmp_path / "m.db", session_id="s1") as anneal:
        assert anneal.memory.session_id == "s1"
        assert isinstance(anneal.handler, AnnealSpanHandler)
    with pytest.raises(Exception, match="closed"):
        anneal.memory.store.status()


def test_an_agent_workflow_records_its_final_response(
    memory: AgentMemory, make_llm: Any, run_agent: Any
) -> None:
    seeded = _seed(memory)
    llm, script = make_llm([_contract.call_tool, _contract.answer(_contract.ANSWER)])
    agent = FunctionAgent(
        name="ops",
        description="Answers infrastructure questions.",
        tools=[FunctionTool.from_defaults(_contract.lookup_fact)],
        llm=llm,
    )
    with AnnealLlamaIndex(memory) as anneal:
        workflow = AgentWorkflow(agents=[agent], root_agent="ops")
        output = run_agent(workflow, _contract.FIRST_PROMPT, anneal)
    assert str(output) == _contract.ANSWER
    assert f"({seeded}) [observation]" in script.received[0]
    assert [e.content for e in _episodes(memory, EpisodeType.OUTCOME)] == [_contract.ANSWER]
    assert len(_episodes(memory, EpisodeType.OBSERVATION)) == 1  # the seed; the same result again


# ReActAgent itself calls a workflows API that warns (once per process) as deprecated.
@pytest.mark.filterwarnings("ignore:is_running called from within a step:DeprecationWarning")
def test_a_react_agent_records_and_recalls(
    memory: AgentMemory, make_llm: Any, run_agent: Any
) -> None:
    action = 'Thought: I need the tool.\nAction: lookup_fact\nAction Input: {"topic": "staging"}'
    llm, script = make_llm(
        [
            lambda _: _contract.Reply(action),
            lambda _: _contract.Reply(f"Thought: I can answer.\nAnswer: {_contract.ANSWER}"),
            lambda _: _contract.Reply(f"Thought: I can answer.\nAnswer: {_contract.SECOND_ANSWER}"),
        ]
    )
    tool = FunctionTool.from_defaults(_contract.lookup_fact)
    with AnnealLlamaIndex(memory) as anneal:
        # ReActAgent drops a leading system message (taking it for its own system prompt),
        # so the block goes into the user message.
        agent = ReActAgent(tools=[tool], llm=llm)
        run_agent(agent, _contract.FIRST_PROMPT, anneal, insert_method=InsertMethod.USER)
        run_agent(agent, _contract.SECOND_PROMPT, anneal, insert_method=InsertMethod.USER)
    (observation,) = _episodes(memory, EpisodeType.OBSERVATION)
    assert observation.content == f"{_contract.TOOL_NAME} -> {_contract.TOOL_OUTPUT}"
    outcomes = [e.content for e in _episodes(memory, EpisodeType.OUTCOME)]
    assert outcomes == [_contract.SECOND_ANSWER, _contract.ANSWER]
    second_run = script.received[2]
    assert "\nuser: <memory>\n<anneal_memory>\nRelevant memory:\n" in second_run
    assert f"({observation.id}) [observation]" in second_run


def test_a_failing_tool_is_the_runs_failure(
    memory: AgentMemory, make_llm: Any, run_agent: Any
) -> None:
    """Issue 28: the exposure recalled before the tool failed gets result failure."""
    from anneal_memory.worth import Result, get_outcome

    _seed(memory)

    def broken(topic: str) -> str:
        """Always fails."""
        raise RuntimeError("backend down")

    llm, _script = make_llm(
        [lambda _: _contract.ToolCall("broken", {"topic": "x"}), _contract.answer("sorry")]
    )
    with AnnealLlamaIndex(memory) as anneal:
        agent = FunctionAgent(tools=[FunctionTool.from_defaults(broken)], llm=llm)
        run_agent(agent, _contract.FIRST_PROMPT, anneal)
    assert memory.offloop.drain(30)
    exposure = memory.last_exposure
    assert exposure is not None
    outcome = get_outcome(memory.store, exposure)
    assert outcome is not None
    assert outcome.result is Result.FAILURE
    assert outcome.note == "tool broken failed"
