"""The second hop on PostgreSQL: the best matches' citation edges (``recall._second_hop``).

Without links this is ``ranked_page``. With links, the word tier is ranked once for the page
(and its lenders), the episodes their links reach are scored once more among all matches,
and the page is merged here; scores are negated on the way in, so the shared rules see
bm25's lower-is-better order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from anneal_memory.store._episodes import COLUMNS
from anneal_memory.store.postgres._rank import Terms, ranked_page, ranked_scores
from anneal_memory.store.recall._second_hop import HOP_SHARE, LENDERS, Loans, link_strengths

if TYPE_CHECKING:
    import psycopg

    from anneal_memory.store.recall._intent import Intent
    from anneal_memory.store.recall._search import RecallFilters

__all__ = ["hop_page"]


def _where(filters: RecallFilters, *extra: str) -> str:
    parts = [*extra, *(c.replace("?", "%s") for c in filters.clauses)]
    return f"WHERE {' AND '.join(parts)}" if parts else ""


def _loans(conn: psycopg.Connection[Any], best: dict[int, float], filters: RecallFilters) -> Loans:
    ids = dict(
        conn.execute("SELECT id, seq FROM episodes WHERE seq = ANY(%s)", (list(best),)).fetchall()
    )
    save = conn.execute(
        "SELECT coalesce(max(save_no), 0) FROM wraps WHERE status = 'completed'"
    ).fetchone()
    links = conn.execute(
        "SELECT a, b, strength, last_save_no FROM associations WHERE a = ANY(%s) OR b = ANY(%s)",
        (list(ids), list(ids)),
    ).fetchall()
    strengths = link_strengths(links, ids, int(save[0]) if save else 0)
    loans = Loans()
    others = sorted({other for _, other in strengths})
    if not others:
        return loans
    reached = dict(
        conn.execute(
            f"SELECT e.id, e.seq FROM episodes AS e {_where(filters, 'e.id = ANY(%s)')}",  # noqa: S608
            (others, *filters.params),
        ).fetchall()
    )
    for (lender, other), strength in strengths.items():
        if other in reached:
            score = best[int(ids[lender])]
            loans.lend(int(reached[other]), HOP_SHARE * score * strength, score, int(ids[lender]))
    return loans


def hop_page(  # noqa: PLR0917 - ranked_page's arguments
    conn: psycopg.Connection[Any],
    terms: Terms,
    filters: RecallFilters,
    limit: int,
    offset: int,
    intent: Intent | None,
) -> tuple[list[tuple[Any, ...]], int]:
    """``ranked_page`` with the second hop along citation edges, for keywords of 2+ terms."""
    linked = conn.execute("SELECT 1 FROM associations LIMIT 1").fetchone() is not None
    if terms.word_count() < 2 or not linked:
        return ranked_page(conn, terms, filters, limit, offset, intent)
    rows, total = ranked_scores(conn, terms, filters, max(offset + limit, LENDERS), intent=intent)
    first = {seq: -score for seq, tier, score in rows if not tier}
    best = dict(sorted(first.items(), key=lambda item: (item[1], -item[0]))[:LENDERS])
    loans = _loans(conn, best, filters) if best else Loans()
    phrase = [seq for seq, tier, _ in rows if tier]
    touched = sorted(set(loans.lent) - set(first) - set(phrase))
    tier_one = set(phrase)
    if touched:
        more, _ = ranked_scores(conn, terms, filters, len(touched), intent=intent, only=touched)
        first.update({seq: -score for seq, tier, score in more if not tier})
        # A phrase match past the page's depth stays out of it, lifted or not.
        tier_one.update(seq for seq, tier, _ in more if tier)
    if filters.trace is not None:
        loans.noted(filters.trace, first)
    scores = {s: v for s, v in loans.applied(first).items() if s not in tier_one}
    if filters.trace is not None:
        filters.trace.score.update({s: -v for s, v in scores.items() if s in loans.lent})
    found = total + len(set(scores) - set(first))
    order = phrase + [s for s, _ in sorted(scores.items(), key=lambda item: (item[1], -item[0]))]
    page = order[offset : offset + limit]
    fetched = conn.execute(
        f"SELECT {COLUMNS} FROM episodes AS e WHERE e.seq = ANY(%s)",  # noqa: S608
        (page,),
    ).fetchall()
    by_seq = {int(row[0]): row for row in fetched}
    return [by_seq[s] for s in page if s in by_seq], found
