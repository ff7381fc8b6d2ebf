"""Supersession links and state-key slots. Runs in the caller's transaction; never commits.

A link "old is replaced by new" is valid only when both episodes exist in one scope, the old
one is not newer, no cycle forms, the texts pass the lexical floor (``immune._floor``), the
new one is at least as trusted (effective trust), and the old one holds no state key (a
keyed episode is replaced only by a newer episode of its key). A state-key slot (one per key
and scope) needs no link: its newest episode replaces the others, so an episode enters a
slot only when that obeys the same trust rule (``check_slot``). ``episodes.superseded_by``
always names the current replacement.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from anneal_memory.errors import SupersessionError, TrustError
from anneal_memory.store._contract import Reader, SqlConnection
from anneal_memory.store.provenance._checks import effective_trusts

if TYPE_CHECKING:
    from anneal_memory.types import StateSlot, SupersessionLink

__all__ = [
    "VIA_EXPLICIT",
    "VIA_WRAP",
    "add_link",
    "check_link",
    "check_slot",
    "has_superseded",
    "links_of",
    "refresh_slot",
    "refresh_superseded",
    "remove_link",
    "slot_report",
]

VIA_EXPLICIT = "explicit"
VIA_WRAP = "wrap"
_MAX_CHAIN = 10_000
_LESS_TRUSTED = "a less trusted episode never replaces a more trusted one"


@dataclass(frozen=True, slots=True, kw_only=True)
class _Row:
    id: str
    seq: int
    ts: str
    content: str
    state_key: str | None
    scope: str


def _row(conn: SqlConnection, ident: str) -> _Row | None:
    row = conn.execute(
        "SELECT id, seq, ts, content, state_key, scope FROM episodes WHERE id = ?", (ident,)
    ).fetchone()
    if row is None:
        return None
    return _Row(
        id=row[0], seq=int(row[1]), ts=row[2], content=row[3], state_key=row[4], scope=row[5]
    )


def _replaced_by_chain(conn: SqlConnection, start: str, target: str) -> bool:
    """True when ``target`` is reachable from ``start`` along "replaced by" links."""
    seen = {start}
    frontier = [start]
    while frontier and len(seen) < _MAX_CHAIN:
        ident = frontier.pop()
        for (new_id,) in conn.execute(
            "SELECT new_id FROM supersessions WHERE old_id = ?", (ident,)
        ):
            if new_id == target:
                return True
            if new_id not in seen:
                seen.add(new_id)
                frontier.append(new_id)
    return False


def _check_trust(conn: SqlConnection, old: _Row, new: _Row) -> None:
    trusts = effective_trusts(conn, (old.id, new.id))
    if trusts[new.id].rank < trusts[old.id].rank:
        raise SupersessionError(
            f"episode {new.id} ({trusts[new.id].value}) cannot supersede {old.id} "
            f"({trusts[old.id].value}): {_LESS_TRUSTED}. Record the update with matching "
            "trust, or lower the old episode's trust first"
        )


def check_slot(conn: SqlConnection, key: str, ident: str) -> None:
    """Refuse ``ident`` in the slot ``key`` when a less trusted episode replaces a more trusted one.

    ``ident`` is already written into the slot, uncommitted; trust is effective trust.

    Raises:
        TrustError: ``ident`` would replace a more trusted value of the key, or a less
            trusted newer value would replace it; the message names both and what to do.
    """
    members = [
        str(r[0])
        for r in conn.execute(
            "SELECT id FROM episodes WHERE state_key = ? AND scope ="
            " (SELECT scope FROM episodes WHERE id = ?) ORDER BY ts DESC, seq DESC",
            (key, ident),
        )
    ]
    trusts = effective_trusts(conn, members)
    mine, newest = trusts[ident], members[0]
    if newest != ident:
        if trusts[newest].rank < mine.rank:
            raise TrustError(
                f"episode {ident} ({mine.value}) would be replaced in state key {key!r} by the "
                f"newer {newest} ({trusts[newest].value}): {_LESS_TRUSTED}. Give it a newer "
                f"timestamp, or take {newest} out of the key first (state --unset {newest})"
            )
        return
    stronger = [m for m in members[1:] if trusts[m].rank > mine.rank]
    if stronger:
        held = max(stronger, key=lambda m: trusts[m].rank)
        raise TrustError(
            f"episode {ident} ({mine.value}) cannot take state key {key!r} from {held} "
            f"({trusts[held].value}): {_LESS_TRUSTED}. Record it without the state key (it is "
            f"kept as history), or lower {held}'s trust first"
        )


def check_link(conn: SqlConnection, old_id: str, new_id: str) -> None:
    """Refuse an invalid link with the reason (see the module docstring).

    Raises:
        SupersessionError: The link breaks a rule; the message says which and what to do.
    """
    from anneal_memory.immune._floor import check_floor  # pure; loaded only when linking

    if old_id == new_id:
        raise SupersessionError(f"episode {old_id} cannot supersede itself")
    old, new = _row(conn, old_id), _row(conn, new_id)
    if old is None or new is None:
        missing = old_id if old is None else new_id
        raise SupersessionError(f"no episode {missing} (it never existed or was deleted)")
    if old.scope != new.scope:
        raise SupersessionError(
            f"episode {old.id} belongs to another scope than {new.id}; a supersession links "
            "two episodes of one scope"
        )
    if old.state_key is not None:
        raise SupersessionError(
            f"episode {old.id} holds state key {old.state_key!r}; it is replaced only through "
            f"its key: record the new value with state_key={old.state_key!r}"
        )
    if old.ts > new.ts:
        raise SupersessionError(
            f"episode {old.id} ({old.ts}) is newer than {new.id} ({new.ts}); only a newer "
            "episode can supersede an older one"
        )
    if _replaced_by_chain(conn, new.id, old.id):
        raise SupersessionError(
            f"linking {old.id} -> {new.id} would form a cycle: {new.id} is already replaced "
            f"(directly or along a chain) by {old.id}"
        )
    floor = check_floor(old.content, new.content)
    if not floor.passed:
        raise SupersessionError(floor.message(old.id, new.id))
    _check_trust(conn, old, new)


def refresh_superseded(conn: SqlConnection, old_id: str) -> None:
    """Point an unkeyed episode's ``superseded_by`` at its newest replacement (or none)."""
    conn.execute(
        "UPDATE episodes SET superseded_by = ("
        " SELECT s.new_id FROM supersessions s JOIN episodes n ON n.id = s.new_id"
        " WHERE s.old_id = episodes.id ORDER BY n.ts DESC, n.seq DESC LIMIT 1)"
        " WHERE id = ? AND state_key IS NULL",
        (old_id,),
    )


