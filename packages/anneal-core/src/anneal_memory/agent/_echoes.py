"""What recall showed this session, so that a copy recorded back is marked derived from it.

The self-feeding loop: recall shows the agent a note, the agent (or a tool echoing it)
records the same text again, the copy is recalled in turn, and a hallucination becomes a
pattern seen in many sessions. :class:`SurfacedEpisodes` keeps the last
:data:`SURFACED_LIMIT` episodes recall showed to this session (an in-process record:
``AgentMemory`` and the MCP server each keep one); a record whose text repeats one of them
(``store.provenance.is_copy``) is written ``derived_from`` it, so its effective trust is
capped at the original's and the wrap's save counts it as the original's evidence, never as
new evidence. Only what this session was shown counts: the same observation made again
independently (another day's build failure) stays new evidence.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable

from anneal_memory.store.provenance import is_copy, text_words, write_copy
from anneal_memory.types import Episode

__all__ = ["SURFACED_LIMIT", "SurfacedEpisodes", "write_copy"]

SURFACED_LIMIT = 256


class SurfacedEpisodes:
    """A bounded, thread-safe record of the episodes recall showed (most recent kept)."""

    def __init__(self, limit: int = SURFACED_LIMIT) -> None:
        self._limit = limit
        self._words: OrderedDict[str, frozenset[str]] = OrderedDict()
        self._roots: dict[str, str] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._words)

    def remember(self, episodes: Iterable[Episode]) -> None:
        """Note ``episodes`` as shown to this session."""
        with self._lock:
            for episode in episodes:
                self._words[episode.id] = text_words(episode.content)
                self._words.move_to_end(episode.id)
                if episode.derived_from:
                    self._roots[episode.id] = episode.derived_from[-1]
            while len(self._words) > self._limit:
                gone, _words = self._words.popitem(last=False)
                self._roots.pop(gone, None)

    def source_of(self, text: str) -> list[str] | None:
        """The ``derived_from`` of a record of ``text``: None unless it repeats a shown episode.

        The shown episode (the most recently shown first), then the last source that one
        derives from: a copy of a copy names the original too, so no chain grows past two
        links and effective trust reaches the original at once.
        """
        mine = text_words(text)
        with self._lock:
            for ident in reversed(self._words):
                if is_copy(mine, self._words[ident]):
                    root = self._roots.get(ident)
                    return [ident] if root is None or root == ident else [ident, root]
        return None
