"""anneal-dspy beyond the shared contract: field injection, what gets recorded, the wrap's LM."""

from __future__ import annotations

import asyncio
import copy
from typing import Any

import _contract
import dspy
import pytest
from anneal_dspy import AnnealCallback, AnnealModule
from anneal_memory import AgentMemory, EpisodeType
from dspy.utils.dummies import DummyLM


def _seed(memory: AgentMemory) -> str:
    episode = memory.record_tool_result(_contract.TOOL_NAME, _contract.TOOL_OUTPUT)
    assert episode is not None
    return episode.id


def _contents(memory: AgentMemory, kind: EpisodeType) -> list[str]:
    return [e.content for e in memory.store.recall(episode_type=kind).episodes]


def _user_message(lm: DummyLM, call: int = -1) -> str:
    return str(lm.history[call]["messages"][-1]["content"])


def test_the_memory_field_reaches_a_predict_program(memory: AgentMemory) -> None:
    seeded = _seed(memory)
    lm = DummyLM([{"answer": "Port 6543."}])
    original = dspy.Predict("question -> answer")
    agent = AnnealModule(original, memory)
    with dspy.context(lm=lm):
        assert agent(question=_contract.SECOND_PROMPT).answer == "Port 6543."
    received = _user_message(lm)
    assert received.index("[[ ## memory ## ]]") < received.index("[[ ## question ## ]]")
    assert f"({seeded}) [observation] lookup_fact -> {_contract.TOOL_OUTPUT}" in received
    assert "memory" not in original.signature.input_fields  # the caller's program is unchanged
    assert list(agent.program.signature.input_fields) == ["memory", "question"]
    assert _contents(memory, EpisodeType.OUTCOME) == ["Port 6543."]


def test_nothing_relevant_still_fills_the_field(memory: AgentMemory) -> None:
    lm = DummyLM([{"answer": "hi"}])
    agent = AnnealModule(dspy.Predict("question -> answer"), memory, field="notes")
    with dspy.context(lm=lm):
        agent(question="Hello there")
    assert "[[ ## notes ## ]]\n(nothing relevant in memory)" in _user_message(lm)


def test_only_the_outermost_module_answer_is_recorded(memory: AgentMemory) -> None:
    lm = DummyLM([{"reasoning": "Looked it up.", "answer": "6543"}])
    agent = AnnealModule(dspy.ChainOfThought("question -> answer"), memory)
    with dspy.context(lm=lm):
        asyncio.run(agent.acall(question=_contract.FIRST_PROMPT))
    assert _contents(memory, EpisodeType.OUTCOME) == ["6543"]


def test_answer_fields_choose_what_is_recorded(memory: AgentMemory) -> None:
    lm = DummyLM([{"answer": "6543", "confidence": "high"}])
    program = dspy.Predict("question -> answer, confidence")
    agent = AnnealModule(program, memory, answer_fields=["confidence"])
    with dspy.context(lm=lm):
        agent(question=_contract.FIRST_PROMPT)
    assert _contents(memory, EpisodeType.OUTCOME) == ["high"]


def test_a_failing_tool_is_recorded_as_a_failure(memory: AgentMemory) -> None:
    def broken(topic: str) -> str:
        """Always fails."""
        raise RuntimeError("backend down")

    lm = DummyLM(
        [
            {"next_thought": "t", "next_tool_name": "broken", "next_tool_args": {"topic": "x"}},
            {"next_thought": "t", "next_tool_name": "finish", "next_tool_args": {}},
            {"reasoning": "r", "answer": "sorry"},
        ]
    )
    agent = AnnealModule(dspy.ReAct("question -> answer", tools=[broken]), memory)
    with dspy.context(lm=lm):
        agent(question="Check the backend")
    assert "backend down" in _user_message(lm, 1)
    assert _contents(memory, EpisodeType.OBSERVATION) == []
    outcomes = _contents(memory, EpisodeType.OUTCOME)
    assert "sorry" in outcomes
    assert "broken failed: RuntimeError: backend down" in outcomes


def test_a_failing_program_records_no_answer(memory: AgentMemory) -> None:
    class Broken(dspy.Module):
        def forward(self, question: str, memory: str) -> Any:
            raise RuntimeError("boom")

    agent = AnnealModule(Broken(), memory)
    with pytest.raises(RuntimeError, match="boom"):
        agent(question="Hello there")
    assert _contents(memory, EpisodeType.OUTCOME) == []


