"""Recall on PostgreSQL: the SQLite recall's stages, pages and words, on ``tsvector``.

A keyword is split into words by the SQLite recall's own rules (``plan_search``: letters and
digits, at most 32 distinct, English function words left out when others remain). Each word
reaches PostgreSQL only as a bound parameter of ``plainto_tsquery`` / ``phraseto_tsquery``
(which read plain text), or, for prefixes, as one quoted lexeme of ``to_tsquery``; so no
string can change the query's meaning. Stages, each run only when the one before found
nothing (after the filters):

1. the words (stemmed with ``english``; a word that configuration ignores is matched as
   written), phrase tier first (:mod:`._rank`);
2. the words as prefixes of stored words (three letters or more);
3. the words inside stored words (:mod:`._substring`).

One recall reads one snapshot (a repeatable-read, read-only transaction).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from anneal_memory.errors import InvalidQueryError
from anneal_memory.store._episodes import COLUMNS, episode_from_row
from anneal_memory.store.postgres import _substring
from anneal_memory.store.postgres._hop import hop_page
from anneal_memory.store.postgres._rank import Terms, count_ranked, ranked_page
from anneal_memory.store.recall._recall import MAX_RECALL_OFFSET, _check_page, question_intent
from anneal_memory.store.recall._search import (
    MAX_QUERY_TERMS,
    plan_prefix_search,
    plan_search,
    tokenize,
)
from anneal_memory.types import RecallResult

if TYPE_CHECKING:
    import psycopg

    from anneal_memory.store.recall._search import RecallFilters

__all__ = ["prefix_terms", "recall", "word_terms"]

_WORD = (
    "(SELECT CASE WHEN numnode(b.en) > 0 THEN b.en ELSE plainto_tsquery('simple', b.w) END "
    "FROM (SELECT a.w, plainto_tsquery('english', a.w) AS en "
    "FROM (SELECT %s::text AS w) AS a) AS b)"
)
_PHRASE = (
    "(SELECT phraseto_tsquery(CASE WHEN numnode(plainto_tsquery('english', a.p)) > 0 "
    "THEN 'english'::regconfig ELSE 'simple'::regconfig END, a.p) "
    "FROM (SELECT %s::text AS p) AS a)"
)
_HOLDS = "e.tsv @@ {q}"
_WEIGHT = "ts_rank(e.tsv, {q})"


def _where(filters: RecallFilters) -> str:
    parts = [c.replace("?", "%s") for c in filters.clauses]
    return f"WHERE {' AND '.join(parts)}" if parts else ""


def word_terms(keyword: str) -> Terms | None:
    """The word stage's terms for ``keyword``; None when it holds no word."""
    plan = plan_search(keyword)
    if plan is None:
        return None
    tokens = tokenize(keyword)[:MAX_QUERY_TERMS]
    joined = " ".join(tokens)
    return Terms(
        query=_WORD,
        holds=_HOLDS,
        weight=_WEIGHT,
        values=plan.terms,
        phrase=_PHRASE if len(tokens) > 1 else None,
        phrase_value=joined,
        forms=tuple(plan.forms_of(t) for t in plan.terms),  # hook (#29): word forms
    )


def prefix_terms(keyword: str) -> Terms | None:
    """The prefix stage's terms: each word as one quoted ``to_tsquery`` lexeme with ``:*``."""
    plan = plan_prefix_search(keyword)
    if plan is None:
        return None
    quoted = tuple("'" + t.replace("\\", "\\\\").replace("'", "''") + "':*" for t in plan.terms)
    return Terms(query="to_tsquery('simple', %s)", holds=_HOLDS, weight=_WEIGHT, values=quoted)


def joined_forms(queries: list[str], groups: tuple[tuple[str, ...], ...]) -> list[str]:
    """One ``tsquery`` text per group: the OR of its forms' distinct queries ('' if none).

    Each query is PostgreSQL's own ``tsquery`` text, so joining them is safe; two forms the
    stemmer makes one lexeme are searched once.
    """
    out: list[str] = []
    at = 0
    for group in groups:
        mine = list(dict.fromkeys(q for q in queries[at : at + len(group)] if q))
        at += len(group)
        out.append(" | ".join(f"( {q} )" for q in mine) if len(mine) > 1 else "".join(mine))
    return out


