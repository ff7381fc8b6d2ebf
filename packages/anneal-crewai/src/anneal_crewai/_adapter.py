"""``AnnealListener``: CrewAI's event bus and hooks mapped onto ``anneal_memory.AgentMemory``."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from anneal_memory import AgentMemory, RecordingPolicy, Store, WrapOutcome
from crewai.events import (
    BaseEventListener,
    LiteAgentExecutionCompletedEvent,
    TaskCompletedEvent,
    ToolUsageFinishedEvent,
    crewai_event_bus,
)
from crewai.events.event_bus import CrewAIEventsBus
from crewai.events.types.task_events import TaskFailedEvent
from crewai.events.types.tool_usage_events import ToolUsageErrorEvent
from crewai.hooks import (
    InterceptionPoint,
    LLMCallHookContext,
    register_before_llm_call_hook,
    register_hook,
    unregister_before_llm_call_hook,
    unregister_hook,
)
from crewai.llms.base_llm import BaseLLM
from crewai.utilities.llm_utils import create_llm

from anneal_crewai._convert import (
    has_memory_message,
    insert_position,
    memory_message,
    query_text,
    short_label,
)

if TYPE_CHECKING:
    from anneal_memory import AffectSource

__all__ = ["WRAP_INSTRUCTIONS", "AnnealListener"]

logger = logging.getLogger("anneal_crewai")

WRAP_INSTRUCTIONS = (
    "You are compressing this crew's working memory at the end of a session. Follow the "
    "instructions in the message exactly and reply with the continuity markdown only."
)


def crew_llm(crew: Any) -> BaseLLM | None:
    """The crew's own LLM: its last task's agent's, else any agent's, else the manager's."""
    agents = [getattr(task, "agent", None) for task in reversed(getattr(crew, "tasks", []))]
    agents += list(getattr(crew, "agents", []))
    for agent in agents:
        llm = getattr(agent, "llm", None)
        if isinstance(llm, BaseLLM):
            return llm
    manager = getattr(crew, "manager_llm", None)
    return manager if isinstance(manager, BaseLLM) else None


