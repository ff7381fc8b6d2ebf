"""The audit trail of a store, read in pages: JSONL files beside a SQLite store, or rows.

A SQLite store's trail is the hash-chained JSONL files beside its database; a PostgreSQL
store keeps the same lines in its ``audit_entries`` table and verifies them itself
(``verify_audit``). :func:`trail_of` picks the reader once, so explanations and the inspector
never ask which backend they have. Both readers filter on the canonical line's bytes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from anneal_memory.audit._search import TrailPage, event_needle, page_entries

if TYPE_CHECKING:
    from anneal_memory.audit._verify import AuditVerifyResult
    from anneal_memory.store import Store

__all__ = ["Trail", "trail_of", "verdict_of"]


class Trail(Protocol):
    """Reads one store's audit trail."""

    def page(
        self,
        *,
        limit: int,
        offset: int = 0,
        event: str | None = None,
        needles: Sequence[bytes] = (),
        since: str | None = None,
    ) -> TrailPage:
        """Entries newest first (see ``audit._search.page_entries``)."""
        ...  # pragma: no cover - protocol

    def verify(self) -> AuditVerifyResult:
        """Walk the whole chain."""
        ...  # pragma: no cover - protocol


class _FileTrail:
    def __init__(self, store: Store) -> None:
        self._db = store.path

    def page(
        self,
        *,
        limit: int,
        offset: int = 0,
        event: str | None = None,
        needles: Sequence[bytes] = (),
        since: str | None = None,
    ) -> TrailPage:
        return page_entries(
            self._db, limit=limit, offset=offset, event=event, needles=needles, since=since
        )

    def verify(self) -> AuditVerifyResult:
        from anneal_memory.audit import AuditTrail

        return AuditTrail.verify(self._db)


def _like(needle: bytes) -> str:
    text = needle.decode("ascii")
    return "%" + text.replace("!", "!!").replace("%", "!%").replace("_", "!_") + "%"


class _TableTrail:
    """The PostgreSQL store's trail: the same canonical lines, one row each."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def page(
        self,
        *,
        limit: int,
        offset: int = 0,
        event: str | None = None,
        needles: Sequence[bytes] = (),
        since: str | None = None,
    ) -> TrailPage:
        del since  # one table: no file to skip by age
        clauses: list[str] = []
        params: list[Any] = []
        if event is not None:
            clauses.append("line LIKE ? ESCAPE '!'")
            params.append(_like(event_needle(event)))
        if needles:
            clauses.append("(" + " OR ".join(["line LIKE ? ESCAPE '!'"] * len(needles)) + ")")
            params += [_like(n) for n in needles]
        where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
        with self._store.reading("audit page") as r:
            matched = r.conn.execute(f"SELECT count(*) FROM audit_entries{where}", params)  # noqa: S608
            total = int(matched.fetchone()[0])
            rows = r.conn.execute(
                f"SELECT line FROM audit_entries{where} ORDER BY seq DESC LIMIT ? OFFSET ?",  # noqa: S608
                (*params, max(0, limit), max(0, offset)),
            ).fetchall()
        entries = tuple(json.loads(str(row[0])) for row in rows)
        return TrailPage(entries=entries, matched=total)

    def verify(self) -> AuditVerifyResult:
        result: AuditVerifyResult = self._store.verify_audit()  # type: ignore[attr-defined]
        return result


def trail_of(store: Store) -> Trail:
    """The reader of ``store``'s trail: its own table when it keeps one, else its files."""
    if callable(getattr(store, "verify_audit", None)):
        return _TableTrail(store)
    return _FileTrail(store)


def verdict_of(result: AuditVerifyResult) -> dict[str, Any]:
    """The chain's verdict as a small JSON-ready dict (``valid``, ``entries``, ``summary``)."""
    return {
        "valid": bool(result.valid),
        "complete": bool(result.complete),
        "entries": result.total_entries,
        "chain_break_at": result.chain_break_at,
        "summary": result.summary(),
    }
