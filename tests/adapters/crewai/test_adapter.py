"""AnnealListener beyond the shared contract: where memory goes, registration, explicit wraps."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import _contract
import pytest
from anneal_crewai import AnnealListener
from anneal_crewai._convert import MEMORY_HEADER
from anneal_memory import AgentMemory, EpisodeType
from anneal_memory.agent._recall_block import DATA_HEADER
from crewai import Agent, Crew, Task
from crewai.events import TaskCompletedEvent, ToolUsageFinishedEvent, crewai_event_bus
from crewai.hooks import InterceptionPoint, get_before_llm_call_hooks, get_hooks


def _seed(memory: AgentMemory) -> str:
    episode = memory.record_tool_result(_contract.TOOL_NAME, _contract.TOOL_OUTPUT)
    assert episode is not None
    return episode.id


def _kickoff(crew: Crew) -> None:
    crew.kickoff()
    crewai_event_bus.flush()


def _episodes(memory: AgentMemory, kind: EpisodeType) -> list[Any]:
    return list(memory.store.recall(episode_type=kind).episodes)


def test_memory_goes_after_the_system_prompt_once_per_conversation(
    memory: AgentMemory, listeners: list[AnnealListener], make_llm: Any, make_crew: Any
) -> None:
    seeded = _seed(memory)
    listeners.append(AnnealListener(memory, wrap_on_end=False))
    llm = make_llm([_contract.call_tool, _contract.answer(_contract.ANSWER)])
    _kickoff(make_crew(llm, _contract.SECOND_PROMPT))
    first, second = llm.received
    assert first.startswith("system: You are Ops engineer.")
    assert (
        f"\nsystem: {MEMORY_HEADER}\n\nRelevant memory:\n{DATA_HEADER}\n- ({seeded}) [observation]"
        in first
    )
    assert first.index(MEMORY_HEADER) < first.index("user: ")
    assert second.count(MEMORY_HEADER) == 1
    # The tool result this run recorded is not echoed back into the same conversation.
    assert second.count(_contract.TOOL_OUTPUT) == first.count(_contract.TOOL_OUTPUT) + 1


def test_nothing_is_added_when_memory_has_nothing(
    memory: AgentMemory, listeners: list[AnnealListener], make_llm: Any, make_crew: Any
) -> None:
    listeners.append(AnnealListener(memory, wrap_on_end=False))
    llm = make_llm([_contract.answer("ok")])
    _kickoff(make_crew(llm, "Hello there"))
    assert MEMORY_HEADER not in llm.received[0]


def test_task_outputs_of_every_task_are_recorded_with_their_agent(
    memory: AgentMemory, listeners: list[AnnealListener], make_llm: Any
) -> None:
    listeners.append(AnnealListener(memory, wrap_on_end=False))
    llm = make_llm([_contract.answer("Port 6543."), _contract.answer("Use pgbouncer.")])
    agent = Agent(role="Ops engineer", goal="Answer.", backstory="Ops.", llm=llm)
    tasks = [
        Task(description="Which port?", expected_output="A port.", agent=agent, name="port"),
        Task(description="Which proxy?", expected_output="A proxy.", agent=agent),
    ]
    _kickoff(Crew(agents=[agent], tasks=tasks))
    outcomes = sorted(_episodes(memory, EpisodeType.OUTCOME), key=lambda e: e.content)
    assert [e.content for e in outcomes] == ["Port 6543.", "Use pgbouncer."]
    assert outcomes[0].metadata == {"agent": "Ops engineer", "task": "port"}
    assert outcomes[1].metadata == {"agent": "Ops engineer", "task": "Which proxy?"}  # unnamed


def test_a_standalone_agent_kickoff_recalls_and_records(
    memory: AgentMemory, listeners: list[AnnealListener], make_llm: Any
) -> None:
    seeded = _seed(memory)
    listeners.append(AnnealListener(memory, wrap_on_end=False))
    llm = make_llm([_contract.answer(_contract.SECOND_ANSWER)])
    agent = Agent(role="Ops engineer", goal="Answer.", backstory="Ops.", llm=llm)
    agent.kickoff(_contract.SECOND_PROMPT)
    crewai_event_bus.flush()
    assert f"({seeded}) [observation]" in llm.received[0]
    (outcome,) = _episodes(memory, EpisodeType.OUTCOME)
    assert outcome.content == _contract.SECOND_ANSWER
    assert outcome.metadata == {"agent": "Ops engineer"}


def test_recording_from_many_bus_threads_at_once(
    memory: AgentMemory, listeners: list[AnnealListener]
) -> None:
    listeners.append(AnnealListener(memory, wrap_on_end=False))
    now = datetime.now(timezone.utc)  # event timestamps only

    def emit(i: int) -> None:
        crewai_event_bus.emit(
            None,
            ToolUsageFinishedEvent(
                tool_name="probe", tool_args={}, started_at=now, finished_at=now, output=i
            ),
        )

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(emit, range(40)))
    assert crewai_event_bus.flush(timeout=30)
    observations = _episodes(memory, EpisodeType.OBSERVATION)
    assert sorted(e.content for e in observations) == sorted(f"probe -> {i}" for i in range(40))


def test_close_unregisters_everything(memory: AgentMemory, make_llm: Any, make_crew: Any) -> None:
    _seed(memory)
    listener = AnnealListener(memory)
    assert listener._before_llm_call in get_before_llm_call_hooks()
    assert listener._on_execution_end in get_hooks(InterceptionPoint.EXECUTION_END)
    listener.close()
    listener.close()  # twice is fine
    assert listener._before_llm_call not in get_before_llm_call_hooks()
    assert listener._on_execution_end not in get_hooks(InterceptionPoint.EXECUTION_END)
    assert listener._on_execution_start not in get_hooks(InterceptionPoint.EXECUTION_START)
    llm = make_llm([_contract.call_tool, _contract.answer("A new answer.")])
    _kickoff(make_crew(llm, _contract.SECOND_PROMPT))
    assert MEMORY_HEADER not in llm.received[0]
    assert memory.store.status().total_episodes == 1  # nothing new recorded
    assert listener.last_wrap is None


def test_an_agent_built_before_close_is_left_alone(
    memory: AgentMemory, make_llm: Any, make_crew: Any
) -> None:
    _seed(memory)
    llm = make_llm([_contract.answer("ok")])
    with AnnealListener(memory, wrap_on_end=False):
        crew = make_crew(llm, _contract.SECOND_PROMPT)  # may snapshot the hook list
    _kickoff(crew)
    assert MEMORY_HEADER not in llm.received[0]


def test_explicit_wrap_uses_the_last_crews_llm(
    memory: AgentMemory, listeners: list[AnnealListener], make_llm: Any, make_crew: Any
) -> None:
    listener = AnnealListener(memory, wrap_on_end=False)
    listeners.append(listener)
    packages: list[str] = []
    steps = [
        _contract.call_tool,
        _contract.answer(_contract.ANSWER),
        _contract.compress_step(memory.store, packages),
    ]
    llm = make_llm(steps)
    _kickoff(make_crew(llm, _contract.FIRST_PROMPT))
    assert listener.last_wrap is None
    outcome = listener.wrap()
    assert outcome is listener.last_wrap
    assert outcome.status == "saved", outcome.message
    assert outcome.episodes_compressed == 2
    assert llm.received[2].startswith("system: You are compressing this crew's working memory")
    assert MEMORY_HEADER not in llm.received[2]  # the wrap's own call gets no recall
    saved = memory.store.load_continuity()
    assert saved is not None
    assert _contract.PATTERN_NAME in saved


def test_wrap_before_any_crew_needs_an_llm(
    memory: AgentMemory, listeners: list[AnnealListener]
) -> None:
    listener = AnnealListener(memory)
    listeners.append(listener)
    with pytest.raises(RuntimeError, match="kick off a crew first or pass wrap_llm="):
        listener.wrap()


def test_wrap_llm_replaces_the_crews_llm(
    memory: AgentMemory, listeners: list[AnnealListener], make_llm: Any, make_crew: Any
) -> None:
    packages: list[str] = []
    compressor = make_llm([_contract.compress_step(memory.store, packages)])
    listener = AnnealListener(memory, wrap_llm=compressor)
    listeners.append(listener)
    llm = make_llm([_contract.call_tool, _contract.answer(_contract.ANSWER)])
    _kickoff(make_crew(llm, _contract.FIRST_PROMPT))
    assert listener.last_wrap is not None
    assert listener.last_wrap.status == "saved", listener.last_wrap.message
    assert len(llm.received) == 2
    assert len(packages) == 1


def test_a_failing_wrap_llm_keeps_the_kickoff_result_and_the_episodes(
    memory: AgentMemory,
    listeners: list[AnnealListener],
    caplog: pytest.LogCaptureFixture,
    make_llm: Any,
    make_crew: Any,
) -> None:
    def broken(_: str) -> _contract.Reply:
        raise ConnectionError("model unreachable")

    listener = AnnealListener(memory)
    listeners.append(listener)
    llm = make_llm([_contract.call_tool, _contract.answer(_contract.ANSWER), broken])
    result = make_crew(llm, _contract.FIRST_PROMPT).kickoff()
    crewai_event_bus.flush()
    assert result.raw == _contract.ANSWER
    assert listener.last_wrap is not None
    assert listener.last_wrap.status == "failed"
    assert "ConnectionError: model unreachable" in listener.last_wrap.message
    assert "wrap failed" in caplog.text
    assert memory.store.status().total_episodes == 2  # everything was recorded
    packages: list[str] = []
    compressor = make_llm([_contract.compress_step(memory.store, packages)])
    assert listener.wrap(compressor).status == "saved"  # the failed wrap was not left open


def test_a_failed_kickoff_is_not_wrapped(
    memory: AgentMemory, listeners: list[AnnealListener], make_llm: Any, make_crew: Any
) -> None:
    def crash(_: str) -> _contract.Reply:
        raise RuntimeError("the model fell over")

    listener = AnnealListener(memory)
    listeners.append(listener)
    crew = make_crew(make_llm([crash]), _contract.FIRST_PROMPT)
    crew.agents[0].max_retry_limit = 0
    with pytest.raises(RuntimeError, match="the model fell over"):
        crew.kickoff()
    crewai_event_bus.flush()
    assert listener.last_wrap is None
    assert listener.last_error is None


def test_listener_opens_a_store_from_a_path(tmp_path: Path, make_llm: Any, make_crew: Any) -> None:
    with AnnealListener(tmp_path / "memory.db", session_id="laptop", wrap_on_end=False) as lis:
        assert lis.memory.session_id == "laptop"
        llm = make_llm([_contract.call_tool, _contract.answer(_contract.ANSWER)])
        _kickoff(make_crew(llm, _contract.FIRST_PROMPT))
        assert lis.memory.store.status().total_episodes == 2
    assert (tmp_path / "memory.db").exists()


def test_async_kickoff_wraps_too(
    memory: AgentMemory, listeners: list[AnnealListener], make_llm: Any, make_crew: Any
) -> None:
    listener = AnnealListener(memory)
    listeners.append(listener)
    packages: list[str] = []
    llm = make_llm(
        [
            _contract.call_tool,
            _contract.answer(_contract.ANSWER),
            _contract.compress_step(memory.store, packages),
        ]
    )
    crew = make_crew(llm, _contract.FIRST_PROMPT)
    asyncio.run(crew.akickoff())
    crewai_event_bus.flush()
    assert listener.last_wrap is not None
    assert listener.last_wrap.status == "saved", listener.last_wrap.message
    assert len(packages) == 1


def test_task_completed_events_without_text_record_nothing(
    memory: AgentMemory, listeners: list[AnnealListener], make_llm: Any
) -> None:
    from crewai.tasks.task_output import TaskOutput

    listeners.append(AnnealListener(memory, wrap_on_end=False))
    output = TaskOutput(description="d", raw="   ", agent="Ops engineer")
    agent = Agent(role="Ops engineer", goal="Answer.", backstory="Ops.", llm=make_llm([]))
    source = Task(description="d", expected_output="e", agent=agent)
    crewai_event_bus.emit(source, TaskCompletedEvent(output=output, task=source))
    assert crewai_event_bus.flush(timeout=30)
    assert memory.store.status().total_episodes == 0


def test_agents_that_ran_before_the_listener_get_memory_too(
    memory: AgentMemory, listeners: list[AnnealListener], make_llm: Any
) -> None:
    seeded = _seed(memory)
    llm = make_llm([_contract.answer("ok"), _contract.answer(_contract.SECOND_ANSWER)])
    agent = Agent(role="Ops engineer", goal="Answer.", backstory="Ops.", llm=llm)

    def crew(prompt: str) -> Crew:
        task = Task(description=prompt, expected_output="A short answer.", agent=agent)
        return Crew(agents=[agent], tasks=[task])

    _kickoff(crew("Hello there"))  # the agent builds its executor (and hook list) here
    listeners.append(AnnealListener(memory, wrap_on_end=False))
    _kickoff(crew(_contract.SECOND_PROMPT))
    assert MEMORY_HEADER not in llm.received[0]
    assert f"({seeded}) [observation]" in llm.received[1]


def test_a_listener_for_one_crew_leaves_other_crews_alone(
    store: Any, listeners: list[AnnealListener], make_llm: Any, make_crew: Any
) -> None:
    """Two crews, two listeners on two scoped memories of one store: each records, recalls
    and wraps only its own crew."""
    mine, theirs = AgentMemory(store, scope="crew:mine"), AgentMemory(store, scope="crew:theirs")
    crew_mine = make_crew(
        make_llm([_contract.call_tool, _contract.answer(_contract.ANSWER)]), _contract.FIRST_PROMPT
    )
    crew_theirs = make_crew(make_llm([_contract.answer("Not my department.")]), "Who is on call?")
    listeners.append(AnnealListener(mine, crews=[crew_mine], wrap_on_end=False))
    listeners.append(AnnealListener(theirs, crews=[crew_theirs], wrap_on_end=False))
    crew_mine.kickoff()
    crew_theirs.kickoff()
    crewai_event_bus.flush()
    assert sorted(e.content for e in store.recall(scope="crew:mine").episodes) == sorted(
        [_contract.ANSWER, f"{_contract.TOOL_NAME} -> {_contract.TOOL_OUTPUT}"]
    )
    assert [e.content for e in store.recall(scope="crew:theirs").episodes] == ["Not my department."]


def test_a_failed_task_is_the_runs_failure(
    memory: AgentMemory, listeners: list[AnnealListener], make_llm: Any, make_crew: Any
) -> None:
    """Issue 28: the exposure recalled before the task failed gets result failure."""
    from anneal_memory.worth import Result, get_outcome

    _seed(memory)

    def crash(_: str) -> _contract.Reply:
        raise RuntimeError("the model fell over")

    listener = AnnealListener(memory, wrap_on_end=False)
    listeners.append(listener)
    crew = make_crew(make_llm([crash]), _contract.FIRST_PROMPT)
    crew.agents[0].max_retry_limit = 0
    with pytest.raises(RuntimeError, match="the model fell over"):
        crew.kickoff()
    crewai_event_bus.flush()
    exposure = memory.last_exposure
    assert exposure is not None
    outcome = get_outcome(memory.store, exposure)
    assert outcome is not None
    assert outcome.result is Result.FAILURE
    assert outcome.note.startswith("task failed")
