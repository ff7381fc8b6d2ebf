"""Ranked keyword recall that never looks at an episode's age: the best match wins.

Ranking, in two tiers:

1. episodes holding the keyword's tokens as an exact phrase, by bm25;
2. episodes holding any of its words, by bm25 of the OR-joined words, times
   ``1 + COORDINATION_BONUS`` for each further distinct word the episode holds; then a
   matching episode recorded at most :data:`NEIGHBOUR_REACH` places before or after one of
   the best matches, in its scope and within :data:`NEIGHBOUR_WINDOW`, gains
   :data:`NEIGHBOUR_SHARE` of that match's score, never passing it (single-word keywords
   rank by bm25 alone).

Every score uses FTS5's own ``bm25()`` with corpus-wide statistics, over every match of a
word, whatever its age. The cost stays far below scoring every match (what a plain FTS5
``ORDER BY rank`` does) by working rarest word first:

* each word's document frequency is one FTS5 count (a walk of its doclist, no scoring);
* the rarest words, up to :data:`CANDIDATE_BUDGET` matches together, are scored over every
  match: those matches are the candidates;
* each commoner word is scored only where it meets a candidate, with one FTS5 query
  ``(rare words) AND word``: bm25 is a sum over the query's phrases, so that query's score
  minus the candidate's rare-word score is the common word's share, exactly;
* when even the rarest word has more matches than the budget, its best
  :data:`CANDIDATE_BUDGET` matches by bm25 (not its newest) are the candidates.

An episode holding none of the rare words is not a candidate. It could only win if common
words alone outscored the rare ones, which bm25's idf makes unusual; the measured effect on
LoCoMo is in ``docs/recall.md``.
"""

from __future__ import annotations

import datetime as _dt
import heapq
import operator
import sqlite3
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from anneal_memory.store.recall._hop import second_hop
from anneal_memory.store.recall._intent import Intent
from anneal_memory.store.recall._priors import favoured, with_priors
from anneal_memory.store.recall._search import COORDINATION_BONUS, RecallFilters, SearchPlan

if TYPE_CHECKING:
    from anneal_memory.store.recall._trace import RecallTrace

__all__ = [
    "CANDIDATE_BUDGET",
    "NEIGHBOUR_REACH",
    "NEIGHBOUR_SHARE",
    "NEIGHBOUR_WINDOW",
    "Ranking",
    "count_matches",
    "ranked_seqs",
]

CANDIDATE_BUDGET = 4096
NEIGHBOUR_REACH = 2
NEIGHBOUR_SHARE = 0.35
NEIGHBOUR_SOURCES = 50
NEIGHBOUR_WINDOW = _dt.timedelta(hours=1)


@dataclass(frozen=True, slots=True, kw_only=True)
class Ranking:
    """The best ``depth`` episode ``seq`` values, best first, out of ``found`` candidates.

    ``complete`` when the candidates are every match (then ``found`` counts them all).
    """

    seqs: list[int]
    found: int
    complete: bool


def _fts_query(filters: RecallFilters, select: str, tail: str) -> str:
    # CROSS JOIN keeps the FTS5 matches the outer loop (SQLite never reorders it): left to
    # itself the planner walks a filter's index (a scope's episodes) and runs the MATCH once
    # per episode, which at 10k episodes in 20 scopes cost 40x an unscoped recall (#26).
    if filters.clauses:
        return (
            f"SELECT {select} FROM episodes_fts AS f "  # noqa: S608
            "CROSS JOIN episodes AS e ON e.seq = f.rowid "
            f"{filters.where('episodes_fts MATCH ?')} {tail}"
        )
    return f"SELECT {select} FROM episodes_fts AS f WHERE episodes_fts MATCH ? {tail}"  # noqa: S608


def _scored(
    conn: sqlite3.Connection, expression: str, filters: RecallFilters, limit: int | None = None
) -> list[tuple[int, float]]:
    """(rowid, bm25) of every match, or of the best ``limit`` matches by bm25."""
    if limit is None:
        sql = _fts_query(filters, "f.rowid, bm25(episodes_fts)", "")
        return conn.execute(sql, (expression, *filters.params)).fetchall()
    sql = _fts_query(
        filters, "f.rowid, bm25(episodes_fts)", "ORDER BY bm25(episodes_fts), f.rowid DESC LIMIT ?"
    )
    return conn.execute(sql, (expression, *filters.params, limit)).fetchall()


def _doc_frequencies(conn: sqlite3.Connection, expressions: list[str]) -> list[int]:
    """Each expression's match count, all in one statement (one FTS5 count per word)."""
    counts = ", ".join(
        ["(SELECT count(*) FROM episodes_fts WHERE episodes_fts MATCH ?)"] * len(expressions)
    )
    row = conn.execute(f"SELECT {counts}", expressions).fetchone()
    return [int(n) for n in row]


def _best(scores: dict[int, float], count: int) -> list[tuple[int, float]]:
    # bm25() is lower-is-better; among equal scores the newer episode wins. The (score,
    # -seq) pairs are made in C (no key function per candidate: 25-30 % less, #25).
    pairs = zip(scores.values(), map(operator.neg, scores), strict=True)
    best = sorted(pairs)[:count] if count >= len(scores) else heapq.nsmallest(count, pairs)
    return [(-negated, score) for score, negated in best]


