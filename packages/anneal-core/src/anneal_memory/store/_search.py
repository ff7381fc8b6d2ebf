"""Ranked full-text recall over FTS5, safe for any keyword string.

A keyword is split into word tokens the way the ``unicode61`` tokenizer splits text; each
token is then quoted, so FTS5 operators (``AND``, ``NEAR``, ``*``, ``:``, ``^``, quotes)
in the keyword are ordinary words and can never change the query's meaning.

Ranking, in two tiers:

1. episodes containing the keyword's tokens as an exact phrase, by bm25;
2. episodes containing any of its words (stopwords left out when other words remain), by
   bm25 of the OR-joined words, times ``1 + COORDINATION_BONUS`` for each further distinct
   word the episode holds (a classic coordination factor).

Cost is bounded at any store size: for each query word only its newest
:data:`CANDIDATES_PER_TERM` matches (after filters) become candidates, so a word rarer than
that contributes every match and a very common word contributes its recent ones. Each word
costs one FTS5 query that walks its newest matches and scores them with ``bm25()`` (corpus
statistics computed once per query), never every match. bm25 is a sum over the query's
words, so an episode's OR score is the sum of its per-word scores; a word contributes to the
episodes inside its own candidate window.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass

__all__ = [
    "CANDIDATES_PER_TERM",
    "COORDINATION_BONUS",
    "MAX_QUERY_TERMS",
    "Ranking",
    "RecallFilters",
    "SearchPlan",
    "count_matches",
    "plan_search",
    "ranked_seqs",
]

CANDIDATES_PER_TERM = 256
MAX_QUERY_TERMS = 32
_TOKEN = re.compile(r"[^\W_]+")

STOPWORDS = frozenset(
    (
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
    )
)
# What the tokenizer leaves of contractions ("Alice's" -> "alice", "s"; "didn't" ->
# "didn", "t"): as common as stopwords and as empty of meaning.
STOPWORDS |= frozenset(
    (
        "s",
        "t",
        "d",
        "ll",
        "m",
        "re",
        "ve",
        "didn",
        "doesn",
        "isn",
        "wasn",
        "aren",
        "weren",
        "hasn",
        "haven",
        "hadn",
        "wouldn",
        "couldn",
        "shouldn",
        "also",
    )
)
COORDINATION_BONUS = 0.25


@dataclass(frozen=True, slots=True, kw_only=True)
class SearchPlan:
    """The FTS5 expressions for one keyword. Every term is a quoted, operator-free string."""

    phrase: str | None
    any_word: str
    terms: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class RecallFilters:
    """SQL conditions on the ``episodes`` table (alias ``e``) with their bound parameters.

    ``only_type`` is set when the type is the only filter: its count is then read from the
    per-type counter instead of counting rows.
    """

    clauses: tuple[str, ...] = ()
    params: tuple[object, ...] = ()
    only_type: str | None = None

    def where(self, *extra: str) -> str:
        """Return a ``WHERE`` clause joining ``extra`` and the filter conditions (or '')."""
        parts = (*extra, *self.clauses)
        return f"WHERE {' AND '.join(parts)}" if parts else ""


def tokenize(text: str) -> list[str]:
    """Split text into lowercase word tokens (letters and digits; everything else separates)."""
    return [match.group(0).lower() for match in _TOKEN.finditer(text)]


def _quote(token: str) -> str:
    return '"' + token.replace('"', '""') + '"'


def plan_search(keyword: str) -> SearchPlan | None:
    """Build the FTS5 expressions for ``keyword``; None when it holds no word at all."""
    tokens = tokenize(keyword)
    if not tokens:
        return None
    distinct = list(dict.fromkeys(tokens))[:MAX_QUERY_TERMS]
    content_words = [t for t in distinct if t not in STOPWORDS]
    terms = tuple(content_words or distinct)
    phrase_tokens = tokens[:MAX_QUERY_TERMS]
    phrase = _quote(" ".join(phrase_tokens)) if len(phrase_tokens) > 1 else None
    return SearchPlan(
        phrase=phrase,
        any_word=" OR ".join(_quote(t) for t in terms),
        terms=terms,
    )


def _newest_scored(
    conn: sqlite3.Connection, expression: str, filters: RecallFilters, limit: int
) -> list[tuple[int, float]]:
    # One FTS5 cursor walks the newest matches and scores each with bm25() as it goes:
    # corpus statistics are gathered once per query, and LIMIT stops the walk early.
    if filters.clauses:
        sql = (
            "SELECT f.rowid, bm25(episodes_fts) FROM episodes_fts AS f "  # noqa: S608
            "JOIN episodes AS e ON e.seq = f.rowid "
            f"{filters.where('episodes_fts MATCH ?')} ORDER BY f.rowid DESC LIMIT ?"
        )
    else:
        sql = (
            "SELECT rowid, bm25(episodes_fts) FROM episodes_fts "
            "WHERE episodes_fts MATCH ? ORDER BY rowid DESC LIMIT ?"
        )
    return conn.execute(sql, (expression, *filters.params, limit)).fetchall()


def _rank(scores: dict[int, float]) -> list[int]:
    # bm25() is lower-is-better; among equal scores the newer episode wins.
    return [seq for seq, _ in sorted(scores.items(), key=lambda item: (item[1], -item[0]))]


@dataclass(frozen=True, slots=True, kw_only=True)
class Ranking:
    """Episode ``seq`` values, best first; ``complete`` when they are every match."""

    seqs: list[int]
    complete: bool


def ranked_seqs(
    conn: sqlite3.Connection, plan: SearchPlan, filters: RecallFilters, *, depth: int
) -> Ranking:
    """Rank the candidates; at least ``depth`` of them when enough episodes match."""
    per_term = max(CANDIDATES_PER_TERM, depth)
    phrase_hits: list[int] = []
    complete = True
    if plan.phrase is not None:
        phrase_rows = _newest_scored(conn, plan.phrase, filters, per_term)
        complete = len(phrase_rows) < per_term
        phrase_hits = _rank(dict(phrase_rows))
    # bm25 is a sum over the query's terms, so an episode's score for the OR of the words is
    # the sum of its single-term scores, each taken from that term's candidate window.
    scores: dict[int, float] = {}
    matched: dict[int, int] = {}
    for term in plan.terms:
        rows = _newest_scored(conn, _quote(term), filters, per_term)
        complete = complete and len(rows) < per_term
        for seq, score in rows:
            scores[seq] = scores.get(seq, 0.0) + score
            matched[seq] = matched.get(seq, 0) + 1
    for seq in phrase_hits:
        scores.pop(seq, None)
    # When no query filled its window, the candidates are every matching episode.
    return Ranking(seqs=phrase_hits + _rank(_coordinate(scores, matched)), complete=complete)


def _coordinate(scores: dict[int, float], matched: dict[int, int]) -> dict[int, float]:
    # Each further distinct query word an episode holds strengthens its score by a fixed
    # share, so two moderately rare words together beat one of them repeated.
    return {
        seq: score * (1.0 + COORDINATION_BONUS * (matched[seq] - 1))
        for seq, score in scores.items()
    }


def count_matches(conn: sqlite3.Connection, plan: SearchPlan, filters: RecallFilters) -> int:
    """Count every episode matching any of the plan's words and the filters."""
    if filters.clauses:
        sql = (
            "SELECT count(*) FROM episodes_fts AS f JOIN episodes AS e ON e.seq = f.rowid "  # noqa: S608
            f"{filters.where('episodes_fts MATCH ?')}"
        )
    else:
        sql = "SELECT count(*) FROM episodes_fts WHERE episodes_fts MATCH ?"
    row = conn.execute(sql, (plan.any_word, *filters.params)).fetchone()
    return int(row[0])
