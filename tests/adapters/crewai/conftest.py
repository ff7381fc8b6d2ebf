"""CrewAI harness for the adapter contract: a real ``Crew`` kickoff, offline.

The fake model is a ``BaseLLM`` subclass (CrewAI's documented way to plug in a custom LLM):
it answers call ``i`` with contract step ``i`` in CrewAI's ReAct text format and keeps
everything each call received, flattened to text at the moment of the call.

CrewAI writes a key file, settings and a task-output database under the home directory
(some paths are fixed when it is imported), so the import runs with HOME and the XDG dirs
pointed at a throwaway directory, and every test gets its own.
"""

from __future__ import annotations

import asyncio
import atexit
import json
import os
import shutil
import tempfile
import threading
import warnings
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import _contract
import pytest
from anneal_memory import AgentMemory

CREWAI_OFFLINE = {
    "CREWAI_DISABLE_TELEMETRY": "true",
    "CREWAI_DISABLE_TRACKING": "true",
    "CREWAI_TRACING_ENABLED": "false",
    "CREWAI_DISABLE_VERSION_CHECK": "true",
    "CREWAI_TESTING": "true",
    "OTEL_SDK_DISABLED": "true",
    "CREWAI_STORAGE_DIR": "anneal-crewai-tests",
}
_HOME_VARS = ("HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME")


def _home_env(home: Path) -> dict[str, str]:
    return {
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_CACHE_HOME": str(home / "cache"),
    }


def _import_crewai_offline() -> bool:
    saved = {name: os.environ.get(name) for name in _HOME_VARS}
    import_home = Path(tempfile.mkdtemp(prefix="anneal-crewai-import-"))
    atexit.register(shutil.rmtree, import_home, True)
    os.environ.update(CREWAI_OFFLINE)
    os.environ.update(_home_env(import_home))
    try:
        with warnings.catch_warnings():
            # crewai's lazy submodule loading raises ImportWarning under Python's import system
            warnings.simplefilter("ignore", ImportWarning)
            import crewai  # noqa: F401
    except ImportError:
        return False
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    return True


if not _import_crewai_offline():
    pytest.skip("crewai is not installed", allow_module_level=True)

from anneal_crewai import AnnealListener  # noqa: E402 - after the offline import above
from crewai import Agent, BaseLLM, Crew, Task  # noqa: E402 - after the offline import above
from crewai.events import crewai_event_bus  # noqa: E402 - after the offline import above
from crewai.tools import tool  # noqa: E402 - after the offline import above
from pydantic import Field  # noqa: E402 - installed with crewai

LOOKUP_TOOL = tool(_contract.TOOL_NAME)(_contract.lookup_fact)

# Deprecation warnings attributed to CrewAI's own modules: CrewAI reading its own deprecated
# fields. A deprecated CrewAI API called from our code is attributed to our module and fails.
CREWAI_INTERNAL_WARNINGS = ["ignore::DeprecationWarning:crewai"]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(item.path).parents:
            for spec in CREWAI_INTERNAL_WARNINGS:
                item.add_marker(pytest.mark.filterwarnings(spec))


_LOCKS: defaultdict[str, threading.RLock] = defaultdict(threading.RLock)


@contextmanager
def in_process_lock(name: str, *, timeout: float = 0) -> Iterator[None]:
    """CrewAI's named locks, held in this process (its default leaves files in /tmp)."""
    with _LOCKS[name]:
        yield