def test_the_callback_alone_records_any_program(memory: AgentMemory) -> None:
    lm = DummyLM([{"answer": "6543"}])
    with dspy.context(lm=lm, callbacks=[AnnealCallback(memory)]):
        dspy.Predict("question -> answer")(question=_contract.FIRST_PROMPT)
    assert _contents(memory, EpisodeType.OUTCOME) == ["6543"]


def test_record_false_records_nothing(memory: AgentMemory) -> None:
    lm = DummyLM([{"answer": "6543"}])
    agent = AnnealModule(dspy.Predict("question -> answer"), memory, record=False)
    with dspy.context(lm=lm):
        agent(question=_contract.FIRST_PROMPT)
    assert memory.store.status().total_episodes == 0


def test_the_wrap_call_is_not_recorded_as_an_answer(memory: AgentMemory, scripted_lm: Any) -> None:
    packages: list[str] = []
    steps = [_contract.answer(_contract.ANSWER), _contract.compress_step(memory.store, packages)]
    harness_lm = scripted_lm(steps)
    agent = AnnealModule(dspy.ReAct("question -> answer", tools=[]), memory, record=False)
    with dspy.context(lm=harness_lm, callbacks=[AnnealCallback(memory)]):
        agent(question=_contract.FIRST_PROMPT)
        outcome = agent.wrap()
    assert outcome.status == "saved", outcome.message
    assert len(packages) == 1
    assert _contents(memory, EpisodeType.OUTCOME) == [_contract.ANSWER]


def test_wrap_with_an_explicit_lm(memory: AgentMemory, scripted_lm: Any) -> None:
    memory.record_answer(_contract.ANSWER)
    packages: list[str] = []
    lm = scripted_lm([_contract.compress_step(memory.store, packages)])
    agent = AnnealModule(dspy.Predict("question -> answer"), memory)
    outcome = agent.wrap(lm)
    assert outcome.status == "saved", outcome.message
    assert "Compress this agent's working memory" in lm.received[0]


def test_wrap_without_any_lm_says_so(memory: AgentMemory) -> None:
    agent = AnnealModule(dspy.Predict("question -> answer"), memory)
    with pytest.raises(RuntimeError, match="no LM to wrap with"):
        agent.wrap()
    with pytest.raises(RuntimeError, match="no LM to wrap with"):
        asyncio.run(agent.awrap())


def test_a_deep_copy_shares_the_memory_and_copies_the_program(memory: AgentMemory) -> None:
    agent = AnnealModule(dspy.Predict("question -> answer"), memory)
    clone = copy.deepcopy(agent)
    assert clone.memory is agent.memory
    assert clone.program is not agent.program
    assert [name for name, _ in clone.named_predictors()] == ["program"]


@pytest.mark.parametrize("reply", ["Sorry, I can't help with that.", "valid"])
def test_a_wrap_reply_without_dspy_fields_is_judged_not_raised(
    memory: AgentMemory, scripted_lm: Any, reply: str
) -> None:
    """The model answers the wrap with bare text (no ``[[ ## continuity ## ]]`` field): the text
    itself is the continuity the save judges; nonsense is refused, a real continuity saved."""
    memory.record_tool_result(_contract.TOOL_NAME, _contract.TOOL_OUTPUT)

    class BareReplies(scripted_lm):  # type: ignore[misc,valid-type]
        def _use_example(self, messages: list[dict[str, Any]]) -> str:
            package = str(messages[-1].get("content", ""))
            self.received.append(package)
            if reply == "valid":
                return _contract.continuity_citing(memory.store, package, level=1)
            return reply

    lm = BareReplies([])
    outcome = AnnealModule(dspy.Predict("question -> answer"), memory).wrap(lm)
    assert outcome.status == ("saved" if reply == "valid" else "refused"), outcome.message
    assert memory.failures.total == 0


def test_a_failing_program_is_the_runs_failure(memory: AgentMemory) -> None:
    """Issue 28: the exposure recalled for the call gets result failure (report-only)."""
    from anneal_memory.worth import Result, get_outcome

    _seed(memory)

    class Broken(dspy.Module):
        def forward(self, question: str, memory: str) -> Any:
            raise RuntimeError("boom")

    agent = AnnealModule(Broken(), memory)
    with pytest.raises(RuntimeError, match="boom"):
        agent(question=_contract.FIRST_PROMPT)
    exposure = memory.last_exposure
    assert exposure is not None
    outcome = get_outcome(memory.store, exposure)
    assert outcome is not None
    assert outcome.result is Result.FAILURE
    assert outcome.note == "raised RuntimeError"
