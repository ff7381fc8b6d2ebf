"""Output helpers: JSON under ``--json``, short human text otherwise.

JSON keys printed by commands are public API (see ``docs/cli.md``): add keys, never rename
or drop them.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from anneal_memory.cli._context import Context
    from anneal_memory.types import Episode

__all__ = ["dumps", "emit", "episode_block", "episode_line", "human_bytes", "one_line"]

_PREVIEW_CHARS = 100


def dumps(data: Any) -> str:
    """Serialise ``data`` as readable UTF-8 JSON (non-ASCII kept as is)."""
    return json.dumps(data, ensure_ascii=False, indent=2)


def emit(ctx: Context, data: Any, text: str | None = None) -> None:
    """Print ``data`` as JSON when ``--json`` was given, else ``text`` (if any)."""
    if ctx.json:
        print(dumps(data), file=ctx.out)
    elif text is not None:
        print(text, file=ctx.out)


def one_line(text: str, limit: int = _PREVIEW_CHARS) -> str:
    """Collapse whitespace and cut ``text`` to ``limit`` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def episode_line(episode: Episode) -> str:
    """One listing line: ``id  timestamp  type  [source]  preview``."""
    stamp = episode.timestamp[:19].replace("T", " ")
    return (
        f"{episode.id}  {stamp}  {episode.type.value:<11}  [{episode.source}]  "
        f"{one_line(episode.content)}"
    )


def episode_block(episode: Episode) -> str:
    """The full episode: a header of fields, then the content verbatim."""
    lines = [
        f"id:        {episode.id}",
        f"timestamp: {episode.timestamp}",
        f"type:      {episode.type.value}",
        f"source:    {episode.source}",
    ]
    if episode.metadata:
        lines.append(f"metadata:  {json.dumps(dict(episode.metadata), ensure_ascii=False)}")
    if episode.idempotency_key is not None:
        lines.append(f"idempotency_key: {episode.idempotency_key}")
    lines.extend(("", episode.content))
    return "\n".join(lines)


def human_bytes(size: int) -> str:
    """``1536`` -> ``1.5 KiB``."""
    value = float(size)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{int(value)} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"  # pragma: no cover - loop always returns
