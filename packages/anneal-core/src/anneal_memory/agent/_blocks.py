"""The two blocks ``AgentMemory`` hands a model: the startup context and the recall block.

Each comes back with the item keys it shows (``worth.shown_items``), for its exposure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from anneal_memory.agent._distinct import OVERFETCH, distinct_episodes
from anneal_memory.agent._recording import render_startup

if TYPE_CHECKING:
    from anneal_memory.store import Store
    from anneal_memory.types import Episode

__all__ = ["Block", "context_block", "startup_block"]


class Block(NamedTuple):
    """A block's text and what it shows.

    ``items`` are the item keys (``e:<id>``, ``p:<name>``, ``c:<name>``) for its exposure;
    ``episodes`` the recalled episodes, for the self-feeding check of ``_echoes``.
    """

    text: str
    items: tuple[str, ...]
    episodes: tuple[Episode, ...] = ()


def _joined(*blocks: str) -> str:
    return "\n\n".join(b for b in blocks if b)


def startup_block(store: Store, chars: int, scope: str = "") -> Block:
    """``scope``'s continuity, then the crystal index and top-of-mind spores (a third)."""
    from anneal_memory.agent._longterm import startup_block as longterm
    from anneal_memory.worth._items import patterns_in, shown_items

    extra, crystals = longterm(store, chars // 3)
    room = chars - (len(extra) + 2 if extra else 0)
    continuity = render_startup(store.load_continuity(scope), room)
    text = _joined(continuity, extra)
    return Block(text, shown_items(text, patterns=patterns_in(continuity), crystals=crystals))


def context_block(store: Store, query: str, *, limit: int, chars: int, scope: str | None) -> Block:
    """Distinct recalled episodes (replacements, data apart, cued facts), then crystals.

    The crystals take at most half of ``chars``; superseded hits are fetched so that their
    replacement can be shown in their place.
    """
    from anneal_memory.agent._longterm import recalled_crystals
    from anneal_memory.agent._recall_block import build_view, render_view
    from anneal_memory.continuity._cues import cued_facts
    from anneal_memory.worth._items import shown_items

    crystals, names = recalled_crystals(store, query, chars // 2)
    room = chars - (len(crystals) + 2 if crystals else 0)
    found = store.recall(
        keyword=query, limit=limit * OVERFETCH, include_superseded=True, scope=scope
    )
    cued = cued_facts(store, query, scope=scope or "")
    view = build_view(store, distinct_episodes(found.episodes, limit), cued)
    text = render_view(view, room)
    shown = tuple(e for e in (*view.knowledge, *view.data) if f"({e.id})" in text)
    return Block(
        _joined(text, crystals),
        shown_items(text, episodes=[e.id for e in shown]) + shown_items(crystals, crystals=names),
        shown,
    )
