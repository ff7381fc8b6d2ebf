"""The public ``RecallResult`` type: ``anneal_memory.types``'s, built on first use.

It is exported from ``anneal_memory.types`` (its ``__module__`` says so) and lives here so
that a ``record``, which never recalls, does not build it (issue #25: each frozen dataclass
costs about half a millisecond at start-up).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from anneal_memory.types import Episode

__all__ = ["RecallResult"]


@dataclass(frozen=True, slots=True, kw_only=True)
class RecallResult:
    """Episodes returned by a recall, best first, and how many matched in all.

    Attributes:
        episodes: At most ``limit`` episodes: exact-phrase matches first, then word matches,
            each ranked by relevance; newest first when no keyword was given.
        total_matching: How many episodes match the keyword and filters in all.
    """

    episodes: tuple[Episode, ...]
    total_matching: int


RecallResult.__module__ = "anneal_memory.types"
