"""Recall: filters and keyword search turned into one ``RecallResult``."""

from __future__ import annotations

import datetime as _dt
import sqlite3

from anneal_memory._clock import Clock, parse_time_bound
from anneal_memory.errors import InvalidQueryError
from anneal_memory.store._episodes import COLUMNS, episode_from_row, fetch_by_seqs
from anneal_memory.store._search import RecallFilters, count_matches, plan_search, ranked_seqs
from anneal_memory.store._validate import validate_scope
from anneal_memory.store._watermarks import total_count
from anneal_memory.types import EpisodeType, RecallResult

__all__ = ["MAX_RECALL_LIMIT", "build_filters", "recall"]

MAX_RECALL_LIMIT = 10_000
TimeBound = _dt.datetime | str | None


def _bound(value: TimeBound, name: str, clock: Clock) -> str | None:
    if value is None:
        return None
    if not isinstance(value, (str, _dt.datetime)):
        raise InvalidQueryError(f"{name} must be a datetime or a string, not {value!r}")
    try:
        return parse_time_bound(value, clock)
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
    return RecallFilters(clauses=tuple(clauses), params=tuple(params), only_type=only_type)


def _check_page(limit: object, offset: object) -> tuple[int, int]:
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_RECALL_LIMIT:
        raise InvalidQueryError(
            f"limit must be an integer from 1 to {MAX_RECALL_LIMIT:,}, got {limit!r}"
        )
    if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
        raise InvalidQueryError(f"offset must be an integer of 0 or more, got {offset!r}")
    return limit, offset


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


def recall(
    conn: sqlite3.Connection,
    *,
    keyword: str | None,
    filters: RecallFilters,
    limit: object,
    offset: object,
) -> RecallResult:
    """Run one recall inside a single read transaction, so it sees one committed state.

    Raises:
        InvalidQueryError: ``limit`` or ``offset`` is out of range, or ``keyword`` is not text.
    """
    page_limit, page_offset = _check_page(limit, offset)
    if keyword is not None and not isinstance(keyword, str):
        raise InvalidQueryError(f"keyword must be a string, not {type(keyword).__name__}")
    conn.execute("BEGIN")
    try:
        if keyword is None or not keyword.strip():
            return _newest(conn, filters, page_limit, page_offset)
        plan = plan_search(keyword)
        if plan is None:
            return RecallResult(episodes=(), total_matching=0)
        ranking = ranked_seqs(conn, plan, filters, depth=page_offset + page_limit)
        page = ranking.seqs[page_offset : page_offset + page_limit]
        total = len(ranking.seqs)
        if not ranking.complete:
            total = max(count_matches(conn, plan, filters), total)
        return RecallResult(episodes=tuple(fetch_by_seqs(conn, page)), total_matching=total)
    finally:
        conn.execute("COMMIT")