@dataclass(slots=True)
class _Tally:
    """bm25 sums and matched-word counts of the candidates (each word's share, when traced).

    ``weights`` holds the factor on a term's bm25 share where it is not 1 (a category word).
    """

    sums: dict[int, float]
    matched: dict[int, int]
    trace: RecallTrace | None = None
    weights: dict[str, float] = field(default_factory=dict)

    def add(self, rows: list[tuple[int, float]], term: str) -> None:
        weight = self.weights.get(term, 1.0)
        if weight != 1.0:
            rows = [(seq, score * weight) for seq, score in rows]
        sums, matched = self.sums, self.matched  # the hot loop of a question (#25)
        sum_of, matched_of = sums.get, matched.get
        for seq, score in rows:
            sums[seq] = sum_of(seq, 0.0) + score
            matched[seq] = matched_of(seq, 0) + 1
        if self.trace is not None:
            for seq, score in rows:
                self.trace.weigh(seq, term, score)

    def coordinated(self) -> dict[int, float]:
        # Each further distinct query word an episode holds strengthens its score by a fixed
        # share, so two moderately rare words together beat one of them repeated (one word:
        # the factor is 1, the score itself).
        matched = self.matched
        return {
            seq: score
            if matched[seq] == 1
            else score * (1.0 + COORDINATION_BONUS * (matched[seq] - 1))
            for seq, score in self.sums.items()
        }


@dataclass(slots=True)
class _Candidates:
    """The candidates: their final tally and their bm25 summed over the source words."""

    tally: _Tally
    base: dict[int, float]
    sources: list[str]
    truncated: bool = False

    def share_where_met(
        self, conn: sqlite3.Connection, term: str, filters: RecallFilters
    ) -> list[tuple[int, float]]:
        """Add ``term``'s exact bm25 share to every candidate holding it; (seq, share) added."""
        if not self.sources:
            return []
        rows = _scored(conn, f"({' OR '.join(self.sources)}) AND {term}", filters)
        shares = [(seq, score - self.base[seq]) for seq, score in rows if seq in self.base]
        self.tally.add(shares, term)
        return shares

    def add_source(
        self, conn: sqlite3.Connection, term: str, filters: RecallFilters, limit: int | None
    ) -> None:
        """Make ``term``'s matches (all, or its best ``limit``) candidates too."""
        if limit is None:
            rows = _scored(conn, term, filters)
        else:
            for seq, share in self.share_where_met(conn, term, filters):
                self.base[seq] += share
            best = _scored(conn, term, filters, limit)
            self.truncated = self.truncated or len(best) >= limit
            rows = [(seq, score) for seq, score in best if seq not in self.base]
        self.tally.add(rows, term)
        base = self.base
        base_of = base.get
        for seq, score in rows:
            base[seq] = base_of(seq, 0.0) + score
        self.sources.append(term)


def _candidates(
    conn: sqlite3.Connection, expressions: dict[str, float], filters: RecallFilters, depth: int
) -> tuple[_Candidates, bool]:
    """Score the words rarest first; (the candidates, whether they are every match).

    ``expressions`` maps each word's expression to the factor on its bm25 share.
    """
    terms = list(expressions)
    frequencies = sorted(zip(_doc_frequencies(conn, terms), terms, strict=True))
    weights = {t: w for t, w in expressions.items() if w != 1.0}
    tally = _Tally(sums={}, matched={}, trace=filters.trace, weights=weights)
    found = _Candidates(tally=tally, base={}, sources=[])
    used = 0
    rest: list[str] = []
    for index, (frequency, term) in enumerate(f for f in frequencies if f[0] > 0):
        fits = used + frequency <= CANDIDATE_BUDGET
        if found.sources and not fits and len(found.base) >= depth:
            rest = [t for f, t in frequencies if f > 0][index:]
            break
        found.add_source(conn, term, filters, None if fits else CANDIDATE_BUDGET)
        used += frequency
    for term in rest:
        found.share_where_met(conn, term, filters)
    return found, not rest and not found.truncated


def _or_tier(
    conn: sqlite3.Connection,
    plan: SearchPlan,
    filters: RecallFilters,
    depth: int,
    intent: Intent | None,
) -> tuple[dict[int, float], bool]:
    trace = filters.trace
    if len(plan.terms) == 1:
        rows = _scored(conn, plan.any_word, filters, depth)
        scores = dict(rows)
        if intent is not None:
            scores.update(_scored(conn, plan.any_word, favoured(filters, intent), depth))
        if trace is not None:
            for seq, score in scores.items():
                trace.weigh(seq, plan.any_word, score)
            trace.base.update(scores)
        if intent is None:
            return scores, len(rows) < depth
        return _priors(conn, scores, intent, depth, trace), len(rows) < depth
    expressions = {plan.expression(t): plan.weight(t) for t in plan.terms}
    found, complete = _candidates(conn, expressions, filters, depth)
    scores = found.tally.coordinated()
    if trace is not None:
        trace.base.update(scores)
    scores = second_hop(conn, scores, filters)  # hook (#29): the second hop
    if intent is not None:  # hook (#29): the question's intent
        scores = _priors(conn, scores, intent, depth, trace)
    return _with_neighbours(conn, scores, trace), complete


