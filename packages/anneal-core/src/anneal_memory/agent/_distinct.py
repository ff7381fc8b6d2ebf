"""Near-duplicate episodes collapsed, so a short memory block shows distinct memories.

Two episodes are near-duplicates when their word sets (letters and digits, case folded, the
same words the search uses) overlap by at least :data:`NEAR_DUPLICATE_OVERLAP` (Jaccard:
shared words / all words). The same text recorded in two sessions, or with different
punctuation, spacing or case, is one memory; "retry 3 times" and "retry 5 times" are not.
So is a recalled copy (``_echoes``): a derived episode whose text repeats a kept one with a
short wrapper (``notes_search -> ...``), or that a kept derived one repeats.
"""

from __future__ import annotations

from collections.abc import Iterable

from anneal_memory.store.provenance import copies_one_another, without_copies
from anneal_memory.store.recall import tokenize
from anneal_memory.types import Episode

__all__ = ["NEAR_DUPLICATE_OVERLAP", "OVERFETCH", "distinct_episodes", "without_copies"]

NEAR_DUPLICATE_OVERLAP = 0.9
# How many more episodes a caller asks recall for, so collapsing still fills the block.
OVERFETCH = 3


def _overlap(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def distinct_episodes(episodes: Iterable[Episode], limit: int) -> list[Episode]:
    """The first ``limit`` episodes, in order, each not a near-duplicate of one kept before."""
    kept: list[Episode] = []
    words: list[frozenset[str]] = []
    for episode in episodes:
        if len(kept) >= limit:
            break
        these = frozenset(tokenize(episode.content))
        if any(_overlap(these, seen) >= NEAR_DUPLICATE_OVERLAP for seen in words):
            continue
        if any(copies_one_another(episode, other) for other in kept):
            continue
        kept.append(episode)
        words.append(these)
    return kept