def resolved(conn: psycopg.Connection[Any], terms: Terms) -> Terms | None:
    """The same terms with each query computed once into a ``tsquery`` constant.

    One round trip; the ranked statement then holds constants the planner can estimate
    (PostgreSQL's own ``tsquery`` text, cast back). Terms that hold no lexeme are left out;
    None when none is left.
    """
    groups = terms.forms or tuple((v,) for v in terms.values)
    flat = [form for group in groups for form in group]
    values = [*flat, *([terms.phrase_value] if terms.phrase else [])]
    parts = [terms.query] * len(flat) + ([terms.phrase] if terms.phrase else [])
    row = conn.execute(
        "SELECT " + ", ".join(f"({p})::text" for p in parts),
        values,
    ).fetchone()
    found = [str(v) for v in (row or ())]
    words = tuple(q for q in joined_forms(found[: len(flat)], groups) if q)
    if not words:
        return None
    phrase = found[-1] if terms.phrase and found[-1] else None
    return Terms(
        query="%s::tsquery",
        holds=terms.holds,
        weight=terms.weight,
        values=words,
        phrase="%s::tsquery" if phrase else None,
        phrase_value=phrase,
    )


def _newest(
    conn: psycopg.Connection[Any], filters: RecallFilters, limit: int, offset: int
) -> RecallResult:
    where = _where(filters)
    rows = conn.execute(
        f"SELECT {COLUMNS} FROM episodes AS e {where} "  # noqa: S608
        "ORDER BY e.ts DESC, e.seq DESC LIMIT %s OFFSET %s",
        (*filters.params, limit, offset),
    ).fetchall()
    row = conn.execute(
        f"SELECT count(*) FROM episodes AS e {where}",  # noqa: S608
        filters.params,
    ).fetchone()
    return RecallResult(
        episodes=tuple(episode_from_row(r) for r in rows), total_matching=int(row[0] if row else 0)
    )


def _stages(conn: psycopg.Connection[Any], keyword: str) -> list[Terms | None]:
    found = [word_terms(keyword), prefix_terms(keyword)]
    return [None if t is None else resolved(conn, t) for t in found]


def _search(
    conn: psycopg.Connection[Any], keyword: str, filters: RecallFilters, limit: int, offset: int
) -> RecallResult:
    stages = _stages(conn, keyword)
    intent = question_intent(keyword, filters)  # hook (#29): the question's intent
    for index, terms in enumerate(stages):
        if terms is None:
            continue
        if index == 0:
            rows, total = hop_page(conn, terms, filters, limit, offset, intent)
        else:
            rows, total = ranked_page(conn, terms, filters, limit, offset)
        if total:
            return RecallResult(
                episodes=tuple(episode_from_row(r) for r in rows), total_matching=total
            )
    inside = _substring.terms(conn, keyword) if plan_search(keyword) else None
    if inside is None:
        return RecallResult(episodes=(), total_matching=0)
    rows, total = ranked_page(conn, inside, filters, limit, offset)
    return RecallResult(episodes=tuple(episode_from_row(r) for r in rows), total_matching=total)


def _count_only(
    conn: psycopg.Connection[Any], keyword: str | None, filters: RecallFilters
) -> RecallResult:
    if keyword is None or not keyword.strip():
        return RecallResult(episodes=(), total_matching=_newest(conn, filters, 1, 0).total_matching)
    for terms in _stages(conn, keyword):
        if terms is not None and (total := count_ranked(conn, terms, filters)):
            return RecallResult(episodes=(), total_matching=total)
    inside = _substring.terms(conn, keyword) if plan_search(keyword) else None
    total = 0 if inside is None else count_ranked(conn, inside, filters)
    return RecallResult(episodes=(), total_matching=total)


def recall(
    conn: psycopg.Connection[Any],
    *,
    keyword: str | None,
    filters: RecallFilters,
    limit: object,
    offset: object,
) -> RecallResult:
    """One recall in one read-only snapshot (or in the caller's transaction, if one is open).

    The SQLite recall's page rules apply.

    ``limit`` above 1,000 is lowered to it; an ``offset`` past 10,000 gives an empty page
    (``total_matching`` still counts).

    Raises:
        InvalidQueryError: ``limit`` or ``offset`` is out of range, or ``keyword`` is not text.
    """
    page_limit, page_offset = _check_page(limit, offset)
    if keyword is not None and not isinstance(keyword, str):
        raise InvalidQueryError(f"keyword must be a string, not {type(keyword).__name__}")
    idle = conn.info.transaction_status == 0  # not inside a caller's transaction
    with conn.transaction():
        if idle:
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        if page_offset > MAX_RECALL_OFFSET:
            return _count_only(conn, keyword, filters)
        if keyword is None or not keyword.strip():
            return _newest(conn, filters, page_limit, page_offset)
        return _search(conn, keyword, filters, page_limit, page_offset)