def _priors(
    conn: sqlite3.Connection,
    scores: dict[int, float],
    intent: Intent,
    depth: int,
    trace: RecallTrace | None,
) -> dict[int, float]:
    lifted = with_priors(conn, scores, intent, depth)
    if trace is not None:
        trace.priors(scores, lifted)
    return lifted


def _recorded_at(conn: sqlite3.Connection, seqs: set[int]) -> dict[int, tuple[str, _dt.datetime]]:
    marks = ",".join("?" * len(seqs))
    rows = conn.execute(
        f"SELECT seq, scope, ts FROM episodes WHERE seq IN ({marks})",  # noqa: S608
        tuple(seqs),
    )
    # Stored timestamps are fixed-width UTC ending in "Z" (Python 3.10 cannot parse the Z).
    return {seq: (scope, _dt.datetime.fromisoformat(ts[:-1])) for seq, scope, ts in rows}


def _close(one: tuple[str, _dt.datetime], other: tuple[str, _dt.datetime]) -> bool:
    """Whether two episodes were recorded in one scope within :data:`NEIGHBOUR_WINDOW`."""
    return one[0] == other[0] and abs(one[1] - other[1]) <= NEIGHBOUR_WINDOW


def _with_neighbours(
    conn: sqlite3.Connection, scores: dict[int, float], trace: RecallTrace | None = None
) -> dict[int, float]:
    # Episodes recorded one after another share their context (a question and its answer,
    # a decision, its reason and its outcome), and the answer rarely repeats the question's
    # words: a matching episode recorded at most NEIGHBOUR_REACH places before or after one
    # of the best matches, in its scope and within NEIGHBOUR_WINDOW, gains NEIGHBOUR_SHARE
    # of that match's score (never passing it).
    best = _best(scores, NEIGHBOUR_SOURCES)
    pairs = [
        (seq + step, seq, score) for seq, score in best for step in _STEPS if seq + step in scores
    ]
    if not pairs:
        return scores
    when = _recorded_at(conn, {p[0] for p in pairs} | {p[1] for p in pairs})
    boost: dict[int, float] = {}
    for near, seq, score in pairs:
        if _close(when[near], when[seq]):
            boost[near] = min(boost.get(near, 0.0), score)
            if trace is not None and score < scores[near] and boost[near] == score:
                trace.neighbour[near] = seq
    lifted = dict(scores)
    for seq, lender in boost.items():
        lifted[seq] = _lifted(scores[seq], lender)
    return lifted


# The places at most NEIGHBOUR_REACH before or after an episode's, nearest first.
_STEPS = tuple(side * step for step in range(1, NEIGHBOUR_REACH + 1) for side in (-1, 1))


def _lifted(score: float, lender: float) -> float:
    # Lower is better. Only a better match lends, and its neighbour stays behind it.
    if score <= lender:
        return score
    return max(score + NEIGHBOUR_SHARE * lender, lender * (1.0 - 1e-9))


def ranked_seqs(
    conn: sqlite3.Connection,
    plan: SearchPlan,
    filters: RecallFilters,
    *,
    depth: int,
    intent: Intent | None = None,
) -> Ranking:
    """Rank the matches of ``plan``; at least ``depth`` of them when enough episodes match.

    ``intent`` (the question's shape, ``_intent``) adds its bounded priors to the word tier.
    """
    phrase_hits: list[int] = []
    complete = True
    trace = filters.trace
    if trace is not None:
        trace.terms = tuple(f"{t}*" if plan.prefix else t for t in plan.terms)
        trace.labels.update({plan.expression(t): f"{t}*" if plan.prefix else t for t in plan.terms})
    if plan.phrase is not None:
        phrase_rows = _scored(conn, plan.phrase, filters, depth)
        complete = len(phrase_rows) < depth
        phrase_hits = [seq for seq, _ in phrase_rows]
        if trace is not None:
            trace.phrase.update(phrase_rows)
    scores, or_complete = _or_tier(conn, plan, filters, depth, intent)
    for seq in phrase_hits:
        scores.pop(seq, None)
    rest = [seq for seq, _ in _best(scores, max(depth - len(phrase_hits), 0))]
    if trace is not None:
        trace.score.update({seq: scores[seq] for seq in rest})
        trace.score.update({seq: trace.phrase[seq] for seq in phrase_hits})
    return Ranking(
        seqs=phrase_hits + rest,
        found=len(phrase_hits) + len(scores),
        complete=complete and or_complete,
    )


def count_matches(conn: sqlite3.Connection, plan: SearchPlan, filters: RecallFilters) -> int:
    """Count every episode matching any of the plan's words and the filters."""
    sql = _fts_query(filters, "count(*)", "")
    row = conn.execute(sql, (plan.any_word, *filters.params)).fetchone()
    return int(row[0])
