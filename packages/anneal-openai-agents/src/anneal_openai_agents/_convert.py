"""Pure conversions between Agents SDK data and the text that anneal-memory records and recalls.

Nothing here imports the SDK: model input items are plain mappings in the OpenAI Responses
format (``{"role": "user", "content": "..."}`` or a list of ``input_text`` parts).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = ["join_blocks", "latest_user_text", "tool_error"]


# What the SDK's default_tool_error_function returns instead of a failed tool's result:
# before 0.24 with the error after a prefix, from 0.24 on a fixed text without it.
_TOOL_ERROR_PREFIXES = (
    "An error occurred while running the tool. Please try again. Error: ",
    "An error occurred while parsing tool arguments. Please try again with valid JSON. Error: ",
)
_TOOL_ERROR_TEXT = "An error occurred while running the tool. Please try again."
HIDDEN_ERROR = "the SDK does not pass the error on"


def tool_error(result: object) -> str | None:
    """The error of a failed tool call, from the SDK's generic error text; None otherwise.

    From openai-agents 0.24 that text no longer holds the error: then it is
    :data:`HIDDEN_ERROR`.
    """
    if isinstance(result, str):
        if result.strip() == _TOOL_ERROR_TEXT:
            return HIDDEN_ERROR
        for prefix in _TOOL_ERROR_PREFIXES:
            if result.startswith(prefix):
                return result[len(prefix) :].strip() or "unknown error"
    return None


def latest_user_text(items: str | Sequence[Any]) -> str:
    """Return the text of the newest user message in a model input, or ``""``.

    Args:
        items: The run input: a plain string or a list of Responses input items.
    """
    if isinstance(items, str):
        return items
    for item in reversed(items):
        if isinstance(item, Mapping) and item.get("role") == "user":
            return _content_text(item.get("content"))
    return ""


def _content_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, Iterable):
        return ""
    texts = [
        part["text"]
        for part in content
        if isinstance(part, Mapping)
        and part.get("type") in ("input_text", "text")
        and isinstance(part.get("text"), str)
    ]
    return "\n".join(texts)


def join_blocks(*blocks: str | None) -> str:
    """Join the non-empty text blocks with one blank line between them."""
    return "\n\n".join(block.strip() for block in blocks if block and block.strip())
