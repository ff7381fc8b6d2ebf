"""The long-term pattern tier: crystallized patterns, held outside the continuity file.

A Proven (2x+) pattern graduates here only by an explicit :func:`crystallize` call (the
wrap only proposes candidates). Crystals are recalled on cue (:func:`crystal_recall`) and
listed compactly (:func:`crystal_index`) instead of being loaded every session. They live
in tables of the store's database; this package imports the store, never the reverse.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from anneal_memory._lazy import lazy_exports

if TYPE_CHECKING:
    from anneal_memory.crystal._ops import (
        crystallize,
        retire_crystal,
        touch_crystal,
        update_crystal,
    )
    from anneal_memory.crystal._read import (
        crystal_index,
        crystals_citing,
        get_crystal,
        list_crystals,
    )
    from anneal_memory.crystal._recall import crystal_recall
    from anneal_memory.crystal._types import (
        ActivationMode,
        ActivationTier,
        Crystal,
        CrystalHit,
        CrystalRecall,
        IndexLine,
        Permanence,
        Retirement,
        RetirementKind,
    )

_OPS = "anneal_memory.crystal._ops"
_READ = "anneal_memory.crystal._read"
_TYPES = "anneal_memory.crystal._types"
_EXPORTS: dict[str, str] = {
    "ActivationMode": _TYPES,
    "ActivationTier": _TYPES,
    "Crystal": _TYPES,
    "CrystalHit": _TYPES,
    "CrystalRecall": _TYPES,
    "IndexLine": _TYPES,
    "Permanence": _TYPES,
    "Retirement": _TYPES,
    "RetirementKind": _TYPES,
    "crystal_index": _READ,
    "crystal_recall": "anneal_memory.crystal._recall",
    "crystallize": _OPS,
    "crystals_citing": _READ,
    "get_crystal": _READ,
    "list_crystals": _READ,
    "retire_crystal": _OPS,
    "touch_crystal": _OPS,
    "update_crystal": _OPS,
}

__all__ = [
    "ActivationMode",
    "ActivationTier",
    "Crystal",
    "CrystalHit",
    "CrystalRecall",
    "IndexLine",
    "Permanence",
    "Retirement",
    "RetirementKind",
    "crystal_index",
    "crystal_recall",
    "crystallize",
    "crystals_citing",
    "get_crystal",
    "list_crystals",
    "retire_crystal",
    "touch_crystal",
    "update_crystal",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
