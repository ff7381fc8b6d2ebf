"""Recall's one stage order over either backend's ranker, and its filters.

The filters are built and checked here once; a backend's :class:`Ranker` ranks each stage
(SQLite's FTS5 in ``_fts5.py``, PostgreSQL's ``tsvector`` in ``store/postgres/_recall.py``).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
from collections.abc import Iterator
from typing import TYPE_CHECKING, Protocol, TypeVar

from anneal_memory._clock import Clock, parse_time_bound
from anneal_memory.errors import InvalidQueryError
from anneal_memory.store._validate import validate_scope
from anneal_memory.store.recall._intent import read_intent
from anneal_memory.store.recall._search import RecallFilters, plan_search, tokenize
from anneal_memory.types import EpisodeType, RecallResult

if TYPE_CHECKING:
    from anneal_memory.store.recall._trace import RecallTrace

__all__ = [
    "MAX_RECALL_LIMIT",
    "MAX_RECALL_OFFSET",
    "Ranker",
    "build_filters",
    "check_page",
    "hide_superseded",
    "recall",
    "with_intent",
]

MAX_RECALL_LIMIT = 1_000
MAX_RECALL_OFFSET = 10_000
TimeBound = _dt.datetime | str | None
S = TypeVar("S")


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
    trace: RecallTrace | None = None,
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
        clauses=tuple(clauses),
        params=tuple(params),
        only_type=only_type,
        now=clock.now(),
        trace=trace,
    )


def hide_superseded(filters: RecallFilters) -> RecallFilters:
    """The same filters, leaving out episodes another episode has replaced."""
    return dataclasses.replace(
        filters, clauses=(*filters.clauses, "e.superseded_by IS NULL"), only_type=None
    )


def with_intent(filters: RecallFilters, keyword: str) -> RecallFilters:
    """``filters`` carrying the priors ``keyword`` asks for (``_intent``), read at their clock.

    Only the words stage applies them (each ranker knows its stages).
    """
    if filters.now is None:
        return filters
    intent = read_intent(keyword, filters.now)
    if intent is None and filters.intent is None:  # most keywords: no copy of the filters
        return filters
    return dataclasses.replace(filters, intent=intent)


def check_page(limit: object, offset: object) -> tuple[int, int]:
    """Validate the page; a limit above :data:`MAX_RECALL_LIMIT` is lowered to it."""
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise InvalidQueryError(
            f"limit must be an integer of 1 or more (at most {MAX_RECALL_LIMIT:,} are "
            f"returned), got {limit!r}"
        )
    if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
        raise InvalidQueryError(f"offset must be an integer of 0 or more, got {offset!r}")
    return min(limit, MAX_RECALL_LIMIT), offset


class Ranker(Protocol[S]):
    """One backend's ranking of the stages, over one consistent snapshot.

    A stage is the ranker's own plan for one keyword (``S``); None when the keyword gives
    that stage nothing to look for.
    """

    def newest(self, filters: RecallFilters, limit: int, offset: int) -> RecallResult:
        """No keyword: the filtered episodes newest first, and how many there are."""
        ...

    def words(self, keyword: str) -> S | None:
        """The words stage (episodes holding the keyword as a phrase rank first)."""
        ...

    def prefixes(self, keyword: str) -> S | None:
        """The words as prefixes of stored words (three letters or more)."""
        ...

    def substrings(self, keyword: str) -> S | None:
        """The words inside stored words (three letters or more)."""
        ...

    def page(self, stage: S, filters: RecallFilters, limit: int, offset: int) -> RecallResult:
        """One page of ``stage``'s matches, best first (a better match lifts its neighbours)."""
        ...

    def count(self, stage: S, filters: RecallFilters) -> int:
        """How many episodes ``stage`` matches."""
        ...


def _stages(ranker: Ranker[S], keyword: str) -> Iterator[tuple[str, S]]:
    """The stages (named) in their one order, each made only when the one before found nothing."""
    for name, make in (
        ("words", ranker.words),
        ("prefix", ranker.prefixes),
        ("substring", ranker.substrings),
    ):
        stage = make(keyword)
        if stage is not None:
            yield name, stage


def _empty() -> RecallResult:
    return RecallResult(episodes=(), total_matching=0)


def recall(
    ranker: Ranker[S],
    *,
    keyword: str | None,
    filters: RecallFilters,
    limit: object,
    offset: object,
) -> RecallResult:
    """Run one recall through ``ranker`` (the caller holds one snapshot around it).

    No keyword lists the filtered episodes newest first. A keyword runs the stages in order
    (words with phrases first, prefixes, parts of words) and returns the first that matches.
    ``limit`` above :data:`MAX_RECALL_LIMIT` is lowered to it; an ``offset`` past
    :data:`MAX_RECALL_OFFSET` gives an empty page (``total_matching`` still counts).

    Raises:
        InvalidQueryError: ``limit`` or ``offset`` is out of range, or ``keyword`` is not text.
    """
    page_limit, page_offset = check_page(limit, offset)
    if keyword is not None and not isinstance(keyword, str):
        raise InvalidQueryError(f"keyword must be a string, not {type(keyword).__name__}")
    blank = keyword is None or not keyword.strip()
    if page_offset > MAX_RECALL_OFFSET:
        if blank:
            total = ranker.newest(filters, 1, 0).total_matching
            return RecallResult(episodes=(), total_matching=total)
        return RecallResult(episodes=(), total_matching=_count(ranker, str(keyword), filters))
    trace = filters.trace
    if blank:
        if trace is not None:
            trace.stage = "newest"
        return ranker.newest(filters, page_limit, page_offset)
    assert keyword is not None
    if not tokenize(keyword):  # no word at all (the stages plan the words themselves)
        return _empty()
    filters = with_intent(filters, keyword)  # hook (#29): the question's intent
    if trace is not None and filters.intent is not None:
        trace.intent_types = tuple(sorted(filters.intent.types))
        trace.intent_since, trace.intent_until = filters.intent.since, filters.intent.until
    return _first_match(ranker, keyword, filters, page_limit, page_offset)


def _first_match(
    ranker: Ranker[S], keyword: str, filters: RecallFilters, limit: int, offset: int
) -> RecallResult:
    """The page of the first stage that matches (the trace, if any, follows each stage)."""
    trace = filters.trace
    for name, stage in _stages(ranker, keyword):
        if trace is not None:
            trace.clear(name)
        result = ranker.page(stage, filters, limit, offset)
        if result.total_matching:
            if trace is not None:
                trace.total = result.total_matching
                if name == "words":
                    _note_searched(trace, keyword)
            return result
    if trace is not None:
        trace.clear(None)
    return _empty()


def _note_searched(trace: RecallTrace, keyword: str) -> None:
    """Record the words stage's terms searched as more than themselves (forms, members)."""
    plan = plan_search(keyword)
    if plan is None:
        return
    for term in trace.terms:
        forms = plan.forms_of(term)
        if len(forms) > 1:
            trace.searched[term] = forms[1:]


def _count(ranker: Ranker[S], keyword: str, filters: RecallFilters) -> int:
    if not tokenize(keyword):
        return 0
    for _, stage in _stages(ranker, keyword):
        total = ranker.count(stage, filters)
        if total:
            return total
    return 0
