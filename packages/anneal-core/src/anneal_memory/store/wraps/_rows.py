"""Wrap rows: the open-wrap marker, its frozen episode snapshot, completion and cancel.

Each wrap belongs to one scope (``""`` is the shared one) and covers only that scope's
episodes. A wrap row with ``status = 'open'`` *is* the in-progress marker; a partial unique
index allows at most one per scope. Its snapshot is the seq range ``(after_seq, through_seq]``
read within its scope: the scope's episodes above the scope's newest completed wrap at
prepare time. New episodes get seqs above every range (a deletion lowers the ranges to the
highest remaining seq, see ``_watermarks``), so later records never fall into an open
snapshot and an episode is unwrapped exactly when its seq is above the ``through_seq`` of
the newest completed wrap of its scope. Functions here run inside a transaction the caller
opened (or as single reads); they never commit.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from anneal_memory.store._contract import SqlConnection
from anneal_memory.store._episodes import COLUMNS, episode_from_row
from anneal_memory.store._params import SQLITE_INT_MAX, in_chunks
from anneal_memory.types import Episode

__all__ = [
    "Snapshot",
    "WrapOpening",
    "WrapRecord",
    "cancel_wrap",
    "complete_wrap",
    "existing_ids",
    "find_open_wrap",
    "insert_wrap",
    "last_completed_wrap_id",
    "load_open_wrap",
    "read_snapshot",
    "renew_lease",
    "saves_so_far",
    "unwrapped_by_scope",
    "unwrapped_count",
    "unwrapped_episodes",
    "unwrapped_prefix",
    "wrap_by_id",
    "wrap_history",
    "wrapped_through",
]

_WRAP_COLUMNS = (
    "id, token, status, session_id, started_at, today, schema_name, max_chars, episode_count,"
    " completed_at, continuity_sha256, continuity_chars, graduations_validated, demotions,"
    " findings, affect_tag, affect_intensity, after_seq, through_seq, owner_pid, owner_host,"
    " owner_start, lease_expires_at, scope"
)


@dataclass(frozen=True, slots=True, kw_only=True)
class WrapRecord:
    """One wrap, open or finished.

    Attributes:
        id: The wrap's number (1, 2, ...).
        token: The 32-hex token its prepare returned.
        status: ``open``, ``completed`` or ``cancelled``.
        session_id: The session that prepared it, if one was named.
        started_at: When it was prepared (ISO-8601 UTC).
        today: The wrap's day (YYYY-MM-DD); pattern lines dated today are judged.
        schema_name: The section schema frozen at prepare.
        max_chars: The size target of this wrap.
        episode_count: Episodes in its frozen snapshot.
        completed_at: When it was saved or cancelled.
        continuity_sha256: SHA-256 of the saved continuity text.
        continuity_chars: Length of the saved continuity text.
        graduations_validated: Pattern lines that climbed with grounded evidence.
        demotions: Pattern lines lowered, held or capped.
        finding_counts: Findings of the save by code.
        affect_tag: The affective state given at save, if any.
        affect_intensity: Its intensity in [0, 1].
        after_seq: Its snapshot starts after this episode seq (internal, not in ``to_dict``).
        through_seq: Its snapshot ends at this episode seq (internal, not in ``to_dict``).
        owner_pid: The process that prepared it, when recorded.
        owner_host: That process's host (and pid namespace).
        owner_start: That process's start mark (internal, not in ``to_dict``).
        lease_expires_at: When its lease ends (ISO-8601 UTC); afterwards a new prepare may
            reclaim it.
        scope: The scope whose episodes it wraps ("" is the shared one).
    """

    id: int
    token: str
    status: str
    session_id: str | None
    started_at: str
    today: str
    schema_name: str
    max_chars: int
    episode_count: int
    completed_at: str | None = None
    continuity_sha256: str | None = None
    continuity_chars: int | None = None
    graduations_validated: int | None = None
    demotions: int | None = None
    finding_counts: dict[str, int] | None = None
    affect_tag: str | None = None
    affect_intensity: float | None = None
    after_seq: int = 0
    through_seq: int = 0
    owner_pid: int | None = None
    owner_host: str | None = None
    owner_start: str | None = None
    lease_expires_at: str | None = None
    scope: str = ""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of every public field."""
        return {
            name: getattr(self, name)
            for name in self.__slots__
            if not name.endswith("_seq") and name != "owner_start"
        }


