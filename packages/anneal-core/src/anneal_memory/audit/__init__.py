"""The tamper-evident audit trail: hash-chained JSONL beside the database."""

from anneal_memory.audit._chain import GENESIS_HASH
from anneal_memory.audit._events import AuditEvent
from anneal_memory.audit._files import AuditPaths
from anneal_memory.audit._read import iter_entries, read_entries
from anneal_memory.audit._repair import AuditRepairResult
from anneal_memory.audit._trail import AuditTrail, EventCallback
from anneal_memory.audit._verify import AuditVerifyResult

__all__ = [
    "GENESIS_HASH",
    "AuditEvent",
    "AuditPaths",
    "AuditRepairResult",
    "AuditTrail",
    "AuditVerifyResult",
    "EventCallback",
    "iter_entries",
    "read_entries",
]
