"""Crystals as text: recall hits, the index block for session start, the context block. Pure."""

from __future__ import annotations

from collections.abc import Sequence

from anneal_memory.crystal._types import CrystalRecall, IndexLine

__all__ = ["MAX_INDEX_LINES", "context_block", "index_block", "recall_lines"]

MAX_INDEX_LINES = 40
_PREVIEW = 240


def _flat(text: str, limit: int = _PREVIEW) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "\u2026"


def recall_lines(found: CrystalRecall) -> list[str]:
    """``name (3x, hot, score=4.0): explanation`` per hit, best first."""
    return [
        f"{h.crystal.name} ({h.crystal.level}x, {h.crystal.activation.value}, "
        f"score={h.score:.1f}): {_flat(h.crystal.explanation)}"
        for h in found.hits
    ]


def index_block(lines: Sequence[IndexLine], limit: int = MAX_INDEX_LINES) -> str:
    """The crystal index for session start, at most ``limit`` lines; "" when empty."""
    if not lines:
        return ""
    shown = lines[:limit]
    out = ["## Crystallized patterns (index; recalled in full on cue)"]
    out += [f"- {i.name}: {i.clause}" for i in shown]
    if len(lines) > len(shown):
        out.append(f"- ... and {len(lines) - len(shown)} more (`crystal_index` lists them)")
    return "\n".join(out)


def context_block(found: CrystalRecall) -> str:
    """The crystals a prompt recalled, for ``context_for``; "" when none."""
    lines = recall_lines(found)
    if not lines:
        return ""
    return "\n".join(["Crystallized patterns:", *(f"- {line}" for line in lines)])