def _record(row: Sequence[Any]) -> WrapRecord:
    return WrapRecord(
        id=int(row[0]),
        token=str(row[1]),
        status=str(row[2]),
        session_id=row[3],
        started_at=str(row[4]),
        today=str(row[5]),
        schema_name=str(row[6]),
        max_chars=int(row[7]),
        episode_count=int(row[8]),
        completed_at=row[9],
        continuity_sha256=row[10],
        continuity_chars=row[11],
        graduations_validated=row[12],
        demotions=row[13],
        finding_counts=None if row[14] is None else json.loads(row[14]),
        affect_tag=row[15],
        affect_intensity=row[16],
        after_seq=int(row[17]),
        through_seq=int(row[18]),
        owner_pid=None if row[19] is None else int(row[19]),
        owner_host=row[20],
        owner_start=row[21],
        lease_expires_at=row[22],
        scope=str(row[23]),
    )


def load_open_wrap(conn: SqlConnection, scope: str = "") -> WrapRecord | None:
    """The open wrap of ``scope``, or None."""
    row = conn.execute(
        f"SELECT {_WRAP_COLUMNS} FROM wraps WHERE status = 'open' AND scope = ?",  # noqa: S608
        (scope,),
    ).fetchone()
    return None if row is None else _record(row)


def find_open_wrap(conn: SqlConnection, scope: str | None, token: str | None) -> WrapRecord | None:
    """The open wrap of ``scope``; with ``scope`` None, the open wrap whose token is ``token``.

    With ``scope`` None and no open wrap holding ``token`` (or no token), the open wrap of
    scope "" (whose token the caller then finds mismatched), or None.
    """
    if scope is None and token is not None:
        row = conn.execute(
            f"SELECT {_WRAP_COLUMNS} FROM wraps WHERE status = 'open' AND token = ?",  # noqa: S608
            (token,),
        ).fetchone()
        if row is not None:
            return _record(row)
    return load_open_wrap(conn, scope or "")


def wrap_by_id(conn: SqlConnection, wrap_id: int) -> WrapRecord | None:
    """The wrap with this id, or None."""
    row = conn.execute(
        f"SELECT {_WRAP_COLUMNS} FROM wraps WHERE id = ?",  # noqa: S608
        (wrap_id,),
    ).fetchone()
    return None if row is None else _record(row)


def wrapped_through(conn: SqlConnection, scope: str = "") -> int:
    """The highest episode seq a completed wrap of ``scope`` covered (0 before the first)."""
    row = conn.execute(
        "SELECT through_seq FROM wraps WHERE scope = ? AND status = 'completed'"
        " ORDER BY id DESC LIMIT 1",
        (scope,),
    ).fetchone()
    return 0 if row is None else int(row[0])


def saves_so_far(conn: SqlConnection) -> int:
    """How many wraps have completed in every scope: the highest save number (0 before any)."""
    row = conn.execute("SELECT max(save_no) FROM wraps WHERE status = 'completed'").fetchone()
    return 0 if row[0] is None else int(row[0])


def unwrapped_episodes(conn: SqlConnection, scope: str = "") -> list[Episode]:
    """Episodes of ``scope`` no wrap has compressed yet, oldest first."""
    rows = conn.execute(
        f"SELECT {COLUMNS} FROM episodes WHERE scope = ? AND seq > ? ORDER BY seq",  # noqa: S608
        (scope, wrapped_through(conn, scope)),
    )
    return [episode_from_row(row) for row in rows]


def unwrapped_prefix(
    conn: SqlConnection, room: int, size: Callable[[Episode], int], scope: str = ""
) -> tuple[list[Episode], int, int]:
    """The oldest unwrapped episodes of ``scope`` whose ``size`` sums to at most ``room``.

    At least one is taken when any waits.

    Returns:
        The episodes (oldest first), the seq of the last one (the snapshot's ``through_seq``)
        and how many unwrapped episodes of the scope lie above it.
    """
    after = wrapped_through(conn, scope)
    cursor = conn.execute(
        f"SELECT {COLUMNS} FROM episodes WHERE scope = ? AND seq > ? ORDER BY seq",  # noqa: S608
        (scope, after),
    )
    chosen: list[Episode] = []
    through, used, full = after, 0, False
    for row in cursor:
        episode = episode_from_row(row)
        cost = size(episode)
        if chosen and used + cost > room:
            full = True
            break
        chosen.append(episode)
        used += cost
        through = int(row[0])
    cursor.close()
    if not full:
        return chosen, through, 0
    left = conn.execute(
        "SELECT count(*) FROM episodes WHERE scope = ? AND seq > ?", (scope, through)
    ).fetchone()
    return chosen, through, int(left[0])


