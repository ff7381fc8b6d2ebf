"""LlamaIndex harness for the adapter contract: a real ``FunctionAgent`` run, offline.

The fake model is llama-index-core's own ``MockFunctionCallingLLM`` with a response
generator: call ``i`` answers with contract step ``i`` and keeps everything the call received
(every message, the memory block in the system message and tool results included).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("llama_index.core")

import _contract
from anneal_llamaindex import AnnealLlamaIndex
from anneal_memory import AgentMemory
from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.base.llms.types import ChatMessage, MessageRole, TextBlock, ToolCallBlock
from llama_index.core.llms.mock import MockFunctionCallingLLM
from llama_index.core.tools import FunctionTool
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

# llama-index-workflows lists an agent's members with inspect.getmembers, which touches
# pydantic's deprecated ``__fields__`` & co. (a framework warning, raised from ``inspect``;
# an error under filterwarnings=error).
_FRAMEWORK_WARNING = pytest.mark.filterwarnings(
    "ignore::pydantic.warnings.PydanticDeprecationWarning:inspect"
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in item.path.parents:
            item.add_marker(_FRAMEWORK_WARNING)


def _message_text(message: ChatMessage) -> str:
    parts = []
    for block in message.blocks:
        if isinstance(block, TextBlock):
            parts.append(block.text)
        elif isinstance(block, ToolCallBlock):
            parts.append(f"{block.tool_name}({block.tool_kwargs})")
    return f"{message.role.value}: " + "\n".join(parts)


def flatten(messages: Sequence[ChatMessage]) -> str:
    """Everything one model call received, as text: one block per message."""
    return "\n".join(_message_text(m) for m in messages)


class Script:
    """The ``MockFunctionCallingLLM`` response generator: call ``i`` answers with step ``i``."""

    def __init__(self, steps: Sequence[_contract.Step]) -> None:
        self.steps = list(steps)
        self.received: list[str] = []

    def __call__(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatMessage:
        text = flatten(messages)
        self.received.append(text)
        index = len(self.received) - 1
        assert index < len(self.steps), f"unscripted model call #{index + 1}"
        reply = self.steps[index](text)
        if isinstance(reply, _contract.ToolCall):
            call = ToolCallBlock(
                tool_call_id=f"call-{index}", tool_name=reply.name, tool_kwargs=dict(reply.args)
            )
            return ChatMessage(role=MessageRole.ASSISTANT, blocks=[call])
        return ChatMessage(role=MessageRole.ASSISTANT, content=reply.text)


@contextlib.asynccontextmanager
async def chat_engine() -> AsyncIterator[AsyncEngine]:
    """The engine of a ``Memory``'s in-memory chat store, disposed after the run.

    ``Memory.from_defaults()`` creates one it never disposes; aiosqlite >= 0.22 then warns
    about the unclosed connection (an error under filterwarnings=error).
    """
    engine = create_async_engine("sqlite+aiosqlite:///:memory:")
    try:
        yield engine
    finally:
        await engine.dispose()


def scripted_llm(steps: Sequence[_contract.Step]) -> tuple[MockFunctionCallingLLM, Script]:
    script = Script(steps)
    return MockFunctionCallingLLM(response_generator=script, is_chat_model=True), script


def records_landed(memory: AgentMemory) -> None:
    """Wait for the records the span handler queued (they land moments after a run), unless
    the store is locked (the writer retries) and they must wait."""
    retries = memory.offloop.retries
    while not memory.offloop.drain(0.2) and memory.offloop.retries == retries:
        pass


class LlamaIndexHarness:
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
        llm, script = scripted_llm(steps)
        tool = FunctionTool.from_defaults(_contract.lookup_fact)
        with AnnealLlamaIndex(memory) as anneal:
            agent = FunctionAgent(tools=[tool], llm=llm, system_prompt="Answer briefly.")

            async def session() -> None:
                async with chat_engine() as engine:
                    await agent.run(prompt, memory=anneal.chat_memory(async_engine=engine))
                if wrap and self.use_async:
                    await anneal.awrap(llm)

            asyncio.run(session())
            if wrap and not self.use_async:
                anneal.wrap(llm)
        records_landed(memory)
        return _contract.RunResult(model_inputs=script.received, wrap=anneal.last_wrap)

    async def arun(
        self,
        memory: AgentMemory,
        prompt: str,
        steps: Sequence[_contract.Step],
        *,
        wrap: bool,
    ) -> _contract.RunResult:
        llm, script = scripted_llm(steps)
        tool = FunctionTool.from_defaults(_contract.lookup_fact)
        with AnnealLlamaIndex(memory) as anneal:
            agent = FunctionAgent(tools=[tool], llm=llm, system_prompt="Answer briefly.")
            async with chat_engine() as engine:
                await agent.run(prompt, memory=anneal.chat_memory(async_engine=engine))
            if wrap and await memory.offloop.settle():
                await anneal.awrap(llm)
        return _contract.RunResult(model_inputs=script.received, wrap=anneal.last_wrap)


@pytest.fixture(params=["sync-wrap", "async-wrap"])
def harness(request: pytest.FixtureRequest) -> LlamaIndexHarness:
    return LlamaIndexHarness(use_async=request.param == "async-wrap")


@pytest.fixture
def async_harness() -> LlamaIndexHarness:
    return LlamaIndexHarness(use_async=True)


def run_agent(agent: Any, prompt: str, anneal: AnnealLlamaIndex, **memory_kwargs: Any) -> Any:
    """Run ``agent`` once with ``anneal.chat_memory(**memory_kwargs)``; return its output."""

    async def go() -> Any:
        async with chat_engine() as engine:
            chat = anneal.chat_memory(async_engine=engine, **memory_kwargs)
            return await agent.run(prompt, memory=chat)

    try:
        return asyncio.run(go())
    finally:
        records_landed(anneal.memory)


@pytest.fixture(name="run_agent")
def run_agent_fixture() -> Any:
    """:func:`run_agent`, for tests with their own agent."""
    return run_agent


@pytest.fixture
def make_llm() -> Any:
    """``make_llm(steps) -> (MockFunctionCallingLLM, Script)``, for tests with their own agent."""
    return scripted_llm
