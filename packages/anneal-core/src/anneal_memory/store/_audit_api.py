"""The audit members of ``Store``: one verb for the rooms (``tx.audit``), and the trail's reads.

A mixin of :class:`~anneal_memory.store.Store`. ``stage_audit``, ``flush_audit`` and
``emit_audit`` are the verbs of library modules not yet on ``store.writing()``; they go once
every caller stages through ``tx.audit(...)``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from anneal_memory.audit._search import TrailPage
    from anneal_memory.audit._verify import AuditVerifyResult
    from anneal_memory.store._contract import Backend, SqlConnection

__all__ = ["AuditMixin"]


class AuditMixin:
    """Audit methods ``Store`` inherits (``_backend`` is its backend)."""

    if TYPE_CHECKING:
        _backend: Backend

    @property
    def audit_after_commit(self) -> bool:
        """Whether staged entries reach a trail file after their commit (SQLite, audit on).

        A transaction that stages entries for the trail is then worth flushing to disk. For
        the library's own modules (not a public API).
        """
        return self._backend.audit_after_commit

    def stage_audit(
        self, conn: SqlConnection, event: str, *, actor: str, data: Mapping[str, Any]
    ) -> object | None:
        """Stage one audit entry inside the caller's open write transaction on ``conn``.

        It commits (or rolls back) with the change; pass what this returns to
        :meth:`flush_audit` after the commit. Without an audit trail it does nothing.

        Raises:
            InvalidInputError: ``event`` is outside the audit vocabulary.
        """
        return self._backend.stage_audit(conn, event, actor=actor, data=data)

    def flush_audit(self, committed: Sequence[object | None] = ()) -> None:
        """Append staged audit entries to the trail. Never raises (failures are counted)."""
        self._backend.flush_audit([e for e in committed if e is not None])

    def emit_audit(self, event: str, *, actor: str, data: Mapping[str, Any]) -> None:
        """Log one event in a transaction of its own (inside an open write: in that one)."""
        self._backend.emit_audit(event, actor=actor, data=data)

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