def add_link(conn: SqlConnection, old_id: str, new_id: str, *, via: str, now: str) -> bool:
    """Check and store one link; False when it already existed.

    Raises:
        SupersessionError: The link is invalid.
    """
    check_link(conn, old_id, new_id)
    cursor = conn.execute(
        "INSERT INTO supersessions(old_id, new_id, via, created_at) VALUES (?, ?, ?, ?)"
        " ON CONFLICT DO NOTHING",
        (old_id, new_id, via, now),
    )
    refresh_superseded(conn, old_id)
    return cursor.rowcount == 1


def remove_link(conn: SqlConnection, old_id: str, new_id: str) -> bool:
    """Remove one link; False when there was none."""
    cursor = conn.execute(
        "DELETE FROM supersessions WHERE old_id = ? AND new_id = ?", (old_id, new_id)
    )
    refresh_superseded(conn, old_id)
    return cursor.rowcount == 1


def refresh_slot(conn: SqlConnection, key: str, scope: str) -> None:
    """Make the newest episode of ``key`` in ``scope`` current, every other one replaced by it."""
    conn.execute(
        "UPDATE episodes SET superseded_by = nullif((SELECT k.id FROM episodes k"
        " WHERE k.state_key = ? AND k.scope = ? ORDER BY k.ts DESC, k.seq DESC LIMIT 1),"
        " episodes.id) WHERE state_key = ? AND scope = ?",
        (key, scope, key, scope),
    )


def slot_report(reader: Reader, key: str | None = None) -> list[StateSlot]:
    """Every state key (or the one given), per scope, with its current and replaced episodes."""
    from anneal_memory.types import StateSlot  # built on first use: recall never needs it (#25)

    conn, hint = reader.conn, reader.dialect.indexed_by("episodes_state_key")
    where, params = ("WHERE state_key = ?", (key,)) if key is not None else ("", ())
    rows = conn.execute(
        f"SELECT state_key, scope, id FROM episodes{hint} "  # noqa: S608
        f"{where or 'WHERE state_key IS NOT NULL'} ORDER BY state_key, scope, ts DESC, seq DESC",
        params,
    ).fetchall()
    slots: dict[tuple[str, str], list[str]] = {}
    for slot_key, scope, ident in rows:
        slots.setdefault((str(slot_key), str(scope)), []).append(str(ident))
    return [
        StateSlot(key=k, scope=s, current=tuple(ids[:1]), replaced=tuple(ids[1:]))
        for (k, s), ids in slots.items()
    ]


def links_of(conn: SqlConnection, ids: Sequence[str] | None = None) -> list[SupersessionLink]:
    """Explicit links (all of them, or those touching ``ids``), oldest first."""
    from anneal_memory.types import SupersessionLink  # built on first use (#25)

    rows = conn.execute(
        "SELECT old_id, new_id, via FROM supersessions ORDER BY created_at, old_id, new_id"
    ).fetchall()
    wanted = None if ids is None else set(ids)
    return [
        SupersessionLink(old_id=o, new_id=n, via=v)
        for o, n, v in rows
        if wanted is None or o in wanted or n in wanted
    ]


def has_superseded(reader: Reader) -> bool:
    """True when any live episode is superseded (so recall must filter)."""
    hint = reader.dialect.indexed_by("episodes_superseded")
    row = reader.conn.execute(
        f"SELECT 1 FROM episodes{hint}"  # noqa: S608
        " WHERE superseded_by IS NOT NULL LIMIT 1"
    ).fetchone()
    return row is not None
