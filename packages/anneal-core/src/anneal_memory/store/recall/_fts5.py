"""SQLite's recall ranker: FTS5 bm25 over the stages of ``_recall.recall``.

A stage is a :class:`~anneal_memory.store.recall._search.SearchPlan`: quoted FTS5 terms, so
no keyword can change a query's meaning. Ranking, the phrase tier and the neighbours' lift
live in ``_ranking``; the substring stage's vocabulary in ``_substring``.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from anneal_memory.store._episodes import COLUMNS, episode_from_row, fetch_by_seqs
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
from anneal_memory.types import RecallResult

__all__ = ["Fts5Ranker", "Stage"]


class Fts5Ranker:
    """Ranks recall's stages on one SQLite connection (inside the caller's snapshot)."""

    __slots__ = ("_conn",)

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def newest(self, filters: RecallFilters, limit: int, offset: int) -> RecallResult:
        """Newest first; a count from the per-type counters when nothing else filters."""
        conn = self._conn
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

    def words(self, keyword: str) -> Stage | None:
        """The keyword's words, quoted (and its phrase, for the phrase tier)."""
        plan = plan_search(keyword)
        return None if plan is None else Stage(plan)

    def prefixes(self, keyword: str) -> Stage | None:
        """The words as quoted prefixes (``"postgre"*``), held in the text as typed."""
        plan = plan_prefix_search(keyword)
        return None if plan is None else Stage(plan, typed=True)

    def substrings(self, keyword: str) -> Stage | None:
        """Index terms containing a word, as prefixes (small stores only, ``_substring``)."""
        plan = plan_substring_search(self._conn, keyword)
        return None if plan is None else Stage(plan)

    def page(self, stage: Stage, filters: RecallFilters, limit: int, offset: int) -> RecallResult:
        """Rank deep enough for the page; count every match when the ranking stopped early."""
        filters = stage.filtered(filters)
        intent = None if stage.plan.prefix else filters.intent  # the words stage only (#29)
        ranking = ranked_seqs(self._conn, stage.plan, filters, depth=offset + limit, intent=intent)
        page = ranking.seqs[offset : offset + limit]
        if filters.trace is not None:
            filters.trace.page = list(page)
        total = ranking.found
        if not ranking.complete:
            total = max(count_matches(self._conn, stage.plan, filters), total)
        return RecallResult(episodes=tuple(fetch_by_seqs(self._conn, page)), total_matching=total)

    def count(self, stage: Stage, filters: RecallFilters) -> int:
        """Every episode matching any of the stage's terms and the filters."""
        return count_matches(self._conn, stage.plan, stage.filtered(filters))


@dataclass(frozen=True, slots=True)
class Stage:
    """One stage's FTS5 plan; ``typed``: the text must hold a term as typed (``as_typed``)."""

    plan: SearchPlan
    typed: bool = False

    def filtered(self, filters: RecallFilters) -> RecallFilters:
        """``filters``, plus the typed-text condition of a prefix stage."""
        return as_typed(filters, self.plan) if self.typed else filters
