"""Ranked full-text recall over FTS5, safe for any keyword string.

A keyword is split into word tokens the way the ``unicode61`` tokenizer splits text; each
token is then quoted, so FTS5 operators (``AND``, ``NEAR``, ``*``, ``:``, ``^``, quotes)
in the keyword are ordinary words and can never change the query's meaning.

Ranking, in two tiers:

1. episodes containing the keyword's tokens as an exact phrase, by bm25;
2. episodes containing any of its words (stopwords left out when other words remain), by bm25.

Cost is bounded at any store size: for each query word only its newest
:data:`CANDIDATES_PER_TERM` matches (after filters) become candidates, so a word rarer than
that contributes every match and a very common word contributes its recent ones. bm25 (with
corpus-wide statistics) is computed for the candidates only, never for every match.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "CANDIDATES_PER_TERM",
    "MAX_QUERY_TERMS",
    "RecallFilters",
    "SearchPlan",
    "count_matches",
    "plan_search",
    "ranked_seqs",
]

CANDIDATES_PER_TERM = 256
MAX_QUERY_TERMS = 32
_SCORE_CHUNK = 500
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


@dataclass(frozen=True, slots=True, kw_only=True)
class SearchPlan:
    """The FTS5 expressions for one keyword. Every term is a quoted, operator-free string."""

    phrase: str | None
    any_word: str
    terms: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class RecallFilters:
    """SQL conditions on the ``episodes`` table (alias ``e``) with their bound parameters."""

    clauses: tuple[str, ...] = ()
    params: tuple[object, ...] = ()

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


def _newest_matches(
    conn: sqlite3.Connection, expression: str, filters: RecallFilters, limit: int
) -> list[int]:
    sql = (
        "SELECT f.rowid FROM episodes_fts AS f JOIN episodes AS e ON e.seq = f.rowid "  # noqa: S608
        f"{filters.where('episodes_fts MATCH ?')} ORDER BY f.rowid DESC LIMIT ?"
    )
    return [row[0] for row in conn.execute(sql, (expression, *filters.params, limit))]


def _scores(conn: sqlite3.Connection, expression: str, seqs: Sequence[int]) -> dict[int, float]:
    scores: dict[int, float] = {}
    for start in range(0, len(seqs), _SCORE_CHUNK):
        chunk = seqs[start : start + _SCORE_CHUNK]
        marks = ",".join("?" * len(chunk))
        sql = (
            "SELECT rowid, bm25(episodes_fts) FROM episodes_fts "  # noqa: S608
            f"WHERE episodes_fts MATCH ? AND rowid IN ({marks})"
        )
        scores.update(conn.execute(sql, (expression, *chunk)).fetchall())
    return scores


def _rank(scores: dict[int, float]) -> list[int]:
    # bm25() is lower-is-better; among equal scores the newer episode wins.
    return [seq for seq, _ in sorted(scores.items(), key=lambda item: (item[1], -item[0]))]


def ranked_seqs(
    conn: sqlite3.Connection, plan: SearchPlan, filters: RecallFilters, *, depth: int
) -> list[int]:
    """Return episode ``seq`` values, best first, at least ``depth`` long when enough match."""
    per_term = max(CANDIDATES_PER_TERM, depth)
    phrase_hits: list[int] = []
    if plan.phrase is not None:
        newest = _newest_matches(conn, plan.phrase, filters, per_term)
        phrase_hits = _rank(_scores(conn, plan.phrase, newest))
    candidates: set[int] = set()
    for term in plan.terms:
        candidates.update(_newest_matches(conn, _quote(term), filters, per_term))
    candidates.difference_update(phrase_hits)
    word_hits = _rank(_scores(conn, plan.any_word, sorted(candidates)))
    return phrase_hits + word_hits


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