class AnnealListener(BaseEventListener):
    """Living memory for CrewAI crews and agents.

    Creating the listener registers it (CrewAI's event-listener pattern): from then on, in
    this process, tool results and task outputs are recorded from the event bus, every
    agent conversation gets the continuity file and the episodes relevant to its task in
    a system message before its first model call, and each crew kickoff that completes is
    wrapped with the crew's own LLM. :meth:`close` (or leaving a ``with`` block) removes it.

    Args:
        memory: An ``AgentMemory``, a ``Store``, or a database path.
        session_id: This session's id for the wrap (needed on baton-protected stores).
            Ignored when ``memory`` is an ``AgentMemory``.
        wrap_on_end: Wrap when a crew kickoff completes. Set False to call :meth:`wrap`
            yourself (chat loops, several kickoffs per session, flows).
        wrap_llm: The LLM (instance or model name) that compresses the session; defaults
            to the LLM of the agent that ran the crew's last task.
        affect: Optional affect self-report passed to the save (see ``AgentMemory.wrap``).
        policy: Recording policy when ``memory`` is not an ``AgentMemory``.
        crews: Serve only these crews (their agents and tasks): events, recall and wraps of
            other crews in the process are left alone. Default: every crew.
        agents: Serve only these agents (also standalone ``Agent.kickoff`` runs). With
            neither ``crews`` nor ``agents``, the listener serves the whole process.

    Attributes:
        memory: The ``AgentMemory`` this listener drives.
        last_wrap: The outcome of the most recent wrap, ``None`` before the first.
        last_error: The exception of the most recent automatic wrap that failed (for
            example the LLM was unreachable), ``None`` when it did not fail.
    """

    def __init__(
        self,
        memory: AgentMemory | Store | str | os.PathLike[str],
        *,
        session_id: str | None = None,
        wrap_on_end: bool = True,
        wrap_llm: BaseLLM | str | None = None,
        affect: AffectSource = None,
        policy: RecordingPolicy | None = None,
        crews: Iterable[Any] | None = None,
        agents: Iterable[Any] | None = None,
    ) -> None:
        self._crews = None if crews is None else list(crews)
        self._agents = None if agents is None else list(agents)
        self._owns_memory = not isinstance(memory, AgentMemory)
        self.memory = AgentMemory.of(memory, session_id=session_id, policy=policy)
        self.wrap_on_end = wrap_on_end
        self.wrap_llm = wrap_llm
        self.affect = affect
        self.last_wrap: WrapOutcome | None = None
        self.last_error: BaseException | None = None
        self._last_llm: BaseLLM | None = None
        self._closed = False
        self._close_lock = threading.Lock()
        self._handlers: list[tuple[type[Any], Callable[[Any, Any], None]]] = [
            (ToolUsageFinishedEvent, self._on_tool_finished),
            (TaskCompletedEvent, self._on_task_completed),
            (LiteAgentExecutionCompletedEvent, self._on_agent_completed),
            (TaskFailedEvent, self._on_task_failed),
            (ToolUsageErrorEvent, self._on_tool_error),
        ]
        super().__init__()
        register_before_llm_call_hook(self._before_llm_call)
        register_hook(InterceptionPoint.EXECUTION_START, self._on_execution_start)
        register_hook(InterceptionPoint.EXECUTION_END, self._on_execution_end)

    def setup_listeners(self, crewai_event_bus: CrewAIEventsBus) -> None:
        """Register the recording handlers on the event bus (called by CrewAI)."""
        for event_type, handler in self._handlers:
            crewai_event_bus.on(event_type)(handler)

    def close(self) -> None:
        """Unregister from the event bus and the hooks; close the memory if this opened it.

        Safe to call twice. Agents built while the listener was registered keep a copy of
        the hook list; the hook does nothing once the listener is closed.
        """
        with self._close_lock:
            if self._closed:
                return
            self._closed = True
        for event_type, handler in self._handlers:
            crewai_event_bus.off(event_type, handler)
        unregister_before_llm_call_hook(self._before_llm_call)
        unregister_hook(InterceptionPoint.EXECUTION_START, self._on_execution_start)
        unregister_hook(InterceptionPoint.EXECUTION_END, self._on_execution_end)
        if self._owns_memory:
            self.memory.close()

    def __enter__(self) -> AnnealListener:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- whose events ------------------------------------------------------------------

    def _members(self) -> tuple[set[int], set[str]]:
        crews, agents = self._crews or [], list(self._agents or [])
        tasks = [t for crew in crews for t in getattr(crew, "tasks", [])]
        agents += [a for crew in crews for a in getattr(crew, "agents", [])]
        ids = {str(getattr(x, "id", "")) for x in [*agents, *tasks]} - {""}
        return {id(x) for x in [*crews, *agents, *tasks]}, ids

    def _serves(self, *objects: Any, ids: Iterable[object] = ()) -> bool:
        """Whether these crews / agents / tasks (or their ids) are this listener's."""
        if self._crews is None and self._agents is None:
            return True
        mine, my_ids = self._members()
        return any(id(o) in mine for o in objects if o is not None) or any(
            str(i) in my_ids for i in ids if i
        )

    # -- recording (event-bus handlers: thread pool, any order) ----------------------

    def _on_tool_finished(self, source: Any, event: ToolUsageFinishedEvent) -> None:
        if self._closed or not self._serves(ids=(event.agent_id, event.task_id)):
            return
        agent = short_label(event.agent_role)
        self.memory.record_tool_result(
            event.tool_name, event.output, metadata={"agent": agent} if agent else None
        )

    def _on_task_completed(self, source: Any, event: TaskCompletedEvent) -> None:
        task = event.task
        if self._closed or not self._serves(
            task, getattr(task, "agent", None), ids=(event.task_id,)
        ):
            return
        output = event.output
        labels = {"agent": short_label(output.agent), "task": short_label(output.name)}
        metadata = {key: value for key, value in labels.items() if value}
        self.memory.record_answer(output.raw, metadata=metadata or None)

    def _on_agent_completed(self, source: Any, event: LiteAgentExecutionCompletedEvent) -> None:
        if self._closed or not self._serves(source, ids=(event.agent_info.get("id"),)):
            return
        role = short_label(event.agent_info.get("role"))
        self.memory.record_answer(event.output, metadata={"agent": role} if role else None)

    def _on_task_failed(self, source: Any, event: TaskFailedEvent) -> None:
        """A failed task is the run's failure (issue 28: report-only)."""
        if self._closed or not self._serves(event.task, ids=(event.task_id, event.agent_id)):
            return
        self.memory.run_failed(f"task failed ({short_label(event.error_type) or 'error'})")

    def _on_tool_error(self, source: Any, event: ToolUsageErrorEvent) -> None:
        """A tool that raised after a recall is the run's failure (report-only)."""
        if self._closed or not self._serves(ids=(event.agent_id, event.task_id)):
            return
        self.memory.run_failed(f"tool {short_label(event.tool_name) or 'tool'} failed")

    # -- recall (before-LLM-call hook: the agent's own thread) -----------------------

    def _before_llm_call(self, context: LLMCallHookContext) -> None:
        # Executor-less calls are CrewAI internals and this listener's own wrap.
        if self._closed or context.executor is None:
            return
        if not self._serves(getattr(context, "agent", None), getattr(context, "task", None)):
            return
        messages = context.messages
        if has_memory_message(messages):
            return  # recalled once per conversation: its own new episodes are not echoed
        query = query_text(getattr(context.task, "description", None), messages)
        # One turn per conversation (its executor and live message list): when nothing was
        # recalled at its first call, its later calls are not handed its own new episodes.
        turn = ("crewai", id(context.executor), id(messages), query)
        message = memory_message(self.memory.turn_context(query, turn=turn))
        if message is not None:
            messages.insert(insert_position(messages), message)  # type: ignore[arg-type]

    def _on_execution_start(self, context: Any) -> None:
        # An agent copies the global hook list once, when it first builds its executor; an
        # agent that ran before this listener existed gets the recall hook added here.
        crew = getattr(context, "crew", None)
        if self._closed or crew is None or not self._serves(crew, *getattr(crew, "agents", [])):
            return
        for agent in [*getattr(crew, "agents", []), getattr(crew, "manager_agent", None)]:
            hooks = getattr(getattr(agent, "agent_executor", None), "before_llm_call_hooks", None)
            if isinstance(hooks, list) and self._before_llm_call not in hooks:
                hooks.append(self._before_llm_call)

    # -- session end -----------------------------------------------------------------

    def _on_execution_end(self, context: Any) -> None:
        crew = getattr(context, "crew", None)
        # Releases before the failure dispatch have no status and only report success.
        failed = getattr(context, "status", "completed") != "completed"
        if (
            self._closed
            or crew is None
            or failed
            or not self._serves(crew, *getattr(crew, "agents", []))
        ):
            return
        self._last_llm = crew_llm(crew) or self._last_llm
        if not self.wrap_on_end:
            return
        crewai_event_bus.flush()  # this kickoff's recording handlers finish first
        try:
            self.wrap()
        except Exception as exc:  # CrewAI's hooks are fail-open; keep the reason visible
            self.last_error = exc
            logger.warning("anneal-memory: the wrap after the crew kickoff failed: %r", exc)
        else:
            self.last_error = None

    def _compressor(self, llm: BaseLLM | str | None) -> Callable[[str], str]:
        chosen = llm or self.wrap_llm or self._last_llm
        model = create_llm(chosen) if isinstance(chosen, str) else chosen
        if model is None:
            raise RuntimeError("no LLM to wrap with yet: kick off a crew first or pass wrap_llm=")

        def compress(package: str) -> str:
            messages = [
                {"role": "system", "content": WRAP_INSTRUCTIONS},
                {"role": "user", "content": package},
            ]
            return model.call(messages)  # type: ignore[arg-type]

        return compress

    def wrap(self, llm: BaseLLM | str | None = None) -> WrapOutcome:
        """Wrap the session now with ``llm`` (default: ``wrap_llm``, else the last crew's LLM).

        Raises:
            RuntimeError: No crew has completed yet and no LLM was given.
        """
        compress = self._compressor(llm)
        self.last_wrap = self.memory.wrap(compress, affect=self.affect)
        return self.last_wrap
