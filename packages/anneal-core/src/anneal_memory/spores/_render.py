"""Spores as text: one-line listings, the full block, the session-start block. Pure."""

from __future__ import annotations

from collections.abc import Sequence

from anneal_memory.spores._types import Spore

__all__ = ["MAX_STARTUP_SPORES", "spore_block", "spore_line", "startup_block"]

MAX_STARTUP_SPORES = 7
_GLYPH = {"task": "\u25b8", "question": "?", "thought": "~"}
_PREVIEW = 160


def _flat(text: str, limit: int = _PREVIEW) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "\u2026"


def spore_line(spore: Spore) -> str:
    """``[spore-001] ▸ hot/growing !! text`` (resolved ones show ``resolved:<kind>``)."""
    if spore.status == "open":
        state = spore.germination.value
    else:
        state = f"resolved:{spore.resolution.kind if spore.resolution else '?'}"
    parts = (
        f"[{spore.id}]",
        _GLYPH[spore.type.value],
        f"{spore.tier.value}/{state}",
        "!" * spore.salience,
        _flat(spore.text),
    )
    return " ".join(p for p in parts if p)


def spore_block(spore: Spore) -> str:
    """Every field of a spore: its line, then the details and notes."""
    lines = [
        spore_line(spore),
        f"    type={spore.type.value} domain={spore.domain or '-'} seen={spore.seen or '-'} "
        f"next={spore.next or '-'} created={spore.created}",
    ]
    if spore.pointer:
        lines.append(f"    pointer: {spore.pointer}")
    if spore.resolution:
        r = spore.resolution
        lines.append(f"    {r.direction} {r.kind} {r.ref} on {r.on}".replace("  ", " "))
    lines.extend(f"    note {n.render()}" for n in spore.notes)
    return "\n".join(lines)


def startup_block(spores: Sequence[Spore], limit: int = MAX_STARTUP_SPORES) -> str:
    """The top-of-mind spores for session start, at most ``limit``; "" when there are none."""
    if not spores:
        return ""
    shown = spores[:limit]
    lines = ["## Open spores (top of mind)", *(f"- {spore_line(s)}" for s in shown)]
    if len(spores) > len(shown):
        lines.append(f"- ... and {len(spores) - len(shown)} more (`spore_surface` lists them)")
    return "\n".join(lines)
