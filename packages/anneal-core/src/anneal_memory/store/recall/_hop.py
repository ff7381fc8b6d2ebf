"""The second hop on SQLite: the best matches' citation edges (``_second_hop``)."""

from __future__ import annotations

import sqlite3

from anneal_memory.store.recall._search import RecallFilters
from anneal_memory.store.recall._second_hop import HOP_SHARE, LENDERS, Loans, link_strengths

__all__ = ["second_hop"]


def second_hop(
    conn: sqlite3.Connection, scores: dict[int, float], filters: RecallFilters
) -> dict[int, float]:
    """``scores`` with the loans of the best matches' citation edges (none without links)."""
    if not scores or conn.execute("SELECT 1 FROM associations LIMIT 1").fetchone() is None:
        return scores
    best = dict(sorted(scores.items(), key=lambda item: (item[1], -item[0]))[:LENDERS])
    marks = ",".join("?" * len(best))
    ids = dict(
        conn.execute(f"SELECT id, seq FROM episodes WHERE seq IN ({marks})", list(best))  # noqa: S608
    )
    save = conn.execute("SELECT max(save_no) FROM wraps WHERE status = 'completed'").fetchone()
    links = conn.execute(
        f"SELECT a, b, strength, last_save_no FROM associations "  # noqa: S608
        f"WHERE a IN ({marks}) OR b IN ({marks})",
        [*ids, *ids],
    ).fetchall()
    strengths = link_strengths(links, ids, int(save[0] or 0))
    others = sorted({other for _, other in strengths})
    if not others:
        return scores
    # The ids drive the lookup (CROSS JOIN keeps them the outer loop): the planner would
    # otherwise walk a filter's index, every episode of the scope, for a few ids (#26).
    rows = ",".join(["(?)"] * len(others))
    reached = dict(
        conn.execute(
            f"WITH wanted(id) AS (VALUES {rows}) SELECT e.id, e.seq FROM wanted "  # noqa: S608
            f"CROSS JOIN episodes AS e ON e.id = wanted.id {filters.where()}",
            (*others, *filters.params),
        ).fetchall()
    )
    loans = Loans()
    for (lender, other), strength in strengths.items():
        if other in reached:
            score = best[ids[lender]]
            loans.lend(int(reached[other]), HOP_SHARE * score * strength, score, ids[lender])
    if filters.trace is not None:
        loans.noted(filters.trace, scores)
    return loans.applied(scores)
