"""The Hebbian link model's numbers and its link record, below both the store and the API.

``associations`` (the public API) and ``store._patterns`` (the SQL) both use them; keeping
them here lets the store read and write links without importing the layer above it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = [
    "AFFECT_WEIGHT",
    "CO_CITED",
    "DECAY",
    "MAX_STRENGTH",
    "PRUNE_BELOW",
    "SAME_WRAP",
    "AssociationLink",
]

CO_CITED = 1.0
SAME_WRAP = 0.3
DECAY = 0.9
PRUNE_BELOW = 0.1
MAX_STRENGTH = 10.0
AFFECT_WEIGHT = 0.5


@dataclass(frozen=True, slots=True, kw_only=True)
class AssociationLink:
    """A Hebbian link between two episodes (``a < b``).

    Attributes:
        a: The smaller episode id.
        b: The larger episode id.
        strength: Current strength, at most 10.0.
        affect_tag: The affect of the last save that reinforced it, if any.
        affect_intensity: Its intensity.
        last_wrap_id: The last wrap that reinforced it.
    """

    a: str
    b: str
    strength: float
    affect_tag: str | None
    affect_intensity: float | None
    last_wrap_id: int

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of every field."""
        return {name: getattr(self, name) for name in self.__slots__}
