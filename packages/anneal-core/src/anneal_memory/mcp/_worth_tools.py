"""The MCP ``outcome`` tool, and the exposure line recall tools end with (issue 28).

A recall or crystal_recall that showed something is an exposure; its text ends with the
exposure id, which ``outcome`` names to say what the agent did with the items and how the
work went. Report-only: nothing ranks from outcomes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from anneal_memory.mcp._toolkit import Tool, ToolContext, ToolReply, hints, object_schema

if TYPE_CHECKING:
    from anneal_memory.store import Store


class _Exposing(Protocol):
    """What recording an exposure needs of a tool's context."""

    @property
    def store(self) -> Store: ...

    @property
    def scope(self) -> str: ...

    @property
    def session_id(self) -> str | None: ...


__all__ = ["OUTCOME", "exposure_note"]


def exposure_note(ctx: _Exposing, via: str, items: Sequence[str]) -> tuple[str, str | None]:
    """Record ``items`` as an exposure; the line to end the reply with, and its id."""
    from anneal_memory.worth._exposures import expose

    ident = expose(ctx.store, via, items, scope=ctx.scope, session_id=ctx.session_id)
    if ident is None:
        return "", None
    return f"\nExposure {ident}: after acting, report it with the outcome tool.", ident


def _outcome(ctx: ToolContext, args: Mapping[str, Any]) -> ToolReply:
    from anneal_memory.worth._outcomes import record_outcome

    merged = record_outcome(
        ctx.store,
        args["exposure_id"],
        result=args.get("result"),
        items=args.get("items"),
        note=args.get("note", ""),
        actor="agent",
    )
    labels = ", ".join(f"{k}={v.value}" for k, v in sorted(merged.labels.items()))
    text = (
        f"Outcome of {merged.exposure_id} (revision {merged.revision}): "
        f"{merged.result.value}; {labels or 'no labels'}"
    )
    return ToolReply(text, {"exposure_id": merged.exposure_id, "revision": merged.revision})


_LABELS = ["followed", "ignored", "not_applicable"]

OUTCOME = Tool(
    name="outcome",
    title="Report an outcome",
    description="After acting on a recall: which shown items you followed, and how it went.",
    input_schema=object_schema(
        {
            "exposure_id": {"type": "string", "description": "Recall's last line"},
            "result": {"type": "string", "enum": ["success", "failure"], "description": "How"},
            "items": {
                "type": "object",
                "additionalProperties": {"type": "string", "enum": _LABELS},
                "description": "episode:ID or crystal:NAME -> label",
            },
            "note": {"type": "string", "description": "Why"},
        },
        "exposure_id",
    ),
    annotations=hints(read_only=False, destructive=False, idempotent=False),
    output_schema=object_schema(
        {"exposure_id": {"type": "string"}, "revision": {"type": "integer"}},
        "exposure_id",
        closed=False,
    ),
    handler=_outcome,
)
