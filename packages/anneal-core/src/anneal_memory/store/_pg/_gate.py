"""The single-consolidator gate on PostgreSQL: the baton is one row, changed under its lock.

``claim``, ``release`` and ``set_policy`` lock the ``baton`` row (``SELECT ... FOR UPDATE``)
in the transaction that changes it and appends its audit entry, so two hosts claiming at once
are serialised: the second sees the first's holder and is refused (or takes it with
``take=True``). The rules and messages are ``anneal_memory.gate``'s.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from anneal_memory._clock import format_timestamp
from anneal_memory.errors import BatonHeldError, GateError
from anneal_memory.gate import BatonStatus, validate_session_id

if TYPE_CHECKING:
    import psycopg

    from anneal_memory._clock import Clock
    from anneal_memory.store._pg._driver import Pool

__all__ = ["GateStore", "PgGate"]

_ROW = "SELECT requires_baton, holder, claimed_at, previous_holder, epoch FROM baton WHERE one = 1"


def _status(conn: psycopg.Connection[Any], *, lock: bool = False) -> tuple[BatonStatus, int]:
    row = conn.execute(_ROW + (" FOR UPDATE" if lock else "")).fetchone()
    waiting = conn.execute("SELECT count(*) FROM episodes").fetchone()
    if row is None:  # pragma: no cover - ensure_schema always writes it
        raise GateError("the baton row is missing; reopen the store to recreate it")
    status = BatonStatus(
        consolidate_requires_baton=bool(row[0]),
        holder=row[1],
        claimed_at=row[2],
        previous_holder=row[3],
        episodes_since_wrap=int(waiting[0]) if waiting else 0,
    )
    return status, int(row[4])


class GateStore(Protocol):
    """What the gate needs of the PostgreSQL store."""

    @property
    def clock(self) -> Clock:
        """The store's clock."""
        ...

    def pool(self, operation: str) -> Pool:
        """The connection pool."""
        ...

    def audited(
        self, conn: psycopg.Connection[Any], event: str, actor: str, data: Mapping[str, Any]
    ) -> None:
        """Append an audit entry inside ``conn``'s transaction."""
        ...


class PgGate:
    """The gate operations of one PostgreSQL store (``anneal_memory.gate`` calls these)."""

    def __init__(self, store: GateStore) -> None:
        self._store = store

    def status(self) -> BatonStatus:
        """The policy, the holder and the episodes waiting (no wraps yet: every episode)."""
        with self._store.pool("baton status").read("baton status") as conn:
            return _status(conn)[0]

    def set_policy(self, requires_baton: bool, *, actor: str) -> bool:
        """Turn the gate on or off; returns the previous setting."""
        with self._store.pool("set consolidate policy").transaction("set policy") as conn:
            was = _status(conn, lock=True)[0].consolidate_requires_baton
            conn.execute("UPDATE baton SET requires_baton = %s WHERE one = 1", (requires_baton,))
            data = {"requires_baton": bool(requires_baton), "was": was}
            self._store.audited(conn, "consolidate_policy_set", actor, data)
        return was

    def claim(self, session_id: str, *, take: bool) -> BatonStatus:
        """Give the baton to ``session_id`` (``gate.claim_baton``'s rules)."""
        session_id = validate_session_id(session_id)
        with self._store.pool("baton claim").transaction("baton claim") as conn:
            status, epoch = _status(conn, lock=True)
            holder = status.holder
            if holder == session_id:
                return status
            if holder is not None and not take:
                raise BatonHeldError(
                    f"the baton is held by session {holder!r}; to move it to {session_id!r} "
                    f"run: baton claim {shlex.quote(session_id)} --take",
                    holder=holder,
                )
            conn.execute(
                "UPDATE baton SET holder = %s, claimed_at = %s, previous_holder = %s,"
                " epoch = %s WHERE one = 1",
                (session_id, format_timestamp(self._store.clock.now()), holder, epoch + 1),
            )
            event = "baton_taken" if holder is not None else "baton_claimed"
            data = {"session_id": session_id, "previous": holder}
            self._store.audited(conn, event, session_id, data)
            return _status(conn)[0]

    def release(self, session_id: str) -> BatonStatus:
        """Give the baton up (only its holder may)."""
        session_id = validate_session_id(session_id)
        with self._store.pool("baton release").transaction("baton release") as conn:
            status, epoch = _status(conn, lock=True)
            if status.holder != session_id:
                held = (
                    "nobody holds it"
                    if status.holder is None
                    else f"it is held by {status.holder!r}"
                )
                raise GateError(f"session {session_id!r} cannot release the baton: {held}")
            conn.execute(
                "UPDATE baton SET holder = NULL, claimed_at = NULL, previous_holder = %s,"
                " epoch = %s WHERE one = 1",
                (session_id, epoch + 1),
            )
            self._store.audited(conn, "baton_released", session_id, {"session_id": session_id})
            return _status(conn)[0]
