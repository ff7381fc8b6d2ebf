"""The prepare's one transaction: reclaim a stale open wrap, choose the snapshot, open the wrap.

The snapshot is the **oldest contiguous run** of unwrapped episodes whose package lines fit
the budget left after the fixed part of the package (instructions, the current continuity,
stale patterns) and the room kept for a retry's refusal; at least one episode is taken so
every wrap makes progress. Because the run is contiguous from the newest completed wrap's
``through_seq``, the wrap's seq range ``(after_seq, through_seq]`` holds exactly the
episodes in the package, and everything above it stays unwrapped for the next wrap: a
partial package loses nothing.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

from anneal_memory._clock import format_timestamp
from anneal_memory.continuity._lease import Holder, holder_of, in_progress_error, may_reclaim
from anneal_memory.continuity._package import GROUP_HEADINGS_CHARS, episode_line, render_package
from anneal_memory.continuity._results import WrapPackage
from anneal_memory.gate import bind_wrap
from anneal_memory.store import Store
from anneal_memory.store._target import file_of, location_of
from anneal_memory.store.sqlite._connection import write_transaction
from anneal_memory.store.wraps._rows import (
    WrapOpening,
    WrapRecord,
    cancel_wrap,
    insert_wrap,
    load_open_wrap,
    unwrapped_prefix,
)
from anneal_memory.types import Episode

__all__ = ["RETRY_RESERVE_CHARS", "Opened", "open_wrap"]

# Room kept free in the package for the refusal a retry prompt appends.
RETRY_RESERVE_CHARS = 3_000

Frame = Callable[..., WrapPackage]


def _clear_open(
    conn: sqlite3.Connection, store: Store, now: _dt.datetime, opening: WrapOpening
) -> tuple[WrapRecord, Holder] | None:
    """Reclaim a stale open wrap of the scope (cancel and audit it in this transaction).

    A live one is refused.
    """
    session_id = opening.session_id
    open_wrap = load_open_wrap(conn, opening.scope)
    if open_wrap is None:
        return None
    holder = holder_of(conn, open_wrap, now)
    if not may_reclaim(conn, open_wrap, holder, session_id):
        raise in_progress_error(open_wrap, holder, db_path=location_of(store))
    cancel_wrap(conn, open_wrap, now=format_timestamp(now))
    _stage_reclaimed(conn, store, (open_wrap, holder), session_id or "agent")
    return open_wrap, holder


def _episode_room(frame: WrapPackage, budget: int) -> int:
    fixed = len(render_package(dataclasses.replace(frame, episodes_left=1)))
    return budget - fixed - GROUP_HEADINGS_CHARS - RETRY_RESERVE_CHARS


def _line_size(episode: Episode) -> int:
    return len(episode_line(episode)) + 1


@dataclass(frozen=True, slots=True, kw_only=True)
class Opened:
    """What the prepare transaction did."""

    wrap_id: int | None
    episodes: list[Episode]
    left: int
    continuity: str | None
    reclaimed: tuple[WrapRecord, Holder] | None


def open_wrap(
    store: Store, opening: WrapOpening, *, now: _dt.datetime, budget: int, frame: Frame
) -> Opened:
    """Run the prepare transaction; ``frame(episodes, continuity, ...)`` builds a package."""
    with store._lock:
        conn = store.connection("prepare_wrap")
        # Flushed to disk when it stages audit entries for a trail file (the trail gets them
        # once it has committed). Otherwise a power cut before the save's durable commit only
        # leaves no wrap open, which the save reports; no episode or continuity is at stake.
        durable = store.audit_after_commit
        with write_transaction(
            conn, operation="prepare_wrap", path=file_of(store), durable=durable
        ):
            reclaimed = _clear_open(conn, store, now, opening)
            # Read under the write lock: a save writes the text inside its transaction.
            continuity = store.continuity_place(opening.scope).read(conn)
            room = _episode_room(frame((), continuity), budget)
            episodes, through, left = unwrapped_prefix(conn, room, _line_size, opening.scope)
            wrap_id = None
            if episodes:
                wrap_id = insert_wrap(
                    conn, opening, through_seq=through, episode_count=len(episodes)
                )
                bind_wrap(conn, opening.token)
                _stage_started(conn, store, opening, wrap_id=wrap_id, episodes=episodes, left=left)
        store.flush_audit()
    return Opened(
        wrap_id=wrap_id, episodes=episodes, left=left, continuity=continuity, reclaimed=reclaimed
    )


def _stage_started(
    conn: sqlite3.Connection,
    store: Store,
    opening: WrapOpening,
    *,
    wrap_id: int,
    episodes: list[Episode],
    left: int,
) -> None:
    """Stage ``wrap_started`` in the prepare's transaction."""
    store.stage_audit(
        conn,
        "wrap_started",
        actor=opening.session_id or "agent",
        data={
            "wrap_id": wrap_id,
            "wrap_token_prefix": opening.token[:8],
            "episode_ids": [e.id for e in episodes],
            "episode_count": len(episodes),
            "episodes_left": left,
            "session_id": opening.session_id,
            "schema": opening.schema_name,
        },
    )


def _stage_reclaimed(
    conn: sqlite3.Connection, store: Store, reclaimed: tuple[WrapRecord, Holder], actor: str
) -> None:
    """Stage a reclaimed wrap's ``wrap_cancelled`` (reason ``expired`` or ``revoked``)."""
    wrap, holder = reclaimed
    store.stage_audit(
        conn,
        "wrap_cancelled",
        actor=actor,
        data={
            "wrap_id": wrap.id,
            "wrap_token_prefix": wrap.token[:8],
            "episode_count": wrap.episode_count,
            "reason": "revoked" if holder is Holder.REVOKED else "expired",
            "cause": holder.value,
        },
    )
