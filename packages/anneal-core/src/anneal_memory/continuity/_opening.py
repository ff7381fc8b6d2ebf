"""The prepare's one transaction: the gate, reclaim a stale open wrap, choose the snapshot.

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
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from anneal_memory._clock import format_timestamp
from anneal_memory.continuity._lease import (
    Holder,
    holder_of,
    in_progress_error,
    lease_end,
    may_reclaim,
)
from anneal_memory.continuity._package import GROUP_HEADINGS_CHARS, episode_line, render_package
from anneal_memory.continuity._results import WrapPackage
from anneal_memory.continuity._settings import schema_of
from anneal_memory.document._markers import PatternLine
from anneal_memory.gate import GateDecision, authorize_prepare, bind_wrap
from anneal_memory.store import location_of
from anneal_memory.store.wraps import (
    WrapOpening,
    WrapRecord,
    cancel_wrap,
    insert_wrap,
    load_open_wrap,
    unwrapped_prefix,
)
from anneal_memory.types import Episode

if TYPE_CHECKING:
    from anneal_memory.crystal._types import Crystal
    from anneal_memory.document._schema import SectionSchema
    from anneal_memory.store import Store, Tx

__all__ = ["RETRY_RESERVE_CHARS", "EpisodeLines", "Frame", "Opened", "WrapRequest", "open_wrap"]

# Room kept free in the package for the refusal a retry prompt appends.
RETRY_RESERVE_CHARS = 3_000


@dataclass(frozen=True, slots=True, kw_only=True)
class Frame:
    """The package without its episodes, built once per prepare from the current continuity.

    It sizes the snapshot (everything but the episode lines) and, with the snapshot put in,
    is the package itself: nothing else in it depends on the episodes. ``patterns`` are the
    graduating pattern lines of the continuity, which the crystal proposals reuse.
    """

    package: WrapPackage
    patterns: tuple[PatternLine, ...]


class EpisodeLines:
    """The package line of each episode the snapshot sized, kept for the package's text."""

    def __init__(self) -> None:
        self.shown: dict[str, str] = {}

    def size(self, episode: Episode) -> int:
        """Characters the episode's line takes in the package (with its line break)."""
        line = episode_line(episode)
        self.shown[episode.id] = line
        return len(line) + 1


@dataclass(frozen=True, slots=True, kw_only=True)
class WrapRequest:
    """What the caller of the prepare asked for (checked)."""

    session_id: str | None
    scope: str
    max_chars: int | None
    owner: tuple[int, str, str] | None
    budget: int

    def opening(self, schema: SectionSchema, now: _dt.datetime) -> WrapOpening:
        """The new wrap's row, under the store's section ``schema``."""
        return WrapOpening(
            token=os.urandom(16).hex(),
            session_id=self.session_id,
            started_at=format_timestamp(now),
            today=now.date().isoformat(),
            schema_name=schema.name,
            max_chars=self.max_chars or schema.target_chars,
            owner=self.owner,
            lease_expires_at=lease_end(now),
            scope=self.scope,
        )


def _clear_open(
    tx: Tx, store: Store, now: _dt.datetime, opening: WrapOpening
) -> tuple[WrapRecord, Holder] | None:
    """Reclaim a stale open wrap of the scope (cancel and audit it in this transaction).

    A live one is refused.
    """
    conn = tx.conn
    session_id = opening.session_id
    open_wrap = load_open_wrap(conn, opening.scope)
    if open_wrap is None:
        return None
    holder = holder_of(conn, open_wrap, now)
    if not may_reclaim(conn, open_wrap, holder, session_id):
        raise in_progress_error(open_wrap, holder, db_path=location_of(store))
    cancel_wrap(conn, open_wrap, now=format_timestamp(now))
    _stage_reclaimed(tx, (open_wrap, holder), session_id or "agent")
    return open_wrap, holder


