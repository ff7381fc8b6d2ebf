"""Handlers of the read-only tools for clients that give the model tools only: get, continuity."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from anneal_memory.mcp import _text
from anneal_memory.mcp._resources import CONTINUITY_PLACEHOLDER
from anneal_memory.mcp._toolkit import ToolReply

if TYPE_CHECKING:
    from anneal_memory.mcp._toolkit import ToolContext
    from anneal_memory.types import Episode

__all__ = ["episode_fields", "get_episode", "read_continuity"]


def episode_fields(episode: Episode) -> dict[str, Any]:
    """An episode as the JSON object of a structured reply."""
    fields: dict[str, Any] = {
        "id": episode.id,
        "timestamp": episode.timestamp,
        "type": episode.type.value,
        "source": episode.source,
        "content": episode.content,
    }
    if episode.metadata:
        fields["metadata"] = dict(episode.metadata)
    return fields


def get_episode(ctx: ToolContext, args: Mapping[str, Any]) -> ToolReply:
    """One episode by id."""
    episode_id = args["episode_id"]
    episode = ctx.store.get(episode_id, scope=ctx.scope or None)
    if episode is None:
        raise ValueError(f"no episode with id {episode_id!r} (it never existed or was deleted)")
    return ToolReply(_text.render_episode(episode), episode_fields(episode))


def read_continuity(ctx: ToolContext, args: Mapping[str, Any]) -> str:
    """The continuity document (the same text as the resource ``anneal://continuity``)."""
    return ctx.store.load_continuity(ctx.scope) or CONTINUITY_PLACEHOLDER
