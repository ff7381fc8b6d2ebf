"""anneal-memory: living memory for AI agents.

Record typed episodes while you work, recall them before decisions, and compress them at
session end into a bounded continuity file that an immune system checks.
"""

from anneal_memory._clock import Clock, SystemClock
from anneal_memory.errors import (
    AnnealMemoryError,
    EpisodeNotFoundError,
    IdempotencyConflictError,
    ImportFormatError,
    InvalidEpisodeError,
    InvalidInputError,
    InvalidQueryError,
    StoreClosedError,
    StoreDatabaseError,
    StoreError,
)
from anneal_memory.store import MAX_CONTENT_BYTES, Store
from anneal_memory.types import (
    Episode,
    EpisodeType,
    ImportResult,
    PruneResult,
    RecallResult,
    StoreStatus,
)

__version__ = "0.1.0"

__all__ = [
    "MAX_CONTENT_BYTES",
    "AnnealMemoryError",
    "Clock",
    "Episode",
    "EpisodeNotFoundError",
    "EpisodeType",
    "IdempotencyConflictError",
    "ImportFormatError",
    "ImportResult",
    "InvalidEpisodeError",
    "InvalidInputError",
    "InvalidQueryError",
    "PruneResult",
    "RecallResult",
    "Store",
    "StoreClosedError",
    "StoreDatabaseError",
    "StoreError",
    "StoreStatus",
    "SystemClock",
    "__version__",
]
