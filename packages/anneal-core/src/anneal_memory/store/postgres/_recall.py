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

The stage order is recall's own (``store/recall/_recall.py``); one recall reads one snapshot
(a repeatable-read, read-only transaction).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from anneal_memory.store._episodes import COLUMNS, episode_from_row
from anneal_memory.store.postgres import _substring
from anneal_memory.store.postgres._hop import hop_page
from anneal_memory.store.postgres._rank import Terms, count_ranked, ranked_page
from anneal_memory.store.postgres._trace import trace_page
from anneal_memory.store.recall._search import (
    MAX_QUERY_TERMS,
    RecallFilters,
    plan_prefix_search,
    plan_search,
    tokenize,
)
from anneal_memory.types import RecallResult

if TYPE_CHECKING:
    import psycopg

__all__ = ["PgRanker", "prefix_terms", "resolved", "word_terms"]

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
        labels=plan.terms,
        scales=tuple(plan.weight(t) for t in plan.terms),  # hook (#29): category words
        word_of=tuple(range(len(plan.terms))),
        spread=tuple(t in plan.categories for t in plan.terms),
    )


def prefix_terms(keyword: str) -> Terms | None:
    """The prefix stage's terms: each word as one quoted ``to_tsquery`` lexeme with ``:*``."""
    plan = plan_prefix_search(keyword)
    if plan is None:
        return None
    quoted = tuple("'" + t.replace("\\", "\\\\").replace("'", "''") + "':*" for t in plan.terms)
    return Terms(
        query="to_tsquery('simple', %s)",
        holds=_HOLDS,
        weight=_WEIGHT,
        values=quoted,
        labels=tuple(f"{t}*" for t in plan.terms),
    )


def joined_forms(
    queries: list[str], groups: tuple[tuple[str, ...], ...], spread: tuple[bool, ...] = ()
) -> list[tuple[str, ...]]:
    """Per group, its ``tsquery`` texts: the OR of its forms' distinct queries (none if none).

    Each query is PostgreSQL's own ``tsquery`` text, so joining them is safe; two forms the
    stemmer makes one lexeme are searched once. A group marked in ``spread`` (a category
    word and its members) keeps each distinct query apart.
    """
    out: list[tuple[str, ...]] = []
    at = 0
    for index, group in enumerate(groups):
        mine = list(dict.fromkeys(q for q in queries[at : at + len(group)] if q))
        at += len(group)
        if spread and spread[index]:
            out.append(tuple(mine))
        elif mine:
            out.append((" | ".join(f"( {q} )" for q in mine) if len(mine) > 1 else mine[0],))
        else:
            out.append(())
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
    labels = terms.labels or terms.values
    scales = terms.scales or (1.0,) * len(groups)
    queries = joined_forms(found[: len(flat)], groups, terms.spread)
    kept = [
        (q, label, scale, word)
        for word, (each, label, scale) in enumerate(zip(queries, labels, scales, strict=True))
        for q in each
    ]
    words = tuple(q for q, _, _, _ in kept)
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
        labels=tuple(label for _, label, _, _ in kept),
        scales=tuple(scale for _, _, scale, _ in kept),
        word_of=tuple(word for _, _, _, word in kept),
    )


class PgRanker:
    """Ranks recall's stages on one psycopg connection (inside the caller's snapshot)."""

    __slots__ = ("_conn",)

    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        self._conn = conn

    def newest(self, filters: RecallFilters, limit: int, offset: int) -> RecallResult:
        """Newest first, and the filtered count."""
        where = _where(filters)
        rows = self._conn.execute(
            f"SELECT {COLUMNS} FROM episodes AS e {where} "  # noqa: S608
            "ORDER BY e.ts DESC, e.seq DESC LIMIT %s OFFSET %s",
            (*filters.params, limit, offset),
        ).fetchall()
        row = self._conn.execute(
            f"SELECT count(*) FROM episodes AS e {where}",  # noqa: S608
            filters.params,
        ).fetchone()
        return RecallResult(
            episodes=tuple(episode_from_row(r) for r in rows),
            total_matching=int(row[0] if row else 0),
        )

    def words(self, keyword: str) -> Terms | None:
        """The words (and the phrase), resolved to ``tsquery`` constants."""
        found = word_terms(keyword)
        stage = None if found is None else resolved(self._conn, found)
        return None if stage is None else dataclasses.replace(stage, words=True)

    def prefixes(self, keyword: str) -> Terms | None:
        """The words as ``:*`` prefixes, resolved to ``tsquery`` constants."""
        found = prefix_terms(keyword)
        return None if found is None else resolved(self._conn, found)

    def substrings(self, keyword: str) -> Terms | None:
        """The words inside stored words (``_substring``: trigram index, else a bounded scan)."""
        return _substring.terms(self._conn, keyword)

    def page(self, stage: Terms, filters: RecallFilters, limit: int, offset: int) -> RecallResult:
        """One ranked page and the stage's count (the words stage: intent and second hop)."""
        intent = filters.intent if stage.words else None
        if stage.words:  # hook (#29)
            rows, total = hop_page(self._conn, stage, filters, limit, offset, intent)
        else:
            rows, total = ranked_page(self._conn, stage, filters, limit, offset)
        if filters.trace is not None:
            trace_page(self._conn, stage, filters, intent, [int(r[0]) for r in rows])
        return RecallResult(episodes=tuple(episode_from_row(r) for r in rows), total_matching=total)

    def count(self, stage: Terms, filters: RecallFilters) -> int:
        """How many episodes the stage matches."""
        return count_ranked(self._conn, stage, filters)
