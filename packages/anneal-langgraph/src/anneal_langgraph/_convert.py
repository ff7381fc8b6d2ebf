"""Pure helpers between LangChain messages and anneal-memory text.

Typed with Protocols, not LangChain classes, so they run (and are tested) on plain objects.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

__all__ = ["final_answer", "last_user_text", "message_text", "user_turn", "with_memory"]


class MessageLike(Protocol):
    """What these helpers read from a LangChain message."""

    @property
    def type(self) -> str:
        """``human``, ``ai``, ``tool``, ``system``..."""
        ...

    @property
    def content(self) -> str | list[Any]:
        """A string, or a list of content blocks."""
        ...


def message_text(message: MessageLike | None) -> str:
    """The plain text of a message: the string content, or its text blocks joined."""
    if message is None:
        return ""
    content = message.content
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict) and block.get("type") == "text":
            parts.append(str(block.get("text", "")))
    return "".join(parts)


def last_user_text(messages: Sequence[MessageLike]) -> str:
    """The text of the most recent human message ("" when there is none)."""
    for message in reversed(messages):
        if message.type == "human":
            return message_text(message)
    return ""


def user_turn(messages: Sequence[MessageLike]) -> tuple[int, str]:
    """Which user turn ``messages`` are in: the number of human messages and the last one's text.

    The model calls of one turn (before and after its tool calls) share this value; a new
    user message changes it, even when it repeats the previous question.
    """
    count = sum(1 for message in messages if message.type == "human")
    return count, last_user_text(messages)


def final_answer(messages: Sequence[MessageLike]) -> str | None:
    """The agent's final answer: the last message, when it is an AI reply without tool calls."""
    if not messages:
        return None
    last = messages[-1]
    if last.type != "ai" or getattr(last, "tool_calls", None):
        return None
    text = message_text(last).strip()
    return text or None


def with_memory(system_text: str | None, *blocks: str) -> str:
    """Append the non-empty memory blocks to the system prompt, separated by blank lines."""
    parts = [system_text.strip()] if system_text and system_text.strip() else []
    parts.extend(block for block in blocks if block)
    return "\n\n".join(parts)
