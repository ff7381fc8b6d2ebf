"""The audit entries an explanation shows, and the chain's verdict, on either backend.

``Store.audit_page`` reads the trail files beside a SQLite store or the rows of a PostgreSQL
store, filtering on the canonical lines; ``Store.verify_audit`` walks the chain of either.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from anneal_memory.explain._types import AuditSlice

if TYPE_CHECKING:
    from anneal_memory.audit import AuditVerifyResult
    from anneal_memory.store import Store

__all__ = ["audit_slice", "verdict_of"]


def verdict_of(result: AuditVerifyResult) -> dict[str, Any]:
    """The chain's verdict as a small JSON-ready dict (``valid``, ``entries``, ``summary``)."""
    return {
        "valid": bool(result.valid),
        "complete": bool(result.complete),
        "entries": result.total_entries,
        "chain_break_at": result.chain_break_at,
        "summary": result.summary(),
    }


def audit_slice(
    store: Store, needles: Sequence[bytes], *, limit: int, since: str | None, verify: bool
) -> AuditSlice:
    """The newest ``limit`` entries holding one of ``needles`` (none without needles)."""
    page = store.audit_page(limit=limit, needles=needles, since=since) if needles else None
    verdict = verdict_of(store.verify_audit()) if verify else None
    if page is None:
        return AuditSlice(verdict=verdict)
    return AuditSlice(entries=page.entries, matched=page.matched, verdict=verdict)
