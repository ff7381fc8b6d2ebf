"""The open wrap's lease: who holds it, until when, and when a new prepare may reclaim it.

A prepare records its process (``_owner``; not for a CLI prepare, whose save runs in another
process) and a lease end, :data:`WRAP_LEASE_SECONDS` from then; a refused save renews it. A
later prepare that passes the gate finds the open wrap and reclaims it (cancels it, its
episodes stay, and opens its own) when:

- ``expired``: the lease ended (a wrap without a recorded lease ends 30 minutes after it
  started), or the owner process is provably gone on this host (``cause`` says which);
- ``revoked``: on a baton-protected store the baton moved since that wrap was prepared, so it
  can never be saved.

Otherwise the open wrap belongs to a live run, and the prepare is refused with advice that
fits: a wrap of this very process is finished or cancelled; another live run's is waited for,
or left to expire.
"""

from __future__ import annotations

import datetime as _dt
import enum
from pathlib import Path
from typing import TYPE_CHECKING

from anneal_memory._clock import format_timestamp, parse_timestamp
from anneal_memory._owner import ProcessIdentity, current_process, process_gone
from anneal_memory._wrap_gate import force_command, may_clear
from anneal_memory.errors import WrapInProgressError
from anneal_memory.gate import wrap_gate_state
from anneal_memory.store.wraps import WrapRecord

if TYPE_CHECKING:
    from anneal_memory.store import SqlConnection

__all__ = [
    "WRAP_LEASE_SECONDS",
    "Holder",
    "holder_of",
    "in_progress_error",
    "lease_end",
    "may_reclaim",
]

WRAP_LEASE_SECONDS = 1800


class Holder(str, enum.Enum):
    """Who holds the open wrap, as far as this process can tell."""

    THIS_PROCESS = "this-process"  # prepared here and its lease runs
    LIVE = "live"  # another run, alive or not provably gone, within its lease
    UNOWNED = "unowned"  # no process recorded (a CLI prepare), within its lease
    LEASE_ENDED = "lease-ended"
    OWNER_GONE = "owner-gone"
    REVOKED = "revoked"


def lease_end(now: _dt.datetime) -> str:
    """The lease end of a wrap prepared or renewed at ``now``."""
    return format_timestamp(now + _dt.timedelta(seconds=WRAP_LEASE_SECONDS))


def _expires(wrap: WrapRecord) -> _dt.datetime:
    if wrap.lease_expires_at:
        return parse_timestamp(wrap.lease_expires_at)
    return parse_timestamp(wrap.started_at) + _dt.timedelta(seconds=WRAP_LEASE_SECONDS)


def _owner(wrap: WrapRecord) -> ProcessIdentity | None:
    if wrap.owner_pid is None or wrap.owner_host is None:
        return None
    return ProcessIdentity(pid=wrap.owner_pid, host=wrap.owner_host, start=wrap.owner_start or "")


def holder_of(conn: SqlConnection, wrap: WrapRecord, now: _dt.datetime) -> Holder:
    """Who holds ``wrap`` now (reads the gate state inside the caller's transaction)."""
    state = wrap_gate_state(conn, wrap.token)
    moved = state.holder is not None and wrap.session_id != state.holder
    if state.protected and (moved or state.revoked):
        return Holder.REVOKED
    if now >= _expires(wrap):
        return Holder.LEASE_ENDED
    owner = _owner(wrap)
    if owner is None:
        return Holder.UNOWNED
    if owner == current_process():
        return Holder.THIS_PROCESS
    if process_gone(owner):
        return Holder.OWNER_GONE
    return Holder.LIVE


def may_reclaim(
    conn: SqlConnection, wrap: WrapRecord, holder: Holder, session_id: str | None
) -> bool:
    """True when a prepare by ``session_id`` (past the gate) may reclaim ``wrap`` now."""
    if holder in (Holder.THIS_PROCESS, Holder.LIVE, Holder.UNOWNED):
        return False
    state = wrap_gate_state(conn, wrap.token)
    return may_clear(state, wrap_session=wrap.session_id, session_id=session_id) or (
        state.protected and session_id is not None and session_id == state.holder
    )


def in_progress_error(
    wrap: WrapRecord, holder: Holder | None, *, db_path: Path | str
) -> WrapInProgressError:
    """The refusal of a prepare while ``wrap`` is open, with the advice that fits ``holder``."""
    started = f"a wrap is already in progress (started {wrap.started_at}"
    started += f" by session {wrap.session_id!r})" if wrap.session_id else ")"
    if holder is Holder.THIS_PROCESS:
        advice = (
            ". Finish it by saving the compressed continuity (validated_save_continuity, or "
            "`anneal-memory save-continuity FILE --wrap-token TOKEN`), or cancel it "
            "(wrap_cancel, or `anneal-memory wrap-cancel`); its episodes are kept either way"
        )
    elif holder is Holder.LIVE:
        until = wrap.lease_expires_at or "30 minutes after it started"
        advice = (
            ". It belongs to another run that is still alive (or not provably gone): wait for "
            f"that run to save or cancel it, or let its lease expire ({until}); the next "
            "prepare after that reclaims it and no episode is lost. If that run is known to "
            f"be gone, the operator can run: {force_command(db_path, wrap.scope)}"
        )
    elif holder is Holder.UNOWNED:
        until = wrap.lease_expires_at or "30 minutes after it started"
        advice = (
            ". If it is yours, finish it (`anneal-memory save-continuity FILE --wrap-token "
            "TOKEN`) or cancel it (`anneal-memory wrap-cancel`); if it belongs to another run, "
            f"wait for that run or let the wrap's lease expire ({until}): the next prepare "
            "after that reclaims it and no episode is lost"
        )
    else:
        advice = (
            f". It can no longer be finished ({holder.value if holder else 'stale'}); the baton "
            "holder's next prepare reclaims it, and no episode is lost"
        )
    return WrapInProgressError(started + advice, started_at=wrap.started_at)
