"""The tamper-evident audit trail: hash-chained JSONL beside the database.

Names load on first use (PEP 562): every ``record`` appends through ``_trail``, while
verification, repair and reading are only needed by operators.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from anneal_memory._lazy import lazy_exports

if TYPE_CHECKING:
    from anneal_memory.audit._chain import GENESIS_HASH
    from anneal_memory.audit._events import AuditEvent
    from anneal_memory.audit._files import AuditPaths
    from anneal_memory.audit._read import iter_entries, read_entries
    from anneal_memory.audit._repair import AuditRepairResult
    from anneal_memory.audit._search import (
        TrailPage,
        event_needle,
        field_needles,
        page_entries,
        value_needles,
    )
    from anneal_memory.audit._trail import AuditTrail, EventCallback
    from anneal_memory.audit._verify import AuditVerifyResult

_EXPORTS: dict[str, str] = {
    "GENESIS_HASH": "anneal_memory.audit._chain",
    "AuditEvent": "anneal_memory.audit._events",
    "AuditPaths": "anneal_memory.audit._files",
    "AuditRepairResult": "anneal_memory.audit._repair",
    "AuditTrail": "anneal_memory.audit._trail",
    "AuditVerifyResult": "anneal_memory.audit._verify",
    "EventCallback": "anneal_memory.audit._trail",
    "TrailPage": "anneal_memory.audit._search",
    "event_needle": "anneal_memory.audit._search",
    "field_needles": "anneal_memory.audit._search",
    "iter_entries": "anneal_memory.audit._read",
    "page_entries": "anneal_memory.audit._search",
    "read_entries": "anneal_memory.audit._read",
    "value_needles": "anneal_memory.audit._search",
}

__all__ = [
    "GENESIS_HASH",
    "AuditEvent",
    "AuditPaths",
    "AuditRepairResult",
    "AuditTrail",
    "AuditVerifyResult",
    "EventCallback",
    "TrailPage",
    "event_needle",
    "field_needles",
    "iter_entries",
    "page_entries",
    "read_entries",
    "value_needles",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
