"""The ranked statement of PostgreSQL recall: SQLite's scoring rules, in one SQL statement.

Every matching episode is scored (no candidate window). A :class:`Terms` gives, per query
term, the SQL condition "the episode holds this term" and its SQL weight within the episode
(``ts_rank`` of the term alone: it grows with the term's occurrences and saturates, as
bm25's term frequency does). The score is bm25's shape:

* each held term counts ``idf * weight / (1 - b + b * length / average length)``, with
  ``idf = ln(1 + (N - n + 0.5) / (n + 0.5))`` (``N`` the highest episode ``seq``: the
  episodes ever recorded, read from the primary key where a count would scan the table;
  ``n`` the matches of the term that pass the filters) and ``length`` the episode's lexeme
  count;
* the sum is multiplied by ``1 + COORDINATION_BONUS`` for each further distinct term held;
* a match recorded at most :data:`NEIGHBOUR_REACH` places before or after one of the
  :data:`NEIGHBOUR_SOURCES` best matches, in its scope and within :data:`NEIGHBOUR_WINDOW`,
  gains :data:`NEIGHBOUR_SHARE` of that match's score, never passing it (keywords of one
  term rank without it).

Episodes holding the keyword as a phrase come first; ties go to the newer episode.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from anneal_memory.store._episodes import COLUMNS
from anneal_memory.store.recall._intent import TIME_PRIOR, TYPE_PRIOR
from anneal_memory.store.recall._ranking import (
    NEIGHBOUR_REACH,
    NEIGHBOUR_SHARE,
    NEIGHBOUR_SOURCES,
    NEIGHBOUR_WINDOW,
)
from anneal_memory.store.recall._search import COORDINATION_BONUS

if TYPE_CHECKING:
    import psycopg

    from anneal_memory.store.recall._intent import Intent
    from anneal_memory.store.recall._search import RecallFilters

__all__ = [
    "LENGTH_B",
    "Terms",
    "count_ranked",
    "lifted_sql",
    "ranked_page",
    "ranked_scores",
    "scored_sql",
]

LENGTH_B = 0.25
_WINDOW_S = int(NEIGHBOUR_WINDOW.total_seconds())
_STEPS = ", ".join(f"({side * step})" for step in range(1, NEIGHBOUR_REACH + 1) for side in (-1, 1))


@dataclass(frozen=True, slots=True, kw_only=True)
class Terms:
    """Per-term SQL over ``episodes AS e``; every ``%s`` of a term is bound to its value.

    ``holds`` and ``weight`` use ``{q}`` for the term's bound expression, ``query`` builds
    it from one parameter; ``values`` are the terms' parameters. ``phrase`` (SQL with one
    parameter, ``phrase_value``) marks the first tier. ``forms`` (aligned with ``values``,
    or empty) are the word forms each term is searched with (``recall._wordforms``); ``words``
    marks the words stage, which applies the question's intent and the second hop.
    ``labels`` (aligned with ``values``, or empty) name each term for ``explain recall``.
    ``scales`` (aligned with ``values``, or empty) are the factors on each term's share
    (``recall._categories``: a category word's share is reduced). ``words`` (aligned with
    ``values``, or empty: each value its own word) numbers the question word each value
    searches: a category word's members are separate values, each with its own idf as in
    SQLite's bm25 of an OR, and count as one word in the coordination factor. ``spread``
    (aligned with ``values``, before they are resolved) marks the words whose forms become
    separate values.
    """

    query: str
    holds: str
    weight: str
    values: tuple[str, ...]
    phrase: str | None = None
    phrase_value: str | None = None
    forms: tuple[tuple[str, ...], ...] = ()
    words: bool = False
    labels: tuple[str, ...] = ()
    scales: tuple[float, ...] = ()
    word_of: tuple[int, ...] = ()
    spread: tuple[bool, ...] = ()

    def word_count(self) -> int:
        """How many question words the values search (the coordination factor's words)."""
        return len(set(self.word_of)) if self.word_of else len(self.values)

    def held_sql(self) -> str:
        """SQL over ``m``: how many of the question's words the episode holds."""
        if not self.word_of:
            return " + ".join(f"m.h{i}" for i in range(len(self.values)))
        words: dict[int, list[int]] = {}
        for i, word in enumerate(self.word_of):
            words.setdefault(word, []).append(i)
        return " + ".join(
            f"m.h{found[0]}"
            if len(found) == 1
            else "greatest(" + ", ".join(f"m.h{i}" for i in found) + ")"
            for found in words.values()
        )

    def scaled(self, i: int) -> str:
        """The SQL factor on term ``i``'s share ('' when it is 1)."""
        scale = self.scales[i] if self.scales else 1.0
        return "" if scale == 1.0 else f" * {float(scale)!r}"


def _where(filters: RecallFilters, *extra: str) -> str:
    parts = [*extra, *(c.replace("?", "%s") for c in filters.clauses)]
    return f"WHERE {' AND '.join(parts)}" if parts else ""


def _prior_sql(intent: Intent | None) -> tuple[str, tuple[Any, ...]]:
    """The intent's bounded priors as a factor on ``m`` (``recall._intent``)."""
    if intent is None:
        return "", ()
    parts: list[str] = []
    params: list[Any] = []
    if intent.types:
        marks = ", ".join(["%s"] * len(intent.types))
        parts.append(f"(CASE WHEN m.type IN ({marks}) THEN {1 + TYPE_PRIOR} ELSE 1 END)")
        params.extend(sorted(intent.types))
    if intent.timed:
        parts.append(f"(CASE WHEN m.ts BETWEEN %s AND %s THEN {1 + TIME_PRIOR} ELSE 1 END)")
        params.extend((intent.since or "", intent.until or "~"))
    return "".join(f" * {part}" for part in parts), tuple(params)


def scored_sql(
    terms: Terms, filters: RecallFilters, intent: Intent | None = None
) -> tuple[str, tuple[Any, ...]]:
    """The CTEs ``q``, ``n``, ``m``, ``d`` and ``s`` (each match's score) and their parameters."""
    count = len(terms.values)
    prior, prior_params = _prior_sql(intent)
    qs = ", ".join(f"{terms.query} AS q{i}" for i in range(count))
    phrase = terms.phrase or "NULL::tsquery"
    holds = [terms.holds.format(q=f"q.q{i}") for i in range(count)]
    columns = ", ".join(
        f"({h})::int AS h{i}, "
        f"CASE WHEN {h} THEN {terms.weight.format(q=f'q.q{i}')} ELSE 0 END AS r{i}"
        for i, h in enumerate(holds)
    )
    phrase_hit = "(q.ph IS NOT NULL AND e.tsv @@ q.ph)" if terms.phrase else "false"
    idf = " + ".join(
        f"ln(1 + (n.docs - d.d{i} + 0.5) / (d.d{i} + 0.5)) * m.r{i}{terms.scaled(i)}"
        for i in range(count)
    )
    held = terms.held_sql()
    sql = (
        f"WITH q AS (SELECT {qs}, {phrase} AS ph), "  # noqa: S608
        "n AS (SELECT greatest(max(seq), 1)::float8 AS docs FROM episodes), "
        f"m AS (SELECT e.seq, e.ts, e.type, e.scope, {phrase_hit} AS phrase, length(e.tsv) AS len, "
        f"{columns} "
        f"FROM episodes AS e, q {_where(filters, '(' + ' OR '.join(holds) + ')')}), "
        "d AS (SELECT greatest(avg(len), 1)::float8 AS avglen, "
        + ", ".join(f"sum(h{i})::float8 AS d{i}" for i in range(count))
        + " FROM m), "  # noqa: S608
        f"s AS (SELECT m.seq, m.ts, m.scope, m.phrase, ({idf}) "
        f"/ (1 - {LENGTH_B} + {LENGTH_B} * m.len / d.avglen) "
        f"* (1 + {COORDINATION_BONUS} * (({held}) - 1)){prior} AS score FROM m, d, n)"
    )
    params = (*terms.values, terms.phrase_value) if terms.phrase else terms.values
    return sql, (*params, *filters.params, *prior_params)


def lifted_sql(neighbours: bool) -> str:
    """The CTE ``f``: each match's final score after its neighbours' lift, and its lender."""
    if not neighbours:
        return ", f AS (SELECT seq, phrase, score AS final, NULL::bigint AS lender FROM s)"
    return (
        f", top AS (SELECT seq, ts, scope, score FROM s ORDER BY score DESC, seq DESC "  # noqa: S608
        f"LIMIT {NEIGHBOUR_SOURCES}), "
        "nb AS (SELECT s.seq, max(top.score) AS lend, "
        "(array_agg(top.seq ORDER BY top.score DESC, top.seq DESC))[1] AS lender FROM top "
        f"CROSS JOIN (VALUES {_STEPS}) AS side(step) "
        "JOIN s ON s.seq = top.seq + side.step AND top.score > s.score AND s.scope = top.scope "
        "AND abs(extract(epoch FROM s.ts::timestamptz - top.ts::timestamptz)) "
        f"<= {_WINDOW_S} GROUP BY s.seq), "
        "f AS (SELECT s.seq, s.phrase, CASE WHEN nb.lend IS NULL THEN s.score "
        f"ELSE least(s.score + {NEIGHBOUR_SHARE} * nb.lend, nb.lend * (1 - 1e-9)) END "
        "AS final, nb.lender FROM s LEFT JOIN nb ON nb.seq = s.seq)"
    )


def ranked_page(  # noqa: PLR0917 - the SQLite ranker's arguments, in its order
    conn: psycopg.Connection[Any],
    terms: Terms,
    filters: RecallFilters,
    limit: int,
    offset: int,
    intent: Intent | None = None,
) -> tuple[list[tuple[Any, ...]], int]:
    """(episode rows of the page, best first; every match counted) in one statement.

    ``intent`` adds its bounded priors (``recall._intent``) to the word tier's scores.
    """
    scored, params = scored_sql(terms, filters, intent)
    sql = (
        scored  # noqa: S608
        + lifted_sql(terms.word_count() > 1)
        + ", page AS (SELECT seq AS p_seq, phrase AS p_phrase, final AS p_final FROM f "  # noqa: S608
        "ORDER BY phrase DESC, final DESC, seq DESC LIMIT %s OFFSET %s) "
        f"SELECT {COLUMNS}, (SELECT count(*) FROM f) FROM page "
        "JOIN episodes AS e ON e.seq = page.p_seq "
        "ORDER BY page.p_phrase DESC, page.p_final DESC, page.p_seq DESC"
    )
    rows = conn.execute(sql, (*params, limit, offset)).fetchall()
    if rows:
        return [r[:-1] for r in rows], int(rows[0][-1])
    return [], count_ranked(conn, terms, filters) if offset else 0


def ranked_scores(
    conn: psycopg.Connection[Any],
    terms: Terms,
    filters: RecallFilters,
    count: int,
    *,
    intent: Intent | None = None,
    neighbours: bool = True,
    only: list[int] | None = None,
) -> tuple[list[tuple[int, bool, float]], int]:
    """(seq, phrase tier, score) of the best ``count`` matches, best first, and every match counted.

    ``only`` keeps the scores of those episodes (each scored among all matches); without
    ``neighbours`` the neighbour context is left out.
    """
    scored, params = scored_sql(terms, filters, intent)
    where, extra = ("WHERE seq = ANY(%s) ", (only,)) if only is not None else ("", ())
    sql = (
        scored  # noqa: S608
        + lifted_sql(neighbours and terms.word_count() > 1)
        + f" SELECT seq, phrase, final, (SELECT count(*) FROM f) FROM f {where}"  # noqa: S608
        "ORDER BY phrase DESC, final DESC, seq DESC LIMIT %s"
    )
    rows = conn.execute(sql, (*params, *extra, count)).fetchall()
    total = int(rows[0][-1]) if rows else 0
    return [(int(r[0]), bool(r[1]), float(r[2])) for r in rows], total


def count_ranked(conn: psycopg.Connection[Any], terms: Terms, filters: RecallFilters) -> int:
    """Count the episodes holding any of the terms and passing the filters."""
    count = len(terms.values)
    qs = ", ".join(f"{terms.query} AS q{i}" for i in range(count))
    holds = " OR ".join(terms.holds.format(q=f"q.q{i}") for i in range(count))
    row = conn.execute(
        f"WITH q AS (SELECT {qs}) SELECT count(*) FROM episodes AS e, q "  # noqa: S608
        f"{_where(filters, '(' + holds + ')')}",
        (*terms.values, *filters.params),
    ).fetchone()
    return int(row[0]) if row else 0