@pytest.fixture(autouse=True)
def crewai_offline(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """CrewAI's switches off and its files in a temp home, for every test here."""
    home = tmp_path_factory.mktemp("crewai-home")
    for key, value in {**CREWAI_OFFLINE, **_home_env(home)}.items():
        monkeypatch.setenv(key, value)
    try:
        from crewai_core import lock_store
    except ImportError:  # older CrewAI releases lock elsewhere
        pass
    else:
        monkeypatch.setattr(lock_store, "_backend", in_process_lock)
    return home


def flatten(messages: str | Sequence[Mapping[str, Any]]) -> str:
    """Everything one call received, as text: one ``role: content`` block per message."""
    if isinstance(messages, str):
        return f"user: {messages}"
    return "\n".join(f"{m.get('role')}: {m.get('content')}" for m in messages)


def react(reply: _contract.ToolCall | _contract.Reply) -> str:
    """A contract reply in CrewAI's ReAct text format (what an agent's model answers)."""
    if isinstance(reply, _contract.ToolCall):
        return (
            "Thought: I should look this up.\n"
            f"Action: {reply.name}\nAction Input: {json.dumps(reply.args)}"
        )
    return f"Thought: I now know the final answer.\nFinal Answer: {reply.text}"


class ScriptedLLM(BaseLLM):
    """Answers model call ``i`` with ``steps[i](input text)``; keeps every call's input."""

    steps: list[Any]
    received: list[str] = Field(default_factory=list)

    def call(
        self,
        messages: Any,
        tools: Any = None,
        callbacks: Any = None,
        available_functions: Any = None,
        from_task: Any = None,
        from_agent: Any = None,
        response_model: Any = None,
    ) -> str:
        text = flatten(messages)
        self.received.append(text)
        index = len(self.received) - 1
        assert index < len(self.steps), f"unscripted model call #{index + 1}:\n{text[:2000]}"
        reply = self.steps[index](text)
        if from_agent is None:  # a direct call (the wrap): plain text
            assert isinstance(reply, _contract.Reply)
            return reply.text
        return react(reply)

    async def acall(self, messages: Any, *args: Any, **kwargs: Any) -> str:
        return self.call(messages, *args, **kwargs)


def scripted(steps: Sequence[_contract.Step]) -> ScriptedLLM:
    return ScriptedLLM(model="scripted", steps=list(steps), received=[])


def ops_crew(llm: BaseLLM, prompt: str, *, tools: Sequence[Any] = (LOOKUP_TOOL,)) -> Crew:
    """A one-agent, one-task crew whose task is ``prompt``."""
    agent = Agent(
        role="Ops engineer",
        goal="Answer questions about the infrastructure.",
        backstory="You keep the staging environment running.",
        llm=llm,
        tools=list(tools),
    )
    task = Task(description=prompt, expected_output="A short answer.", agent=agent)
    return Crew(agents=[agent], tasks=[task])


class CrewAIHarness:
    def __init__(self, *, kickoff: str) -> None:
        self.kickoff = kickoff

    def run(
        self,
        memory: AgentMemory,
        prompt: str,
        steps: Sequence[_contract.Step],
        *,
        wrap: bool,
    ) -> _contract.RunResult:
        llm = scripted(steps)
        with AnnealListener(memory, wrap_on_end=wrap) as listener:
            crew = ops_crew(llm, prompt)
            if self.kickoff == "kickoff_async":
                asyncio.run(crew.kickoff_async())
            else:
                crew.kickoff()
            crewai_event_bus.flush()
        assert listener.last_error is None, listener.last_error
        return _contract.RunResult(model_inputs=llm.received, wrap=listener.last_wrap)


@pytest.fixture(params=["kickoff", "kickoff_async"])
def harness(request: pytest.FixtureRequest) -> CrewAIHarness:
    return CrewAIHarness(kickoff=request.param)


@pytest.fixture
def listeners() -> Iterator[list[AnnealListener]]:
    """Listeners a test creates itself; closed afterwards even when the test fails."""
    created: list[AnnealListener] = []
    yield created
    for listener in created:
        listener.close()


@pytest.fixture
def make_llm() -> Any:
    """``make_llm(steps)`` -> a ``ScriptedLLM`` (for tests that build their own crew)."""
    return scripted


@pytest.fixture
def make_crew() -> Any:
    """``make_crew(llm, prompt, tools=...)`` -> the one-agent, one-task test crew."""
    return ops_crew
