"""anneal-memory: living memory for AI agents.

Record typed episodes while you work, recall them before decisions, and compress them at
session end into a bounded continuity file that an immune system checks.
"""

from anneal_memory._clock import Clock, SystemClock
from anneal_memory.associations import Affect
from anneal_memory.audit import AuditEvent, AuditRepairResult, AuditTrail, AuditVerifyResult
from anneal_memory.continuity import (
    CancelResult,
    PrepareResult,
    SaveResult,
    WrapPackage,
    WrapStatus,
    prepare_wrap,
    validated_save_continuity,
    wrap_cancel,
)
from anneal_memory.errors import (
    AnnealMemoryError,
    AuditChainBrokenError,
    AuditError,
    AuditRepairRefusedError,
    BatonHeldError,
    EpisodeNotFoundError,
    GateError,
    IdempotencyConflictError,
    ImportFormatError,
    InvalidEpisodeError,
    InvalidInputError,
    InvalidQueryError,
    SaveAuthorityError,
    StoreClosedError,
    StoreDatabaseError,
    StoreError,
)
from anneal_memory.gate import (
    BatonStatus,
    GateDecision,
    baton_status,
    claim_baton,
    release_baton,
    set_consolidate_policy,
)
from anneal_memory.immune import Finding, FindingCode
from anneal_memory.memory import AgentMemory, RecordingPolicy, WrapOutcome, WrapOutcomeStatus
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
    "Affect",
    "AgentMemory",
    "AnnealMemoryError",
    "AuditChainBrokenError",
    "AuditError",
    "AuditEvent",
    "AuditRepairRefusedError",
    "AuditRepairResult",
    "AuditTrail",
    "AuditVerifyResult",
    "BatonHeldError",
    "BatonStatus",
    "CancelResult",
    "Clock",
    "Episode",
    "EpisodeNotFoundError",
    "EpisodeType",
    "Finding",
    "FindingCode",
    "GateDecision",
    "GateError",
    "IdempotencyConflictError",
    "ImportFormatError",
    "ImportResult",
    "InvalidEpisodeError",
    "InvalidInputError",
    "InvalidQueryError",
    "PrepareResult",
    "PruneResult",
    "RecallResult",
    "RecordingPolicy",
    "SaveAuthorityError",
    "SaveResult",
    "Store",
    "StoreClosedError",
    "StoreDatabaseError",
    "StoreError",
    "StoreStatus",
    "SystemClock",
    "WrapOutcome",
    "WrapOutcomeStatus",
    "WrapPackage",
    "WrapStatus",
    "__version__",
    "baton_status",
    "claim_baton",
    "prepare_wrap",
    "release_baton",
    "set_consolidate_policy",
    "validated_save_continuity",
    "wrap_cancel",
]
