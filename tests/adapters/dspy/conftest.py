"""DSPy harness for the adapter contract: a real ``dspy.ReAct`` program, offline.

DSPy and LiteLLM read their settings when first imported, so this file points the caches at a
temporary directory and keeps LiteLLM's model cost map local before anything imports them.

The fake model is DSPy's own ``DummyLM``, scripted per call: each call of the ReAct
predictor answers with the next contract step (a ``ToolCall`` becomes a tool choice, a
``Reply`` becomes ``finish`` and is then the extract predictor's answer), and the wrap's
compression call answers with its step. ``received`` keeps what each step's call received
(system prompt and every message, so the ``memory`` input field and the trajectory).
"""

from __future__ import annotations

import asyncio
import atexit
import json
import os
import shutil
import tempfile
from collections.abc import Sequence
from typing import Any

import pytest

_CACHE_ROOT = tempfile.mkdtemp(prefix="anneal-dspy-tests-")
atexit.register(shutil.rmtree, _CACHE_ROOT, ignore_errors=True)
OFFLINE_ENV = {
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "LITELLM_TELEMETRY": "False",
    "XDG_DATA_HOME": os.path.join(_CACHE_ROOT, "data"),
    "DSPY_CACHEDIR": os.path.join(_CACHE_ROOT, "dspy-cache"),
}
os.environ.update(OFFLINE_ENV)

dspy = pytest.importorskip("dspy")

import _contract  # noqa: E402  (DSPy's settings above must come first)
from anneal_dspy import AnnealModule  # noqa: E402
from anneal_memory import AgentMemory  # noqa: E402
from dspy.utils.dummies import DummyLM  # noqa: E402


def flatten(messages: Sequence[dict[str, Any]]) -> str:
    """Everything one model call received, as text: one block per message."""
    return "\n".join(f"{m.get('role')}: {m.get('content')}" for m in messages)


def chat_fields(fields: dict[str, Any]) -> str:
    """Output fields in ChatAdapter's wire format, as a model would write them."""
    parts = [
        f"[[ ## {name} ## ]]\n{value if isinstance(value, str) else json.dumps(value)}"
        for name, value in fields.items()
    ]
    return "\n\n".join([*parts, "[[ ## completed ## ]]"])


class ScriptedLM(DummyLM):
    """A ``DummyLM`` whose answer to each call comes from the contract steps.

    It uses ``DummyLM``'s ``follow_examples`` hook (``_use_example(messages)`` returns the raw
    completion), the one place where DummyLM hands the scripted answer the call's messages.
    """

    def __init__(self, steps: Sequence[_contract.Step]) -> None:
        super().__init__([], follow_examples=True)
        self.steps = list(steps)
        self.received: list[str] = []
        self.pending_answer: str | None = None

    def _use_example(self, messages: list[dict[str, Any]]) -> str:
        system = str(messages[0].get("content", "")) if messages else ""
        if "`next_tool_name`" not in system and "`continuity`" not in system:
            # ReAct's extract predictor: the answer of the Reply that chose `finish`.
            assert self.pending_answer is not None, "extract call without a final reply"
            answer, self.pending_answer = self.pending_answer, None
            return chat_fields({"reasoning": "Done.", "answer": answer})
        text = flatten(messages)
        self.received.append(text)
        index = len(self.received) - 1
        assert index < len(self.steps), f"unscripted model call #{index + 1}"
        reply = self.steps[index](text)
        if "`continuity`" in system:
            assert isinstance(reply, _contract.Reply)
            return chat_fields({"continuity": reply.text})
        if isinstance(reply, _contract.ToolCall):
            choice = {"next_tool_name": reply.name, "next_tool_args": dict(reply.args)}
        else:
            self.pending_answer = reply.text
            choice = {"next_tool_name": "finish", "next_tool_args": {}}
        return chat_fields({"next_thought": "Next step.", **choice})


class DSPyHarness:
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
        lm = ScriptedLM(steps)
        agent = AnnealModule(
            dspy.ReAct("question -> answer", tools=[_contract.lookup_fact]), memory
        )
        with dspy.context(lm=lm):
            if self.use_async:

                async def session() -> None:
                    await agent.acall(question=prompt)
                    if wrap:
                        await agent.awrap()

                asyncio.run(session())
            else:
                agent(question=prompt)
                if wrap:
                    agent.wrap()
        return _contract.RunResult(model_inputs=lm.received, wrap=agent.last_wrap)


@pytest.fixture(params=["sync", "async"])
def harness(request: pytest.FixtureRequest) -> DSPyHarness:
    return DSPyHarness(use_async=request.param == "async")


@pytest.fixture
def scripted_lm() -> type[ScriptedLM]:
    """The scripted ``DummyLM`` class, for tests that build their own program."""
    return ScriptedLM


@pytest.fixture
def offline_env() -> tuple[str, dict[str, str]]:
    """The temporary cache root and the environment this conftest set before DSPy loaded."""
    return _CACHE_ROOT, OFFLINE_ENV
