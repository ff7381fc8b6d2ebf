"""Pure conversions between Agents SDK data and the text that anneal-memory records and recalls.

Nothing here imports the SDK: model input items are plain mappings in the OpenAI Responses
format (``{"role": "user", "content": "..."}`` or a list of ``input_text`` parts).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = [
    "conversation_text",
    "join_blocks",
    "latest_user_text",
    "run_records",
    "tool_error",
]


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
        and part.get("type") in ("input_text", "output_text", "text")
        and isinstance(part.get("text"), str)
    ]
    return "\n".join(texts)


def join_blocks(*blocks: str | None) -> str:
    """Join the non-empty text blocks with one blank line between them."""
    return "\n\n".join(block.strip() for block in blocks if block and block.strip())


def conversation_text(items: Sequence[Any], *, last: int = 6) -> str:
    """The text of the conversation's last ``last`` user and assistant messages, oldest first."""
    texts = [
        _content_text(item.get("content"))
        for item in items
        if isinstance(item, Mapping) and item.get("role") in ("user", "assistant")
    ]
    return "\n".join(text for text in texts[-last:] if text.strip())


def run_records(
    items: Sequence[Mapping[str, Any]], calls: dict[str, str]
) -> list[tuple[str, str, str]]:
    """What a run's session items teach: ``(kind, tool name, text)`` triples.

    ``tool`` for a function call's output, ``failure`` for one that carries the SDK's error
    text, ``answer`` for the assistant message that ends the items. ``calls`` maps call ids
    to tool names across calls (a call and its output may arrive in different batches).
    """
    found: list[tuple[str, str, str]] = []
    for item in items:
        kind = item.get("type")
        if kind == "function_call":
            calls[str(item.get("call_id"))] = str(item.get("name") or "tool")
        elif kind == "function_call_output":
            name = calls.pop(str(item.get("call_id")), "tool")
            output = item.get("output")
            text = output if isinstance(output, str) else _content_text(output)
            error = tool_error(text)
            found.append(("failure", name, error) if error is not None else ("tool", name, text))
    end = items[-1] if items else None
    if (
        end is not None
        and end.get("role") == "assistant"
        and end.get("type", "message") == "message"
    ):
        text = _content_text(end.get("content"))
        if text.strip():
            found.append(("answer", "", text))
    return found
