"""Recall on PostgreSQL: the same filters and pages as SQLite, full text on ``tsvector``.

A keyword is split into words (letters and digits, as on SQLite), at most 32 distinct; each
word reaches PostgreSQL only as a bound parameter of ``plainto_tsquery`` or
``phraseto_tsquery``, which read plain text, so no string can change the query's meaning.
Two tiers, over *every* matching episode (no candidate window, so an old match is never
forgotten; the GIN index finds the matches):

1. episodes holding the keyword's words as a phrase (``phraseto_tsquery``);
2. episodes holding any of its words.

Within a tier: ``ts_rank`` of the OR of the words (:data:`RANK`), times
``1 + 0.25`` for each further distinct query word the episode holds; ties go to the newer
episode. Words are stemmed with the ``english`` configuration; a keyword made only of
words that configuration ignores (stopwords such as "the") is matched as written.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from anneal_memory.errors import InvalidQueryError
from anneal_memory.store._episodes import COLUMNS, episode_from_row
from anneal_memory.types import RecallResult

if TYPE_CHECKING:
    import psycopg

    from anneal_memory.store._search import RecallFilters

__all__ = ["MAX_QUERY_WORDS", "recall"]

MAX_QUERY_WORDS = 32
COORDINATION_BONUS = 0.25
MAX_RECALL_LIMIT = 10_000
RANK = "ts_rank(e.tsv, w.anyq)"
"""The score within a tier (no length normalisation: the best of the variants tried on
LoCoMo dev, R@10 0.618 against 0.605 with normalisation 1 and 0.616 with ``ts_rank_cd``)."""
_WORD = re.compile(r"[^\W_]+")


def _words(keyword: str) -> list[str]:
    return list(dict.fromkeys(m.group(0).lower() for m in _WORD.finditer(keyword)))[
        :MAX_QUERY_WORDS
    ]


def _where(filters: RecallFilters, *extra: str) -> str:
    parts = [*extra, *(c.replace("?", "%s") for c in filters.clauses)]
    return f"WHERE {' AND '.join(parts)}" if parts else ""


def _check_page(limit: object, offset: object) -> tuple[int, int]:
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_RECALL_LIMIT:
        raise InvalidQueryError(
            f"limit must be an integer from 1 to {MAX_RECALL_LIMIT:,}, got {limit!r}"
        )
    if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
        raise InvalidQueryError(f"offset must be an integer of 0 or more, got {offset!r}")
    return limit, offset


_CONFIG = (
    "CASE WHEN numnode(plainto_tsquery('english'::regconfig, %s)) > 0"
    " THEN 'english'::regconfig ELSE 'simple'::regconfig END"
)


def _newest(
    conn: psycopg.Connection[Any], filters: RecallFilters, limit: int, offset: int
) -> RecallResult:
    where = _where(filters)
    rows = conn.execute(
        f"SELECT {COLUMNS}, count(*) OVER () FROM episodes AS e {where} "  # noqa: S608
        "ORDER BY e.ts DESC, e.seq DESC LIMIT %s OFFSET %s",
        (*filters.params, limit, offset),
    ).fetchall()
    total = int(rows[0][-1]) if rows else _count(conn, filters, "", ())
    return RecallResult(
        episodes=tuple(episode_from_row(r[:-1]) for r in rows), total_matching=total
    )


def _count(
    conn: psycopg.Connection[Any], filters: RecallFilters, match: str, params: tuple[Any, ...]
) -> int:
    extra = (match,) if match else ()
    row = conn.execute(
        f"SELECT count(*) FROM episodes AS e {_where(filters, *extra)}",  # noqa: S608
        (*params, *filters.params),
    ).fetchone()
    return int(row[0]) if row else 0


def _ranked(
    conn: psycopg.Connection[Any], words: list[str], filters: RecallFilters, limit: int, offset: int
) -> RecallResult:
    each = ", ".join(["plainto_tsquery(c.cfg, %s)"] * len(words))
    chain = " || ".join(["plainto_tsquery(c.cfg, %s)"] * len(words))
    hits = " + ".join(f"(e.tsv @@ w.q[{i + 1}])::int" for i in range(len(words)))
    sql = (
        f"WITH c AS (SELECT {_CONFIG} AS cfg), "  # noqa: S608
        f"w AS (SELECT ARRAY[{each}] AS q, ({chain}) AS anyq, "
        "phraseto_tsquery(c.cfg, %s) AS phrase FROM c) "
        f"SELECT {COLUMNS}, count(*) OVER () FROM episodes AS e, w "
        f"{_where(filters, 'e.tsv @@ w.anyq')} "
        "ORDER BY (numnode(w.phrase) > 0 AND e.tsv @@ w.phrase) DESC, "
        f"{RANK} * (1 + {COORDINATION_BONUS} * (({hits}) - 1)) DESC, "
        "e.seq DESC LIMIT %s OFFSET %s"
    )
    joined = " ".join(words)
    params = (joined, *words, *words, joined, *filters.params, limit, offset)
    rows = conn.execute(sql, params).fetchall()
    total = int(rows[0][-1]) if rows else 0
    if not rows and offset:
        total = _count_matches(conn, words, filters)
    return RecallResult(
        episodes=tuple(episode_from_row(r[:-1]) for r in rows), total_matching=total
    )


def _count_matches(conn: psycopg.Connection[Any], words: list[str], filters: RecallFilters) -> int:
    each = " || ".join([f"plainto_tsquery({_CONFIG}, %s)"] * len(words))
    joined = " ".join(words)
    params: tuple[Any, ...] = tuple(p for w in words for p in (joined, w))
    return _count(conn, filters, f"e.tsv @@ ({each})", params)


def recall(
    conn: psycopg.Connection[Any],
    *,
    keyword: str | None,
    filters: RecallFilters,
    limit: object,
    offset: object,
) -> RecallResult:
    """One recall: one statement (one snapshot), plus a count when a page is past the end.

    Raises:
        InvalidQueryError: ``limit`` or ``offset`` is out of range, or ``keyword`` is not text.
    """
    page_limit, page_offset = _check_page(limit, offset)
    if keyword is not None and not isinstance(keyword, str):
        raise InvalidQueryError(f"keyword must be a string, not {type(keyword).__name__}")
    if keyword is None or not keyword.strip():
        return _newest(conn, filters, page_limit, page_offset)
    words = _words(keyword)
    if not words:
        return RecallResult(episodes=(), total_matching=0)
    return _ranked(conn, words, filters, page_limit, page_offset)
