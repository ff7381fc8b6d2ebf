"""``AgentMemory``: the lifecycle every adapter drives.

Its recording policy, recall block and wrap driver live here too. An adapter maps its
framework's hooks onto ``start()``, ``record()``, ``context_for()`` and ``wrap()``; everything
it needs is a public name of this package (or of ``anneal_memory``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from anneal_memory._lazy import lazy_exports

if TYPE_CHECKING:
    from anneal_memory.agent._memory import (
        AgentMemory,
        FailureCounts,
        MemoryFailure,
        RecordingPolicy,
        WrapOutcome,
        WrapOutcomeStatus,
    )
    from anneal_memory.agent._offloop import OffLoop
    from anneal_memory.agent._types import AffectSource, Compressor

_EXPORTS: dict[str, str] = {
    "AffectSource": "anneal_memory.agent._types",
    "AgentMemory": "anneal_memory.agent._memory",
    "Compressor": "anneal_memory.agent._types",
    "FailureCounts": "anneal_memory.agent._memory",
    "MemoryFailure": "anneal_memory.agent._memory",
    "OffLoop": "anneal_memory.agent._offloop",
    "RecordingPolicy": "anneal_memory.agent._memory",
    "WrapOutcome": "anneal_memory.agent._memory",
    "WrapOutcomeStatus": "anneal_memory.agent._memory",
}

__all__ = [
    "AffectSource",
    "AgentMemory",
    "Compressor",
    "FailureCounts",
    "MemoryFailure",
    "OffLoop",
    "RecordingPolicy",
    "WrapOutcome",
    "WrapOutcomeStatus",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
