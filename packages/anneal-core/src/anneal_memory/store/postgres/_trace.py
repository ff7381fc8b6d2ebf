"""``explain recall`` on PostgreSQL: the ranked statement's reasons for the page it returned.

The reasons come from the very CTEs that ranked the page (``_rank.scored_sql`` and
``lifted_sql``), read in the same snapshot: each page episode's phrase tier, each held term's
share of its score (idf times weight over the length norm, before coordination), its score
before and after its neighbour's lift and the neighbour that lent it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from anneal_memory.store.postgres._rank import LENGTH_B, Terms, lifted_sql, scored_sql

if TYPE_CHECKING:
    import psycopg

    from anneal_memory.store.recall._intent import Intent
    from anneal_memory.store.recall._search import RecallFilters

__all__ = ["trace_page"]


def trace_page(
    conn: psycopg.Connection[Any],
    terms: Terms,
    filters: RecallFilters,
    intent: Intent | None,
    page: list[int],
) -> None:
    """Fill ``filters.trace`` with the reasons of the ``page`` episodes (``seq`` values)."""
    trace = filters.trace
    if trace is None:
        return
    labels = terms.labels or terms.values
    trace.higher_is_better = True
    trace.terms = tuple(dict.fromkeys(labels))
    trace.page = list(page)
    if not page:
        return
    count = len(terms.values)
    scored, params = scored_sql(terms, filters, intent)
    shares = ", ".join(
        f"m.h{i}, ln(1 + (n.docs - d.d{i} + 0.5) / (d.d{i} + 0.5)) * m.r{i}{terms.scaled(i)} "
        f"/ (1 - {LENGTH_B} + {LENGTH_B} * m.len / d.avglen)"
        for i in range(count)
    )
    sql = (
        scored
        + lifted_sql(count > 1)
        + f" SELECT f.seq, f.phrase, s.score, f.final, f.lender, m.type, m.ts, {shares} "  # noqa: S608
        "FROM f JOIN s ON s.seq = f.seq JOIN m ON m.seq = f.seq, d, n WHERE f.seq = ANY(%s)"
    )
    for row in conn.execute(sql, (*params, page)).fetchall():
        seq, phrase, base, final, lender, kind, ts = row[:7]
        seq = int(seq)
        if phrase:
            trace.phrase[seq] = float(final)
        for i, label in enumerate(labels):
            if row[7 + 2 * i]:
                trace.weigh(seq, label, float(row[8 + 2 * i]))
        trace.base[seq] = float(base)
        trace.score.setdefault(seq, float(final))
        if lender is not None and float(final) != float(base):
            trace.neighbour[seq] = int(lender)
        if intent is not None:
            factor = intent.factor(str(kind), str(ts))
            if factor != 1.0:
                trace.prior[seq] = factor
