"""Who may close someone's open wrap: the gate's rules for cancel (and for reclaiming).

On a baton-protected store only the session that prepared the open wrap may cancel it.
The baton holder may also clear a wrap that can never be saved any more: one revoked by a
baton move, or one that names no session. Everyone else gets :class:`GateError`, whose
message names the preparing session, the holder and the operator's escape hatch
(``wrap-cancel --force`` on the CLI), and never any part of the wrap's token.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING

from anneal_memory.errors import GateError
from anneal_memory.gate import WrapGateState, wrap_gate_state

if TYPE_CHECKING:
    from anneal_memory.store import SqlConnection

__all__ = ["authorize_cancel", "force_command", "may_clear"]


def force_command(path: Path | str, scope: str = "") -> str:
    """The operator's command that cancels the open wrap of ``scope``, whoever prepared it."""
    where = f" --scope {shlex.quote(scope)}" if scope else ""
    return f"anneal-memory --db {shlex.quote(str(path))} wrap-cancel --force{where}"


def may_clear(state: WrapGateState, *, wrap_session: str | None, session_id: str | None) -> bool:
    """True when ``session_id`` may close the open wrap prepared by ``wrap_session``."""
    if not state.protected:
        return True
    if session_id is None:
        return False
    if session_id == wrap_session:
        return True
    dead = state.revoked or wrap_session is None or wrap_session != state.holder
    return session_id == state.holder and dead


def authorize_cancel(
    conn: SqlConnection,
    path: Path | str,
    *,
    wrap_session: str | None,
    open_token: str,
    session_id: str | None,
    scope: str = "",
) -> None:
    """Refuse a cancel the gate does not allow (inside the cancel's transaction).

    Raises:
        GateError: The store is baton-protected and ``session_id`` is neither the preparing
            session nor the holder clearing a wrap that can no longer be saved.
    """
    state = wrap_gate_state(conn, open_token)
    if may_clear(state, wrap_session=wrap_session, session_id=session_id):
        return
    asked = "this call named no session id" if session_id is None else f"{session_id!r} asked"
    held = "nobody holds the baton" if state.holder is None else f"{state.holder!r} holds the baton"
    owner = "no session" if wrap_session is None else f"session {wrap_session!r}"
    raise GateError(
        f"This store is baton-protected: the open wrap was prepared by {owner} and only that "
        f"session may cancel it ({asked}; {held}). Nothing was cancelled. If that session is "
        f"gone, the operator can run: {force_command(path, scope)}"
    )
