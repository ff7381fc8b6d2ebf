"""Wrap lifecycle beyond prepare and save: cancel, status, and the history of wraps and patterns."""

from __future__ import annotations

from typing import TYPE_CHECKING

from anneal_memory._clock import format_timestamp
from anneal_memory._wrap_gate import authorize_cancel
from anneal_memory.continuity._file import wrap_scope
from anneal_memory.errors import InvalidInputError, NoWrapInProgressError, WrapTokenMismatchError
from anneal_memory.store import Store, location_of
from anneal_memory.store.wraps import (
    PatternEvent,
    WrapRecord,
    cancel_wrap,
    find_open_wrap,
    load_open_wrap,
    pattern_events,
    unwrapped_by_scope,
    unwrapped_count,
)
from anneal_memory.store.wraps import wrap_history as _wrap_history

if TYPE_CHECKING:
    from anneal_memory.continuity._results import CancelResult

__all__ = [
    "pattern_history",
    "unwrapped_in_scope",
    "unwrapped_scopes",
    "wrap_cancel",
    "wrap_history",
    "wrap_status",
]


def _check_limit(limit: int) -> None:
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise InvalidInputError(f"limit must be a positive integer, got {limit!r}")


def wrap_cancel(
    store: Store,
    *,
    wrap_token: str | None = None,
    session_id: str | None = None,
    force: bool = False,
    scope: str | None = None,
) -> CancelResult:
    """Close the open wrap without saving. Its episodes stay and fall into the next wrap.

    On a baton-protected store only the session that prepared the wrap may cancel it (the
    baton holder may also clear a wrap revoked by a baton move); ``force=True`` is the
    operator's escape hatch (the CLI's ``wrap-cancel --force``), recorded as
    ``reason: "forced"`` in the audit trail.

    Args:
        store: The store.
        wrap_token: When given, cancel only if it is the open wrap's token.
        session_id: The cancelling session (recorded in the audit trail).
        force: Cancel whoever prepared the wrap (the operator's act).
        scope: The scope whose open wrap is cancelled. None (the default): the open wrap
            whose token is ``wrap_token``, or scope "" when no token is given.

    Raises:
        NoWrapInProgressError: No wrap is open.
        WrapTokenMismatchError: ``wrap_token`` is not the open wrap's.
        GateError: The gate does not let ``session_id`` cancel this wrap.
    """
    # Imported here: the counts below (``status``) need none of the wrap machinery.
    from anneal_memory.continuity._prepare import validate_session_id
    from anneal_memory.continuity._results import CancelResult

    session_id = validate_session_id(session_id)
    scope = None if scope is None else wrap_scope(scope)
    if not isinstance(force, bool):
        raise InvalidInputError(f"force must be True or False, got {force!r}")
    with store.writing("wrap_cancel") as tx:
        wrap = find_open_wrap(tx.conn, scope, wrap_token)
        if wrap is None:
            raise NoWrapInProgressError("No wrap is in progress: nothing to cancel")
        if not force:
            authorize_cancel(
                tx.conn,
                location_of(store),
                wrap_session=wrap.session_id,
                open_token=wrap.token,
                session_id=session_id,
                scope=wrap.scope,
            )
        if wrap_token is not None and wrap_token != wrap.token:
            raise WrapTokenMismatchError(
                "wrap_token mismatch: this cancel carried a token that is not the open "
                "wrap's; nothing was cancelled (wrap-status shows the open wrap)"
            )
        cancel_wrap(tx.conn, wrap, now=format_timestamp(store.clock.now()))
        tx.audit(
            "wrap_cancelled",
            actor=session_id or ("operator" if force else "agent"),
            data={
                "wrap_id": wrap.id,
                "wrap_token_prefix": wrap.token[:8],
                "episode_count": wrap.episode_count,
                "reason": "forced" if force else "cancelled",
            },
        )
    return CancelResult(
        wrap_id=wrap.id,
        wrap_token=wrap.token,
        started_at=wrap.started_at,
        episode_count=wrap.episode_count,
    )


def wrap_status(store: Store, scope: str = "") -> WrapRecord | None:
    """The open wrap of ``scope``, or None when none is in progress there."""
    scope = wrap_scope(scope)
    with store.reading("wrap_status") as reader:
        return load_open_wrap(reader.conn, scope)


def unwrapped_in_scope(store: Store, scope: str = "") -> int:
    """How many episodes of ``scope`` wait for its next wrap."""
    scope = wrap_scope(scope)
    with store.reading("unwrapped") as reader:
        return unwrapped_count(reader.conn, scope)


def unwrapped_scopes(
    store: Store, *, limit: int = 50, total: int | None = None
) -> tuple[dict[str, int], int]:
    """The ``limit`` scopes with the most episodes waiting for a wrap, and how many more.

    ``total``: the waiting episodes of every scope together, when the caller has them
    (``store.status().episodes_since_wrap``); a store with one scope is then not counted
    again.

    Returns:
        Scope -> waiting episodes (most first, then by scope), and the number of other
        scopes with episodes waiting.
    """
    _check_limit(limit)
    with store.reading("unwrapped") as reader:
        counts = unwrapped_by_scope(reader.conn, total=total)
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return dict(ranked[:limit]), max(0, len(ranked) - limit)


def wrap_history(
    store: Store, *, limit: int = 20, completed_only: bool = False, scope: str | None = None
) -> tuple[WrapRecord, ...]:
    """The newest ``limit`` wraps (open, completed and cancelled), newest first.

    Args:
        store: The store.
        limit: At most this many.
        completed_only: Leave out open and cancelled wraps.
        scope: Only the wraps of this scope; None (the default) lists every scope's.

    Raises:
        InvalidInputError: ``limit`` is not a positive integer.
    """
    _check_limit(limit)
    scope = None if scope is None else wrap_scope(scope)
    with store.reading("wrap_history") as reader:
        return tuple(
            _wrap_history(reader.conn, limit=limit, completed_only=completed_only, scope=scope)
        )


def pattern_history(
    store: Store, name: str, *, limit: int = 50, scope: str = ""
) -> tuple[PatternEvent, ...]:
    """How one pattern of ``scope`` was saved wrap by wrap, newest first (name case-folded).

    Raises:
        InvalidInputError: ``limit`` is not a positive integer.
    """
    _check_limit(limit)
    scope = wrap_scope(scope)
    with store.reading("pattern_history") as reader:
        return tuple(pattern_events(reader.conn, str(name).casefold(), limit=limit, scope=scope))
