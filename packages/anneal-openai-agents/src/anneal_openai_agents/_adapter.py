"""``AnnealHooks``: OpenAI Agents SDK run hooks mapped onto ``anneal_memory.AgentMemory``."""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import inspect
import os
from collections.abc import Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, Any

from agents import (
    Agent,
    FunctionTool,
    RunConfig,
    RunContextWrapper,
    RunHooks,
    Runner,
    RunResult,
    RunResultStreaming,
    Session,
    Tool,
)
from agents import function_tool as _function_tool
from agents.models.interface import Model
from agents.run_config import CallModelData, ModelInputData
from agents.tracing import get_current_trace
from anneal_memory import AgentMemory, RecordingPolicy, Store, WrapOutcome
from anneal_memory.scopes import key_of, scope_for

from anneal_openai_agents._convert import join_blocks, latest_user_text, tool_error

if TYPE_CHECKING:
    from anneal_memory import AffectSource

__all__ = ["WRAP_INSTRUCTIONS", "AnnealHooks"]

WRAP_INSTRUCTIONS = (
    "You are compressing this agent's working memory at the end of a session. Follow the "
    "instructions in the message exactly and reply with the continuity markdown only."
)

# The hooks and the session id of the run in progress (set by AnnealHooks.run & co.).
_RUN_SESSION: contextvars.ContextVar[tuple[object, str | None] | None] = contextvars.ContextVar(
    "anneal_openai_agents_run_session", default=None
)
_NO_CONTEXT = object()  # wrap() without a run context: scope_from is not asked


