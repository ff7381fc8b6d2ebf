"""What a tool row is made of: the row, its hints, its reply and the context a handler gets.

Every row must say how it behaves (``title`` and the four ``annotations`` hints) and may
promise a structured result (``output_schema``): the fields have no defaults, so a row that
forgets one is a ``TypeError`` at import, and ``tests/contracts/test_mcp_tool_rows.py`` checks
the rest (the hints, the token budget, the structured replies).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

if TYPE_CHECKING:
    from anneal_memory.agent._echoes import SurfacedEpisodes
    from anneal_memory.store import Store

__all__ = [
    "Handler",
    "Tool",
    "ToolContext",
    "ToolReply",
    "hints",
    "object_schema",
]


class ToolContext(Protocol):
    """What a handler may use: the store (opened on first use) and the server's settings."""

    @property
    def store(self) -> Store:
        """The store, opened on first use."""
        ...

    @property
    def session_id(self) -> str | None:
        """The session id from the server configuration (None when not configured)."""
        ...

    @property
    def source(self) -> str:
        """The source recorded on episodes written through this server."""
        ...

    @property
    def scope(self) -> str:
        """The scope the server records into, recalls from and wraps ("" is the shared one)."""
        ...

    @property
    def surfaced(self) -> SurfacedEpisodes:
        """The episodes ``recall`` showed this session (a copy recorded back derives from one)."""
        ...


# NamedTuples, not dataclasses: ``dataclasses`` imports ``inspect`` and would add ~10 ms to
# the server's start-up, which clients wait for.
class ToolReply(NamedTuple):
    """A tool's answer: the text the model reads and the fields a client reads.

    Attributes:
        text: The text content (kept for clients that ignore ``structuredContent``).
        structured: The ``structuredContent`` object; it matches the tool's output schema.
    """

    text: str
    structured: Mapping[str, Any]


Handler = Callable[[ToolContext, Mapping[str, Any]], "str | ToolReply"]


class Tool(NamedTuple):
    """One row of the tool table.

    Attributes:
        name: The tool name clients call.
        description: What the model reads to decide when to call it.
        input_schema: JSON Schema of the arguments (an object schema).
        handler: Runs the tool; returns text, or a :class:`ToolReply` when the tool has an
            output schema.
        title: A short human-readable name for the tool (shown by clients).
        annotations: The behaviour hints, built with :func:`hints`.
        output_schema: JSON Schema of ``structuredContent``, or None for text-only tools.
    """

    name: str
    description: str
    input_schema: Mapping[str, Any]
    handler: Handler
    title: str
    annotations: Mapping[str, bool]
    output_schema: Mapping[str, Any] | None

    def to_dict(self) -> dict[str, Any]:
        """The entry of a ``tools/list`` reply."""
        entry: dict[str, Any] = {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "inputSchema": self.input_schema,
            "annotations": dict(self.annotations),
        }
        if self.output_schema is not None:
            entry["outputSchema"] = self.output_schema
        return entry


def hints(
    *, read_only: bool, destructive: bool, idempotent: bool, open_world: bool = False
) -> dict[str, bool]:
    """The four MCP tool annotations, each stated explicitly (clients assume the worst).

    ``open_world`` is False for every memory tool: they touch only this store.
    """
    return {
        "readOnlyHint": read_only,
        "destructiveHint": destructive,
        "idempotentHint": idempotent,
        "openWorldHint": open_world,
    }


def object_schema(
    properties: Mapping[str, Any], *required: str, closed: bool = True
) -> dict[str, Any]:
    """An object schema; ``closed`` refuses unknown keys (input schemas)."""
    schema: dict[str, Any] = {"type": "object", "properties": dict(properties)}
    if closed:
        schema["additionalProperties"] = False
    if required:
        schema["required"] = list(required)
    return schema
