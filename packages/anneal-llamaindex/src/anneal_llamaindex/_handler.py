"""``AnnealSpanHandler``: records tool results and final agent responses from LlamaIndex spans."""

from __future__ import annotations

import inspect
from collections.abc import Iterable
from typing import Any

from anneal_memory import AgentMemory
from anneal_memory.scopes import scope_for
from llama_index.core.agent.workflow.workflow_events import AgentOutput
from llama_index.core.instrumentation import Dispatcher, get_dispatcher
from llama_index.core.instrumentation.span.simple import SimpleSpan
from llama_index.core.instrumentation.span_handlers import BaseSpanHandler
from llama_index.core.memory import Memory
from llama_index.core.memory.types import DEFAULT_CHAT_STORE_KEY
from llama_index.core.tools import BaseTool, ToolOutput
from llama_index.core.workflow import StopEvent, Workflow
from pydantic import PrivateAttr

from anneal_llamaindex._block import AnnealMemoryBlock

__all__ = ["RECALL_TOOL_NAME", "AnnealSpanHandler"]

RECALL_TOOL_NAME = "recall_memory"
_TOOL_METHODS = frozenset({"__call__", "call", "acall"})
_KIND, _TOOL, _NESTED, _RUN, _STEP = "anneal.kind", "tool", "nested-tool", "run", "step"
_SCOPE = "anneal.scope"
_UUID_SUFFIX = len("-00000000-0000-0000-0000-000000000000")


def _method_of(span_id: str) -> str:
    # Span ids read "<Class>.<method>-<uuid4>".
    return span_id[:-_UUID_SUFFIX].rpartition(".")[2]


