"""Crystal rows: read into ``Crystal``, insert, update. Run inside the caller's transaction."""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from anneal_memory.crystal._types import (
    ActivationMode,
    ActivationTier,
    Crystal,
    Permanence,
    Retirement,
    RetirementKind,
)

if TYPE_CHECKING:
    from anneal_memory.store import SqlConnection

__all__ = [
    "COLD_DAYS",
    "COLUMNS",
    "HOT_DAYS",
    "WARM_DAYS",
    "activation_tier",
    "crystal_from_row",
    "fetch",
    "fetch_all",
    "replace_evidence",
]

HOT_DAYS = 7
WARM_DAYS = 30
COLD_DAYS = 90

COLUMNS = (
    "name, level, explanation, permanence, activation_mode, tags, crystallized_on, "
    "last_activated_on, source, notes, revision, retired_kind, retired_reason, retired_on, "
    "retired_at"
)


def activation_tier(last_activated_on: str, today: _dt.date) -> ActivationTier:
    """Hot under 7 days, warm 7-30, cold 31-90, dormant beyond (or unreadable)."""
    try:
        age = (today - _dt.date.fromisoformat(last_activated_on)).days
    except ValueError:
        return ActivationTier.DORMANT
    if age < HOT_DAYS:
        return ActivationTier.HOT
    if age <= WARM_DAYS:
        return ActivationTier.WARM
    if age <= COLD_DAYS:
        return ActivationTier.COLD
    return ActivationTier.DORMANT


def _evidence(conn: SqlConnection, name: str | None) -> dict[str, list[tuple[str, bool]]]:
    """Evidence ids by crystal (one crystal, or all when ``name`` is None), with liveness."""
    where, args = ("WHERE c.crystal = ?", (name,)) if name is not None else ("", ())
    rows = conn.execute(
        "SELECT c.crystal, c.episode_id, e.id IS NOT NULL FROM crystal_evidence c"  # noqa: S608
        f" LEFT JOIN episodes e ON e.id = c.episode_id {where} ORDER BY c.crystal, c.position",
        args,
    )
    out: dict[str, list[tuple[str, bool]]] = {}
    for crystal, ident, live in rows:
        out.setdefault(str(crystal), []).append((str(ident), bool(live)))
    return out


def crystal_from_row(
    row: Sequence[object], evidence: Sequence[tuple[str, bool]], today: _dt.date
) -> Crystal:
    """Build a ``Crystal`` from a row selected with :data:`COLUMNS` and its evidence."""
    (name, level, explanation, permanence, mode, tags, crystallized_on, last_on, source,
     notes, revision, r_kind, r_reason, r_on, r_at) = row  # fmt: skip
    retirement = None
    if r_kind is not None:
        retirement = Retirement(
            kind=RetirementKind(str(r_kind)), reason=str(r_reason or ""), on=str(r_on),
            at=str(r_at),
        )  # fmt: skip
    return Crystal(
        name=str(name),
        level=int(str(level)),
        explanation=str(explanation),
        evidence=tuple(ident for ident, _live in evidence),
        evidence_missing=tuple(ident for ident, live in evidence if not live),
        permanence=Permanence(str(permanence)),
        activation_mode=ActivationMode(str(mode)),
        tags=tuple(json.loads(str(tags))),
        crystallized_on=str(crystallized_on),
        last_activated_on=str(last_on),
        activation=activation_tier(str(last_on), today),
        source=str(source),
        notes=tuple(json.loads(str(notes))),
        revision=int(str(revision)),
        retirement=retirement,
    )


def fetch(conn: SqlConnection, name: str, today: _dt.date) -> Crystal | None:
    """The crystal called ``name`` (live or retired), or None."""
    row = conn.execute(f"SELECT {COLUMNS} FROM crystals WHERE name = ?", (name,)).fetchone()  # noqa: S608
    if row is None:
        return None
    return crystal_from_row(row, _evidence(conn, name).get(name, []), today)


def fetch_all(conn: SqlConnection, today: _dt.date) -> list[Crystal]:
    """Every crystal, live and retired, sorted by name."""
    rows = conn.execute(f"SELECT {COLUMNS} FROM crystals ORDER BY name").fetchall()  # noqa: S608
    if not rows:  # no crystal, no evidence to read (every wrap's prepare asks)
        return []
    evidence = _evidence(conn, None)
    return [crystal_from_row(r, evidence.get(str(r[0]), []), today) for r in rows]


def replace_evidence(conn: SqlConnection, name: str, ids: Sequence[str]) -> None:
    """Set the crystal's evidence to ``ids``, in order."""
    conn.execute("DELETE FROM crystal_evidence WHERE crystal = ?", (name,))
    conn.executemany(
        "INSERT INTO crystal_evidence(crystal, position, episode_id) VALUES (?, ?, ?)",
        [(name, pos, ident) for pos, ident in enumerate(ids)],
    )