def _scope_count(conn: SqlConnection, scope: str) -> int:
    row = conn.execute(
        "SELECT count(*) FROM episodes WHERE scope = ? AND seq > ?",
        (scope, wrapped_through(conn, scope)),
    ).fetchone()
    return int(row[0])


# The distinct scopes of the episodes, one index probe each (a skip scan of episodes_by_scope).
_SCOPES = (
    "WITH RECURSIVE s(scope) AS (SELECT min(scope) FROM episodes UNION ALL"
    " SELECT (SELECT min(e.scope) FROM episodes e WHERE e.scope > s.scope) FROM s"
    " WHERE s.scope IS NOT NULL) SELECT scope FROM s WHERE scope IS NOT NULL"
)


def unwrapped_by_scope(conn: SqlConnection, *, total: int | None = None) -> dict[str, int]:
    """Scope -> how many of its episodes wait for a wrap (scopes with none waiting left out).

    ``total``: every scope's waiting episodes together, when the caller has just counted
    them (``status``); a store with one scope then needs no second count.
    """
    scopes = [str(scope) for (scope,) in conn.execute(_SCOPES)]
    if total is not None and len(scopes) == 1:
        return {scopes[0]: total} if total else {}
    counts = {scope: _scope_count(conn, scope) for scope in scopes}
    return {scope: n for scope, n in counts.items() if n}


def unwrapped_count(conn: SqlConnection, scope: str | None = None) -> int:
    """How many episodes of ``scope`` wait for a wrap; None counts every scope."""
    if scope is not None:
        return _scope_count(conn, scope)
    return sum(unwrapped_by_scope(conn).values())


@dataclass(frozen=True, slots=True, kw_only=True)
class WrapOpening:
    """What a prepare records on the new wrap row besides its snapshot.

    Attributes:
        token: The 32-hex token.
        session_id: The preparing session, if named.
        started_at: When (ISO-8601 UTC).
        today: The wrap's day.
        schema_name: The frozen section schema.
        max_chars: The continuity size target.
        owner: ``(pid, host, start mark)`` of the preparing process, or None (not recorded).
        lease_expires_at: When the lease ends (ISO-8601 UTC).
        scope: The scope it wraps ("" is the shared one).
    """

    token: str
    session_id: str | None
    started_at: str
    today: str
    schema_name: str
    max_chars: int
    owner: tuple[int, str, str] | None
    lease_expires_at: str
    scope: str = ""


def insert_wrap(
    conn: SqlConnection, opening: WrapOpening, *, through_seq: int, episode_count: int
) -> int:
    """Open a wrap over the unwrapped episodes up to ``through_seq``; return its id."""
    pid, host, start = opening.owner or (None, None, None)
    row = conn.execute(
        "INSERT INTO wraps (token, status, session_id, started_at, today, schema_name,"
        " max_chars, episode_count, after_seq, through_seq, owner_pid, owner_host, owner_start,"
        " lease_expires_at, scope) VALUES (?, 'open', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        " RETURNING id",
        (
            opening.token,
            opening.session_id,
            opening.started_at,
            opening.today,
            opening.schema_name,
            opening.max_chars,
            episode_count,
            wrapped_through(conn, opening.scope),
            through_seq,
            pid,
            host,
            start,
            opening.lease_expires_at,
            opening.scope,
        ),
    ).fetchone()
    return int(row[0])


def renew_lease(conn: SqlConnection, wrap: WrapRecord, *, until: str) -> bool:
    """Move the open wrap's lease end to ``until``. False if it is no longer open."""
    cursor = conn.execute(
        "UPDATE wraps SET lease_expires_at = ? WHERE id = ? AND token = ? AND status = 'open'",
        (until, wrap.id, wrap.token),
    )
    return cursor.rowcount == 1


@dataclass(frozen=True, slots=True, kw_only=True)
class Snapshot:
    """The snapshot's episodes that still exist, as the save judges them (one read).

    Attributes:
        texts: Id -> text.
        superseded: Id -> replacement, of the superseded ones.
        provenance: Id -> its ``trust`` and ``derived_from`` columns as stored.
    """

    texts: dict[str, str]
    superseded: dict[str, str]
    provenance: dict[str, tuple[object, object]]


