"""``AnnealMiddleware``: LangChain v1 agent hooks mapped onto ``anneal_memory.AgentMemory``."""

from __future__ import annotations

import os
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Annotated, Any

from anneal_memory import AgentMemory, InvalidInputError, RecordingPolicy, Store, WrapOutcome
from anneal_memory.scopes import key_of, scope_for
from langchain.agents.middleware import AgentMiddleware, AgentState, ModelRequest, ModelResponse
from langchain.agents.middleware.types import PrivateStateAttr
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langgraph.config import get_config
from langgraph.constants import TAG_NOSTREAM
from langgraph.runtime import get_runtime
from typing_extensions import NotRequired

from anneal_langgraph._convert import (
    final_answer,
    last_user_text,
    message_text,
    user_turn,
    with_memory,
)

if TYPE_CHECKING:
    from anneal_memory import AffectSource
    from langchain.agents.middleware import ToolCallRequest
    from langchain_core.language_models import BaseChatModel
    from langgraph.runtime import Runtime
    from langgraph.types import Command

__all__ = ["AnnealMiddleware"]

# langchain 1.0 keeps the system prompt as text; 1.1 made it a SystemMessage.
_HAS_SYSTEM_MESSAGE = "system_message" in ModelRequest.__dataclass_fields__
# The wrap's model call is not part of the user's run: no callbacks inherited from the graph
# (so neither `stream_mode="messages"` nor `astream_events` shows its reply), and tagged
# nostream for stream modes that look at tags.
_WRAP_CONFIG = RunnableConfig(tags=[TAG_NOSTREAM, "anneal-memory:wrap"], callbacks=[])
# The run keys that name a scope of the scheme (anneal_memory.scopes.scope_for).
SCOPE_KEYS = {"user_id": "user", "thread_id": "thread", "assistant_id": "agent"}


class AnnealState(AgentState[Any]):
    """Agent state plus this middleware's keys.

    ``anneal_run`` (private) is this run's id, part of the turn key; ``anneal_memory`` is in
    the run's result when it wrapped, something failed or records wait for a locked store:
    the wrap outcome, the failures and the number of queued records.
    """

    anneal_run: NotRequired[Annotated[str, PrivateStateAttr]]
    anneal_memory: NotRequired[dict[str, Any]]


