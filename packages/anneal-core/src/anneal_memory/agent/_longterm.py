"""The long-term tier's share of ``AgentMemory``'s blocks: crystals and spores, bounded.

``startup_block`` is the labelled crystal index plus the top-of-mind spores for ``start()``;
``recalled_crystals`` is the crystals a prompt recalls, for ``context_for``. Each is cut to
the budget it is given, with a marker saying how much was cut.
"""

from __future__ import annotations

from anneal_memory.agent._recording import truncate
from anneal_memory.crystal._read import crystal_index
from anneal_memory.crystal._recall import crystal_recall
from anneal_memory.crystal._render import context_block, index_block
from anneal_memory.spores._ops import surface_spores
from anneal_memory.spores._render import startup_block as spores_block
from anneal_memory.store import Store

__all__ = ["recalled_crystals", "startup_block"]

_MIN_BLOCK = 40


def _bounded(text: str, budget: int) -> str:
    if not text or budget < _MIN_BLOCK:
        return ""
    return truncate(text, budget)


def startup_block(store: Store, budget: int) -> tuple[str, tuple[str, ...]]:
    """The crystal index and the top-of-mind spores, labelled, at most ``budget`` chars.

    With the names of the crystals the index lists (for the exposure).
    """
    index = crystal_index(store)
    parts = [index_block(index), spores_block(surface_spores(store, top_of_mind=True))]
    return _bounded("\n\n".join(p for p in parts if p), budget), tuple(i.name for i in index)


def recalled_crystals(store: Store, prompt: str, budget: int) -> tuple[str, tuple[str, ...]]:
    """The crystals ``crystal_recall`` finds for ``prompt`` (prompt mode) or "", and names."""
    found = crystal_recall(store, prompt)
    names = tuple(hit.crystal.name for hit in found.hits)
    return _bounded(context_block(found), budget), names
