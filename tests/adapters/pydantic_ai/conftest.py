"""Pydantic AI harness for the adapter contract: a real ``Agent`` run, offline.

The fake model is Pydantic AI's own ``FunctionModel``: it answers call ``i`` with contract
step ``i`` and keeps everything each call received (instructions and every message part).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest

pytest.importorskip("pydantic_ai")

import _contract
from anneal_memory import AgentMemory
from anneal_pydantic_ai import AnnealCapability
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel


def _part_text(part: Any) -> str:
    content = getattr(part, "content", None)
    if content is None and isinstance(part, ToolCallPart):
        content = f"{part.tool_name}({part.args_as_json_str()})"
    if not isinstance(content, str):
        content = "\n".join(c for c in content or () if isinstance(c, str))
    return f"{part.part_kind}: {content}"


def flatten(messages: Sequence[ModelMessage], info: AgentInfo) -> str:
    """Everything one model call received, as text: instructions, then one block per part."""
    blocks = [f"instructions: {info.instructions}"] if info.instructions else []
    blocks += [_part_text(part) for message in messages for part in message.parts]
    return "\n".join(blocks)


class ScriptedFunction:
    """The ``FunctionModel`` function: call ``i`` answers with ``steps[i](input text)``."""

    def __init__(self, steps: Sequence[_contract.Step]) -> None:
        self.steps = list(steps)
        self.received: list[str] = []
        self.__name__ = "scripted"  # FunctionModel names itself after the function

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        text = flatten(messages, info)
        self.received.append(text)
        index = len(self.received) - 1
        assert index < len(self.steps), f"unscripted model call #{index + 1}"
        reply = self.steps[index](text)
        if isinstance(reply, _contract.ToolCall):
            return ModelResponse(parts=[ToolCallPart(reply.name, dict(reply.args))])
        return ModelResponse(parts=[TextPart(reply.text)])


class PydanticAIHarness:
    def __init__(self, *, use_async: bool) -> None:
        self.use_async = use_async

    def run(
        self,
        memory: AgentMemory,
        prompt: str,
        steps: Sequence[_contract.Step],
        *,
        wrap: bool,
    ) -> _contract.RunResult:
        if self.use_async:
            return asyncio.run(self.arun(memory, prompt, steps, wrap=wrap))
        function = ScriptedFunction(steps)
        capability = AnnealCapability(memory, wrap_on_end=wrap)
        agent = Agent(
            FunctionModel(function), tools=[_contract.lookup_fact], capabilities=[capability]
        )
        with _contract.default_event_loop_closed():
            agent.run_sync(prompt)
        return _contract.RunResult(model_inputs=function.received, wrap=capability.last_wrap)

    async def arun(
        self,
        memory: AgentMemory,
        prompt: str,
        steps: Sequence[_contract.Step],
        *,
        wrap: bool,
    ) -> _contract.RunResult:
        function = ScriptedFunction(steps)
        capability = AnnealCapability(memory, wrap_on_end=wrap)
        agent = Agent(
            FunctionModel(function), tools=[_contract.lookup_fact], capabilities=[capability]
        )
        await agent.run(prompt)
        return _contract.RunResult(model_inputs=function.received, wrap=capability.last_wrap)


@pytest.fixture(params=["sync", "async"])
def harness(request: pytest.FixtureRequest) -> PydanticAIHarness:
    return PydanticAIHarness(use_async=request.param == "async")


@pytest.fixture
def async_harness() -> PydanticAIHarness:
    return PydanticAIHarness(use_async=True)


@pytest.fixture
def scripted_function() -> type[ScriptedFunction]:
    """The ``FunctionModel`` function class, for tests that build their own agent."""
    return ScriptedFunction
