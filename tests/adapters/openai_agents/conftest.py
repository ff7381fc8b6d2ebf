"""OpenAI Agents SDK harness for the adapter contract: a real ``Runner`` run, offline.

``ScriptedModel`` answers call ``i`` with contract step ``i`` and keeps what every call
received. On openai-agents 0.24 and newer it is the SDK's own fake model,
``agents.testing.ScriptedModel``, driven by one ``ModelStep.respond`` per step (it streams
too); older releases (the workspace lock holds 0.20) have none, so there it is
``OwnScriptedModel``, a small implementation of the SDK's ``Model`` interface.
"""

from __future__ import annotations

import asyncio
import importlib.util
import itertools
import json
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

pytest.importorskip("agents")

import _contract
from agents import (
    Agent,
    Model,
    ModelResponse,
    RunConfig,
    Runner,
    Usage,
    function_tool,
    set_tracing_disabled,
)
from anneal_memory import AgentMemory
from anneal_openai_agents import AnnealHooks
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

set_tracing_disabled(True)
_ids = itertools.count(1)


def say(text: str) -> ResponseOutputMessage:
    """An assistant message with ``text``."""
    return ResponseOutputMessage(
        id=f"msg_{next(_ids)}",
        type="message",
        role="assistant",
        status="completed",
        content=[ResponseOutputText(text=text, type="output_text", annotations=[])],
    )


def call_tool(name: str, args: Mapping[str, Any]) -> ResponseFunctionToolCall:
    """A function-tool call of ``name`` with ``args``."""
    n = next(_ids)
    return ResponseFunctionToolCall(
        id=f"fc_{n}",
        call_id=f"call_{n}",
        name=name,
        arguments=json.dumps(dict(args)),
        type="function_call",
    )


def _item_text(item: object) -> str:
    if isinstance(item, str):
        return item
    if not isinstance(item, Mapping):
        return repr(item)
    if item.get("type") == "function_call_output":
        return f"tool: {item.get('output')}"
    if item.get("type") == "function_call":
        return f"call: {item.get('name')}({item.get('arguments')})"
    content = item.get("content")
    if isinstance(content, list):
        content = "\n".join(str(part.get("text", "")) for part in content)
    return f"{item.get('role', item.get('type'))}: {content}"


def flatten(instructions: str | None, items: str | Sequence[object]) -> str:
    """Everything one model call received, as text: instructions, then one block per item."""
    blocks = [f"system: {instructions}"] if instructions else []
    blocks += [_item_text(items)] if isinstance(items, str) else [_item_text(i) for i in items]
    return "\n".join(blocks)


@dataclass
class OwnScriptedModel(Model):
    """Answers call ``i`` with ``steps[i](input text)``; ``received`` keeps every input text."""

    steps: Sequence[_contract.Step]
    received: list[str] = field(default_factory=list)

    async def get_response(
        self,
        system_instructions: str | None,
        input: str | list[Any],
        model_settings: Any,
        tools: Any,
        output_schema: Any,
        handoffs: Any,
        tracing: Any,
        **kwargs: Any,
    ) -> ModelResponse:
        text = flatten(system_instructions, input)
        self.received.append(text)
        index = len(self.received) - 1
        assert index < len(self.steps), f"unscripted model call #{index + 1}"
        reply = self.steps[index](text)
        return ModelResponse(output=_reply_items(reply), usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        raise NotImplementedError("the scripted model does not stream")


def _reply_items(reply: _contract.Reply | _contract.ToolCall) -> list[Any]:
    return [
        call_tool(reply.name, reply.args)
        if isinstance(reply, _contract.ToolCall)
        else say(reply.text)
    ]


SDK_FAKE_MODEL = importlib.util.find_spec("agents.testing") is not None

if SDK_FAKE_MODEL:
    from agents.testing import ModelCall, ModelStep
    from agents.testing import ScriptedModel as _SdkScriptedModel

    class SdkScriptedModel(_SdkScriptedModel):
        """The SDK's ``ScriptedModel``, each step a responder that sees the call's input."""

        def __init__(self, steps: Sequence[_contract.Step]) -> None:
            self.received: list[str] = []
            super().__init__([ModelStep.respond(self._responder(step)) for step in steps])

        def _responder(self, step: _contract.Step) -> Any:
            def respond(call: ModelCall) -> list[Any]:
                text = flatten(call.system_instructions, call.input)
                self.received.append(text)
                return _reply_items(step(text))

            return respond

    ScriptedModel: Any = SdkScriptedModel
else:
    ScriptedModel = OwnScriptedModel


class OpenAIAgentsHarness:
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
        model = ScriptedModel(steps=list(steps))
        hooks = AnnealHooks(memory, wrap_on_end=wrap)
        agent = Agent(name="contract", model=model, tools=[function_tool(_contract.lookup_fact)])
        config = hooks.run_config(RunConfig(tracing_disabled=True))
        with _contract.default_event_loop_closed():
            Runner.run_sync(agent, prompt, hooks=hooks, run_config=config)
        return _contract.RunResult(model_inputs=model.received, wrap=hooks.last_wrap)

    async def arun(
        self,
        memory: AgentMemory,
        prompt: str,
        steps: Sequence[_contract.Step],
        *,
        wrap: bool,
    ) -> _contract.RunResult:
        model = ScriptedModel(steps=list(steps))
        hooks = AnnealHooks(memory, wrap_on_end=wrap)
        agent = Agent(name="contract", model=model, tools=[function_tool(_contract.lookup_fact)])
        config = hooks.run_config(RunConfig(tracing_disabled=True))
        await Runner.run(agent, prompt, hooks=hooks, run_config=config)
        return _contract.RunResult(model_inputs=model.received, wrap=hooks.last_wrap)


@pytest.fixture(params=["sync", "async"])
def harness(request: pytest.FixtureRequest) -> OpenAIAgentsHarness:
    return OpenAIAgentsHarness(use_async=request.param == "async")


@pytest.fixture
def async_harness() -> OpenAIAgentsHarness:
    return OpenAIAgentsHarness(use_async=True)


@pytest.fixture
def scripted_model() -> Any:
    """The offline model class, for tests that build their own agent (``cls(steps=[...])``)."""
    return ScriptedModel
