"""The audit members of ``Store``: the trail's reads on either backend.

A mixin of :class:`~anneal_memory.store.Store`. Writes stage their entries with
``tx.audit(...)`` inside ``store.writing()`` (``store/_unit.py``); this reads them back.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from anneal_memory.audit._search import TrailPage
    from anneal_memory.audit._verify import AuditVerifyResult
    from anneal_memory.store._contract import Backend

__all__ = ["AuditMixin"]


class AuditMixin:
    """Audit methods ``Store`` inherits (``_backend`` is its backend)."""

    if TYPE_CHECKING:
        _backend: Backend

    def verify_audit(self) -> AuditVerifyResult:
        """Verify the audit chain: the trail files (SQLite) or the database's rows."""
        return self._backend.verify_audit()

    def read_audit(
        self, *, since: str | None = None, event: str | None = None, limit: int | None = None
    ) -> list[dict[str, Any]]:
        """The newest ``limit`` audit entries matching the filters, oldest first."""
        return self._backend.read_audit(since=since, event=event, limit=limit)

    def audit_page(
        self,
        *,
        limit: int,
        offset: int = 0,
        event: str | None = None,
        needles: Sequence[bytes] = (),
        since: str | None = None,
    ) -> TrailPage:
        """A page of audit entries, newest first, and how many entries matched in all.

        Works on both backends: the trail files beside a SQLite store, the rows of a
        PostgreSQL store. Lines are filtered on their canonical text before any is parsed.

        Args:
            limit: At most this many entries.
            offset: Skip this many of the newest matches first.
            event: Keep only entries of this event.
            needles: Keep only entries whose line holds one of these byte strings
                (``anneal_memory.audit.value_needles`` / ``field_needles``).
            since: A store timestamp no wanted entry is older than: a SQLite store then
                skips the sealed weeks that end before it.

        Raises:
            AuditError: The trail's manifest or a sealed week cannot be read (SQLite).
            StoreDatabaseError: The database failed (PostgreSQL).
        """
        return self._backend.audit_page(
            limit=limit, offset=offset, event=event, needles=needles, since=since
        )

    def export_audit(self, out: IO[str]) -> int:
        """Write the audit trail as JSONL (one entry a line, oldest first); the line count."""
        return self._backend.export_audit(out)