def _episode_room(frame: WrapPackage, budget: int) -> int:
    fixed = len(render_package(dataclasses.replace(frame, episodes_left=1)))
    return budget - fixed - GROUP_HEADINGS_CHARS - RETRY_RESERVE_CHARS


@dataclass(frozen=True, slots=True, kw_only=True)
class Opened:
    """What the prepare transaction did."""

    schema: SectionSchema
    opening: WrapOpening
    wrap_id: int | None
    episodes: list[Episode]
    left: int
    continuity: str | None
    reclaimed: tuple[WrapRecord, Holder] | None
    frame: Frame
    shown: dict[str, str]
    crystals: tuple[Crystal, ...] = ()


def open_wrap(
    store: Store,
    request: WrapRequest,
    *,
    now: _dt.datetime,
    frame_for: Callable[[SectionSchema, WrapOpening], Callable[[str | None], Frame]],
) -> Opened | GateDecision:
    """Run the prepare's one transaction: the gate, the schema, the reclaim, the snapshot.

    ``frame_for(schema, opening)`` gives the function that builds the package without its
    episodes from the current continuity (``frame(continuity)``), once. Returns the gate's
    decision when it does not let this session open a wrap (nothing is written), else what
    was opened. The crystals a wrap's proposals need are read in the same transaction.
    """
    location = location_of(store)
    if store.read_only:  # nothing can open: the gate's downgrade, else the write refuses below
        with store.reading("prepare_wrap") as reader:
            decision = authorize_prepare(reader.conn, request.session_id, location=location)
        if not decision.allowed:
            return decision
    # A power cut before the save's durable commit only leaves no wrap open, which the save
    # reports; no episode or continuity is at stake. (The store still flushes this commit
    # to disk when a trail file gets its audit entries.)
    with store.writing("prepare_wrap", durable=False) as tx:
        decision = authorize_prepare(tx.conn, request.session_id, location=location)
        if not decision.allowed:
            return decision
        schema = schema_of(tx.conn)
        opening = request.opening(schema, now)
        reclaimed = _clear_open(tx, store, now, opening)
        # Read under the write lock: a save writes the text inside its transaction.
        continuity = store.continuity_place(opening.scope).read(tx.conn)
        frame = frame_for(schema, opening)(continuity)
        lines = EpisodeLines()
        room = _episode_room(frame.package, request.budget)
        episodes, through, left = unwrapped_prefix(tx.conn, room, lines.size, opening.scope)
        if not episodes:
            return Opened(schema=schema, opening=opening, wrap_id=None, episodes=episodes,
                          left=left, continuity=continuity, reclaimed=reclaimed, frame=frame,
                          shown=lines.shown)  # fmt: skip
        wrap_id = insert_wrap(tx.conn, opening, through_seq=through, episode_count=len(episodes))
        bind_wrap(tx.conn, opening.token)
        _stage_started(tx, opening, wrap_id=wrap_id, episodes=episodes, left=left)
        return Opened(schema=schema, opening=opening, wrap_id=wrap_id, episodes=episodes,
                      left=left, continuity=continuity, reclaimed=reclaimed, frame=frame,
                      shown=lines.shown, crystals=_crystals(tx, opening))  # fmt: skip


def _crystals(tx: Tx, opening: WrapOpening) -> tuple[Crystal, ...]:
    """Every crystal, live or retired: the wrap proposes from them (``crystal._candidates``)."""
    from anneal_memory.crystal._rows import fetch_all

    return tuple(fetch_all(tx.conn, _dt.date.fromisoformat(opening.today)))


def _stage_started(
    tx: Tx, opening: WrapOpening, *, wrap_id: int, episodes: list[Episode], left: int
) -> None:
    """Stage ``wrap_started`` in the prepare's transaction."""
    tx.audit(
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


def _stage_reclaimed(tx: Tx, reclaimed: tuple[WrapRecord, Holder], actor: str) -> None:
    """Stage a reclaimed wrap's ``wrap_cancelled`` (reason ``expired`` or ``revoked``)."""
    wrap, holder = reclaimed
    tx.audit(
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
