"""LangGraph harness for the adapter contract: a real ``create_agent`` agent, offline.

The fake model is a ``GenericFakeChatModel`` subclass that answers each call with the next
contract step and keeps every message list it received.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Sequence
from typing import Any

import pytest

pytest.importorskip("langchain.agents")

import _contract
from anneal_langgraph import AnnealMiddleware
from anneal_langgraph._convert import message_text
from anneal_memory import AgentMemory
from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field

_call_ids = itertools.count(1)


def flatten(messages: Sequence[BaseMessage]) -> str:
    """Everything a model received, as text: one ``type: text`` block per message."""
    return "\n".join(f"{m.type}: {message_text(m)}" for m in messages)


class ScriptedChatModel(GenericFakeChatModel):
    """Answers call ``i`` with ``steps[i](input text)``; tool calls included."""

    steps: list[Any]
    received: list[list[BaseMessage]] = Field(default_factory=list)
    messages: Any = Field(default_factory=lambda: iter(()))
    disable_streaming: Any = True

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        self.received.append(list(messages))
        index = len(self.received) - 1
        assert index < len(self.steps), f"unscripted model call #{index + 1}"
        reply = self.steps[index](flatten(messages))
        if isinstance(reply, _contract.ToolCall):
            call = {"name": reply.name, "args": reply.args, "id": f"call_{next(_call_ids)}"}
            message = AIMessage(content="", tool_calls=[call])
        else:
            message = AIMessage(content=reply.text)
        return ChatResult(generations=[ChatGeneration(message=message)])

    def bind_tools(self, tools: Any, *, tool_choice: Any = None, **kwargs: Any) -> Any:
        return self  # the script decides which tool is called


class LangGraphHarness:
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
        model = ScriptedChatModel(steps=list(steps))
        middleware = AnnealMiddleware(memory, wrap_on_end=wrap)
        agent = create_agent(model, tools=[_contract.lookup_fact], middleware=[middleware])
        agent.invoke({"messages": [{"role": "user", "content": prompt}]})
        return _contract.RunResult(
            model_inputs=[flatten(m) for m in model.received], wrap=middleware.last_wrap
        )

    async def arun(
        self,
        memory: AgentMemory,
        prompt: str,
        steps: Sequence[_contract.Step],
        *,
        wrap: bool,
    ) -> _contract.RunResult:
        model = ScriptedChatModel(steps=list(steps))
        middleware = AnnealMiddleware(memory, wrap_on_end=wrap)
        agent = create_agent(model, tools=[_contract.lookup_fact], middleware=[middleware])
        await agent.ainvoke({"messages": [{"role": "user", "content": prompt}]})
        return _contract.RunResult(
            model_inputs=[flatten(m) for m in model.received], wrap=middleware.last_wrap
        )


@pytest.fixture(params=["sync", "async"])
def harness(request: pytest.FixtureRequest) -> LangGraphHarness:
    return LangGraphHarness(use_async=request.param == "async")


@pytest.fixture
def async_harness() -> LangGraphHarness:
    return LangGraphHarness(use_async=True)


@pytest.fixture
def scripted_model() -> type[ScriptedChatModel]:
    """The scripted fake chat model class: ``scripted_model(steps=[...])``."""
    return ScriptedChatModel
