"""Recall: filters and keyword search turned into one ``RecallResult``."""

from __future__ import annotations

import dataclasses
import datetime as _dt
import sqlite3

from anneal_memory._clock import Clock, parse_time_bound
from anneal_memory.errors import InvalidQueryError
from anneal_memory.store._episodes import COLUMNS, episode_from_row, fetch_by_seqs
from anneal_memory.store._validate import validate_scope
from anneal_memory.store.recall._intent import Intent, read_intent
from anneal_memory.store.recall._ranking import count_matches, ranked_seqs
from anneal_memory.store.recall._search import (
    RecallFilters,
    SearchPlan,
    as_typed,
    plan_prefix_search,
    plan_search,
)
from anneal_memory.store.recall._substring import plan_substring_search
from anneal_memory.store.sqlite._watermarks import total_count
from anneal_memory.types import EpisodeType, RecallResult

__all__ = [
    "MAX_RECALL_LIMIT",
    "MAX_RECALL_OFFSET",
    "build_filters",
    "hide_superseded",
    "question_intent",
    "recall",
]

MAX_RECALL_LIMIT = 1_000
MAX_RECALL_OFFSET = 10_000
TimeBound = _dt.datetime | str | None


def _bound(value: TimeBound, name: str, clock: Clock) -> str | None:
    if value is None:
        return None
    if not isinstance(value, (str, _dt.datetime)):
        raise InvalidQueryError(f"{name} must be a datetime or a string, not {value!r}")
    try:
        return parse_time_bound(value, clock, end_of_day=name == "until")
    except ValueError as exc:
        raise InvalidQueryError(f"{name}: {exc}") from None


def build_filters(
    *,
    episode_type: EpisodeType | str | None,
    since: TimeBound,
    until: TimeBound,
    source: str | None,
    clock: Clock,
    scope: str | None = None,
) -> RecallFilters:
    """Validate recall filters and turn them into bound SQL conditions.

    This is the one place recall's conditions are built: each filter appends a clause on
    the ``episodes`` table (alias ``e``) and its parameters; every recall path (ranked,
    newest first, counts) applies all of them.

    Raises:
        InvalidQueryError: A filter is malformed; the message says which and how to fix it.
    """
    clauses: list[str] = []
    params: list[object] = []
    if episode_type is not None:
        try:
            kind = EpisodeType.parse(episode_type)
        except ValueError as exc:
            raise InvalidQueryError(str(exc)) from None
        clauses.append("e.type = ?")
        params.append(kind.value)
    lower = _bound(since, "since", clock)
    upper = _bound(until, "until", clock)
    if lower is not None:
        clauses.append("e.ts >= ?")
        params.append(lower)
    if upper is not None:
        clauses.append("e.ts <= ?")
        params.append(upper)
    if source is not None:
        if not isinstance(source, str):
            raise InvalidQueryError(f"source must be a string, not {source!r}")
        clauses.append("e.source = ?")
        params.append(source)
    if scope is not None:
        clauses.append("e.scope = ?")
        params.append(validate_scope(scope, error=InvalidQueryError))
    only_type = str(params[0]) if episode_type is not None and len(clauses) == 1 else None
    return RecallFilters(
        clauses=tuple(clauses), params=tuple(params), only_type=only_type, now=clock.now()
    )


def hide_superseded(filters: RecallFilters) -> RecallFilters:
    """The same filters, leaving out episodes another episode has replaced."""
    return dataclasses.replace(
        filters, clauses=(*filters.clauses, "e.superseded_by IS NULL"), only_type=None
    )


def question_intent(keyword: str, filters: RecallFilters) -> Intent | None:
    """The priors ``keyword`` asks for (``_intent``), read against the filters' clock."""
    return None if filters.now is None else read_intent(keyword, filters.now)


def _check_page(limit: object, offset: object) -> tuple[int, int]:
    """Validate the page; a limit above :data:`MAX_RECALL_LIMIT` is lowered to it."""
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise InvalidQueryError(
            f"limit must be an integer of 1 or more (at most {MAX_RECALL_LIMIT:,} are "
            f"returned), got {limit!r}"
        )
    if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
        raise InvalidQueryError(f"offset must be an integer of 0 or more, got {offset!r}")
    return min(limit, MAX_RECALL_LIMIT), offset


