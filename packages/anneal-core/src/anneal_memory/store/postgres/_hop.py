"""The second hop on PostgreSQL: ``recall._second_hop``'s rules around the ranked statement.

The word tier is ranked once for its best matches (the lenders); their shared words, word
neighbours and citation edges are counted and scored with the same statement shape; the
episodes they touch are scored once more among all matches; the page is then merged here.
Scores are negated on the way in, so the shared rules see bm25's lower-is-better order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from anneal_memory._hebbian import DECAY
from anneal_memory.store._episodes import COLUMNS
from anneal_memory.store.postgres._rank import Terms, ranked_page, ranked_scores
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

if TYPE_CHECKING:
    import psycopg

    from anneal_memory.store.recall._intent import Intent
    from anneal_memory.store.recall._search import RecallFilters

__all__ = ["WordTerms", "hop_page"]

WordTerms = Callable[[tuple[str, ...]], Terms]
"""Builds the word stage's terms for plain words (``_recall.word_terms`` without a keyword)."""


@dataclass(frozen=True, slots=True)
class _Lender:
    seq: int
    id: str
    text: str
    score: float


def _where(filters: RecallFilters, *extra: str) -> str:
    parts = [*extra, *(c.replace("?", "%s") for c in filters.clauses)]
    return f"WHERE {' AND '.join(parts)}" if parts else ""


class _Counts:
    """How many episodes hold a word, counted up to just past :data:`HOP_MAX_MATCHES`."""

    def __init__(self, conn: psycopg.Connection[Any], words_of: WordTerms) -> None:
        self._conn = conn
        self._words_of = words_of
        self._known: dict[str, int] = {}

    def of(self, words: list[str]) -> dict[str, int]:
        for word in words:
            if word not in self._known:
                terms = self._words_of((word,))
                row = self._conn.execute(
                    "SELECT count(*) FROM (SELECT 1 FROM episodes AS e "  # noqa: S608
                    f"WHERE {terms.holds.format(q=terms.query)} LIMIT %s) AS c",
                    (word, HOP_MAX_MATCHES + 1),
                ).fetchone()
                self._known[word] = int(row[0]) if row else 0
        return self._known


@dataclass(slots=True)
class _Hop:
    conn: psycopg.Connection[Any]
    filters: RecallFilters
    words_of: WordTerms

    def scores(self, words: list[str]) -> dict[int, float]:
        """Negated scores of every episode holding one of ``words`` and passing the filters."""
        rows, _ = ranked_scores(
            self.conn, self.words_of(tuple(words)), self.filters, HOP_MAX_MATCHES * len(words),
            neighbours=False,
        )  # fmt: skip
        return {seq: -score for seq, _, score in rows}

    def neighbours(self, lender: _Lender, words: list[str], loans: Loans) -> None:
        similar = self.scores(words)
        itself = similar.pop(lender.seq, None)
        if not itself:
            return
        for score, seq in sorted((s, q) for q, s in similar.items())[:RECEIVERS]:
            loans.lend(seq, HOP_SHARE * lender.score * min(1.0, score / itself), lender.score)

    def linked(self, lenders: list[_Lender], loans: Loans) -> None:
        by_id = {lender.id: lender for lender in lenders}
        save = self.conn.execute(
            "SELECT coalesce(max(save_no), 0) FROM wraps WHERE status = 'completed'"
        ).fetchone()
        save_no = int(save[0]) if save else 0
        rows = self.conn.execute(
            "SELECT a, b, strength, last_save_no FROM associations "
            "WHERE a = ANY(%s) OR b = ANY(%s)",
            (list(by_id), list(by_id)),
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
        seqs = dict(
            self.conn.execute(
                f"SELECT e.id, e.seq FROM episodes AS e {_where(self.filters, 'e.id = ANY(%s)')}",  # noqa: S608
                (others, *self.filters.params),
            ).fetchall()
        )
        for (mine, other), value in strength.items():
            if other in seqs:
                lender = by_id[mine]
                loans.lend(int(seqs[other]), HOP_SHARE * lender.score * value, lender.score)


def _lenders(conn: psycopg.Connection[Any], best: list[tuple[int, float]]) -> list[_Lender]:
    rows = conn.execute(
        "SELECT seq, id, content FROM episodes WHERE seq = ANY(%s)", ([s for s, _ in best],)
    ).fetchall()
    found = {int(seq): (str(ident), str(text)) for seq, ident, text in rows}
    return [_Lender(seq, *found[seq], score) for seq, score in best if seq in found]


def _hopped(
    hop: _Hop, terms: Terms, first: dict[int, float], asked: set[str]
) -> tuple[dict[int, float], Loans]:
    """The feedback words' additions and the loans, from the best first-stage matches."""
    best = sorted(first.items(), key=lambda item: (item[1], -item[0]))[:LENDERS]
    lenders = _lenders(hop.conn, best)
    counts = _Counts(hop.conn, hop.words_of)
    size_row = hop.conn.execute("SELECT coalesce(max(seq), 0) FROM episodes").fetchone()
    size = int(size_row[0]) if size_row else 0
    shared = shared_words([lender.text for lender in lenders], asked)
    added: dict[int, float] = {}
    for word in rarest(counts.of(shared), shared, FEEDBACK_WORDS, episodes=size):
        for seq, score in hop.scores([word]).items():
            added[seq] = added.get(seq, 0.0) + FEEDBACK_WEIGHT * score
    loans = Loans()
    for lender in lenders:
        own = own_words(lender.text, asked)
        words = rarest(counts.of(own), own, NEIGHBOUR_WORDS, episodes=size)
        if words:
            hop.neighbours(lender, words, loans)
    if lenders:
        hop.linked(lenders, loans)
    return added, loans


def hop_page(
    conn: psycopg.Connection[Any],
    terms: Terms,
    filters: RecallFilters,
    limit: int,
    offset: int,
    *,
    intent: Intent | None,
    asked: set[str],
    words_of: WordTerms,
) -> tuple[list[tuple[Any, ...]], int]:
    """``ranked_page`` with the second hop (``recall._second_hop``) for keywords of 2+ terms."""
    if len(terms.values) < 2:
        return ranked_page(conn, terms, filters, limit, offset, intent)
    depth = max(offset + limit, LENDERS)
    rows, total = ranked_scores(conn, terms, filters, depth, intent=intent)
    phrase = {seq for seq, tier, _ in rows if tier}
    first = {seq: -score for seq, tier, score in rows if not tier}
    hop = _Hop(conn, filters, words_of)
    added, loans = _hopped(hop, terms, first, asked)
    touched = sorted((set(added) | set(loans.lent)) - set(first) - phrase)
    if touched:
        more, _ = ranked_scores(conn, terms, filters, len(touched), intent=intent, only=touched)
        first.update({seq: -score for seq, tier, score in more if not tier})
        phrase.update(seq for seq, tier, _ in more if tier)
    scores = {seq: first.get(seq, 0.0) + added.get(seq, 0.0) for seq in set(first) | set(added)}
    scores = {s: v for s, v in loans.applied(scores).items() if s not in phrase}
    found = total + len(set(scores) - set(first))
    order = [s for s, tier, _ in rows if tier]
    order += [s for s, _ in sorted(scores.items(), key=lambda item: (item[1], -item[0]))]
    page = order[offset : offset + limit]
    fetched = conn.execute(
        f"SELECT {COLUMNS} FROM episodes AS e WHERE e.seq = ANY(%s)",  # noqa: S608
        (page,),
    ).fetchall()
    by_seq = {int(row[0]): row for row in fetched}
    return [by_seq[s] for s in page if s in by_seq], found
