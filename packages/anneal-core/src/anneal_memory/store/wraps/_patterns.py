"""Pattern history and association links in SQLite. Run inside the caller's transaction.

Pattern levels and their history are kept per scope (the same name in two scopes is two
patterns); association links join episode ids whatever their scope.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from anneal_memory._hebbian import DECAY, MAX_STRENGTH, PRUNE_BELOW, AssociationLink
from anneal_memory.immune._graduation import LineVerdict, PriorPattern
from anneal_memory.store._contract import SqlConnection
from anneal_memory.store._params import SQLITE_INT_MAX, in_chunks
from anneal_memory.store.wraps._rows import saves_so_far

_LN_PER_SAVE = -math.log(DECAY)

__all__ = [
    "AssociationCounts",
    "PatternEvent",
    "apply_associations",
    "load_prior",
    "pattern_events",
    "read_associations",
    "save_patterns",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class PatternEvent:
    """One pattern line as one save wrote it.

    Attributes:
        wrap_id: The wrap that saved it.
        name: The pattern identity (case-folded name).
        level: The level written.
        claimed_level: The level the text given to the save claimed.
        date: The line's date, if any.
        explanation: Its evidence explanation ("" if none).
        validated: True when grounded evidence carried a climb.
        marks: Status marks the save wrote (comma separated).
        completed_at: When that wrap was saved.
    """

    wrap_id: int
    name: str
    level: int
    claimed_level: int
    date: str | None
    explanation: str
    validated: bool
    marks: str
    completed_at: str | None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of every field."""
        return {name: getattr(self, name) for name in self.__slots__}


@dataclass(frozen=True, slots=True, kw_only=True)
class AssociationCounts:
    """What one save did to the association links."""

    formed: int = 0
    strengthened: int = 0
    decayed: int = 0
    pruned: int = 0


_PRIOR_COLUMNS = "SELECT identity, level, max_level, last_grounded, last_wrap_id FROM patterns"
_EXPLANATIONS = (
    "SELECT * FROM (SELECT identity, id, explanation FROM pattern_history WHERE scope = ?"
    " AND identity = ? AND validated = 1 AND explanation != ''"
    " ORDER BY wrap_id DESC, id DESC LIMIT 20) AS h"
)
_CHUNK = 200


def _prior_rows(
    conn: SqlConnection, wanted: set[str], last_wrap_id: int | None, scope: str
) -> list[Sequence[Any]]:
    rows: list[Sequence[Any]] = []
    if last_wrap_id is not None:
        rows.extend(
            conn.execute(
                f"{_PRIOR_COLUMNS} WHERE scope = ? AND last_wrap_id = ?", (scope, last_wrap_id)
            )
        )
    seen = {str(r[0]) for r in rows}
    missing = sorted(wanted - seen)
    for chunk, marks in in_chunks(missing, _CHUNK):
        query = f"{_PRIOR_COLUMNS} WHERE scope = ? AND identity IN ({marks})"
        found = {str(r[0]): r for r in conn.execute(query, (scope, *chunk))}
        rows.extend(found[identity] for identity in chunk if identity in found)
    return rows


def _explanations(
    conn: SqlConnection, identities: Sequence[str], scope: str
) -> dict[str, list[str]]:
    # One statement per chunk: a UNION ALL of per-pattern "newest 20" subqueries instead of
    # one round trip per pattern. Rows are only inserted by saves, in wrap order, so
    # (wrap_id, id) sorts like id; ordering by it lets the (identity, wrap_id) index stop
    # after 20 rows instead of sorting a pattern's whole history.
    found: dict[str, list[tuple[int, str]]] = {identity: [] for identity in identities}
    for chunk, _marks in in_chunks(identities, _CHUNK):
        query = " UNION ALL ".join([_EXPLANATIONS] * len(chunk))
        params = [value for identity in chunk for value in (scope, identity)]
        for identity, row_id, explanation in conn.execute(query, params):
            found[str(identity)].append((int(row_id), str(explanation)))
    return {
        identity: [text for _id, text in sorted(items, reverse=True)]
        for identity, items in found.items()
    }


