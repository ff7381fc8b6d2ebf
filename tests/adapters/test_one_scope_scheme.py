"""One scope scheme: the same user is the same memory in every framework (docs/scopes.md)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("langchain.agents")
pytest.importorskip("pydantic_ai")

from anneal_langgraph import AnnealMiddleware
from anneal_memory import AgentMemory
from anneal_pydantic_ai import AnnealCapability
from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

FACT = "Alice's invoices go to the Lisbon office, cost centre 4711."


def test_langgraph_records_and_pydantic_ai_recalls_for_the_same_user(
    memory: AgentMemory,
) -> None:
    lang = create_agent(
        GenericFakeChatModel(messages=iter([FACT])), middleware=[AnnealMiddleware(memory)]
    )
    lang.invoke(
        {"messages": [{"role": "user", "content": "Where do my invoices go?"}]},
        config={"configurable": {"user_id": "alice"}},
    )
    assert [e.content for e in memory.store.recall(scope="user:alice").episodes] == [FACT]

    seen: list[str] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(str(info.instructions))
        return ModelResponse(parts=[TextPart("Noted.")])

    agent = Agent(FunctionModel(model), deps_type=dict, capabilities=[AnnealCapability(memory)])
    question = "Which office gets the invoices?"
    asyncio.run(agent.run(question, deps={"user_id": "alice"}))
    asyncio.run(agent.run(question, deps={"user_id": "bob"}))
    assert FACT in seen[0]  # Alice's memory, written through LangGraph
    assert FACT not in seen[1]  # Bob's is his own


def test_every_adapter_names_a_user_the_same_way(memory: AgentMemory) -> None:
    pytest.importorskip("agents")
    pytest.importorskip("llama_index.core")
    from anneal_llamaindex import AnnealLlamaIndex
    from anneal_openai_agents import AnnealHooks

    class Deps:
        user_id = "alice"

    run: Any = type("Run", (), {"deps": Deps()})()
    scopes = {
        "langgraph": AnnealMiddleware(memory)._scope({"user_id": "alice"}),
        "openai-agents": AnnealHooks(memory)._scope({"user_id": "alice"}),
        "pydantic-ai": AnnealCapability(memory)._scope(run),
        "llamaindex": AnnealLlamaIndex(memory).scope_of(user_id="alice"),
    }
    assert set(scopes.values()) == {"user:alice"}, scopes
