"""Pure conversions between CrewAI call data and the text anneal-memory recalls and records.

Nothing here imports CrewAI, so these helpers are tested without the framework.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = [
    "MEMORY_HEADER",
    "has_memory_message",
    "insert_position",
    "memory_message",
    "message_text",
    "query_text",
    "short_label",
]

MEMORY_HEADER = "Memory from earlier work (anneal-memory); use it when it is relevant:"
LABEL_CHARS = 200


def message_text(message: Mapping[str, Any]) -> str:
    """Return the text of one chat message; non-text parts (images, files) are left out."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        parts = [part.get("text") if isinstance(part, Mapping) else part for part in content]
        return "\n".join(part for part in parts if isinstance(part, str))
    return ""


def query_text(task_description: object, messages: Sequence[Mapping[str, Any]]) -> str:
    """What to recall for: the task's description, else the first user message."""
    if isinstance(task_description, str) and task_description.strip():
        return task_description
    for message in messages:
        if message.get("role") == "user":
            return message_text(message)
    return ""


def memory_message(*blocks: str | None) -> dict[str, str] | None:
    """The system message carrying the non-empty memory blocks; None when all are empty."""
    text = "\n\n".join(block.strip() for block in blocks if block and block.strip())
    if not text:
        return None
    return {"role": "system", "content": f"{MEMORY_HEADER}\n\n{text}"}


def has_memory_message(messages: Sequence[Mapping[str, Any]]) -> bool:
    """Whether a conversation already carries the memory message."""
    return any(
        message.get("role") == "system" and message_text(message).startswith(MEMORY_HEADER)
        for message in messages
    )


def insert_position(messages: Sequence[Mapping[str, Any]]) -> int:
    """Where the memory message goes: right after the leading system messages."""
    for index, message in enumerate(messages):
        if message.get("role") != "system":
            return index
    return len(messages)


def short_label(text: object) -> str | None:
    """A one-line label of at most ``LABEL_CHARS`` characters for episode metadata."""
    if not isinstance(text, str) or not text.strip():
        return None
    line = " ".join(text.split())
    return line if len(line) <= LABEL_CHARS else line[: LABEL_CHARS - 1] + "…"
