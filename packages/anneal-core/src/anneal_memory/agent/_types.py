"""The callables an adapter hands ``AgentMemory.wrap``: its model, and where affect comes from."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeAlias

from anneal_memory.associations import Affect

__all__ = ["AffectSource", "Compressor"]

Compressor: TypeAlias = Callable[[str], "str | Awaitable[str]"]
"""The model's call: the wrap package text in, continuity markdown out (sync or async)."""

AffectSource: TypeAlias = (
    "Affect | Callable[[str], Affect | Awaitable[Affect | None] | None] | None"
)
"""The compressor's affect during a wrap: an ``Affect``, a callable that reads it from the
model's answer (sync or async, None when it finds none), or None."""
