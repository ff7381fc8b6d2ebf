"""The audit half of ``Store``: stage entries in a transaction, append them after it."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any

from anneal_memory.audit._intents import StagedEntry
from anneal_memory.audit._sink import StoreAuditSink
from anneal_memory.store._policy import write_policy
from anneal_memory.store.sqlite._schema import SCHEMA_VERSION

__all__ = ["AuditHooks"]


class AuditHooks:
    """Audit methods ``Store`` inherits; ``_audit_sink`` is None without an audit trail."""

    _audit_sink: StoreAuditSink | None = None

    @property
    def audit_after_commit(self) -> bool:
        """Whether staged audit entries reach a trail file after their commit (audit on).

        A transaction that stages entries for the trail is then worth flushing to disk. For
        the library's own modules (not a public API).
        """
        return self._audit_sink is not None

    def emit_audit(self, event: str, *, actor: str, data: Mapping[str, Any]) -> None:
        """Log one event to the audit trail, after the commit it describes. Never raises.

        The entry is staged and appended in its own small transaction; called inside an
        open write transaction it joins that one instead. Prefer :meth:`stage_audit` inside
        the change's own transaction, so a crash cannot separate the two. Without an audit
        trail attached (``audit=False``, ``read_only=True``) it does nothing.
        """
        sink = self._audit_sink
        if sink is not None:
            sink.emit(event, actor, data)

    def stage_audit(
        self, conn: sqlite3.Connection, event: str, *, actor: str, data: Mapping[str, Any]
    ) -> StagedEntry | None:
        """Stage one audit entry inside the caller's open write transaction.

        It commits (or rolls back) with the change; call :meth:`flush_audit` after the
        commit to append it to the trail (a crash before that only delays it: the next
        open or flush appends it). Without an audit trail attached it does nothing and
        returns None; else it returns the staged entry.

        Raises:
            InvalidInputError: ``event`` is outside the audit vocabulary.
        """
        sink = self._audit_sink
        if sink is None:
            return None
        return sink.stage(conn, event, actor, data)

    def flush_audit(self, committed: Sequence[StagedEntry | None] = ()) -> None:
        """Append staged audit entries to the trail. Never raises (failures are counted).

        ``committed``: what :meth:`stage_audit` returned inside a transaction that has
        committed; they are appended without reading them back from the database.
        """
        sink = self._audit_sink
        if sink is not None:
            sink.flush([e for e in committed if e is not None])

    def _on_migrated(self, conn: sqlite3.Connection, found: int, *, gate_on_create: bool) -> None:
        """Inside the migration's transaction: its audit entry and a new store's policy."""
        if found > 0:
            self.stage_audit(
                conn,
                "schema_migrated",
                actor="agent",
                data={"from_version": found, "to_version": SCHEMA_VERSION},
            )
        elif gate_on_create:
            was = write_policy(conn, True)
            self.stage_audit(
                conn,
                "consolidate_policy_set",
                actor="agent",
                data={"requires_baton": True, "was": was},
            )