class AnnealSpanHandler(BaseSpanHandler[SimpleSpan]):
    """A LlamaIndex instrumentation span handler that records into an ``AgentMemory``.

    It watches two kinds of spans: a tool's ``call`` / ``acall`` / ``__call__`` (the
    ``ToolOutput`` is recorded as a tool result; a tool called inside another tool's span is
    recorded once, by the outer one) and a workflow run (an agent's final ``AgentOutput``
    is recorded as its answer). Every other span is ignored at once. A failed tool call is
    recorded as an outcome saying it failed; the ``recall_memory`` tool's output is not recorded.

    Instrumentation is process-wide: while attached to the root dispatcher the handler
    sees every agent in the process; pass ``agents`` to record only theirs. Attach it with
    :meth:`attach` (or use ``AnnealLlamaIndex`` as a context manager) and :meth:`detach` it
    when done.

    A run's tool results and answer are recorded in the scope of the run's memory session
    (:meth:`scope_of` the ``memory=`` given to ``agent.run``), the scope its
    :class:`AnnealMemoryBlock` recalls from.

    Args:
        memory: The ``AgentMemory`` to record into.
        agents: Record only these agents' tool calls and answers (an ``AgentWorkflow``
            counts as its agents); default: every agent in the process.
        scope_by_session: Record in the scope of the run memory's session id (for a
            ``Memory`` without an ``AnnealMemoryBlock``, and for the chat store key of older
            memories such as ``ChatMemoryBuffer``); False records in the ``AgentMemory``'s scope.
    """

    _memory: AgentMemory = PrivateAttr()
    _dispatcher: Dispatcher | None = PrivateAttr(default=None)
    _agents: list[Any] | None = PrivateAttr(default=None)
    _by_session: bool = PrivateAttr(default=True)

    def __init__(
        self,
        memory: AgentMemory,
        *,
        agents: Iterable[Any] | None = None,
        scope_by_session: bool = True,
    ) -> None:
        super().__init__(open_spans={}, completed_spans=[], dropped_spans=[], current_span_ids={})
        self._memory = memory
        self._agents = None if agents is None else list(agents)
        self._by_session = scope_by_session

    def scope_of(self, chat_memory: object) -> str | None:
        """The scope a run with ``chat_memory`` (its ``memory=``) records in; None: the default.

        A ``Memory`` holding an :class:`AnnealMemoryBlock` of this ``AgentMemory``: the scope
        that block recalls from (:meth:`AnnealMemoryBlock.scope_for` its session id). Another
        ``Memory``: ``thread:<its id>``; an older memory (``ChatMemoryBuffer``): ``thread:`` its
        chat store key unless it is the default one. None without a memory or with
        ``scope_by_session=False``.
        """
        if not self._by_session or chat_memory is None:
            return None
        if isinstance(chat_memory, Memory):
            for block in chat_memory.memory_blocks:
                if isinstance(block, AnnealMemoryBlock) and block.memory is self._memory:
                    return block.scope_for(chat_memory.session_id)
            return scope_for(thread=chat_memory.session_id)
        key = getattr(chat_memory, "chat_store_key", None)
        if key == DEFAULT_CHAT_STORE_KEY:
            return None
        return scope_for(thread=key)

    def _serves(self, instance: Any) -> bool:
        """Whether a tool or workflow belongs to this handler's agents (always, without them)."""
        if self._agents is None:
            return True
        agents = [*self._agents]
        for workflow in self._agents:
            agents += list((getattr(workflow, "agents", None) or {}).values())
        if isinstance(instance, Workflow):
            return any(instance is agent for agent in [*self._agents, *agents])
        tools = [t for agent in agents for t in (getattr(agent, "tools", None) or [])]
        inner = getattr(instance, "base_tool", None)  # LlamaIndex's async adapter of a sync tool
        return any(t is instance or t is inner for t in tools)

    @classmethod
    def class_name(cls) -> str:
        """The handler's name in LlamaIndex's registry."""
        return "AnnealSpanHandler"

    @property
    def memory(self) -> AgentMemory:
        """The ``AgentMemory`` this handler records into."""
        return self._memory

    # -- attaching ---------------------------------------------------------------------

    def attach(self, dispatcher: Dispatcher | None = None) -> AnnealSpanHandler:
        """Add the handler to ``dispatcher`` (default: LlamaIndex's root dispatcher)."""
        if self._dispatcher is None:
            self._dispatcher = dispatcher or get_dispatcher()
            self._dispatcher.add_span_handler(self)
        return self

    def detach(self) -> None:
        """Remove the handler from the dispatcher it was attached to (no-op if none)."""
        if self._dispatcher is not None:
            handlers = self._dispatcher.span_handlers
            self._dispatcher.span_handlers = [h for h in handlers if h is not self]
            self._dispatcher = None

    # -- spans -------------------------------------------------------------------------

    def new_span(
        self,
        id_: str,
        bound_args: inspect.BoundArguments,
        instance: Any | None = None,
        parent_span_id: str | None = None,
        tags: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> SimpleSpan | None:
        """Track tool-call and workflow-run spans (and a scoped run's steps); ignore the rest."""
        parent = self.open_spans.get(parent_span_id or "")
        scope = None if parent is None else parent.tags.get(_SCOPE)
        if isinstance(instance, BaseTool) and _method_of(id_) in _TOOL_METHODS:
            if not self._serves(instance):
                return None
            # A tool span inside another is tracked (so its own children know they are
            # nested too) but only the outermost one records.
            nested = parent is not None and parent.tags.get(_KIND) in (_TOOL, _NESTED)
            kind = _NESTED if nested else _TOOL
            return SimpleSpan(id_=id_, parent_id=parent_span_id, tags={_KIND: kind, _SCOPE: scope})
        if isinstance(instance, Workflow) and self._serves(instance):
            start = bound_args.arguments.get("start_event")
            scope = self.scope_of(getattr(start, "memory", None)) if start is not None else scope
            return SimpleSpan(id_=id_, parent_id=parent_span_id, tags={_KIND: _RUN, _SCOPE: scope})
        if scope is not None and parent is not None and parent.tags.get(_KIND) == _RUN:
            # A step of a scoped run: tracked only so the tools it calls find the run's scope.
            return SimpleSpan(id_=id_, parent_id=parent_span_id, tags={_KIND: _STEP, _SCOPE: scope})
        return None

    def prepare_to_exit_span(
        self,
        id_: str,
        bound_args: inspect.BoundArguments,
        instance: Any | None = None,
        result: Any | None = None,
        **kwargs: Any,
    ) -> SimpleSpan | None:
        """Record what a tracked span produced."""
        span = self.open_spans.get(id_)
        if span is None:
            return None
        kind, scope = span.tags.get(_KIND), span.tags.get(_SCOPE)
        if kind == _TOOL and isinstance(result, ToolOutput) and isinstance(instance, BaseTool):
            self._record_tool(instance, result, scope)
        elif (
            kind == _RUN
            and isinstance(result, StopEvent)
            and isinstance(result.result, AgentOutput)
        ):
            self._record_answer(result.result, scope)
        return span

    def prepare_to_drop_span(
        self,
        id_: str,
        bound_args: inspect.BoundArguments,
        instance: Any | None = None,
        err: BaseException | None = None,
        **kwargs: Any,
    ) -> SimpleSpan | None:
        """A tool call that raised is recorded as a failure; any other span is forgotten.

        A tool or workflow run that raised (or was cancelled) is also the run's failure
        (``AgentMemory.run_failed``, issue 28: report-only).
        """
        span = self.open_spans.get(id_)
        memory = self._memory
        if span is not None and span.tags.get(_KIND) == _TOOL and isinstance(instance, BaseTool):
            name = instance.metadata.name or "tool"
            if name != RECALL_TOOL_NAME and err is not None:
                error = f"{type(err).__name__}: {err}"
                memory.offloop.record(
                    memory.record_tool_failure, name, error, scope=span.tags.get(_SCOPE)
                )
                memory.offloop.record(memory.run_failed, f"tool {name} failed")
        elif span is not None and span.tags.get(_KIND) == _RUN and err is not None:
            memory.offloop.record(memory.run_failed, err)
        return span

    def _record_tool(self, tool: BaseTool, output: ToolOutput, scope: str | None) -> None:
        name = tool.metadata.name or output.tool_name
        if name == RECALL_TOOL_NAME:
            return
        # Spans end on the agent's event loop: the records go to the writer thread.
        memory = self._memory
        if output.is_error:
            memory.offloop.record(memory.record_tool_failure, name, output.content, scope=scope)
            memory.offloop.record(memory.run_failed, f"tool {name} failed")
        else:
            memory.offloop.record(memory.record_tool_result, name, output.content, scope=scope)

    def _record_answer(self, output: AgentOutput, scope: str | None) -> None:
        answer = output.structured_response
        if answer is None:
            answer = output.response.content or ""
        self._memory.offloop.record(self._memory.record_answer, answer, scope=scope)
