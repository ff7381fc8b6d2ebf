"""The single-consolidator gate: only the session holding the baton may wrap.

Rewriting the agent's continuity (the wrap) is the operator's act. On a store whose policy
``consolidate_requires_baton`` is on, ``prepare_wrap`` opens a wrap only for the session that
holds the baton; any other caller gets a capture-only downgrade whose message names the
command the operator runs (``anneal-memory --db <db> baton claim NAME``). Recording is never
gated. A save must come from the session that prepared the wrap, which must still hold the
baton it held then: taking the baton mid-wrap revokes the old holder's save. Cancelling an
open wrap is gated the same way (``anneal_memory._wrap_gate``).

Everything lives in the database's ``meta`` table, so each change is one transaction:
the policy, the holder, when it was claimed, the previous holder, and an epoch that moves
whenever the baton changes hands (a wrap records the epoch it was prepared under).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from anneal_memory._clock import format_timestamp
from anneal_memory.errors import BatonHeldError, GateError, InvalidInputError, SaveAuthorityError
from anneal_memory.store import POLICY_KEY, location_of, write_policy
from anneal_memory.store.wraps import unwrapped_count

if TYPE_CHECKING:
    from anneal_memory.store import SqlConnection, Store

__all__ = [
    "SESSION_ENV",
    "BatonStatus",
    "GateDecision",
    "WrapGateState",
    "authorize_prepare",
    "baton_status",
    "bind_wrap",
    "check_save",
    "claim_baton",
    "claim_command",
    "consolidate_requires_baton",
    "recheck_save",
    "release_baton",
    "set_consolidate_policy",
    "wrap_gate_state",
]

SESSION_ENV = "ANNEAL_MEMORY_SESSION_ID"
_HOLDER = "baton_holder"
_CLAIMED_AT = "baton_claimed_at"
_PREVIOUS = "baton_previous_holder"
_EPOCH = "baton_epoch"
_WRAP_PREFIX = "gate_wrap_epoch:"
_MAX_SESSION_ID = 128


@dataclass(frozen=True, slots=True, kw_only=True)
class BatonStatus:
    """Who may consolidate this store.

    Attributes:
        consolidate_requires_baton: The policy: True means only the holder may wrap.
        holder: The session id holding the baton, or None.
        claimed_at: When the holder claimed it (ISO-8601 UTC).
        previous_holder: Who held it before, if anyone.
        episodes_since_wrap: Episodes waiting for the next wrap.
    """

    consolidate_requires_baton: bool
    holder: str | None
    claimed_at: str | None
    previous_holder: str | None
    episodes_since_wrap: int

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dict of every field (``baton_holder`` names the holder)."""
        return {
            "consolidate_requires_baton": self.consolidate_requires_baton,
            "baton_holder": self.holder,
            "claimed_at": self.claimed_at,
            "previous_holder": self.previous_holder,
            "episodes_since_wrap": self.episodes_since_wrap,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class GateDecision:
    """Whether a session may open a wrap now, and why.

    Attributes:
        allowed: True when the wrap may open.
        reason: ``open-store``, ``holds-baton``, ``downgraded-baton-required`` (no session
            id), ``downgraded-no-baton`` (nobody holds it) or ``downgraded-not-baton-holder``.
        message: For a downgrade, the text to show the operator (with the claim command).
        waiting: Episodes waiting for a wrap.
    """

    allowed: bool
    reason: str
    message: str
    waiting: int


def validate_session_id(session_id: object) -> str:
    """Check a session id: 1-128 printable characters, not only spaces.

    Raises:
        InvalidInputError: It is not.
    """
    if (
        not isinstance(session_id, str)
        or not session_id.strip()
        or len(session_id) > _MAX_SESSION_ID
        or not session_id.isprintable()
    ):
        raise InvalidInputError(
            f"session id must be 1-{_MAX_SESSION_ID} printable characters, got {session_id!r}"
        )
    return session_id


def _meta(conn: SqlConnection, *keys: str) -> dict[str, str]:
    marks = ",".join("?" * len(keys))
    rows = conn.execute(f"SELECT key, value FROM meta WHERE key IN ({marks})", keys)  # noqa: S608
    return {str(k): str(v) for k, v in rows}


def _put(conn: SqlConnection, items: dict[str, str | None]) -> None:
    for key, value in items.items():
        if value is None:
            conn.execute("DELETE FROM meta WHERE key = ?", (key,))
        else:
            conn.execute(
                "INSERT INTO meta(key, value) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (key, value),
            )


def _status(conn: SqlConnection) -> BatonStatus:
    found = _meta(conn, POLICY_KEY, _HOLDER, _CLAIMED_AT, _PREVIOUS)
    return BatonStatus(
        consolidate_requires_baton=found.get(POLICY_KEY) == "1",
        holder=found.get(_HOLDER),
        claimed_at=found.get(_CLAIMED_AT),
        previous_holder=found.get(_PREVIOUS),
        episodes_since_wrap=unwrapped_count(conn),
    )


def baton_status(store: Store) -> BatonStatus:
    """The policy, the holder and how many episodes wait for a wrap."""
    with store.reading("baton status") as reader:
        return _status(reader.conn)


def consolidate_requires_baton(store: Store) -> bool:
    """True when only the baton holder may wrap this store."""
    with store.reading("baton status") as reader:
        return _meta(reader.conn, POLICY_KEY).get(POLICY_KEY) == "1"


def set_consolidate_policy(store: Store, requires_baton: bool, *, actor: str = "operator") -> bool:
    """Turn the gate on or off for this store; returns the previous setting.

    The change is logged to the audit trail as ``consolidate_policy_set``.
    """
    with store.writing("set consolidate policy") as tx:
        was = write_policy(tx.conn, requires_baton)
        tx.audit(
            "consolidate_policy_set",
            actor=actor,
            data={"requires_baton": bool(requires_baton), "was": was},
        )
    return was


def claim_baton(store: Store, session_id: str, *, take: bool = False) -> BatonStatus:
    """Give the baton to ``session_id``.

    Claiming a baton you hold changes nothing. Claiming one another session holds needs
    ``take=True``; it moves the baton and revokes that session's open wrap, if any.

    Raises:
        InvalidInputError: ``session_id`` is not a valid session id.
        BatonHeldError: Another session holds it and ``take`` is False.
    """
    session_id = validate_session_id(session_id)
    with store.writing("baton claim") as tx:
        conn = tx.conn
        found = _meta(conn, _HOLDER, _EPOCH)
        holder = found.get(_HOLDER)
        if holder == session_id:
            return _status(conn)
        if holder is not None and not take:
            raise BatonHeldError(
                f"the baton is held by session {holder!r}; to move it to {session_id!r} "
                f"run: baton claim {shlex.quote(session_id)} --take",
                holder=holder,
            )
        _put(
            conn,
            {
                _HOLDER: session_id,
                _CLAIMED_AT: format_timestamp(store.clock.now()),
                _PREVIOUS: holder,
                _EPOCH: str(int(found.get(_EPOCH, "0")) + 1),
            },
        )
        event = "baton_taken" if holder is not None else "baton_claimed"
        tx.audit(event, actor=session_id, data={"session_id": session_id, "previous": holder})
        return _status(conn)


def release_baton(store: Store, session_id: str) -> BatonStatus:
    """Give the baton up. Only its holder may release it.

    Raises:
        GateError: ``session_id`` does not hold the baton.
    """
    session_id = validate_session_id(session_id)
    with store.writing("baton release") as tx:
        conn = tx.conn
        found = _meta(conn, _HOLDER, _EPOCH)
        holder = found.get(_HOLDER)
        if holder != session_id:
            held = "nobody holds it" if holder is None else f"it is held by {holder!r}"
            raise GateError(f"session {session_id!r} cannot release the baton: {held}")
        _put(
            conn,
            {
                _HOLDER: None,
                _CLAIMED_AT: None,
                _PREVIOUS: holder,
                _EPOCH: str(int(found.get(_EPOCH, "0")) + 1),
            },
        )
        tx.audit("baton_released", actor=session_id, data={"session_id": session_id})
        return _status(conn)


def claim_command(store: Store, name: str | None = None) -> str:
    """The exact command the operator runs to give ``name`` the baton."""
    return _claim_command(location_of(store), name)


def _claim_command(location: str, name: str | None) -> str:
    who = shlex.quote(name) if name else "NAME"
    return f"anneal-memory --db {shlex.quote(location)} baton claim {who}"


def _downgrade(location: str, reason: str, why: str, waiting: int, name: str | None) -> str:
    then = (
        "" if name else " and pass --session-id NAME (or set ANNEAL_MEMORY_SESSION_ID) to the wrap"
    )
    return (
        f"Consolidate downgraded to capture-only ({reason}): this store is baton-protected "
        f"and {why}. Capture is unaffected: recording keeps working. {waiting} episode(s) "
        "since the last wrap are waiting to be consolidated. Show your human this; do not "
        f"run it yourself: {_claim_command(location, name)}{then}"
    )


def authorize_prepare(
    conn: SqlConnection, session_id: str | None, *, location: str
) -> GateDecision:
    """Decide whether ``session_id`` may open a wrap now (reads, in the prepare's transaction).

    ``location`` is what ``--db`` names for the store, for the downgrade's claim command.
    """
    status = _status(conn)
    waiting = status.episodes_since_wrap
    if not status.consolidate_requires_baton:
        return GateDecision(allowed=True, reason="open-store", message="", waiting=waiting)
    if session_id is not None and status.holder == session_id:
        return GateDecision(allowed=True, reason="holds-baton", message="", waiting=waiting)
    if session_id is None:
        reason, why = "downgraded-baton-required", "this call named no session id"
    elif status.holder is None:
        reason, why = "downgraded-no-baton", f"nobody holds the baton (asked by {session_id!r})"
    else:
        reason = "downgraded-not-baton-holder"
        why = f"session {session_id!r} does not hold the baton (held by {status.holder!r})"
    message = _downgrade(location, reason, why, waiting, session_id)
    return GateDecision(allowed=False, reason=reason, message=message, waiting=waiting)


def bind_wrap(conn: SqlConnection, token: str) -> None:
    """Record the baton epoch a wrap was prepared under (inside the prepare transaction)."""
    # Bindings of wraps no longer open go; other scopes' open wraps keep theirs.
    conn.execute(
        "DELETE FROM meta WHERE key LIKE ? AND key NOT IN"
        " (SELECT ? || token FROM wraps WHERE status = 'open')",
        (_WRAP_PREFIX + "%", _WRAP_PREFIX),
    )
    # Read the epoch and write the binding in one statement ("WHERE true": upsert syntax).
    conn.execute(
        "INSERT INTO meta(key, value) SELECT ?, coalesce((SELECT value FROM meta WHERE key = ?),"
        " '0') WHERE true ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (_WRAP_PREFIX + token, _EPOCH),
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class WrapGateState:
    """What the gate says about the open wrap, read inside the caller's transaction.

    Attributes:
        protected: The store's policy requires the baton.
        holder: The session holding the baton now, if any.
        revoked: The baton changed hands since the wrap was prepared (its save is revoked).
    """

    protected: bool
    holder: str | None
    revoked: bool


def wrap_gate_state(conn: SqlConnection, open_token: str) -> WrapGateState:
    """The policy, the holder and whether the wrap with ``open_token`` was revoked."""
    found = _meta(conn, POLICY_KEY, _HOLDER, _EPOCH, _WRAP_PREFIX + open_token)
    return WrapGateState(
        protected=found.get(POLICY_KEY) == "1",
        holder=found.get(_HOLDER),
        revoked=found.get(_WRAP_PREFIX + open_token) != found.get(_EPOCH, "0"),
    )


def check_save(
    conn: SqlConnection,
    *,
    wrap_token: str | None,
    wrap_session: str | None,
    session_id: str | None,
    open_token: str,
) -> None:
    """Refuse a save the gate does not allow; does nothing on a store without the policy.

    Args:
        conn: The connection of the save's reads.
        wrap_token: The token the save carried.
        wrap_session: The session that prepared the open wrap.
        session_id: The session saving.
        open_token: The open wrap's token.

    Raises:
        SaveAuthorityError: The save is not from the preparing session, that session no
            longer holds the baton, or the baton changed hands since the prepare.
    """
    found = _meta(conn, POLICY_KEY, _HOLDER, _EPOCH, _WRAP_PREFIX + open_token)
    if found.get(POLICY_KEY) != "1":
        return
    if session_id is None or wrap_token is None:
        raise SaveAuthorityError(
            "This store is baton-protected: a save must name the baton holder's session id "
            "(--session-id or ANNEAL_MEMORY_SESSION_ID) and carry the token its prepare "
            "returned (--wrap-token). Nothing was written."
        )
    if wrap_session != session_id:
        raise SaveAuthorityError(
            f"This wrap was prepared by session {wrap_session!r}; only that session may save "
            f"it, not {session_id!r}. Nothing was written."
        )
    _check_still_held(found, session_id, open_token)


def _check_still_held(found: dict[str, str], session_id: str, open_token: str) -> None:
    holder = found.get(_HOLDER)
    bound = found.get(_WRAP_PREFIX + open_token)
    if holder != session_id or bound != found.get(_EPOCH, "0"):
        now = "nobody holds it now" if holder is None else f"it is held by {holder!r} now"
        raise SaveAuthorityError(
            f"Session {session_id!r} lost the baton after preparing this wrap ({now}), so "
            "its save is revoked. Nothing was written; cancel the wrap (wrap-cancel) and "
            "let the baton holder prepare a new one."
        )


def recheck_save(conn: SqlConnection, *, wrap_session: str | None, open_token: str) -> None:
    """Repeat the baton part of :func:`check_save` inside the save's commit transaction.

    A take between the first check and the commit is then seen (the two transactions are
    serialised by SQLite), so a revoked save never commits.

    Raises:
        SaveAuthorityError: The preparing session no longer holds the baton it held.
    """
    found = _meta(conn, POLICY_KEY, _HOLDER, _EPOCH, _WRAP_PREFIX + open_token)
    if found.get(POLICY_KEY) != "1":
        return
    if wrap_session is None:
        raise SaveAuthorityError(
            "This store is baton-protected and the open wrap names no session; nothing was "
            "written. Cancel it (wrap-cancel) and prepare again with --session-id."
        )
    _check_still_held(found, wrap_session, open_token)
