"""Prospective memory: spores are what the agent means to do, ask or think about next.

A spore is planted (:func:`add_spore`), surfaces when it matters (:func:`surface_spores`:
hot or freshly seen), is touched, updated with dated notes, and finally resolved downward
(:func:`descend_spore`: done, dropped, answered ...) or upward (:func:`ascend_spore`: it
became a project, an episode, a pattern ...). Spores live in tables of the store's
database; this package imports the store, never the reverse.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from anneal_memory._lazy import lazy_exports

if TYPE_CHECKING:
    from anneal_memory.spores._ops import (
        add_spore,
        ascend_spore,
        delete_spore,
        descend_spore,
        get_spore,
        list_spores,
        surface_spores,
        touch_spore,
        update_spore,
    )
    from anneal_memory.spores._types import (
        ASCEND_KINDS,
        DESCEND_KINDS,
        Germination,
        Resolution,
        Spore,
        SporeNote,
        SporeTier,
        SporeType,
    )

_OPS = "anneal_memory.spores._ops"
_TYPES = "anneal_memory.spores._types"
_EXPORTS: dict[str, str] = {
    "ASCEND_KINDS": _TYPES,
    "DESCEND_KINDS": _TYPES,
    "Germination": _TYPES,
    "Resolution": _TYPES,
    "Spore": _TYPES,
    "SporeNote": _TYPES,
    "SporeTier": _TYPES,
    "SporeType": _TYPES,
    "add_spore": _OPS,
    "ascend_spore": _OPS,
    "delete_spore": _OPS,
    "descend_spore": _OPS,
    "get_spore": _OPS,
    "list_spores": _OPS,
    "surface_spores": _OPS,
    "touch_spore": _OPS,
    "update_spore": _OPS,
}

__all__ = [
    "ASCEND_KINDS",
    "DESCEND_KINDS",
    "Germination",
    "Resolution",
    "Spore",
    "SporeNote",
    "SporeTier",
    "SporeType",
    "add_spore",
    "ascend_spore",
    "delete_spore",
    "descend_spore",
    "get_spore",
    "list_spores",
    "surface_spores",
    "touch_spore",
    "update_spore",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