class AnnealMiddleware(AgentMiddleware[AnnealState, Any]):
    """Living memory for a ``create_agent`` agent.

    Once per user turn, the continuity file (what earlier sessions consolidated) and the
    episodes relevant to the latest user message are recalled; every model call of that turn
    gets this same block appended to its system prompt, so the calls after a tool call are not
    handed back the tool result the turn just recorded. Tool results and the final answer are
    recorded; when the agent finishes, the session is wrapped with the agent's own model (or
    ``wrap_model``).

    Args:
        memory: An ``AgentMemory``, a ``Store``, or a database path.
        session_id: This session's id for the wrap (needed on baton-protected stores).
            Ignored when ``memory`` is an ``AgentMemory``.
        wrap_on_end: Wrap after every agent run (for one-shot agents, whose run is the whole
            session). Default False: call :meth:`wrap` / :meth:`awrap` when the
            conversation ends, and let ``wrap_every`` wrap long conversations on the way.
        wrap_every: At a run's end, also wrap once this many episodes wait since the last
            wrap (default 20). A run of this framework is one turn of a conversation, so
            wrapping after every run would spend a model call per turn.
        wrap_model: The model that compresses the session; defaults to the agent's model.
        affect: Optional affect self-report passed to the save (see ``AgentMemory.wrap``).
        policy: Recording policy when ``memory`` is not an ``AgentMemory``.
        scope_by: The run keys that scope the memory, read from the run's context
            (``invoke(..., context=...)``, an attribute or key) or its
            ``config["configurable"]``: ``user_id`` (default) gives the scope ``user:<id>``,
            ``thread_id`` ``thread:<id>``, ``assistant_id`` ``agent:<id>``, the first
            one with a value winning (``anneal_memory.scopes.scope_for``). A run invoked
            with ``user_id`` ``alice`` records into and recalls from ``user:alice`` only,
            the same memory every adapter gives Alice; a run without them uses the
            ``AgentMemory``'s own scope. ``("user_id", "thread_id")`` falls back to the
            conversation; ``()`` shares one memory across every run.

    Attributes:
        memory: The ``AgentMemory`` this middleware drives.
        last_wrap: The outcome of the most recent wrap, or None before the first.
    """

    state_schema = AnnealState

    def __init__(
        self,
        memory: AgentMemory | Store | str | os.PathLike[str],
        *,
        session_id: str | None = None,
        wrap_on_end: bool = False,
        wrap_every: int | None = 20,
        wrap_model: BaseChatModel | None = None,
        affect: AffectSource = None,
        policy: RecordingPolicy | None = None,
        scope_by: Sequence[str] = ("user_id",),
    ) -> None:
        super().__init__()
        unknown = [key for key in scope_by if key not in SCOPE_KEYS]
        if unknown:
            raise InvalidInputError(
                f"scope_by takes {', '.join(SCOPE_KEYS)}, got {', '.join(map(repr, unknown))}"
            )
        self.scope_by = tuple(scope_by)
        self.memory = AgentMemory.of(memory, session_id=session_id, policy=policy)
        self.wrap_on_end = wrap_on_end
        self.wrap_every = wrap_every
        self.wrap_model = wrap_model
        self.affect = affect
        self.last_wrap: WrapOutcome | None = None
        self._agent_model: BaseChatModel | None = None

    # -- run start ---------------------------------------------------------------------

    def before_agent(self, state: AnnealState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        """Give this run a fresh id, part of the turn key for ``AgentMemory.turn_context``.

        Runs (and so threads) sharing one middleware never share a memory block, even when
        they ask the same question at the same point of their conversations.
        """
        return {"anneal_run": uuid.uuid4().hex}

    async def abefore_agent(
        self, state: AnnealState, runtime: Runtime[Any]
    ) -> dict[str, Any] | None:
        """Async :meth:`before_agent`."""
        return self.before_agent(state, runtime)

    # -- one memory block per user turn ------------------------------------------------

    def _turn_args(self, request: ModelRequest[Any]) -> tuple[str, object, str | None]:
        self._agent_model = request.model
        state = request.state
        turn = (state.get("anneal_run"), *user_turn(state.get("messages") or request.messages))
        return last_user_text(request.messages), turn, self._scope()

    def _with_memory(self, request: ModelRequest[Any], block: str) -> ModelRequest[Any]:
        if not block:
            return request
        system = with_memory(request.system_prompt, block)
        if _HAS_SYSTEM_MESSAGE:
            return request.override(system_message=SystemMessage(content=system))
        return request.override(system_prompt=system)  # type: ignore[call-arg]

    def wrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], ModelResponse[Any]],
    ) -> ModelResponse[Any]:
        """Add this turn's memory block (startup context and recall) to the system prompt."""
        prompt, turn, scope = self._turn_args(request)
        block = self.memory.turn_context(prompt, turn=turn, scope=scope)
        try:
            return handler(self._with_memory(request, block))
        except BaseException as exc:  # the model call raised or was cancelled: a failure
            self.memory.offloop.record(self.memory.run_failed, exc)
            raise

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResponse[Any]:
        """Async :meth:`wrap_model_call`: the store is read off the event loop, bounded."""
        prompt, turn, scope = self._turn_args(request)
        block = await self.memory.offloop.read(
            self.memory.turn_context, prompt, turn=turn, scope=scope, default=""
        )
        try:
            return await handler(self._with_memory(request, block))
        except BaseException as exc:  # raised or cancelled: reported off the event loop
            self.memory.offloop.record(self.memory.run_failed, exc)
            raise

    # -- recording ---------------------------------------------------------------------

    def _record_tool(self, request: ToolCallRequest, result: ToolMessage | Command[Any]) -> None:
        if not isinstance(result, ToolMessage):
            return
        name, text, scope = request.tool_call["name"], message_text(result), self._scope()
        memory = self.memory  # on an event loop the record goes to the writer thread
        if result.status == "error":  # the tool raised; its error text is no knowledge
            memory.offloop.record(memory.record_tool_failure, name, text, scope=scope)
            memory.offloop.record(memory.run_failed, f"tool {name} failed")
        else:
            memory.offloop.record(memory.record_tool_result, name, text, scope=scope)

    def wrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], ToolMessage | Command[Any]],
    ) -> ToolMessage | Command[Any]:
        """Run the tool, then record what it returned (a raise is the run's failure)."""
        try:
            result = handler(request)
        except BaseException as exc:
            self.memory.offloop.record(self.memory.run_failed, exc)
            raise
        self._record_tool(request, result)
        return result

    async def awrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command[Any]]],
    ) -> ToolMessage | Command[Any]:
        """Async :meth:`wrap_tool_call`."""
        try:
            result = await handler(request)
        except BaseException as exc:
            self.memory.offloop.record(self.memory.run_failed, exc)
            raise
        self._record_tool(request, result)
        return result

    # -- session end -------------------------------------------------------------------

    def after_agent(self, state: AnnealState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        """Record the final answer, then wrap when ``wrap_on_end`` or ``wrap_every`` says so."""
        self._record_answer(state)
        wrapped = self.wrap_on_end or self.memory.wrap_due(self.wrap_every, scope=self._scope())
        if wrapped:
            self.wrap()
        return self._report(wrapped=wrapped)

    async def aafter_agent(
        self, state: AnnealState, runtime: Runtime[Any]
    ) -> dict[str, Any] | None:
        """Async :meth:`after_agent`: the store is used off the event loop, waits bounded.

        While another process holds the store's write lock, the run's records wait in the
        writer thread and nothing wraps: the run ends after at most one bounded wait.
        """
        self._record_answer(state)
        memory = self.memory
        wrapped = await memory.offloop.read(
            memory.wrap_due, self.wrap_every, scope=self._scope(), default=False
        )
        if self.wrap_on_end and not wrapped:
            wrapped = await memory.offloop.settle()
        if wrapped:
            await self.awrap()
        return self._report(wrapped=wrapped)

    def _report(self, *, wrapped: bool) -> dict[str, Any] | None:
        """The ``anneal_memory`` state update: the wrap's outcome and the failures so far."""
        failures, queued = self.memory.failures, self.memory.offloop.pending
        if not wrapped and not failures.total and not queued:
            return None
        wrap = self.last_wrap if wrapped else None
        return {
            "anneal_memory": {
                "wrap": None
                if wrap is None
                else {"status": str(wrap.status), "message": wrap.message},
                "queued": queued,
                "failures": {
                    "record": failures.record,
                    "recall": failures.recall,
                    "wrap": failures.wrap,
                    "last": None if failures.last is None else failures.last.error,
                },
            }
        }

    def _record_answer(self, state: AnnealState) -> None:
        answer = final_answer(state.get("messages", []))
        if answer is not None:
            self.memory.offloop.record(self.memory.record_answer, answer, scope=self._scope())

    def _scope(self, configurable: Mapping[str, Any] | None = None) -> str | None:
        """The scope of ``configurable`` or of the run's config (``scope_by`` keys).

        None outside any run when no ``configurable`` is given.
        """
        if not self.scope_by:
            return None
        if configurable is None:
            try:
                configurable = get_config().get("configurable") or {}
            except RuntimeError:  # called outside a graph run
                return None
            context = _run_context()
        else:
            context = None
        kinds = {
            SCOPE_KEYS[key]: key_of(context, key) or configurable.get(key) for key in self.scope_by
        }
        return scope_for(**kinds)

    def _compressor_model(self) -> BaseChatModel:
        model = self.wrap_model or self._agent_model
        if model is None:
            raise RuntimeError("no model to wrap with yet: run the agent first or pass wrap_model=")
        return model

    def wrap(self, *, configurable: Mapping[str, Any] | None = None) -> WrapOutcome:
        """Wrap the session now with the agent's model; returns (and keeps) the outcome.

        Inside a run the run's scope is wrapped. Outside one, pass the ``configurable`` of
        the conversation to wrap (``{"user_id": "alice"}`` wraps Alice's memory); without it
        the ``AgentMemory``'s own scope is wrapped.
        """
        model = self._compressor_model()
        scope = self._scope(configurable)

        def compress(package: str) -> str:
            reply = model.invoke([HumanMessage(content=package)], config=_WRAP_CONFIG)
            return _reply_text(reply)

        self.last_wrap = self.memory.wrap(compress, affect=self.affect, scope=scope)
        return self.last_wrap

    async def awrap(self, *, configurable: Mapping[str, Any] | None = None) -> WrapOutcome:
        """Async :meth:`wrap`."""
        model = self._compressor_model()
        scope = self._scope(configurable)

        async def compress(package: str) -> str:
            reply = await model.ainvoke([HumanMessage(content=package)], config=_WRAP_CONFIG)
            return _reply_text(reply)

        self.last_wrap = await self.memory.awrap(compress, affect=self.affect, scope=scope)
        return self.last_wrap


def _reply_text(reply: object) -> str:
    if isinstance(reply, AIMessage):
        return message_text(reply)
    return str(reply)


def _run_context() -> object:
    """The run's ``context`` (LangGraph's runtime context), None outside one or without it."""
    try:
        return get_runtime().context
    except (RuntimeError, KeyError, AttributeError):
        return None
