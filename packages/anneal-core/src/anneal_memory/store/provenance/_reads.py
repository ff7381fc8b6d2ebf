"""Bounded reads of one episode's provenance for explanations and the inspector.

Run inside ``store.reading(...)`` on the reader's connection. Each read touches one
episode's rows through an index and takes a limit; the SQL is the ``?``-placeholder subset
both backends run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from anneal_memory.store._contract import SqlConnection
from anneal_memory.store._params import SQLITE_INT_MAX, in_chunks
from anneal_memory.types import SupersessionLink

__all__ = [
    "EpisodePlace",
    "Tombstone",
    "episode_place",
    "links_touching",
    "scopes_of",
    "slot_members",
    "tombstone",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class EpisodePlace:
    """Where an episode sits: its scope and its sequence number (the order of recording)."""

    scope: str
    seq: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Tombstone:
    """What is left of a deleted episode: when and why it went."""

    deleted_at: str
    reason: str


def _limit(value: int) -> int:
    return max(0, min(int(value), SQLITE_INT_MAX))


def episode_place(conn: SqlConnection, episode_id: str) -> EpisodePlace | None:
    """The scope and seq of a live episode, or None."""
    row = conn.execute("SELECT scope, seq FROM episodes WHERE id = ?", (episode_id,)).fetchone()
    return None if row is None else EpisodePlace(scope=str(row[0]), seq=int(row[1]))


def tombstone(conn: SqlConnection, episode_id: str) -> Tombstone | None:
    """The tombstone of a deleted episode, or None (never deleted, or tombstones dropped)."""
    row = conn.execute(
        "SELECT deleted_at, reason FROM tombstones WHERE id = ?", (episode_id,)
    ).fetchone()
    return None if row is None else Tombstone(deleted_at=str(row[0]), reason=str(row[1]))


def links_touching(
    conn: SqlConnection, episode_id: str, *, limit: int
) -> tuple[list[SupersessionLink], list[SupersessionLink]]:
    """Explicit and wrap links: ``(replaced by this episode, replacing it)``, oldest first."""
    older = conn.execute(
        "SELECT old_id, new_id, via FROM supersessions WHERE new_id = ?"
        " ORDER BY created_at, old_id LIMIT ?",
        (episode_id, _limit(limit)),
    ).fetchall()
    newer = conn.execute(
        "SELECT old_id, new_id, via FROM supersessions WHERE old_id = ?"
        " ORDER BY created_at, new_id LIMIT ?",
        (episode_id, _limit(limit)),
    ).fetchall()
    return (
        [SupersessionLink(old_id=str(o), new_id=str(n), via=str(v)) for o, n, v in older],
        [SupersessionLink(old_id=str(o), new_id=str(n), via=str(v)) for o, n, v in newer],
    )


def slot_members(conn: SqlConnection, key: str, *, limit: int) -> tuple[list[str], int]:
    """The newest ``limit`` episode ids of a state key (newest first) and the slot's size."""
    ids = conn.execute(
        "SELECT id FROM episodes WHERE state_key = ? ORDER BY ts DESC, seq DESC LIMIT ?",
        (key, _limit(limit)),
    ).fetchall()
    total = conn.execute("SELECT count(*) FROM episodes WHERE state_key = ?", (key,)).fetchone()
    return [str(r[0]) for r in ids], int(total[0]) if total else 0


def scopes_of(conn: SqlConnection, episode_ids: Sequence[str]) -> dict[str, str]:
    """Id -> scope of the live episodes among ``episode_ids`` (at most a page of them)."""
    wanted = sorted(set(episode_ids))
    found: dict[str, str] = {}
    for chunk, marks in in_chunks(wanted, 500):
        rows = conn.execute(
            f"SELECT id, scope FROM episodes WHERE id IN ({marks})",  # noqa: S608
            tuple(chunk),
        )
        found.update((str(ident), str(scope)) for ident, scope in rows)
    return found