class AnnealHooks(RunHooks[Any]):
    """Living memory for an Agents SDK run.

    Pass the hooks and the config from :meth:`run_config` to ``Runner.run``. Before every
    model call, the continuity file (what earlier sessions consolidated) and the episodes
    relevant to the newest user message are added to the instructions; each tool result and
    the final output are recorded; when the agent finishes, the session is wrapped with the
    agent's own model (or ``wrap_model``). A wrap covers one scope: at a run's end the scope
    the run recorded in (``scope_from`` and the session), so each session's continuity holds
    only its own episodes; :meth:`wrap` the scope its arguments name.

    Args:
        memory: An ``AgentMemory``, a ``Store``, or a database path.
        session_id: This session's id for the wrap (needed on baton-protected stores).
            Ignored when ``memory`` is an ``AgentMemory``.
        wrap_on_end: Wrap when the agent produces its final output (for one-shot agents,
            whose run is the whole session). Default False: call :meth:`wrap` / :meth:`awrap`
            when the conversation ends, and let ``wrap_every`` wrap long ones on the way.
        wrap_every: At a run's end, also wrap once this many episodes wait since the last
            wrap (default 20). A run of this framework is one turn of a conversation, so
            wrapping after every run would spend a model call per turn.
        wrap_model: The model (name or ``Model``) that compresses the session; defaults to
            the model of the agent that finished.
        affect: Optional affect self-report passed to the save (see ``AgentMemory.wrap``).
        policy: Recording policy when ``memory`` is not an ``AgentMemory``.
        recall_tool_name: Name of the tool :meth:`recall_tool` builds.
        scope_from: Called with the run's context object (``Runner.run(..., context=...)``),
            returns the run's scope, or None. Default: the scope ``user:<id>`` of the
            context's ``user_id`` (attribute or key), the same memory every adapter gives
            that user (``anneal_memory.scopes.scope_for``).
        scope_by_session: Memory per ``Session`` for runs that name no user: a run started
            with :meth:`run`, :meth:`run_sync` or :meth:`run_streamed` and a ``session=``
            records into and recalls from the scope ``thread:<its id>``. Run hooks never see
            the session of a plain ``Runner.run`` (use :class:`AnnealSession` for that).

    Attributes:
        memory: The ``AgentMemory`` these hooks drive.
        last_wrap: The outcome of the most recent wrap, ``None`` before the first.
    """

    def __init__(
        self,
        memory: AgentMemory | Store | str | os.PathLike[str],
        *,
        session_id: str | None = None,
        wrap_on_end: bool = False,
        wrap_every: int | None = 20,
        wrap_model: str | Model | None = None,
        affect: AffectSource = None,
        policy: RecordingPolicy | None = None,
        recall_tool_name: str = "recall_memory",
        scope_from: Callable[[Any], str | None] | None = None,
        scope_by_session: bool = True,
    ) -> None:
        self.memory = AgentMemory.of(memory, session_id=session_id, policy=policy)
        self.wrap_on_end = wrap_on_end
        self.wrap_every = wrap_every
        self.wrap_model = wrap_model
        self.affect = affect
        self.recall_tool_name = recall_tool_name
        self.scope_from = scope_from
        self.scope_by_session = scope_by_session
        self.last_wrap: WrapOutcome | None = None
        self._turn = object()  # the current run's key for AgentMemory.turn_context
        self._agent: Agent[Any] | None = None
        self._config = RunConfig()

    # -- recall before every model call ------------------------------------------------

    def run_config(self, base: RunConfig | None = None) -> RunConfig:
        """Return ``base`` (or a default config) with the memory's model-input filter added.

        A ``call_model_input_filter`` already on ``base`` runs first; the memory filter then
        sees its result. The wrap uses this config's model, model provider and tracing switch.
        """
        base = base if base is not None else RunConfig()
        user_filter = base.call_model_input_filter
        if getattr(user_filter, "anneal_hooks", None) is self:  # already this memory's config
            self._config = base
            return base

        async def call_model_input_filter(data: CallModelData[Any]) -> ModelInputData:
            if user_filter is not None:
                updated = user_filter(data)
                model_data = await updated if inspect.isawaitable(updated) else updated
                data = dataclasses.replace(data, model_data=model_data)
            return await self.afilter_model_input(data)

        call_model_input_filter.anneal_hooks = self  # type: ignore[attr-defined]
        self._config = dataclasses.replace(base, call_model_input_filter=call_model_input_filter)
        return self._config

    def filter_model_input(self, data: CallModelData[Any]) -> ModelInputData:
        """Add the startup context and the recall block to one model call's instructions.

        Recall runs once per user message: later calls of the same turn (after tool calls)
        get the same block, so what the run just recorded is not echoed back to the model.
        """
        prompt, turn, scope = self._turn_args(data)
        block = self.memory.turn_context(prompt, turn=turn, scope=scope)
        return self._with_block(data, block)

    async def afilter_model_input(self, data: CallModelData[Any]) -> ModelInputData:
        """:meth:`filter_model_input` with the store read off the event loop (bounded wait)."""
        prompt, turn, scope = self._turn_args(data)
        memory = self.memory
        block = await memory.offloop.read(
            memory.turn_context, prompt, turn=turn, scope=scope, default=""
        )
        return self._with_block(data, block)

    def _turn_args(self, data: CallModelData[Any]) -> tuple[str, object, str | None]:
        self._agent = data.agent
        items = data.model_data.input
        prompt = latest_user_text(items)
        return prompt, (self._run_key(items), prompt), self._scope(data.context)

    @staticmethod
    def _with_block(data: CallModelData[Any], block: str) -> ModelInputData:
        instructions = join_blocks(data.model_data.instructions, block)
        return ModelInputData(input=data.model_data.input, instructions=instructions or None)

    def _scope(self, user_context: object) -> str | None:
        return self._scope_in_run(self._own_scope(user_context))

    def _own_scope(self, user_context: object) -> str | None:
        """``scope_from(context)``, or ``user:<context.user_id>`` without ``scope_from``."""
        if self.scope_from is not None:
            return self.scope_from(user_context)
        return scope_for(user=key_of(user_context))

    def _scope_in_run(self, own: str | None) -> str | None:
        running = _RUN_SESSION.get()
        if running is None or running[0] is not self or running[1] is None:
            return own
        return self._in_session_scope(own, running[1])

    def _in_session_scope(self, own: str | None, session_id: str) -> str | None:
        return own if own is not None else scope_for(thread=session_id)

    def _session_id(self, session: Session | None) -> str | None:
        """The id scoping runs in ``session`` (None when session scoping is off)."""
        session_id = getattr(session, "session_id", None) if self.scope_by_session else None
        return session_id if isinstance(session_id, str) else None

    # -- runs in a session -------------------------------------------------------------

    @contextlib.contextmanager
    def _in_session(self, session: Session | None) -> Iterator[None]:
        token = _RUN_SESSION.set((self, self._session_id(session)))
        try:
            yield
        finally:
            _RUN_SESSION.reset(token)

    async def run(
        self,
        agent: Agent[Any],
        input: Any,
        *,
        session: Session | None = None,
        run_config: RunConfig | None = None,
        **kwargs: Any,
    ) -> RunResult:
        """``Runner.run`` with these hooks and memory, scoped by ``session``'s id.

        ``run_config`` gets the memory filter (:meth:`run_config`); every other keyword
        (``context``, ``max_turns`` ...) goes to ``Runner.run`` as is.
        """
        config = self.run_config(run_config)
        with self._in_session(session):
            return await Runner.run(
                agent, input, session=session, hooks=self, run_config=config, **kwargs
            )

    def run_sync(
        self,
        agent: Agent[Any],
        input: Any,
        *,
        session: Session | None = None,
        run_config: RunConfig | None = None,
        **kwargs: Any,
    ) -> RunResult:
        """``Runner.run_sync`` with these hooks and memory, scoped by ``session``'s id."""
        config = self.run_config(run_config)
        with self._in_session(session):
            return Runner.run_sync(
                agent, input, session=session, hooks=self, run_config=config, **kwargs
            )

    def run_streamed(
        self,
        agent: Agent[Any],
        input: Any,
        *,
        session: Session | None = None,
        run_config: RunConfig | None = None,
        **kwargs: Any,
    ) -> RunResultStreaming:
        """``Runner.run_streamed`` with these hooks and memory, scoped by ``session``'s id.

        The run's task starts here and keeps the session's scope while it streams.
        """
        config = self.run_config(run_config)
        with self._in_session(session):
            return Runner.run_streamed(
                agent, input, session=session, hooks=self, run_config=config, **kwargs
            )

    def _run_key(self, items: str | list[Any]) -> object:
        # Every Runner.run sets its own trace as the current one (a no-op trace when tracing
        # is off), in the context all its model calls share: the trace tells this run from
        # concurrent ones. Runs inside one user trace are told apart by their user turns.
        trace = get_current_trace()
        users = sum(1 for i in items if isinstance(i, dict) and i.get("role") == "user")
        if trace is None or isinstance(items, str):
            return self._turn  # outside any run's trace: this instance's turn, renewed per run
        return (_Identity(trace), users)

    def recall_tool(self) -> FunctionTool:
        """Return a function tool the model can call to search memory itself.

        It searches the run's scope (``scope_from`` and the session), like the recall block.
        """
        memory, scope_of = self.memory, self._scope

        def recall(ctx: RunContextWrapper[Any], query: str) -> str:  # noqa: D417 - ctx is not for the model
            """Search long-term memory for episodes relevant to a query.

            Args:
                query: What to look for, in a few words.
            """
            found = memory.context_for(query, scope=scope_of(ctx.context))
            return found or "Nothing relevant in memory."

        return _function_tool(recall, name_override=self.recall_tool_name)

    # -- recording ---------------------------------------------------------------------

    async def on_tool_end(
        self, context: RunContextWrapper[Any], agent: Agent[Any], tool: Tool, result: object
    ) -> None:
        """Record a tool result (what the recall tool returns is not new knowledge).

        A failed call (the SDK hands the model its generic error text instead of a result)
        is recorded as an outcome saying the tool failed, not as knowledge, and is the run's
        failure (``AgentMemory.run_failed``, issue 28: report-only).
        """
        if tool.name == self.recall_tool_name:
            return
        error, scope, memory = tool_error(result), self._scope(context.context), self.memory
        if error is not None:
            memory.offloop.record(memory.record_tool_failure, tool.name, error, scope=scope)
            memory.offloop.record(memory.run_failed, f"tool {tool.name} failed")
        else:
            memory.offloop.record(memory.record_tool_result, tool.name, result, scope=scope)

    # -- session end -------------------------------------------------------------------

    async def on_agent_end(
        self, context: RunContextWrapper[Any], agent: Agent[Any], output: Any
    ) -> None:
        """Record the final output, then wrap the session when ``wrap_on_end`` is set.

        The store is used off the event loop: while another process holds its write lock, the
        records wait in the writer thread and nothing wraps (one bounded wait at most).
        """
        self._agent, memory = agent, self.memory
        scope = self._scope(context.context)
        memory.offloop.record(memory.record_answer, output, scope=scope)
        self._turn = object()
        due = await memory.offloop.read(
            memory.wrap_due, self.wrap_every, scope=scope, default=False
        )
        if due or (self.wrap_on_end and await memory.offloop.settle()):
            await self._awrap_scope(agent, scope)

    def _compressor(self, agent: Agent[Any] | None) -> Callable[[str], Awaitable[str]]:
        agent = agent or self._agent
        if agent is None and self.wrap_model is None:
            raise RuntimeError("no model to wrap with yet: run the agent first or pass wrap_model=")
        model = self.wrap_model or (agent.model if agent is not None else None)
        name = f"{agent.name if agent is not None else 'agent'} (memory wrap)"
        wrap_agent: Agent[Any] = Agent(name=name, instructions=WRAP_INSTRUCTIONS, model=model)
        config = RunConfig(
            model=None if self.wrap_model is not None else self._config.model,
            model_provider=self._config.model_provider,
            tracing_disabled=self._config.tracing_disabled,
            workflow_name="anneal-memory wrap",
        )

        async def compress(package: str) -> str:
            result = await Runner.run(wrap_agent, package, max_turns=1, run_config=config)
            return str(result.final_output)

        return compress

    def _wrap_scope(self, context: object, session: Session | None) -> str | None:
        """The scope a run with ``context`` in ``session`` records in (see :meth:`awrap`)."""
        own = None if context is _NO_CONTEXT else self._own_scope(context)
        if session is None:
            return self._scope_in_run(own)
        session_id = self._session_id(session)
        return own if session_id is None else self._in_session_scope(own, session_id)

    async def _awrap_scope(self, agent: Agent[Any] | None, scope: str | None) -> WrapOutcome:
        compress = self._compressor(agent)
        self.last_wrap = await self.memory.awrap(compress, affect=self.affect, scope=scope)
        self._turn = object()
        return self.last_wrap

    async def awrap(
        self,
        agent: Agent[Any] | None = None,
        *,
        context: object = _NO_CONTEXT,
        session: Session | None = None,
    ) -> WrapOutcome:
        """Wrap the session now with ``agent``'s model (default: the last agent that ran).

        The wrap covers the scope the runs with ``context`` (the ``Runner.run(context=...)``
        object: its user, or ``scope_from``) in ``session`` recorded in: the user's scope,
        else ``thread:<session id>``. Without ``session``, inside a :meth:`run` its session
        counts; without either argument, outside any run: the ``AgentMemory``'s own scope.

        Raises:
            RuntimeError: No agent has run yet and no ``wrap_model`` was given.
        """
        return await self._awrap_scope(agent, self._wrap_scope(context, session))

    def wrap(
        self,
        agent: Agent[Any] | None = None,
        *,
        context: object = _NO_CONTEXT,
        session: Session | None = None,
    ) -> WrapOutcome:
        """Synchronous :meth:`awrap`, for code outside an event loop.

        Raises:
            RuntimeError: No agent has run yet and no ``wrap_model`` was given.
        """
        compress = self._compressor(agent)
        scope = self._wrap_scope(context, session)
        self.last_wrap = self.memory.wrap(compress, affect=self.affect, scope=scope)
        self._turn = object()
        return self.last_wrap


class _Identity:
    """A key equal only to a key of the very same object (held, so its id is never reused)."""

    __slots__ = ("obj",)

    def __init__(self, obj: object) -> None:
        self.obj = obj

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Identity) and other.obj is self.obj

    def __hash__(self) -> int:
        return id(self.obj)
