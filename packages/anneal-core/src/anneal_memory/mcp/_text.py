"""Plain-text replies of the MCP tools: what the model reads. Pure functions."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from anneal_memory.gate import BatonStatus
    from anneal_memory.store.wraps import WrapRecord
    from anneal_memory.types import Episode, RecallResult, StoreStatus

__all__ = ["indent_breaks", "render_episode", "render_recall", "render_status"]


def indent_breaks(text: str) -> str:
    """``text`` with each line break made a LF and two spaces: no stored text starts a line.

    Every break ``str.splitlines`` knows counts (LF, CR, VT, FF, FS/GS/RS, NEL, U+2028/2029).
    """
    return "\n  ".join(text.splitlines()) if text else text


def render_episode(episode: Episode) -> str:
    """One episode as ``- [id] time type (source): text``, later lines indented."""
    line = f"- [{episode.id}] {episode.timestamp} {episode.type.value} ({episode.source}): "
    line += episode.content
    if episode.metadata:
        meta = json.dumps(dict(episode.metadata), ensure_ascii=False, sort_keys=True)
        line += f"\nmetadata: {meta}"
    return indent_breaks(line)


def render_recall(result: RecallResult, *, offset: int = 0) -> str:
    """The episodes of a recall, best first, under a line saying how many matched."""
    shown = len(result.episodes)
    total = result.total_matching
    if shown == 0:
        if total:
            return f"No episodes at offset {offset}; {total} matched in all."
        return "No episodes match."
    first = offset + 1
    header = f"Episodes {first}-{offset + shown} of {total} matching:"
    return "\n".join([header, *(render_episode(e) for e in result.episodes)])


def _baton_line(baton: BatonStatus | None, session_id: str | None) -> str:
    if baton is None or not baton.consolidate_requires_baton:
        return "Baton: not required (any session may wrap)"
    if baton.holder is None:
        return "Baton: required; nobody holds it (wraps are downgraded to capture-only)"
    mine = " (this session)" if baton.holder == session_id else ""
    return f"Baton: required; held by {baton.holder}{mine}"


def _wrap_line(wrap: WrapRecord | None) -> str:
    if wrap is None:
        return "Wrap: none open"
    return (
        f"Wrap: {wrap.id} open since {wrap.started_at} ({wrap.episode_count} episodes); "
        "finish it with save_continuity or close it with wrap_cancel"
    )


def render_status(
    status: StoreStatus,
    *,
    session_id: str | None,
    baton: BatonStatus | None = None,
    wrap: WrapRecord | None = None,
) -> str:
    """A short health report of the store, with the open wrap if there is one."""
    by_type = ", ".join(f"{name} {count}" for name, count in status.episodes_by_type.items())
    lines = [
        f"Memory: {status.path}",
        f"Episodes: {status.total_episodes} ({by_type})",
        f"Waiting for the next wrap: {status.episodes_since_wrap}",
        _wrap_line(wrap),
        f"Deleted: {status.deleted_episodes}",
        f"Size: {status.db_bytes:,} bytes (+ {status.wal_bytes:,} bytes of write-ahead log)",
        f"Last write: {status.last_write or 'never'}",
        f"Session id: {session_id or '(none configured)'}",
        _baton_line(baton, session_id),
    ]
    return "\n".join(lines)
