"""anneal-memory: living memory for AI agents.

Record typed episodes while you work, recall them before decisions, and compress them at
session end into a bounded continuity file that an immune system checks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from anneal_memory._lazy import lazy_exports

if TYPE_CHECKING:
    from anneal_memory._clock import Clock, SystemClock
    from anneal_memory.agent import (
        AffectSource,
        AgentMemory,
        RecordingPolicy,
        WrapOutcome,
        WrapOutcomeStatus,
    )
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
        SupersessionError,
        TrustError,
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
    from anneal_memory.store import MAX_CONTENT_BYTES, Store
    from anneal_memory.types import (
        Episode,
        EpisodeType,
        ImportCount,
        ImportReport,
        ImportResult,
        PruneResult,
        RecallResult,
        StateSlot,
        StoreStatus,
        SupersessionLink,
        Trust,
    )

__version__ = "2.0.0"

# Public names load on first use (PEP 562), so the CLI and the MCP server start without
# importing the wrap pipeline, the immune system or the adapters' lifecycle object.
_EXPORTS: dict[str, str] = {
    "Affect": "anneal_memory.associations",
    "AffectSource": "anneal_memory.agent",
    "AgentMemory": "anneal_memory.agent",
    "AnnealMemoryError": "anneal_memory.errors",
    "AuditChainBrokenError": "anneal_memory.errors",
    "AuditError": "anneal_memory.errors",
    "AuditEvent": "anneal_memory.audit",
    "AuditRepairRefusedError": "anneal_memory.errors",
    "AuditRepairResult": "anneal_memory.audit",
    "AuditTrail": "anneal_memory.audit",
    "AuditVerifyResult": "anneal_memory.audit",
    "BatonHeldError": "anneal_memory.errors",
    "BatonStatus": "anneal_memory.gate",
    "CancelResult": "anneal_memory.continuity",
    "Clock": "anneal_memory._clock",
    "Episode": "anneal_memory.types",
    "EpisodeNotFoundError": "anneal_memory.errors",
    "EpisodeType": "anneal_memory.types",
    "Finding": "anneal_memory.immune",
    "FindingCode": "anneal_memory.immune",
    "GateDecision": "anneal_memory.gate",
    "GateError": "anneal_memory.errors",
    "IdempotencyConflictError": "anneal_memory.errors",
    "ImportFormatError": "anneal_memory.errors",
    "ImportCount": "anneal_memory.types",
    "ImportReport": "anneal_memory.types",
    "ImportResult": "anneal_memory.types",
    "InvalidEpisodeError": "anneal_memory.errors",
    "InvalidInputError": "anneal_memory.errors",
    "InvalidQueryError": "anneal_memory.errors",
    "MAX_CONTENT_BYTES": "anneal_memory.store",
    "PrepareResult": "anneal_memory.continuity",
    "PruneResult": "anneal_memory.types",
    "RecallResult": "anneal_memory.types",
    "RecordingPolicy": "anneal_memory.agent",
    "SaveAuthorityError": "anneal_memory.errors",
    "SaveResult": "anneal_memory.continuity",
    "StateSlot": "anneal_memory.types",
    "Store": "anneal_memory.store",
    "StoreClosedError": "anneal_memory.errors",
    "StoreDatabaseError": "anneal_memory.errors",
    "StoreError": "anneal_memory.errors",
    "StoreStatus": "anneal_memory.types",
    "SupersessionError": "anneal_memory.errors",
    "SupersessionLink": "anneal_memory.types",
    "SystemClock": "anneal_memory._clock",
    "Trust": "anneal_memory.types",
    "TrustError": "anneal_memory.errors",
    "WrapOutcome": "anneal_memory.agent",
    "WrapOutcomeStatus": "anneal_memory.agent",
    "WrapPackage": "anneal_memory.continuity",
    "WrapStatus": "anneal_memory.continuity",
    "baton_status": "anneal_memory.gate",
    "claim_baton": "anneal_memory.gate",
    "prepare_wrap": "anneal_memory.continuity",
    "release_baton": "anneal_memory.gate",
    "set_consolidate_policy": "anneal_memory.gate",
    "validated_save_continuity": "anneal_memory.continuity",
    "wrap_cancel": "anneal_memory.continuity",
}

__all__ = [
    "MAX_CONTENT_BYTES",
    "Affect",
    "AffectSource",
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
    "ImportCount",
    "ImportFormatError",
    "ImportReport",
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
    "StateSlot",
    "Store",
    "StoreClosedError",
    "StoreDatabaseError",
    "StoreError",
    "StoreStatus",
    "SupersessionError",
    "SupersessionLink",
    "SystemClock",
    "Trust",
    "TrustError",
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


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
