"""``AnnealCapability``: Pydantic AI capability hooks mapped onto ``anneal_memory.AgentMemory``."""

from __future__ import annotations

import copy
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from anneal_memory import AgentMemory, RecordingPolicy, Store, WrapOutcome
from anneal_memory.scopes import key_of, scope_for
from pydantic_ai import Agent, RunContext, Tool
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import ToolCallPart
from pydantic_ai.models import Model
from pydantic_ai.run import AgentRunResult
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import FunctionToolset

from anneal_pydantic_ai._convert import prompt_text

if TYPE_CHECKING:
    from anneal_memory import AffectSource

__all__ = ["RECALL_TOOL_NAME", "WRAP_INSTRUCTIONS", "AnnealCapability"]

RECALL_TOOL_NAME = "recall_memory"
WRAP_INSTRUCTIONS = (
    "You are compressing this agent's working memory at the end of a session. Follow the "
    "instructions in the message exactly and reply with the continuity markdown only."
)


@dataclass(init=False)
class AnnealCapability(AbstractCapability[Any]):
    """Living memory for a Pydantic AI agent.

    Add it with ``Agent(model, capabilities=[AnnealCapability(memory)])``. Every model request
    gets the continuity file (what earlier sessions consolidated) and the episodes relevant
    to the run's prompt in its instructions; tool results and the run's output are recorded;
    after the run, the session is wrapped with the run's own model (or ``wrap_model``). A wrap
    covers one scope: after a run the run's own (``scope_from``), so each user's continuity
    holds only that user's episodes; :meth:`wrap` the ``scope`` it is given.

    Args:
        memory: An ``AgentMemory``, a ``Store``, or a database path.
        session_id: This session's id for the wrap (needed on baton-protected stores).
            Ignored when ``memory`` is an ``AgentMemory``.
        wrap_on_end: Wrap after every run (for one-shot agents, whose run is the whole
            session). Default False: call :meth:`wrap` / :meth:`awrap` when the
            conversation ends, and let ``wrap_every`` wrap long conversations on the way.
        wrap_every: At a run's end, also wrap once this many episodes wait since the last
            wrap (default 20). A run of this framework is one turn of a conversation, so
            wrapping after every run would spend a model call per turn.
        wrap_model: The model (name or ``Model``) that compresses the session; defaults to
            the model of the last run.
        affect: Optional affect self-report passed to the save (see ``AgentMemory.wrap``).
        policy: Recording policy when ``memory`` is not an ``AgentMemory``.
        recall_tool: Also give the model a ``recall_memory`` tool to search memory itself.
        scope_from: Called with the run's ``RunContext``, returns the run's scope, or None
            for the ``AgentMemory``'s own scope. Default: the scope ``user:<id>`` of the
            run's ``deps.user_id`` (attribute or key; ``anneal_memory.scopes.scope_for``),
            the same memory every adapter gives that user.
        id: The capability's id within a run.

    Attributes:
        memory: The ``AgentMemory`` this capability drives.
        last_wrap: The outcome of the most recent wrap, ``None`` before the first.
    """

    memory: AgentMemory
    wrap_on_end: bool
    wrap_every: int | None
    wrap_model: Model | str | None
    affect: AffectSource
    recall_tool: bool
    scope_from: Callable[[RunContext[Any]], str | None] | None
    last_wrap: WrapOutcome | None = field(default=None, init=False, repr=False)

    def __init__(
        self,
        memory: AgentMemory | Store | str | os.PathLike[str],
        *,
        session_id: str | None = None,
        wrap_on_end: bool = False,
        wrap_every: int | None = 20,
        wrap_model: Model | str | None = None,
        affect: AffectSource = None,
        policy: RecordingPolicy | None = None,
        recall_tool: bool = False,
        scope_from: Callable[[RunContext[Any]], str | None] | None = None,
        id: str | None = "anneal_memory",
        description: str | None = None,
        defer_loading: bool = False,
    ) -> None:
        self.memory = AgentMemory.of(memory, session_id=session_id, policy=policy)
        self.wrap_on_end = wrap_on_end
        self.wrap_every = wrap_every
        self.wrap_model = wrap_model
        self.affect = affect
        self.recall_tool = recall_tool
        self.scope_from = scope_from
        self.id = id
        self.description = description
        self.defer_loading = defer_loading
        self.last_wrap = None
        self._turn = object()  # the current run's key for AgentMemory.turn_context
        self._run_model: Any = None  # the run's model (its type differs across versions)
        self._root = self  # the capability the user holds; per-run copies report to it

    # -- recall before every model request ---------------------------------------------

    def get_instructions(self) -> Callable[[RunContext[Any]], Awaitable[str]]:
        """Return the instruction function that adds memory to every model request."""
        return self._memory_instructions

    def get_toolset(self) -> FunctionToolset[Any] | None:
        """Return the ``recall_memory`` tool (it searches the run's scope) if ``recall_tool``."""
        if not self.recall_tool:
            return None
        tool = Tool(self._recall_memory, name=RECALL_TOOL_NAME, takes_ctx=True)
        return FunctionToolset([tool])

    async def for_run(self, ctx: RunContext[Any]) -> AnnealCapability:
        """Return this run's own copy: concurrent runs never share a turn's memory block.

        The copy shares the memory and reports ``last_wrap`` to the capability you hold.
        """
        run = copy.copy(self)
        run._turn = object()
        return run

    async def before_run(self, ctx: RunContext[Any]) -> None:
        """Start a new turn: the run's first model request loads memory afresh."""
        self._turn = object()

    async def _memory_instructions(self, ctx: RunContext[Any]) -> str:
        # Async on purpose: Pydantic AI runs sync functions in a worker thread, and a sync
        # stream left unclosed keeps that thread (and the process at exit) alive.
        # Recall once per run and prompt: later requests of the run (after tool calls) get
        # the same block, so what the run itself just recorded is not echoed back.
        query, memory = prompt_text(ctx.prompt), self.memory
        turn, scope = (self._turn, query), self._scope(ctx)
        return await memory.offloop.read(
            memory.turn_context, query, turn=turn, scope=scope, default=""
        )

    def _scope(self, ctx: RunContext[Any]) -> str | None:
        if self.scope_from is not None:
            return self.scope_from(ctx)
        return scope_for(user=key_of(getattr(ctx, "deps", None)))

    async def _recall_memory(self, ctx: RunContext[Any], query: str) -> str:  # noqa: D417 - ctx is not for the model
        """Search long-term memory for episodes relevant to a query.

        Args:
            query: What to look for, in a few words.
        """
        memory = self.memory
        found = await memory.offloop.read(
            memory.context_for, query, scope=self._scope(ctx), default=""
        )
        return found or "Nothing relevant in memory."

    # -- recording ---------------------------------------------------------------------

    async def after_tool_execute(
        self,
        ctx: RunContext[Any],
        *,
        call: ToolCallPart,
        tool_def: ToolDefinition,
        args: Any,
        result: Any,
    ) -> Any:
        """Record a tool result (what the recall tool returns is not new knowledge)."""
        if call.tool_name != RECALL_TOOL_NAME:
            memory = self.memory  # the record goes to the writer thread, off the event loop
            memory.offloop.record(
                memory.record_tool_result, call.tool_name, result, scope=self._scope(ctx)
            )
        return result

    async def on_tool_execute_error(
        self,
        ctx: RunContext[Any],
        *,
        call: ToolCallPart,
        tool_def: ToolDefinition,
        args: Any,
        error: Exception,
    ) -> Any:
        """A tool that raised is the run's failure (issue 28: report-only); re-raised."""
        if call.tool_name != RECALL_TOOL_NAME:
            memory = self.memory
            memory.offloop.record(memory.run_failed, f"tool {call.tool_name} failed")
        raise error

    async def on_run_error(self, ctx: RunContext[Any], *, error: BaseException) -> Any:
        """A run that raised or was cancelled is a failure of what it recalled; re-raised."""
        self.memory.offloop.record(self.memory.run_failed, error)
        raise error

    # -- session end -------------------------------------------------------------------

    async def after_run(
        self, ctx: RunContext[Any], *, result: AgentRunResult[Any]
    ) -> AgentRunResult[Any]:
        """Record the run's output, then wrap the session when ``wrap_on_end`` is set.

        The store is used off the event loop: while another process holds its write lock, the
        records wait in the writer thread and nothing wraps (one bounded wait at most).
        """
        self._run_model = self._root._run_model = ctx.model
        memory, scope = self.memory, self._scope(ctx)
        memory.offloop.record(memory.record_answer, result.output, scope=scope)
        self._turn = object()
        due = await memory.offloop.read(
            memory.wrap_due, self.wrap_every, scope=scope, default=False
        )
        if due or (self.wrap_on_end and await memory.offloop.settle()):
            await self.awrap(scope=scope)
        return result

    def _compressor(self, model: Model | str | None) -> Callable[[str], Awaitable[str]]:
        chosen = model or self.wrap_model or self._run_model
        if chosen is None:
            raise RuntimeError("no model to wrap with yet: run the agent first or pass wrap_model=")
        compressor: Agent[None, str] = Agent(chosen, instructions=WRAP_INSTRUCTIONS)

        async def compress(package: str) -> str:
            return (await compressor.run(package)).output

        return compress

    async def awrap(
        self, model: Model | str | None = None, *, scope: str | None = None, user: object = None
    ) -> WrapOutcome:
        """Wrap the session now with ``model`` (default: ``wrap_model``, else the last run's).

        The wrap covers one scope: ``user=`` names a user (the scope ``user:<id>`` its runs
        recorded in by default), ``scope=`` any scope (what ``scope_from`` returned); with
        neither, the ``AgentMemory``'s own scope.

        Raises:
            RuntimeError: No run has happened yet and no model was given.
        """
        compress = self._compressor(model)
        where = scope if scope is not None else scope_for(user=user)
        outcome = await self.memory.awrap(compress, affect=self.affect, scope=where)
        self.last_wrap = self._root.last_wrap = outcome
        self._turn = object()
        return outcome

    def wrap(
        self, model: Model | str | None = None, *, scope: str | None = None, user: object = None
    ) -> WrapOutcome:
        """Synchronous :meth:`awrap`, for code outside an event loop.

        Raises:
            RuntimeError: No run has happened yet and no model was given.
        """
        compress = self._compressor(model)
        where = scope if scope is not None else scope_for(user=user)
        outcome = self.memory.wrap(compress, affect=self.affect, scope=where)
        self.last_wrap = self._root.last_wrap = outcome
        self._turn = object()
        return outcome
