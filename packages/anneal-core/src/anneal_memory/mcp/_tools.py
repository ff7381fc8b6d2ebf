"""The MCP tool table: one row per tool (name, description, input schema, handler).

Handlers are thin: they call the library and turn its result into text for the model. They
raise on failure (``AnnealMemoryError`` or ``ValueError``); the server turns that into a tool
result with ``isError: true`` and the message. The session id and the record source come from
the server's configuration (:class:`ToolContext`), never from a tool argument.

Adding a tool is one :class:`Tool` row in :data:`TOOLS` and one handler function; then
regenerate the integrity manifest (``python -m anneal_memory.mcp.gen_manifest --write``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from anneal_memory.mcp import _memory_tools, _text, _wrap_tools

if TYPE_CHECKING:
    from anneal_memory.store import Store

__all__ = ["TOOLS", "TOOLS_BY_NAME", "Tool", "ToolContext"]

_EPISODE_TYPES = ["observation", "decision", "tension", "question", "outcome", "context"]


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


Handler = Callable[[ToolContext, Mapping[str, Any]], str]


# A NamedTuple, not a dataclass: ``dataclasses`` imports ``inspect`` and would add ~10 ms
# to the server's start-up, which clients wait for.
class Tool(NamedTuple):
    """One row of the tool table.

    Attributes:
        name: The tool name clients call.
        description: What the model reads to decide when to call it.
        input_schema: JSON Schema of the arguments (an object schema).
        handler: Runs the tool and returns the text reply.
    """

    name: str
    description: str
    input_schema: Mapping[str, Any]
    handler: Handler

    def to_dict(self) -> dict[str, Any]:
        """The entry of a ``tools/list`` reply."""
        return {
            "name": self.name,
            "description": self.description,
            "inputSchema": self.input_schema,
        }


def _object(properties: Mapping[str, Any], *required: str) -> dict[str, Any]:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": dict(properties),
        "additionalProperties": False,
    }
    if required:
        schema["required"] = list(required)
    return schema


def _record(ctx: ToolContext, args: Mapping[str, Any]) -> str:
    episode = ctx.store.record(
        args["content"],
        args["episode_type"],
        source=ctx.source,
        metadata=args.get("metadata"),
    )
    return f"Recorded {episode.type.value} ({episode.id}) at {episode.timestamp}"


def _recall(ctx: ToolContext, args: Mapping[str, Any]) -> str:
    limit = args.get("limit", 20)
    offset = args.get("offset", 0)
    result = ctx.store.recall(
        keyword=args.get("keyword"),
        episode_type=args.get("episode_type"),
        since=args.get("since"),
        until=args.get("until"),
        source=args.get("source"),
        limit=limit,
        offset=offset,
    )
    return _text.render_recall(result, offset=offset)


def _delete_episode(ctx: ToolContext, args: Mapping[str, Any]) -> str:
    from anneal_memory.crystal import crystals_citing

    episode_id = args["episode_id"]
    losing = crystals_citing(ctx.store, [episode_id])
    if not ctx.store.delete(episode_id):
        raise ValueError(f"no episode with id {episode_id!r} (it never existed or was deleted)")
    text = f"Deleted episode {episode_id}; its id stays reserved and is never reused."
    if losing:
        text += f" Crystals that lose this evidence: {', '.join(losing)}."
    return text


def _status(ctx: ToolContext, args: Mapping[str, Any]) -> str:
    from anneal_memory.gate import baton_status

    store = ctx.store
    return _text.render_status(store.status(), session_id=ctx.session_id, baton=baton_status(store))


_RECORD = Tool(
    name="record",
    description=(
        "Record one meaningful moment of this session as an episode in long-term memory. "
        "Call it when you make a decision, notice something worth keeping, hit a tension or "
        "open question, or see an outcome. One episode = one thought in plain words; the "
        "server records who wrote it. Returns the new episode id (8 hex characters), which "
        "you cite when you compress memory at the end of the session."
    ),
    input_schema=_object(
        {
            "content": {
                "type": "string",
                "minLength": 1,
                "description": "The moment, in a sentence or a short paragraph (max 64 KiB).",
            },
            "episode_type": {
                "type": "string",
                "enum": _EPISODE_TYPES,
                "description": "observation, decision, tension, question, outcome or context.",
            },
            "metadata": {
                "type": "object",
                "description": "Optional JSON object stored with the episode (max 16 KiB).",
            },
        },
        "content",
        "episode_type",
    ),
    handler=_record,
)

_RECALL = Tool(
    name="recall",
    description=(
        "Search long-term memory before you decide something. With a keyword, episodes "
        "containing the exact phrase come first, then episodes matching its words, ranked by "
        "relevance; without one, the newest first. Filters narrow by type, time and source. "
        "Returns each episode's id, time, type, source and text, and how many matched in all."
    ),
    input_schema=_object(
        {
            "keyword": {"type": "string", "description": "Words or a phrase to look for."},
            "episode_type": {"type": "string", "enum": _EPISODE_TYPES},
            "since": {
                "type": "string",
                "description": "Only episodes at or after this: ISO-8601 time or an age "
                "like 7d, 12h, 30m.",
            },
            "until": {
                "type": "string",
                "description": "Only episodes at or before this (same forms as since).",
            },
            "source": {"type": "string", "description": "Only episodes from this source."},
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": 10_000,
                "description": "How many to return (default 20).",
            },
            "offset": {
                "type": "integer",
                "minimum": 0,
                "description": "How many of the best matches to skip (paging; default 0).",
            },
        }
    ),
    handler=_recall,
)

_DELETE = Tool(
    name="delete_episode",
    description=(
        "Delete one episode by id, for example one recorded by mistake or holding something "
        "that must not be kept. The id is never reused. This cannot be undone."
    ),
    input_schema=_object(
        {"episode_id": {"type": "string", "description": "The 8-hex-character episode id."}},
        "episode_id",
    ),
    handler=_delete_episode,
)

_STATUS = Tool(
    name="status",
    description=(
        "Show the memory's health: episodes by type, how many wait for the next wrap, "
        "deletions, file sizes, the last write, this server's session id and who may wrap "
        "(the baton)."
    ),
    input_schema=_object({}),
    handler=_status,
)

_PREPARE_WRAP = Tool(
    name="prepare_wrap",
    description=(
        "Start the end-of-session wrap. Returns a package: the episodes recorded since the "
        "last wrap, the current continuity and instructions for compressing them into the "
        "new continuity document, followed by a line 'Wrap token: <hex>'. Write the new "
        "continuity as the instructions say, then call save_continuity with the text and "
        "that token. If nothing is waiting, it says so and opens nothing."
    ),
    input_schema=_object(
        {
            "max_chars": {
                "type": "integer",
                "minimum": 1000,
                "description": "Size target for the new continuity (default: the schema's).",
            },
            "staleness_days": {
                "type": "integer",
                "minimum": 1,
                "description": "Pattern lines unconfirmed this many days are listed as "
                "stale (default 7).",
            },
        }
    ),
    handler=_wrap_tools.prepare_wrap,
)

_SAVE_CONTINUITY = Tool(
    name="save_continuity",
    description=(
        "Finish the wrap: save the continuity you compressed from prepare_wrap's package. "
        "The immune system checks it first (required sections, size, cited evidence for "
        "graduated patterns); a refused save writes nothing, says why, and leaves the wrap "
        "open so you can fix the text and call again. Returns what was saved and every "
        "finding."
    ),
    input_schema=_object(
        {
            "text": {
                "type": "string",
                "minLength": 1,
                "description": "The complete new continuity document (markdown).",
            },
            "wrap_token": {
                "type": "string",
                "description": "The token from prepare_wrap's 'Wrap token:' line.",
            },
            "allow_shrink": {
                "type": "boolean",
                "description": "Accept a large shrink of protected sections (default false).",
            },
            "affective_state": _object(
                {
                    "tag": {"type": "string", "minLength": 1, "description": "e.g. curious"},
                    "intensity": {"type": "number", "minimum": 0, "maximum": 1},
                },
                "tag",
                "intensity",
            ),
        },
        "text",
    ),
    handler=_wrap_tools.save_continuity,
)

_WRAP_CANCEL = Tool(
    name="wrap_cancel",
    description=(
        "Abandon the open wrap without saving (for example when compression cannot be "
        "finished). No episode is lost: they all go into the next wrap."
    ),
    input_schema=_object(
        {
            "wrap_token": {
                "type": "string",
                "description": "The token of the wrap to cancel (recommended).",
            }
        }
    ),
    handler=_wrap_tools.wrap_cancel,
)

TOOLS: tuple[Tool, ...] = (
    _RECORD,
    _RECALL,
    _PREPARE_WRAP,
    _SAVE_CONTINUITY,
    _WRAP_CANCEL,
    _DELETE,
    _STATUS,
    *(Tool(*row) for row in _memory_tools.ROWS),
)
"""Every tool this server offers, in the order ``tools/list`` shows them."""

TOOLS_BY_NAME: Mapping[str, Tool] = {tool.name: tool for tool in TOOLS}
