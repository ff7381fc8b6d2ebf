"""The per-turn block cache behind ``AgentMemory.turn_context``."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable

__all__ = ["TURN_CACHE_SIZE", "TurnBlocks"]

TURN_CACHE_SIZE = 256
"""How many turn keys keep their block (runs interleaved on one memory each keep theirs)."""


class TurnBlocks:
    """Blocks by turn key, the newest ``TURN_CACHE_SIZE`` kept; safe across threads.

    A key without a turn (``turn`` None) is the prompt text: it lasts until another prompt
    without a turn is asked.
    """

    def __init__(self) -> None:
        self._blocks: OrderedDict[tuple[str, object], str] = OrderedDict()
        self._lock = threading.Lock()

    def get(
        self, prompt: str, turn: Hashable | None, scope: str | None, build: Callable[[], str]
    ) -> str:
        """The block of this turn (or prompt) in ``scope``; ``build()`` makes it the first time."""
        key = ("prompt", (prompt, scope)) if turn is None else ("turn", (turn, scope))
        with self._lock:
            block = self._blocks.get(key)
            if block is None:
                if turn is None:
                    for stale in [k for k in self._blocks if k[0] == "prompt"]:
                        del self._blocks[stale]
                block = build()
                self._blocks[key] = block
                while len(self._blocks) > TURN_CACHE_SIZE:
                    self._blocks.popitem(last=False)
            self._blocks.move_to_end(key)
            return block
