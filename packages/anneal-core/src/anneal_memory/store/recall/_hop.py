"""The second hop on SQLite: counts, scores and links for ``_second_hop``'s rules."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from anneal_memory._hebbian import DECAY
from anneal_memory.store.recall._search import RecallFilters, SearchPlan, quote
from anneal_memory.store.recall._second_hop import (
    FEEDBACK_WEIGHT,
    FEEDBACK_WORDS,
    HOP_MAX_MATCHES,
    HOP_SHARE,
    LENDERS,
    NEIGHBOUR_WORDS,
    RECEIVERS,
    Loans,
    own_words,
    rarest,
    shared_words,
)

__all__ = ["Scorer", "second_hop"]

Scorer = Callable[[sqlite3.Connection, str, RecallFilters], list[tuple[int, float]]]
"""(rowid, bm25) of every episode matching an FTS5 expression and the filters."""


@dataclass(frozen=True, slots=True)
class _Lender:
    seq: int
    id: str
    text: str
    score: float


def _lenders(conn: sqlite3.Connection, scores: dict[int, float]) -> list[_Lender]:
    best = sorted(scores.items(), key=lambda item: (item[1], -item[0]))[:LENDERS]
    marks = ",".join("?" * len(best))
    rows = conn.execute(
        f"SELECT seq, id, content FROM episodes WHERE seq IN ({marks})",  # noqa: S608
        [seq for seq, _ in best],
    )
    found = {int(seq): (str(ident), str(text)) for seq, ident, text in rows}
    return [_Lender(seq, *found[seq], score) for seq, score in best if seq in found]


class _Counts:
    """How many episodes hold a word, counted up to just past :data:`HOP_MAX_MATCHES`."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._known: dict[str, int] = {}

    def of(self, words: Iterable[str]) -> dict[str, int]:
        for word in words:
            if word not in self._known:
                row = self._conn.execute(
                    "SELECT count(*) FROM (SELECT 1 FROM episodes_fts "
                    "WHERE episodes_fts MATCH ? LIMIT ?)",
                    (quote(word), HOP_MAX_MATCHES + 1),
                ).fetchone()
                self._known[word] = int(row[0])
        return self._known


def _feedback(
    conn: sqlite3.Connection,
    words: list[str],
    filters: RecallFilters,
    scored: Scorer,
    scores: dict[int, float],
) -> dict[int, float]:
    out = dict(scores)
    for word in words:
        for seq, score in scored(conn, quote(word), filters):
            out[seq] = out.get(seq, 0.0) + FEEDBACK_WEIGHT * score
    return out


def _neighbours(  # noqa: PLR0917 - the hop's context, passed down
    conn: sqlite3.Connection,
    lender: _Lender,
    words: list[str],
    filters: RecallFilters,
    scored: Scorer,
    loans: Loans,
) -> None:
    similar = dict(scored(conn, " OR ".join(quote(w) for w in words), filters))
    itself = similar.pop(lender.seq, None)
    if not itself:
        return
    for score, seq in sorted((s, q) for q, s in similar.items())[:RECEIVERS]:
        loans.lend(seq, HOP_SHARE * lender.score * min(1.0, score / itself), lender.score)


def _linked(
    conn: sqlite3.Connection, lenders: list[_Lender], filters: RecallFilters, loans: Loans
) -> None:
    if conn.execute("SELECT 1 FROM associations LIMIT 1").fetchone() is None:
        return
    save = conn.execute("SELECT max(save_no) FROM wraps WHERE status = 'completed'").fetchone()
    save_no = int(save[0] or 0)
    by_id = {lender.id: lender for lender in lenders}
    marks = ",".join("?" * len(by_id))
    rows = conn.execute(
        f"SELECT a, b, strength, last_save_no FROM associations "  # noqa: S608
        f"WHERE a IN ({marks}) OR b IN ({marks})",
        [*by_id, *by_id],
    ).fetchall()
    strength: dict[tuple[str, str], float] = {}
    for a, b, value, last in rows:
        now = float(value) * DECAY ** max(0, save_no - int(last))
        for mine, other in ((a, b), (b, a)):
            if mine in by_id:
                strength[(str(mine), str(other))] = min(1.0, now)
    others = sorted({other for _, other in strength})
    if not others:
        return
    marks = ",".join("?" * len(others))
    seqs = dict(
        conn.execute(
            f"SELECT e.id, e.seq FROM episodes AS e "  # noqa: S608
            f"{filters.where(f'e.id IN ({marks})')}",
            (*others, *filters.params),
        ).fetchall()
    )
    for (mine, other), value in strength.items():
        if other in seqs:
            lender = by_id[mine]
            loans.lend(int(seqs[other]), HOP_SHARE * lender.score * value, lender.score)


def second_hop(
    conn: sqlite3.Connection,
    plan: SearchPlan,
    scores: dict[int, float],
    filters: RecallFilters,
    scored: Scorer,
) -> dict[int, float]:
    """``scores`` after the second hop (``_second_hop``): shared words, neighbours, links."""
    lenders = _lenders(conn, scores) if scores else []
    if not lenders:
        return scores
    asked = {form for term in plan.terms for form in plan.forms_of(term)}
    counts = _Counts(conn)
    size = int(conn.execute("SELECT coalesce(max(seq), 0) FROM episodes").fetchone()[0])
    shared = shared_words([lender.text for lender in lenders], asked)
    chosen = rarest(counts.of(shared), shared, FEEDBACK_WORDS, episodes=size)
    out = _feedback(conn, chosen, filters, scored, scores)
    loans = Loans()
    for lender in lenders:
        own = own_words(lender.text, asked)
        words = rarest(counts.of(own), own, NEIGHBOUR_WORDS, episodes=size)
        if words:
            _neighbours(conn, lender, words, filters, scored, loans)
    _linked(conn, lenders, filters, loans)
    return loans.applied(out)
