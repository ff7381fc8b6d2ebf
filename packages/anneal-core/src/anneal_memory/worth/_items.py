"""Which items a rendered block actually shows: the candidates whose marker is in its text.

An exposure records what reached the model, so a candidate cut by a size bound is not in it.
An episode counts when ``(id)`` is in the text, a crystal when a ``- <name>`` line is (how
the crystal index and recall blocks list them), a pattern when its name is.
"""

from __future__ import annotations

from collections.abc import Iterable

from anneal_memory.document._markers import parse_pattern_line
from anneal_memory.worth._types import ItemKind, item_key

__all__ = ["patterns_in", "shown_items"]


def patterns_in(text: str) -> tuple[str, ...]:
    """Names of the pattern lines in ``text`` (a continuity or startup block), in order."""
    names: dict[str, None] = {}
    for line in text.splitlines():
        if "x" in line and (parsed := parse_pattern_line(line.strip())) is not None:
            names.setdefault(parsed.name, None)
    return tuple(names)


def shown_items(
    text: str,
    *,
    episodes: Iterable[str] = (),
    crystals: Iterable[str] = (),
    patterns: Iterable[str] = (),
) -> tuple[str, ...]:
    """The item keys of the candidates ``text`` shows (episodes, then patterns, then crystals)."""
    if not text:
        return ()
    out = [item_key(ItemKind.EPISODE, e) for e in episodes if f"({e})" in text]
    out += [item_key(ItemKind.PATTERN, p) for p in patterns if p and p in text]
    lines = "\n" + text
    out += [item_key(ItemKind.CRYSTAL, c) for c in crystals if c and f"\n- {c}" in lines]
    return tuple(dict.fromkeys(out))
