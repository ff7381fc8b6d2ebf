"""The MCP tool table: one row per tool (name, title, description, schemas, hints, handler).

Handlers are thin: they call the library and turn its result into text for the model (and,
for a tool with an output schema, a :class:`ToolReply` with the fields a client reads). They
raise on failure (``AnnealMemoryError`` or ``ValueError``); the server turns that into a tool
result with ``isError: true`` and the message. The session id comes from the server's
configuration (:class:`ToolContext`), never from a tool argument; ``record`` takes an optional
``source`` (default: the configured one) and a ``trust`` that can never be ``operator``.

Adding a tool is one :class:`Tool` row in :data:`TOOLS` (every field is required: a title,
the four annotation hints via :func:`hints`, and an output schema or None) and one handler;
then regenerate the integrity manifest (``python -m anneal_memory.mcp.gen_manifest --write``).
A contract test keeps each row under its token budget.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from anneal_memory.mcp import (
    _explain_tools,
    _memory_tools,
    _read_tools,
    _text,
    _worth_tools,
    _wrap_tools,
)
from anneal_memory.mcp._toolkit import Tool, ToolContext, ToolReply, hints
from anneal_memory.mcp._toolkit import object_schema as _object

if TYPE_CHECKING:
    from anneal_memory.redaction import RedactionSettings
    from anneal_memory.types import Episode, RecallResult

__all__ = ["TOOLS", "TOOLS_BY_NAME", "Tool", "ToolContext", "ToolReply"]

_EPISODE_TYPES = ["observation", "decision", "tension", "question", "outcome", "context"]
_TYPES_DEFINED = (
    "observation=seen, decision=chosen, tension=conflict, question=open, outcome=result, "
    "context=background"
)
_STRING = {"type": "string"}
_INTEGER = {"type": "integer"}


def _record(ctx: ToolContext, args: Mapping[str, Any]) -> ToolReply:
    from anneal_memory.agent._echoes import write_copy

    derived = args.get("derived_from")
    # A text that repeats an episode ``recall`` showed this session derives from it
    # (``agent._echoes``): the self-feeding loop creates no new evidence.
    shown = None if derived else ctx.surfaced.source_of(str(args["content"]))

    def write(derived_from: list[str] | None = shown or derived or []) -> Episode:
        return ctx.store.record(
            args["content"],
            args["episode_type"],
            derived_from=derived_from,
            source=args.get("source") or ctx.source,
            metadata=args.get("metadata"),
            trust=args.get("trust", "agent"),
            supersedes=args.get("supersedes"),
            state_key=args.get("state_key"),
            scope=ctx.scope,
        )

    episode = write_copy(write, shown)
    text = f"Recorded {episode.type.value} ({episode.id}) at {episode.timestamp}"
    fields: dict[str, Any] = {"id": episode.id, "timestamp": episode.timestamp}
    if args.get("trust", "agent") == "agent" and episode.trust.value == "external":
        from anneal_memory.redaction import held_note

        text += f"; {held_note(episode.id, episode.content)}"  # store._held (#30)
        fields["trust"] = episode.trust.value
    return ToolReply(text, fields)


def _recall(ctx: ToolContext, args: Mapping[str, Any]) -> ToolReply:
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
        include_superseded=bool(args.get("include_superseded", False)),
        scope=ctx.scope or None,
    )
    from anneal_memory.continuity._cues import cued_facts
    from anneal_memory.mcp._provenance_text import render_recall_by_trust

    ctx.surfaced.remember(result.episodes)
    facts = cued_facts(ctx.store, args.get("keyword"), scope=ctx.scope)
    trusts = ctx.store.effective_trusts([e.id for e in result.episodes])
    fields: dict[str, Any] = {
        "total_matching": result.total_matching,
        "episodes": [_read_tools.episode_fields(e) for e in result.episodes],
    }
    listed = _listed(result)
    text = render_recall_by_trust(listed, trusts, facts, offset=offset)
    gone = len(result.episodes) - len(listed.episodes)
    if gone:
        text += (
            f"\n({gone} recalled copies of the episodes above not listed: each repeats one and"
            f" derives from it; the next page starts at offset {offset + len(result.episodes)})"
        )
    shown = [f"e:{e.id}" for e in listed.episodes]
    line, exposure = _worth_tools.exposure_note(ctx, "mcp recall", shown)
    if exposure is not None:
        fields["exposure_id"] = exposure
    return ToolReply(text + line, fields)


def _listed(result: RecallResult) -> RecallResult:
    """The page without recalled copies of an episode listed before (``agent._distinct``)."""
    from anneal_memory.agent._distinct import without_copies
    from anneal_memory.types import RecallResult

    kept, gone = without_copies(result.episodes)
    if not gone:
        return result
    return RecallResult(episodes=tuple(kept), total_matching=result.total_matching)


def _delete_episode(ctx: ToolContext, args: Mapping[str, Any]) -> str:
    from anneal_memory.crystal import crystals_citing

    episode_id = args["episode_id"]
    losing = crystals_citing(ctx.store, [episode_id])
    if not ctx.store.delete(episode_id, scope=ctx.scope or None):
        raise ValueError(f"no episode with id {episode_id!r} (it never existed or was deleted)")
    text = f"Deleted episode {episode_id}; its id stays reserved and is never reused."
    if losing:
        text += f" Crystals that lose this evidence: {', '.join(losing)}."
    return text


def _status(ctx: ToolContext, args: Mapping[str, Any]) -> ToolReply:
    from anneal_memory.continuity import current_schema, wrap_status
    from anneal_memory.gate import baton_status

    store = ctx.store
    status = store.status()
    wrap = wrap_status(store, ctx.scope)
    text = _text.render_status(
        status, session_id=ctx.session_id, baton=baton_status(store), wrap=wrap
    )
    lines = text.split("\n")
    lines.insert(-2, f"Section schema: {current_schema(store).name}")
    lines.insert(-2, f"Secrets at the door: {_redaction_line(store.redaction_settings())}")
    text = "\n".join(lines)
    fields = {
        "total_episodes": status.total_episodes,
        "episodes_since_wrap": status.episodes_since_wrap,
        "wrap_open": wrap is not None,
    }
    return ToolReply(text, fields)


def _redaction_line(settings: RedactionSettings) -> str:
    personal = "personal data too" if settings.personal else "personal data kept"
    return f"{settings.policy.value} ({personal})"


_EPISODE_ID = {"type": "string", "description": "The episode's 8-hex-character id."}
_EPISODE_OUT = _object(
    {"id": _STRING, "timestamp": _STRING, "type": _STRING, "content": _STRING},
    "id",
    closed=False,
)

_IDS = {"type": "array", "items": _STRING}
_PROVENANCE_FIELDS: Mapping[str, Any] = {
    "source": {"type": "string", "description": "Default: server's"},
    "trust": {
        "type": "string",
        "enum": ["agent", "tool", "external"],
        "description": "Default agent",
    },
    "supersedes": {**_IDS, "description": "Ids it replaces"},
    "state_key": {"type": "string", "description": "e.g. user.home_city"},
    "derived_from": {**_IDS, "description": "Ids it came from"},
}

_RECORD = Tool(
    name="record",
    title="Record an episode",
    description=(
        "Save one moment worth keeping (a decision, observation, ...) in plain words. "
        "Returns its id; cite ids at the wrap."
    ),
    input_schema=_object(
        {
            "content": {
                "type": "string",
                "minLength": 1,
                "description": "One thought (max 64 KiB).",
            },
            "episode_type": {
                "type": "string",
                "enum": _EPISODE_TYPES,
                "description": "See recall.",
            },
            "metadata": {"type": "object", "description": "Any JSON (max 16 KiB)."},
            **_PROVENANCE_FIELDS,
        },
        "content",
        "episode_type",
    ),
    annotations=hints(read_only=False, destructive=False, idempotent=False),
    output_schema=_object({"id": _STRING, "timestamp": _STRING}, "id", closed=False),
    handler=_record,
)

_RECALL = Tool(
    name="recall",
    title="Search memory",
    description=(
        "Find episodes by words (not meaning): exact phrase first, then by relevance; newest "
        "first without keyword. Use before deciding."
    ),
    input_schema=_object(
        {
            "keyword": {"type": "string", "description": "Words to match"},
            "episode_type": {"type": "string", "description": _TYPES_DEFINED},
            "since": {"type": "string", "description": "ISO time or age: 7d, 12h"},
            "until": {"type": "string", "description": "As since"},
            "source": {"type": "string", "description": "Only this source"},
            "limit": {"type": "integer", "minimum": 1, "maximum": 10_000, "description": "20"},
            "offset": {"type": "integer", "minimum": 0, "description": "Skip n"},
            "include_superseded": {"type": "boolean", "description": "Also replaced"},
        }
    ),
    annotations=hints(read_only=True, destructive=False, idempotent=True),
    output_schema=_object(
        {
            "total_matching": _INTEGER,
            "episodes": {"type": "array", "items": _object({"id": _STRING}, "id", closed=False)},
        },
        "total_matching",
        "episodes",
        closed=False,
    ),
    handler=_recall,
)

_GET = Tool(
    name="get",
    title="Get an episode",
    description="Read one episode by its id, as record or recall gave it.",
    input_schema=_object({"episode_id": _EPISODE_ID}, "episode_id"),
    annotations=hints(read_only=True, destructive=False, idempotent=True),
    output_schema=_EPISODE_OUT,
    handler=_read_tools.get_episode,
)

_CONTINUITY = Tool(
    name="read_continuity",
    title="Read the continuity",
    description=(
        "Read the memory compressed at past wraps (resource anneal://continuity). "
        "Call it first in every session."
    ),
    input_schema=_object({}),
    annotations=hints(read_only=True, destructive=False, idempotent=True),
    output_schema=None,
    handler=_read_tools.read_continuity,
)

_DELETE = Tool(
    name="delete_episode",
    title="Delete an episode",
    description=(
        "Delete one episode by id (recorded by mistake, or must not be kept). "
        "Cannot be undone; the id is never reused."
    ),
    input_schema=_object({"episode_id": _EPISODE_ID}, "episode_id"),
    annotations=hints(read_only=False, destructive=True, idempotent=True),
    output_schema=None,
    handler=_delete_episode,
)

_STATUS = Tool(
    name="status",
    title="Memory status",
    description=(
        "Counts, episodes waiting, whether a wrap is open, session and baton. Call at session "
        "start and before prepare_wrap."
    ),
    input_schema=_object({}),
    annotations=hints(read_only=True, destructive=False, idempotent=True),
    output_schema=_object(
        {
            "total_episodes": _INTEGER,
            "episodes_since_wrap": _INTEGER,
            "wrap_open": {"type": "boolean"},
        },
        "wrap_open",
        closed=False,
    ),
    handler=_status,
)

_PREPARE_WRAP = Tool(
    name="prepare_wrap",
    title="Start the wrap",
    description=(
        "At session end: returns new episodes, the continuity and how to compress them into a "
        "new one, then 'Wrap token: <hex>' for save_continuity."
    ),
    input_schema=_object(
        {
            "max_chars": {
                "type": "integer",
                "minimum": 1000,
                "description": "Size target (default: the schema's, 20000)",
            },
            "staleness_days": {
                "type": "integer",
                "minimum": 1,
                "description": "Days until a pattern is stale (7)",
            },
            "max_package_chars": {
                "type": "integer",
                "minimum": 5000,
                "description": "Package budget (60000); the rest waits",
            },
        }
    ),
    annotations=hints(read_only=False, destructive=False, idempotent=False),
    output_schema=_object(
        {"status": _STRING, "episode_count": _INTEGER, "wrap_token": _STRING},
        "status",
        closed=False,
    ),
    handler=_wrap_tools.prepare_wrap,
)

_SAVE_CONTINUITY = Tool(
    name="save_continuity",
    title="Save the continuity",
    description=(
        "Finish the wrap: save your new continuity. Checked first; a refusal writes nothing, "
        "says why and keeps the wrap open."
    ),
    input_schema=_object(
        {
            "text": {"type": "string", "minLength": 1, "description": "Whole document"},
            "wrap_token": {"type": "string", "description": "From prepare_wrap"},
            "allow_shrink": {"type": "boolean", "description": "Accept a big shrink"},
            "affective_state": _object(
                {
                    "tag": {"type": "string", "minLength": 1, "description": "e.g. curious"},
                    "intensity": {
                        "type": "number",
                        "minimum": 0,
                        "maximum": 1,
                        "description": "Strength, 0-1",
                    },
                },
                "tag",
                "intensity",
            )
            | {"description": "Your mood; weights new links"},
        },
        "text",
        "wrap_token",
    ),
    annotations=hints(read_only=False, destructive=True, idempotent=False),
    output_schema=_object(
        {"wrap_id": _INTEGER, "episodes_compressed": _INTEGER, "findings": _INTEGER},
        "wrap_id",
        closed=False,
    ),
    handler=_wrap_tools.save_continuity,
)

_WRAP_CANCEL = Tool(
    name="wrap_cancel",
    title="Cancel the wrap",
    description="Abandon the open wrap unsaved; its episodes go into the next wrap.",
    input_schema=_object(
        {"wrap_token": {"type": "string", "description": "The wrap's token (checked if given)."}}
    ),
    annotations=hints(read_only=False, destructive=False, idempotent=True),
    output_schema=_object(
        {"wrap_id": _INTEGER, "episode_count": _INTEGER}, "wrap_id", closed=False
    ),
    handler=_wrap_tools.wrap_cancel,
)

TOOLS: tuple[Tool, ...] = (
    _RECORD,
    _RECALL,
    _GET,
    _CONTINUITY,
    _PREPARE_WRAP,
    _SAVE_CONTINUITY,
    _WRAP_CANCEL,
    _DELETE,
    _STATUS,
    *(Tool(*row) for row in _memory_tools.ROWS),
    _explain_tools.EXPLAIN,
    _worth_tools.OUTCOME,
)
"""Every tool this server offers, in the order ``tools/list`` shows them."""

TOOLS_BY_NAME: Mapping[str, Tool] = {tool.name: tool for tool in TOOLS}