def load_prior(
    conn: SqlConnection,
    identities: Iterable[str],
    last_wrap_id: int | None,
    scope: str = "",
) -> dict[str, PriorPattern]:
    """History in ``scope`` for ``identities`` and every pattern of its last saved continuity."""
    rows = _prior_rows(conn, set(identities), last_wrap_id, scope)
    explanations = _explanations(conn, [str(r[0]) for r in rows], scope)
    prior: dict[str, PriorPattern] = {}
    for identity, level, max_level, grounded, wrap_id in rows:
        prior[str(identity)] = PriorPattern(
            level=int(level),
            max_level=int(max_level),
            last_grounded=grounded,
            explanations=tuple(explanations[str(identity)]),
            in_last_save=wrap_id == last_wrap_id,
        )
    return prior


def save_patterns(
    conn: SqlConnection,
    wrap_id: int,
    verdicts: Sequence[LineVerdict],
    today: str,
    scope: str = "",
) -> None:
    """Record every pattern line of a save in ``scope``'s history and per-pattern summary."""
    history = []
    summary = []
    for verdict in verdicts:
        line = verdict.line
        marks = ",".join(f.code.value for f in verdict.findings if f.severity.value == "demotion")
        history.append(
            (
                scope,
                line.identity,
                wrap_id,
                verdict.level,
                line.level,
                line.date,
                line.explanation if verdict.validated else "",
                int(verdict.validated),
                marks,
                " ".join(line.evidence_ids),
                " ".join(verdict.validated_ids),
            )
        )
        summary.append(
            (
                scope,
                line.identity,
                line.name,
                verdict.level,
                verdict.level,
                wrap_id,
                wrap_id,
                today if verdict.grounded else None,
            )
        )
    conn.executemany(
        "INSERT INTO pattern_history (scope, identity, wrap_id, level, written_level, line_date,"
        " explanation, validated, marks, cited_ids, validated_ids)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        history,
    )
    conn.executemany(
        "INSERT INTO patterns (scope, identity, name, level, max_level, first_wrap_id,"
        " last_wrap_id, last_grounded) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT(scope, identity) DO UPDATE SET name = excluded.name, level = excluded.level,"
        " max_level = CASE WHEN patterns.max_level > excluded.level THEN patterns.max_level"
        " ELSE excluded.level END, last_wrap_id = excluded.last_wrap_id,"
        " last_grounded = coalesce(excluded.last_grounded, patterns.last_grounded)",
        summary,
    )


def pattern_events(
    conn: SqlConnection, identity: str, *, limit: int, scope: str = ""
) -> list[PatternEvent]:
    """The newest ``limit`` saved lines of one pattern of ``scope``, newest first."""
    rows = conn.execute(
        "SELECT h.wrap_id, h.identity, h.level, h.written_level, h.line_date, h.explanation,"
        " h.validated, h.marks, w.completed_at FROM pattern_history h"
        " JOIN wraps w ON w.id = h.wrap_id WHERE h.scope = ? AND h.identity = ?"
        " ORDER BY h.id DESC LIMIT ?",
        (scope, identity, min(limit, SQLITE_INT_MAX)),
    )
    return [
        PatternEvent(
            wrap_id=int(r[0]),
            name=str(r[1]),
            level=int(r[2]),
            claimed_level=int(r[3]),
            date=r[4],
            explanation=str(r[5]),
            validated=bool(r[6]),
            marks=str(r[7]),
            completed_at=r[8],
        )
        for r in rows
    ]


def _decay_key(strength: float, save_no: int) -> float:
    return math.log(strength) + save_no * _LN_PER_SAVE


def _strength_now(strength: float, last_save_no: int, save_no: int) -> float:
    return float(strength) * DECAY ** max(0, save_no - last_save_no)


