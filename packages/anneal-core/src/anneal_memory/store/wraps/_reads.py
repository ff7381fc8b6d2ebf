"""Bounded reads of wraps and pattern history for explanations and the inspector.

Run inside ``store.reading(...)`` on the reader's connection; every read takes a limit, so
a store with a long history answers with a page, never a whole table. The SQL is the
``?``-placeholder subset both backends run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from anneal_memory.store._contract import SqlConnection
from anneal_memory.store._params import SQLITE_INT_MAX

__all__ = [
    "OpenWrap",
    "PatternRow",
    "PatternStepRow",
    "count_patterns",
    "episode_scopes",
    "open_wraps",
    "pattern_row",
    "pattern_steps",
    "patterns_page",
    "snapshot_page",
    "wrap_lines",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class PatternRow:
    """A pattern's summary in one scope: its level now and the wraps that wrote it."""

    scope: str
    identity: str
    name: str
    level: int
    max_level: int
    first_wrap_id: int
    last_wrap_id: int
    last_grounded: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class PatternStepRow:
    """One saved pattern line with the wrap that saved it.

    ``after_seq``/``through_seq`` bound the wrap's snapshot within its scope. ``cited_ids``
    are the ids the line cited, ``validated_ids`` those the immune system accepted (both
    empty for lines saved before pattern history kept them).
    """

    wrap_id: int
    identity: str
    level: int
    claimed_level: int
    line_date: str | None
    explanation: str
    validated: bool
    marks: tuple[str, ...]
    today: str
    started_at: str
    completed_at: str | None
    after_seq: int
    through_seq: int
    cited_ids: tuple[str, ...] = ()
    validated_ids: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class OpenWrap:
    """An open wrap: its scope, when it started, its snapshot size and its lease."""

    wrap_id: int
    scope: str
    started_at: str
    session_id: str | None
    episode_count: int
    lease_expires_at: str | None


_PATTERN_COLUMNS = (
    "scope, identity, name, level, max_level, first_wrap_id, last_wrap_id, last_grounded"
)


def _pattern(row: Sequence[Any]) -> PatternRow:
    return PatternRow(
        scope=str(row[0]),
        identity=str(row[1]),
        name=str(row[2]),
        level=int(row[3]),
        max_level=int(row[4]),
        first_wrap_id=int(row[5]),
        last_wrap_id=int(row[6]),
        last_grounded=None if row[7] is None else str(row[7]),
    )


def _limit(value: int) -> int:
    return max(0, min(int(value), SQLITE_INT_MAX))


def pattern_row(conn: SqlConnection, identity: str, scope: str) -> PatternRow | None:
    """The summary of pattern ``identity`` (case-folded name) in ``scope``, or None."""
    row = conn.execute(
        f"SELECT {_PATTERN_COLUMNS} FROM patterns WHERE scope = ? AND identity = ?",  # noqa: S608
        (scope, identity),
    ).fetchone()
    return None if row is None else _pattern(row)


def patterns_page(
    conn: SqlConnection, scope: str, *, limit: int, offset: int = 0
) -> list[PatternRow]:
    """Patterns of ``scope``, most recently written first, then highest level, then name."""
    rows = conn.execute(
        f"SELECT {_PATTERN_COLUMNS} FROM patterns WHERE scope = ?"  # noqa: S608
        " ORDER BY last_wrap_id DESC, level DESC, identity LIMIT ? OFFSET ?",
        (scope, _limit(limit), _limit(offset)),
    )
    return [_pattern(row) for row in rows]


def count_patterns(conn: SqlConnection, scope: str) -> int:
    """How many patterns ``scope`` holds."""
    row = conn.execute("SELECT count(*) FROM patterns WHERE scope = ?", (scope,)).fetchone()
    return int(row[0]) if row else 0


_STEP_COLUMNS = (
    "h.wrap_id, h.identity, h.level, h.written_level, h.line_date, h.explanation, h.validated,"
    " h.marks, w.today, w.completed_at, w.after_seq, w.through_seq, w.started_at,"
    " h.cited_ids, h.validated_ids"
)


def _step(row: Sequence[Any]) -> PatternStepRow:
    marks = str(row[7])
    return PatternStepRow(
        wrap_id=int(row[0]),
        identity=str(row[1]),
        level=int(row[2]),
        claimed_level=int(row[3]),
        line_date=None if row[4] is None else str(row[4]),
        explanation=str(row[5]),
        validated=bool(row[6]),
        marks=tuple(m for m in marks.split(",") if m),
        today=str(row[8]),
        completed_at=None if row[9] is None else str(row[9]),
        after_seq=int(row[10]),
        through_seq=int(row[11]),
        started_at=str(row[12]),
        cited_ids=tuple(str(row[13]).split()),
        validated_ids=tuple(str(row[14]).split()),
    )


def pattern_steps(
    conn: SqlConnection, identity: str, scope: str, *, limit: int
) -> list[PatternStepRow]:
    """The newest ``limit`` saved lines of one pattern of ``scope``, newest first."""
    rows = conn.execute(
        f"SELECT {_STEP_COLUMNS} FROM pattern_history h JOIN wraps w ON w.id = h.wrap_id"  # noqa: S608
        " WHERE h.scope = ? AND h.identity = ? ORDER BY h.wrap_id DESC, h.id DESC LIMIT ?",
        (scope, identity, _limit(limit)),
    )
    return [_step(row) for row in rows]


def wrap_lines(conn: SqlConnection, wrap_id: int, *, limit: int) -> list[PatternStepRow]:
    """The pattern lines one wrap saved (its immune decisions), in the order written."""
    rows = conn.execute(
        f"SELECT {_STEP_COLUMNS} FROM pattern_history h JOIN wraps w ON w.id = h.wrap_id"  # noqa: S608
        " WHERE h.wrap_id = ? ORDER BY h.id LIMIT ?",
        (int(wrap_id), _limit(limit)),
    )
    return [_step(row) for row in rows]


def snapshot_page(
    conn: SqlConnection, scope: str, after_seq: int, through_seq: int, *, limit: int
) -> list[tuple[str, str]]:
    """``(id, text)`` of the first ``limit`` episodes still stored in a wrap's snapshot."""
    rows = conn.execute(
        "SELECT id, content FROM episodes WHERE scope = ? AND seq > ? AND seq <= ?"
        " ORDER BY seq LIMIT ?",
        (scope, int(after_seq), int(through_seq), _limit(limit)),
    )
    return [(str(ident), str(text)) for ident, text in rows]


def open_wraps(conn: SqlConnection, *, limit: int) -> list[OpenWrap]:
    """The open wraps (one per scope at most), oldest first."""
    rows = conn.execute(
        "SELECT id, scope, started_at, session_id, episode_count, lease_expires_at"
        " FROM wraps WHERE status = 'open' ORDER BY id LIMIT ?",
        (_limit(limit),),
    )
    return [
        OpenWrap(
            wrap_id=int(r[0]),
            scope=str(r[1]),
            started_at=str(r[2]),
            session_id=None if r[3] is None else str(r[3]),
            episode_count=int(r[4]),
            lease_expires_at=None if r[5] is None else str(r[5]),
        )
        for r in rows
    ]


def episode_scopes(conn: SqlConnection, *, limit: int) -> list[str]:
    """The first ``limit`` distinct scopes of the stored episodes, in order ("" first)."""
    from anneal_memory.store.wraps._rows import _SCOPES

    found = []
    for (scope,) in conn.execute(_SCOPES):
        found.append(str(scope))
        if len(found) >= limit:
            break
    return found