def _newest(
    conn: sqlite3.Connection, filters: RecallFilters, limit: int, offset: int
) -> RecallResult:
    where = filters.where()
    rows = conn.execute(
        f"SELECT {COLUMNS} FROM episodes AS e {where} "  # noqa: S608
        "ORDER BY e.ts DESC, e.seq DESC LIMIT ? OFFSET ?",
        (*filters.params, limit, offset),
    ).fetchall()
    if filters.only_type is not None:
        total = total_count(conn, filters.only_type)
    elif filters.clauses:
        total = conn.execute(
            f"SELECT count(*) FROM episodes AS e {where}",  # noqa: S608
            filters.params,
        ).fetchone()[0]
    else:
        total = total_count(conn)
    return RecallResult(
        episodes=tuple(episode_from_row(r) for r in rows), total_matching=int(total)
    )


def _ranked(
    conn: sqlite3.Connection,
    plan: SearchPlan,
    filters: RecallFilters,
    limit: int,
    offset: int,
    *,
    intent: Intent | None = None,
) -> RecallResult:
    ranking = ranked_seqs(conn, plan, filters, depth=offset + limit, intent=intent)
    page = ranking.seqs[offset : offset + limit]
    total = ranking.found
    if not ranking.complete:
        total = max(count_matches(conn, plan, filters), total)
    return RecallResult(episodes=tuple(fetch_by_seqs(conn, page)), total_matching=total)


def _search(
    conn: sqlite3.Connection, keyword: str, filters: RecallFilters, limit: int, offset: int
) -> RecallResult:
    plan = plan_search(keyword)
    if plan is None:
        return RecallResult(episodes=(), total_matching=0)
    result = _ranked(conn, plan, filters, limit, offset, intent=question_intent(keyword, filters))
    if result.total_matching:
        return result
    # No word matched: try the words as prefixes ("Postgre" finds PostgreSQL), then as
    # parts of stored words ("SQL" finds PostgreSQL).
    prefixes = plan_prefix_search(keyword)
    if prefixes is not None:
        result = _ranked(conn, prefixes, as_typed(filters, prefixes), limit, offset)
        if result.total_matching:
            return result
    inside = plan_substring_search(conn, keyword)
    return result if inside is None else _ranked(conn, inside, filters, limit, offset)


def recall(
    conn: sqlite3.Connection,
    *,
    keyword: str | None,
    filters: RecallFilters,
    limit: object,
    offset: object,
) -> RecallResult:
    """Run one recall inside a single read transaction, so it sees one committed state.

    ``limit`` above :data:`MAX_RECALL_LIMIT` is lowered to it; an ``offset`` past
    :data:`MAX_RECALL_OFFSET` gives an empty page (``total_matching`` still counts).

    Raises:
        InvalidQueryError: ``limit`` or ``offset`` is out of range, or ``keyword`` is not text.
    """
    page_limit, page_offset = _check_page(limit, offset)
    if keyword is not None and not isinstance(keyword, str):
        raise InvalidQueryError(f"keyword must be a string, not {type(keyword).__name__}")
    conn.execute("BEGIN")
    try:
        if page_offset > MAX_RECALL_OFFSET:
            return _count_only(conn, keyword, filters)
        if keyword is None or not keyword.strip():
            return _newest(conn, filters, page_limit, page_offset)
        return _search(conn, keyword, filters, page_limit, page_offset)
    finally:
        conn.execute("COMMIT")


def _count_only(
    conn: sqlite3.Connection, keyword: str | None, filters: RecallFilters
) -> RecallResult:
    if keyword is None or not keyword.strip():
        return RecallResult(episodes=(), total_matching=_newest(conn, filters, 1, 0).total_matching)
    plan = plan_search(keyword)
    total = 0 if plan is None else count_matches(conn, plan, filters)
    if not total and (prefixes := plan_prefix_search(keyword)) is not None:
        total = count_matches(conn, prefixes, as_typed(filters, prefixes))
    if not total and (inside := plan_substring_search(conn, keyword)) is not None:
        total = count_matches(conn, inside, filters)
    return RecallResult(episodes=(), total_matching=total)