def apply_associations(
    conn: SqlConnection,
    wrap_id: int,
    save_no: int,
    deltas: Mapping[tuple[str, str], float],
    affect: tuple[str, float] | None,
) -> AssociationCounts:
    """Add ``deltas`` (capped) as save number ``save_no``, then prune links now under 0.1.

    Links this save does not reinforce are not rewritten: their strength decays when read
    (x0.9 per save since their last reinforcement, see the v3 schema notes).
    """
    tag, intensity = affect if affect is not None else (None, None)
    firsts = sorted({a for a, _b in deltas})
    found: dict[tuple[str, str], tuple[float, int]] = {}
    for chunk, marks in in_chunks(firsts, 400):
        rows = conn.execute(
            f"SELECT a, b, strength, last_save_no FROM associations WHERE a IN ({marks})",  # noqa: S608
            chunk,
        )
        for a, b, strength, last in rows:
            if (a, b) in deltas:
                found[(str(a), str(b))] = (float(strength), int(last))
    rows_out = []
    for (a, b), delta in sorted(deltas.items()):
        before = found.get((a, b))
        base = 0.0 if before is None else _strength_now(before[0], before[1], save_no - 1)
        strength = min(MAX_STRENGTH, base + delta)
        rows_out.append(
            (
                a,
                b,
                strength,
                tag,
                intensity,
                wrap_id,
                wrap_id,
                save_no,
                _decay_key(strength, save_no),
            )
        )
    total_before = int(conn.execute("SELECT count(*) FROM associations").fetchone()[0])
    conn.executemany(
        "INSERT INTO associations (a, b, strength, affect_tag, affect_intensity,"
        " created_wrap_id, last_wrap_id, last_save_no, decay_key)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT(a, b) DO UPDATE SET strength = excluded.strength,"
        " affect_tag = coalesce(excluded.affect_tag, associations.affect_tag),"
        " affect_intensity = coalesce(excluded.affect_intensity, associations.affect_intensity),"
        " last_wrap_id = excluded.last_wrap_id, last_save_no = excluded.last_save_no,"
        " decay_key = excluded.decay_key",
        rows_out,
    )
    strengthened = sum(1 for pair in deltas if pair in found)
    pruned = conn.execute(
        "DELETE FROM associations WHERE decay_key < ?",
        (_decay_key(PRUNE_BELOW, save_no),),
    ).rowcount
    return AssociationCounts(
        formed=len(deltas) - strengthened,
        strengthened=strengthened,
        decayed=total_before - strengthened,
        pruned=int(pruned),
    )


def read_associations(
    conn: SqlConnection, *, episode_id: str | None, min_strength: float, limit: int
) -> list[AssociationLink]:
    """Links with their strength now, strongest first; only those touching ``episode_id``."""
    save_no = saves_so_far(conn)
    query = (
        "SELECT a, b, strength, affect_tag, affect_intensity, last_wrap_id, last_save_no"
        " FROM associations"
    )
    conditions: list[str] = []
    params: list[Any] = []
    if min_strength > 0:
        conditions.append("decay_key >= ?")
        # A hair under the bound, so rounding never drops a link exactly at it; the exact
        # comparison is made on the strength below.
        params.append(_decay_key(min_strength, save_no) - 1e-9)
    if episode_id is not None:
        conditions.append("(a = ? OR b = ?)")
        params += [episode_id, episode_id]
    if conditions:
        query += " WHERE " + " AND ".join(conditions)
    query += " ORDER BY decay_key DESC, a, b LIMIT ?"
    params.append(min(limit, SQLITE_INT_MAX))
    links = [
        AssociationLink(
            a=str(r[0]),
            b=str(r[1]),
            strength=_strength_now(r[2], int(r[6]), save_no),
            affect_tag=r[3],
            affect_intensity=r[4],
            last_wrap_id=int(r[5]),
        )
        for r in conn.execute(query, params)
    ]
    links = [link for link in links if link.strength >= min_strength]
    links.sort(key=lambda link: (-round(link.strength, 12), link.a, link.b))
    return links
