"""``AnnealSession``: the Agents SDK's ``Session`` slot, with history and long-term memory."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from agents.memory.session import SessionABC
from agents.models.interface import Model
from anneal_memory import AgentMemory, RecordingPolicy, Store, WrapOutcome
from anneal_memory.scopes import key_of, scope_for
from anneal_memory.sessions import DEFAULT_KEEP, add_items, clear_session, get_items, pop_item

from anneal_openai_agents._adapter import AnnealHooks
from anneal_openai_agents._convert import conversation_text, run_records

if TYPE_CHECKING:
    from agents import RunContextWrapper
    from agents.items import TResponseInputItem

__all__ = ["MEMORY_ITEM_PREFIX", "AnnealSession"]

MEMORY_ITEM_PREFIX = "Memory from earlier sessions (anneal-memory):"


class AnnealSession(SessionABC):
    """A ``Session`` that keeps the conversation and the long-term memory in one store.

    ``Runner.run(agent, question, session=AnnealSession("user-42", "memory.db"))`` alone
    gives the run its history (the session's items, in the store's ``session_items`` table,
    at most ``max_items`` of them), its long-term memory (a system item before the history:
    the scope's continuity and what is relevant to the conversation so far, never saved into
    the history) and its recording (tool results and the final answer, as ``AnnealHooks``
    records them); once ``wrap_every`` episodes wait, and at :meth:`clear_session`, the scope
    is wrapped with ``wrap_model``. The store is used off the event loop.

    The scope is ``user:<user_id>`` when a user is named (``user_id=``, or the run context's
    ``user_id``), else ``thread:<session_id>`` (``docs/scopes.md``).

    Args:
        session_id: The conversation's id.
        memory: An ``AgentMemory``, a ``Store``, or a database path (or PostgreSQL URL).
        user_id: The user this conversation belongs to: memory in ``user:<id>``.
        max_items: Items the session keeps; older ones are deleted as new ones arrive.
        recall: Put the memory item before the history on each run.
        wrap_model: The model (name or ``Model``) that wraps; without it, wrap with
            :meth:`awrap` and an agent.
        wrap_every: Wrap once this many episodes wait in the scope (None: only when asked).
        policy: Recording policy when ``memory`` is not an ``AgentMemory``.

    Attributes:
        memory: The ``AgentMemory`` this session records into.
        last_wrap: The outcome of the most recent wrap, None before the first.
    """

    session_settings = None

    def __init__(
        self,
        session_id: str,
        memory: AgentMemory | Store | str | os.PathLike[str],
        *,
        user_id: str | None = None,
        max_items: int = DEFAULT_KEEP,
        recall: bool = True,
        wrap_model: str | Model | None = None,
        wrap_every: int | None = 20,
        policy: RecordingPolicy | None = None,
    ) -> None:
        self.session_id = session_id
        self.memory = AgentMemory.of(memory, policy=policy)
        self.user_id = user_id
        self.max_items = max_items
        self.recall = recall
        self.wrap_every = wrap_every
        self._hooks = AnnealHooks(self.memory, wrap_model=wrap_model, wrap_every=None)
        self._context_user: object = None
        self._tools: dict[str, str] = {}
        self.last_wrap: WrapOutcome | None = None

    @property
    def scope(self) -> str | None:
        """The scope this session records into and recalls from."""
        user = self.user_id if self.user_id is not None else self._context_user
        return scope_for(user=user, thread=self.session_id)

    # -- the Session protocol ----------------------------------------------------------------

    async def get_items(
        self, limit: int | None = None, *, wrapper: RunContextWrapper[Any] | None = None
    ) -> list[TResponseInputItem]:
        """The history (the newest ``limit`` items); in a run, the memory item before it."""
        if wrapper is not None:
            self._context_user = key_of(wrapper.context)
        offloop = self.memory.offloop
        await offloop.settle()
        history = await asyncio.to_thread(get_items, self.memory.store, self.session_id, limit)
        if wrapper is None or not self.recall:
            return history  # type: ignore[return-value]
        memory = self.memory
        query = conversation_text(history)
        block = await offloop.read(
            memory.turn_context, query, turn=object(), scope=self.scope, default=""
        )
        if not block:
            return history  # type: ignore[return-value]
        note = {"role": "system", "content": f"{MEMORY_ITEM_PREFIX}\n\n{block}"}
        return [note, *history]  # type: ignore[list-item]

    async def add_items(
        self,
        items: list[TResponseInputItem],
        *,
        wrapper: RunContextWrapper[Any] | None = None,
    ) -> None:
        """Keep the items (in the writer thread, in order) and record what the run learnt."""
        if wrapper is not None:
            self._context_user = key_of(wrapper.context)
        plain = [dict(item) for item in items if isinstance(item, Mapping)]
        memory, scope = self.memory, self.scope
        memory.offloop.submit(add_items, memory.store, self.session_id, plain, keep=self.max_items)
        answered = False
        for kind, name, text in run_records(plain, self._tools):
            if kind == "tool":
                memory.offloop.submit(memory.record_tool_result, name, text, scope=scope)
            elif kind == "failure":
                memory.offloop.submit(memory.record_tool_failure, name, text, scope=scope)
            else:
                memory.offloop.submit(memory.record_answer, text, scope=scope)
                answered = True
        if answered and self._hooks.wrap_model is not None:
            due = await memory.offloop.read(
                memory.wrap_due, self.wrap_every, scope=scope, default=False
            )
            if due:
                await self.awrap()
        await memory.offloop.settle()  # bounded: the run ends with its items kept

    async def pop_item(
        self, *, wrapper: RunContextWrapper[Any] | None = None
    ) -> TResponseInputItem | None:
        """Remove and return the newest item."""
        await self.memory.offloop.settle()
        item = await asyncio.to_thread(pop_item, self.memory.store, self.session_id)
        return item  # type: ignore[return-value]

    async def clear_session(self, *, wrapper: RunContextWrapper[Any] | None = None) -> None:
        """End the conversation: wrap its scope (with ``wrap_model``), then delete its items."""
        if self._hooks.wrap_model is not None:
            await self.awrap()
        await self.memory.offloop.settle()
        await asyncio.to_thread(clear_session, self.memory.store, self.session_id)

    # -- the wrap ----------------------------------------------------------------------------

    async def awrap(self, agent: Any = None) -> WrapOutcome:
        """Wrap this session's scope now, with ``wrap_model`` or ``agent``'s model.

        Raises:
            RuntimeError: Neither ``wrap_model`` nor an agent was given.
        """
        self.last_wrap = await self._hooks._awrap_scope(agent, self.scope)
        return self.last_wrap