def read_snapshot(conn: SqlConnection, wrap: WrapRecord) -> Snapshot:
    """The snapshot's live episodes, oldest first: text, replacement and provenance, in one read."""
    rows = conn.execute(
        "SELECT id, content, superseded_by, trust, derived_from FROM episodes"
        " WHERE scope = ? AND seq > ? AND seq <= ? ORDER BY seq",
        (wrap.scope, wrap.after_seq, wrap.through_seq),
    )
    texts: dict[str, str] = {}
    superseded: dict[str, str] = {}
    provenance: dict[str, tuple[object, object]] = {}
    for ident, content, replacement, trust, derived in rows:
        key = str(ident)
        texts[key] = str(content)
        if replacement is not None:
            superseded[key] = str(replacement)
        provenance[key] = (trust, derived)
    return Snapshot(texts=texts, superseded=superseded, provenance=provenance)


def existing_ids(
    conn: SqlConnection, ids: Iterable[str], scope: str | None = None
) -> frozenset[str]:
    """Which of ``ids`` are live episodes of this store (of ``scope`` when given)."""
    wanted = sorted(set(ids))
    found: set[str] = set()
    where = "" if scope is None else " AND scope = ?"
    extra = () if scope is None else (scope,)
    for chunk, marks in in_chunks(wanted, 500):
        rows = conn.execute(
            f"SELECT id FROM episodes WHERE id IN ({marks}){where}",  # noqa: S608
            (*chunk, *extra),
        )
        found.update(str(r[0]) for r in rows)
    return frozenset(found)


def complete_wrap(
    conn: SqlConnection,
    wrap: WrapRecord,
    *,
    completed_at: str,
    sha256: str,
    chars: int,
    graduations: int,
    demotions: int,
    finding_counts: dict[str, int],
    affect: tuple[str, float] | None,
    save_no: int,
) -> int:
    """Close ``wrap`` as save number ``save_no``; return how many snapshot episodes it folded in.

    Returns -1 when the wrap is no longer open with this token (a racing save or cancel).
    """
    cursor = conn.execute(
        "UPDATE wraps SET status = 'completed', completed_at = ?, continuity_sha256 = ?,"
        " continuity_chars = ?, graduations_validated = ?, demotions = ?, findings = ?,"
        " affect_tag = ?, affect_intensity = ?, save_no = ?"
        " WHERE id = ? AND token = ? AND status = 'open'",
        (
            completed_at,
            sha256,
            chars,
            graduations,
            demotions,
            json.dumps(finding_counts, sort_keys=True),
            None if affect is None else affect[0],
            None if affect is None else affect[1],
            save_no,
            wrap.id,
            wrap.token,
        ),
    )
    if cursor.rowcount != 1:
        return -1
    row = conn.execute(
        "SELECT count(*) FROM episodes WHERE scope = ? AND seq > ? AND seq <= ?",
        (wrap.scope, wrap.after_seq, wrap.through_seq),
    ).fetchone()
    return int(row[0])


def cancel_wrap(conn: SqlConnection, wrap: WrapRecord, *, now: str) -> bool:
    """Close ``wrap`` as cancelled (its episodes stay unwrapped). False if it was not open."""
    cursor = conn.execute(
        "UPDATE wraps SET status = 'cancelled', completed_at = ?"
        " WHERE id = ? AND token = ? AND status = 'open'",
        (now, wrap.id, wrap.token),
    )
    return cursor.rowcount == 1


def last_completed_wrap_id(conn: SqlConnection, scope: str = "") -> int | None:
    """The id of the newest completed wrap of ``scope``, or None."""
    row = conn.execute(
        "SELECT max(id) FROM wraps WHERE scope = ? AND status = 'completed'", (scope,)
    ).fetchone()
    return None if row[0] is None else int(row[0])


def wrap_history(
    conn: SqlConnection,
    *,
    limit: int,
    completed_only: bool = False,
    scope: str | None = None,
) -> list[WrapRecord]:
    """The newest ``limit`` wraps (only completed ones when asked; of ``scope`` when given)."""
    conditions = ["status = 'completed'"] if completed_only else []
    params: list[Any] = []
    if scope is not None:
        conditions.append("scope = ?")
        params.append(scope)
    where = ("WHERE " + " AND ".join(conditions)) if conditions else ""
    rows = conn.execute(
        f"SELECT {_WRAP_COLUMNS} FROM wraps {where} ORDER BY id DESC LIMIT ?",  # noqa: S608
        (*params, min(limit, SQLITE_INT_MAX)),
    )
    return [_record(row) for row in rows]
