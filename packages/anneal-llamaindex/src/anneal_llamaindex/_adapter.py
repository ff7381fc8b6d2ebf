"""``AnnealLlamaIndex``: one object that plugs an ``AgentMemory`` into a LlamaIndex agent."""

from __future__ import annotations

import os
from collections.abc import Iterable
from types import TracebackType
from typing import TYPE_CHECKING, Any

from anneal_memory import AgentMemory, InvalidInputError, RecordingPolicy, Store, WrapOutcome
from anneal_memory.scopes import scope_for
from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.llms import LLM
from llama_index.core.memory import Memory
from llama_index.core.tools import FunctionTool
from llama_index.core.workflow import Context

from anneal_llamaindex._block import AnnealMemoryBlock
from anneal_llamaindex._handler import RECALL_TOOL_NAME, AnnealSpanHandler

if TYPE_CHECKING:
    from anneal_memory import AffectSource

__all__ = ["WRAP_INSTRUCTIONS", "AnnealLlamaIndex"]

WRAP_INSTRUCTIONS = (
    "You are compressing this agent's working memory at the end of a session. Follow the "
    "instructions in the message exactly and reply with the continuity markdown only."
)


class AnnealLlamaIndex:
    """Living memory for LlamaIndex agents (``FunctionAgent``, ``ReActAgent``, ``AgentWorkflow``).

    Use it as a context manager around the agent runs: it attaches an
    :class:`AnnealSpanHandler` that records tool results and final responses, and detaches
    it on exit. Give the agent :meth:`chat_memory` (a LlamaIndex ``Memory`` whose
    :class:`AnnealMemoryBlock` adds the continuity and recalled episodes to every model
    call), optionally the :meth:`recall_tool`, and call :meth:`awrap` / :meth:`wrap` with the
    agent's LLM when the session ends: the wrap covers that session's scope (pass its
    ``memory=`` or ``session_id=``), so each session's continuity holds only its own episodes.

    Args:
        memory: An ``AgentMemory``, a ``Store``, or a database path.
        session_id: This session's id for the wrap (needed on baton-protected stores).
            Ignored when ``memory`` is an ``AgentMemory``.
        policy: Recording policy when ``memory`` is not an ``AgentMemory``.
        affect: Optional affect self-report passed to the save (see ``AgentMemory.wrap``).
        agents: Record only these agents' tool calls and answers (LlamaIndex
            instrumentation is process-wide); default: every agent in the process.
        scope_by_session: Memory per LlamaIndex session (default): a run whose ``Memory``
            has a ``session_id`` records into and recalls from the scope ``session_id=<id>``
            only (see :meth:`chat_memory`). False: every session shares the
            ``AgentMemory``'s scope.

    Attributes:
        memory: The ``AgentMemory`` this object drives.
        handler: The span handler that records.
        last_wrap: The outcome of the most recent wrap, ``None`` before the first.
    """

    def __init__(
        self,
        memory: AgentMemory | Store | str | os.PathLike[str],
        *,
        session_id: str | None = None,
        policy: RecordingPolicy | None = None,
        affect: AffectSource = None,
        agents: Iterable[Any] | None = None,
        scope_by_session: bool = True,
    ) -> None:
        self._owns_memory = not isinstance(memory, AgentMemory)
        self.memory = AgentMemory.of(memory, session_id=session_id, policy=policy)
        self.affect = affect
        self.scope_by_session = scope_by_session
        self.handler = AnnealSpanHandler(
            self.memory, agents=agents, scope_by_session=scope_by_session
        )
        self.last_wrap: WrapOutcome | None = None

    # -- recording ---------------------------------------------------------------------

    def __enter__(self) -> AnnealLlamaIndex:
        self.handler.attach()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.handler.detach()
        if self._owns_memory:  # inside an event loop, closed by the writer after its records
            self.memory.offloop.record(self.memory.close)

    # -- recall --------------------------------------------------------------------------

    def memory_block(self, **fields: Any) -> AnnealMemoryBlock:
        """Return a new :class:`AnnealMemoryBlock` (``fields`` are its pydantic fields)."""
        fields.setdefault("scope_by_session", self.scope_by_session)
        return AnnealMemoryBlock(memory=self.memory, **fields)

    def chat_memory(self, **kwargs: Any) -> Memory:
        """Return a LlamaIndex ``Memory`` with an :class:`AnnealMemoryBlock`.

        ``kwargs`` go to ``Memory.from_defaults`` (``session_id``, ``token_limit``,
        ``insert_method``, more ``memory_blocks`` ...), except ``user_id``: with it the runs
        with this ``Memory`` record into and recall from ``user:<id>``, the user's memory in
        every framework. Else, with a ``session_id``, that session's scope
        ``thread:<id>``; without one (LlamaIndex then makes up a random id) the
        ``AgentMemory``'s own scope, shared by every such conversation.
        """
        by_session = self.scope_by_session and kwargs.get("session_id") is not None
        blocks = [
            self.memory_block(scope_by_session=by_session, user_id=kwargs.pop("user_id", None)),
            *(kwargs.pop("memory_blocks", None) or ()),
        ]
        return Memory.from_defaults(memory_blocks=blocks, **kwargs)

    def recall_tool(self) -> FunctionTool:
        """Return a ``recall_memory`` tool the agent can call to search memory itself.

        It searches the scope of the run's memory session, like the memory block.
        """

        async def recall_memory(ctx: Context, query: str) -> str:
            chat_memory = await ctx.store.get("memory", default=None)
            scope, memory = self.handler.scope_of(chat_memory), self.memory
            found = await memory.offloop.read(memory.context_for, query, scope=scope, default="")
            return found or "Nothing relevant in memory."

        # LlamaIndex finds the workflow-context parameter by its (evaluated) annotation.
        recall_memory.__annotations__ = {"ctx": Context, "query": str, "return": str}
        return FunctionTool.from_defaults(
            async_fn=recall_memory,
            name=RECALL_TOOL_NAME,
            description="Search long-term memory for episodes relevant to a query (a few words).",
        )

    # -- session end -------------------------------------------------------------------

    def scope_of(
        self, memory: object = None, session_id: str | None = None, user_id: str | None = None
    ) -> str | None:
        """The scope the runs with ``memory`` (their ``memory=``), or in ``session_id``, use.

        What :meth:`wrap` covers: the scope those runs recorded in and recalled from (see
        :meth:`chat_memory`); the ``AgentMemory``'s own scope (None) with neither.

        Raises:
            InvalidInputError: Both ``memory`` and ``session_id`` were given.
        """
        if memory is not None and (session_id is not None or user_id is not None):
            raise InvalidInputError("wrap: pass memory= or session_id= / user_id=, not both")
        if memory is not None:
            return self.handler.scope_of(memory)
        return scope_for(user=user_id, thread=session_id if self.scope_by_session else None)

    async def awrap(
        self,
        llm: LLM,
        *,
        memory: object = None,
        session_id: str | None = None,
        user_id: str | None = None,
    ) -> WrapOutcome:
        """Wrap the session now, with ``llm`` (the agent's LLM) as the compressor.

        The wrap covers one conversation's scope (:meth:`scope_of`): pass the ``Memory``
        its runs got (``memory=``) or its ``session_id=``; with neither, the ``AgentMemory``'s
        own scope (the conversations whose ``Memory`` had no session id).

        Raises:
            InvalidInputError: Both ``memory`` and ``session_id`` were given.
        """
        scope = self.scope_of(memory, session_id, user_id)

        async def compress(package: str) -> str:
            return (await llm.achat(_wrap_messages(package))).message.content or ""

        return self._done(await self.memory.awrap(compress, affect=self.affect, scope=scope))

    def wrap(
        self,
        llm: LLM,
        *,
        memory: object = None,
        session_id: str | None = None,
        user_id: str | None = None,
    ) -> WrapOutcome:
        """Synchronous :meth:`awrap`, for code outside an event loop.

        Raises:
            InvalidInputError: Both ``memory`` and ``session_id`` were given.
        """
        scope = self.scope_of(memory, session_id, user_id)

        def compress(package: str) -> str:
            return llm.chat(_wrap_messages(package)).message.content or ""

        return self._done(self.memory.wrap(compress, affect=self.affect, scope=scope))

    def _done(self, outcome: WrapOutcome) -> WrapOutcome:
        self.last_wrap = outcome
        return outcome


def _wrap_messages(package: str) -> list[ChatMessage]:
    return [
        ChatMessage(role=MessageRole.SYSTEM, content=WRAP_INSTRUCTIONS),
        ChatMessage(role=MessageRole.USER, content=package),
    ]
