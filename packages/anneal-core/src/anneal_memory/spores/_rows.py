"""Spore rows: read into ``Spore``. Run inside the caller's transaction (or autocommit)."""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from anneal_memory.spores._types import Resolution, Spore, SporeNote, SporeTier, SporeType
from anneal_memory.spores._validate import format_id, germination_of
from anneal_memory.types import Trust

if TYPE_CHECKING:
    from anneal_memory.store import SqlConnection

__all__ = ["COLUMNS", "fetch", "fetch_where", "spore_from_row"]

COLUMNS = (
    "num, type, text, domain, tier, salience, seen, next, created, status, resolution, "
    "pointer, origin_key, revision, trust"
)


def spore_from_row(row: Sequence[object], notes: Sequence[SporeNote], today: _dt.date) -> Spore:
    """Build a ``Spore`` from a row selected with :data:`COLUMNS` and its notes."""
    (num, kind, text, domain, tier, salience, seen, next_day, created, status, resolution,
     pointer, origin_key, revision, trust) = row  # fmt: skip
    level = SporeTier(str(tier))
    seen_s = None if seen is None else str(seen)
    next_s = None if next_day is None else str(next_day)
    return Spore(
        id=format_id(int(str(num))),
        type=SporeType(str(kind)),
        text=str(text),
        domain=str(domain),
        tier=level,
        salience=int(str(salience)),
        seen=seen_s,
        next=next_s,
        created=str(created),
        status=str(status),
        germination=germination_of(level, seen_s, next_s, today),
        resolution=None if resolution is None else Resolution(**json.loads(str(resolution))),
        pointer=str(pointer),
        notes=tuple(notes),
        origin_key=str(origin_key),
        revision=int(str(revision)),
        trust=Trust(str(trust)),
    )


def _notes(
    conn: SqlConnection, num: int | None, status: str | None = None
) -> dict[int, list[SporeNote]]:
    args: tuple[object, ...]
    if num is not None:
        where, args = "WHERE n.spore = ?", (num,)
    elif status is not None:
        where, args = "JOIN spores s ON s.num = n.spore WHERE s.status = ?", (status,)
    else:
        where, args = "", ()
    rows = conn.execute(
        f"SELECT n.spore, n.day, n.text FROM spore_notes n {where}"  # noqa: S608
        " ORDER BY n.spore, n.position",
        args,
    )
    out: dict[int, list[SporeNote]] = {}
    for spore, day, text in rows:
        out.setdefault(int(spore), []).append(SporeNote(on=str(day), text=str(text)))
    return out


def fetch(conn: SqlConnection, num: int, today: _dt.date) -> Spore | None:
    """The spore numbered ``num`` (open or resolved), or None."""
    row = conn.execute(f"SELECT {COLUMNS} FROM spores WHERE num = ?", (num,)).fetchone()  # noqa: S608
    if row is None:
        return None
    return spore_from_row(row, _notes(conn, num).get(num, []), today)


def fetch_where(conn: SqlConnection, status: str | None, today: _dt.date) -> list[Spore]:
    """Spores with this status (every spore when None), by number."""
    where, args = ("WHERE status = ?", (status,)) if status is not None else ("", ())
    rows = conn.execute(
        f"SELECT {COLUMNS} FROM spores {where} ORDER BY num",  # noqa: S608
        args,
    ).fetchall()
    notes = _notes(conn, None, status) if rows else {}
    return [spore_from_row(r, notes.get(int(r[0]), []), today) for r in rows]
