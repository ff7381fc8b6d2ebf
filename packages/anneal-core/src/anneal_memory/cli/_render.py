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

__all__ = [
    "dumps",
    "emit",
    "episode_block",
    "episode_line",
    "human_bytes",
    "one_line",
    "safe",
]

_PREVIEW_CHARS = 100
# Bidirectional overrides/isolates can make a line read differently from what it holds.
_BIDI_CONTROLS = frozenset(range(0x202A, 0x202F)) | frozenset(range(0x2066, 0x206A))


def _unsafe(code: int, keep: str, char: str) -> bool:
    if char in keep:
        return False
    return code < 0x20 or 0x7F <= code < 0xA0 or code in _BIDI_CONTROLS


def safe(text: str, *, keep: str = "") -> str:
    r"""Make stored text harmless on a terminal: control characters become ``\xNN`` escapes.

    Episodes may come from tools and other untrusted sources; an escape sequence in one must
    not be able to rewrite the operator's screen. ``keep`` lists characters to leave alone
    (``"\n\t"`` for full episode text). JSON output needs none of this: it escapes them.
    """
    if text.isprintable() or not any(_unsafe(ord(c), keep, c) for c in text):
        return text
    return "".join(
        (f"\\u{ord(c):04x}" if ord(c) > 0xFF else f"\\x{ord(c):02x}")
        if _unsafe(ord(c), keep, c)
        else c
        for c in text
    )


def dumps(data: Any) -> str:
    """Serialise ``data`` as readable UTF-8 JSON (non-ASCII kept as is)."""
    return json.dumps(data, ensure_ascii=False, indent=2)


def emit(ctx: Context, data: Any, text: str | None = None) -> None:
    """Print ``data`` as JSON when ``--json`` was given, else ``text`` (if any)."""
    ctx.emit(data, text)


def one_line(text: str, limit: int = _PREVIEW_CHARS) -> str:
    """Collapse whitespace and cut ``text`` to ``limit`` characters with an ellipsis."""
    flat = safe(" ".join(text.split()))
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def episode_line(episode: Episode) -> str:
    """One listing line: ``id  timestamp  type  [source]  preview``."""
    stamp = episode.timestamp[:19].replace("T", " ")
    return (
        f"{episode.id}  {stamp}  {episode.type.value:<11}  [{safe(episode.source)}]  "
        f"{one_line(episode.content)}"
        + (f"  (superseded by {episode.superseded_by})" if episode.superseded_by else "")
    )


def episode_block(episode: Episode) -> str:
    """The full episode: a header of fields, then the content verbatim."""
    lines = [
        f"id:        {episode.id}",
        f"timestamp: {episode.timestamp}",
        f"type:      {episode.type.value}",
        f"source:    {safe(episode.source)}",
    ]
    if episode.metadata:
        lines.append(f"metadata:  {json.dumps(dict(episode.metadata), ensure_ascii=False)}")
    if episode.idempotency_key is not None:
        lines.append(f"idempotency_key: {safe(episode.idempotency_key)}")
    lines.append(f"trust:     {episode.trust.value}")
    if episode.state_key is not None:
        lines.append(f"state_key: {episode.state_key}")
    if episode.superseded_by is not None:
        lines.append(f"superseded_by: {episode.superseded_by}")
    if episode.derived_from:
        lines.append(f"derived_from: {', '.join(episode.derived_from)}")
    lines.extend(("", safe(episode.content, keep="\n\t")))
    return "\n".join(lines)


def human_bytes(size: int) -> str:
    """``1536`` -> ``1.5 KiB``."""
    value = float(size)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{int(value)} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"  # pragma: no cover - loop always returns
