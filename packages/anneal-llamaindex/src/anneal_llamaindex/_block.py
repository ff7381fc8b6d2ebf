"""``AnnealMemoryBlock``: a LlamaIndex ``Memory`` block that recalls on every turn."""

from __future__ import annotations

from typing import Any

from anneal_memory import AgentMemory
from anneal_memory.scopes import scope_for
from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.memory.memory import BaseMemoryBlock
from llama_index.core.utils import get_tokenizer
from pydantic import Field, PrivateAttr

from anneal_llamaindex._convert import last_user_text, trim_to_fit

__all__ = ["AnnealMemoryBlock"]


class AnnealMemoryBlock(BaseMemoryBlock[str]):
    """A memory block for LlamaIndex's ``Memory`` backed by an ``AgentMemory``.

    Every time the agent reads its memory (before each model call), the block returns the
    continuity file (what earlier sessions consolidated) and the episodes relevant to the
    latest user message, both bounded by the ``AgentMemory`` limits. ``Memory`` puts the
    block into the system message (or the user message, per its ``insert_method``).

    Recall runs once per user turn: later model calls of the same turn (after tool calls)
    get the same block, so what the turn itself just recorded is not echoed back.

    Recall stays inside the user's memory (``user_id``: the scope ``user:<id>``), else the
    ``Memory``'s session (``thread:<its id>``; see :meth:`scope_for`), so two users or
    sessions on one store do not see each other's episodes. With ``scope_by_session=False``
    and no ``user_id`` every session shares the ``AgentMemory``'s scope.

    Args:
        memory: The ``AgentMemory`` to recall from.
        name: The block's name inside ``Memory`` (it tags the block in the prompt).
        priority: ``Memory`` truncation priority; 0 means the block is never truncated.
            When truncated, recalled episodes are dropped before the continuity.
        scope_by_session: Recall (and, through ``AnnealSpanHandler``, record) in the scope of
            the ``Memory``'s session id when no user is named.
        user_id: The user this memory belongs to: recall and record in ``user:<id>``.
    """

    memory: AgentMemory = Field(exclude=True, description="The AgentMemory to recall from.")
    name: str = Field(default="anneal_memory", description="The block's name.")
    description: str | None = Field(
        default="Long-term memory: consolidated continuity and episodes relevant to this turn."
    )
    priority: int = Field(default=1, description="Truncation priority (0 = never).")
    accept_short_term_memory: bool = Field(
        default=False, description="Flushed chat messages are not recorded again."
    )
    scope_by_session: bool = Field(
        default=True, description="Recall and record in the scope of the Memory's session id."
    )
    user_id: str | None = Field(
        default=None, description="The user whose memory this is (scope user:<id>)."
    )
    # Tells this block's turns apart from other users of the same AgentMemory.
    _token: object = PrivateAttr(default_factory=object)

    async def _aget(self, messages: list[ChatMessage] | None = None, **block_kwargs: Any) -> str:
        pairs = ((str(m.role.value), m.content or "") for m in messages or ())
        query, user_turns = last_user_text(pairs)
        session_id = block_kwargs.get("session_id")
        turn, memory = (self._token, session_id, user_turns, query), self.memory
        return await memory.offloop.read(
            memory.turn_context, query, turn=turn, scope=self.scope_for(session_id), default=""
        )

    def scope_for(self, session_id: object) -> str | None:
        """The scope this block recalls from in session ``session_id``.

        ``user:<user_id>`` when the block names a user (the same memory every adapter gives
        that user), else ``thread:<session id>`` (hashed when too long for a scope), else
        None: the ``AgentMemory``'s own scope (also with ``scope_by_session=False``).
        """
        thread = session_id if self.scope_by_session else None
        return scope_for(user=self.user_id, thread=thread)

    async def _aput(self, messages: list[ChatMessage]) -> None:
        # Recording goes through AnnealSpanHandler (tool results and final answers);
        # chat messages flushed out of the short-term queue add nothing new.
        return None

    async def atruncate(self, content: str, tokens_to_truncate: int) -> str | None:
        """Shed recalled episodes (the block's last lines) before the continuity.

        Tokens are counted with LlamaIndex's tokenizer (the one ``Memory`` counts with by
        default), so the block shrinks by what ``Memory`` asked instead of being dropped
        whole for missing the mark.
        """
        tokenize = get_tokenizer()
        budget = len(tokenize(content)) - max(tokens_to_truncate, 0)
        if budget <= 0:
            return None
        return trim_to_fit(content, lambda text: len(tokenize(text)) <= budget)
