"""The lexical floor of a supersession: does the update talk about the same thing? Pure.

An update that names the episode it replaces must share at least a quarter of the shorter
text's meaningful words (the grounding word list: tokens longer than two characters that
are not function words). Two unrelated episodes therefore cannot be linked by a typo in an
id, while a changed value ("moved to Lisbon" after "lives in Porto, moved from Lyon") keeps
enough of its subject to pass.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from anneal_memory.immune._grounding import grounding_words

__all__ = ["SUPERSESSION_FLOOR", "FloorCheck", "check_floor"]

SUPERSESSION_FLOOR = 0.25


@dataclass(frozen=True, slots=True, kw_only=True)
class FloorCheck:
    """The words two episodes share against the floor.

    Attributes:
        shared: Meaningful words both texts hold.
        shorter: How many meaningful words the shorter text holds.
        needed: How many shared words the floor asks for.
    """

    shared: frozenset[str]
    shorter: int
    needed: int

    @property
    def passed(self) -> bool:
        """True when the texts share enough words."""
        return self.shorter > 0 and len(self.shared) >= self.needed

    def message(self, old_id: str, new_id: str) -> str:
        """Why the link was refused, naming both ids and the figures."""
        return (
            f"episode {new_id} cannot supersede {old_id}: they share {len(self.shared)} of the "
            f"shorter episode's {self.shorter} meaningful words; a supersession needs 25% of "
            f"the shorter episode's meaningful words ({self.needed}). Link only an update of "
            "the same fact, or give single-valued facts a state_key"
        )


def check_floor(old_text: str, new_text: str) -> FloorCheck:
    """Measure ``old_text`` and ``new_text`` against the 25 % floor."""
    old_words = grounding_words(old_text)
    new_words = grounding_words(new_text)
    shorter = min(len(old_words), len(new_words))
    needed = max(1, math.ceil(shorter * SUPERSESSION_FLOOR))
    return FloorCheck(shared=old_words & new_words, shorter=shorter, needed=needed)
