"""What one recall's ranking did, recorded by the ranking itself (``explain recall``).

A :class:`RecallTrace` rides along a recall (``Store.recall(trace=...)``) inside its filters;
each ranker writes into it as it ranks, so an explanation shows the ranking recall used, not
a second computation of it. Nothing is recorded when no trace is given.

Scores are recorded as each backend ranks them: SQLite's are bm25 sums (lower is better),
PostgreSQL's are its bm25-shaped sums (higher is better); ``higher_is_better`` says which.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from anneal_memory.store._params import in_chunks

__all__ = ["RecallTrace"]


class _Reads(Protocol):
    """The part of a store connection :meth:`RecallTrace.resolve` uses (``?`` placeholders)."""

    def execute(self, sql: str, params: Sequence[Any] = ..., /) -> Any:
        """Run one statement."""
        ...


@dataclass(slots=True, eq=False)
class RecallTrace:
    """The reasons behind one recall's ranking, filled in while it ranks.

    Attributes:
        stage: The stage that answered: ``words``, ``prefix``, ``substring``, ``newest``
            (no keyword) or None (nothing matched).
        terms: The stage's terms (a prefix or index term for the later stages).
        labels: Each FTS5 expression or query value the ranking used -> its term.
        searched: Each term searched as more than itself -> the other words it was searched
            as (its irregular forms and, for a category word, the category's members).
        intent_types: The episode types the question's intent favours.
        intent_since: The start of the time the question names, if any.
        intent_until: Its end, if any.
        higher_is_better: True when a higher score ranks first (PostgreSQL).
        page: The ``seq`` values of the returned page, best first.
        phrase: ``seq`` -> score, for episodes holding the keyword as a phrase.
        weights: ``seq`` -> term -> its share of the score (before coordination).
        base: ``seq`` -> the score before any lift (coordination and priors applied).
        score: ``seq`` -> the final score the order was taken from.
        prior: ``seq`` -> the intent's factor, where it is not 1.
        neighbour: ``seq`` -> the ``seq`` of the better match recorded close beside it that lent
            it a share of its score.
        hop: ``seq`` -> the ``seq`` values of the best matches whose citation links lent it
            a share of their score.
        hop_found: ``seq`` values that hold none of the terms: the citation hop alone found them.
        total: How many episodes the stage matched.
        ids: ``seq`` -> episode id, for every ``seq`` above (filled in by the store).
    """

    stage: str | None = None
    terms: tuple[str, ...] = ()
    labels: dict[str, str] = field(default_factory=dict)
    searched: dict[str, tuple[str, ...]] = field(default_factory=dict)
    intent_types: tuple[str, ...] = ()
    intent_since: str | None = None
    intent_until: str | None = None
    higher_is_better: bool = False
    page: list[int] = field(default_factory=list)
    phrase: dict[int, float] = field(default_factory=dict)
    weights: dict[int, dict[str, float]] = field(default_factory=dict)
    base: dict[int, float] = field(default_factory=dict)
    score: dict[int, float] = field(default_factory=dict)
    prior: dict[int, float] = field(default_factory=dict)
    neighbour: dict[int, int] = field(default_factory=dict)
    hop: dict[int, list[int]] = field(default_factory=dict)
    hop_found: set[int] = field(default_factory=set)
    total: int = 0
    ids: dict[int, str] = field(default_factory=dict)

    def clear(self, stage: str | None) -> None:
        """Start over for ``stage`` (a stage that found nothing leaves nothing behind)."""
        self.stage = stage
        self.terms = ()
        self.labels = {}
        self.searched = {}
        self.page = []
        for found in (self.phrase, self.weights, self.base, self.score, self.prior):
            found.clear()
        self.neighbour.clear()
        self.hop.clear()
        self.hop_found.clear()
        self.total = 0
        self.ids.clear()

    def label(self, expression: str) -> str:
        """The term an expression searched for (the expression itself when unknown)."""
        return self.labels.get(expression, expression)

    def weigh(self, seq: int, expression: str, amount: float) -> None:
        """Add ``amount`` to the share of ``expression``'s term in ``seq``'s score."""
        mine = self.weights.setdefault(seq, {})
        term = self.label(expression)
        mine[term] = mine.get(term, 0.0) + amount

    def priors(self, before: dict[int, float], after: dict[int, float]) -> None:
        """Note the factor the intent's priors applied to each score they changed.

        A score before any lift (:attr:`base`) takes the factor too: the priors are part of
        the match's own score, as on PostgreSQL.
        """
        for seq, score in after.items():
            old = before.get(seq)
            if old and score != old:
                self.prior[seq] = score / old
                if seq in self.base:
                    self.base[seq] *= self.prior[seq]

    def seqs(self) -> set[int]:
        """Every ``seq`` the trace names (the page, the lenders, the lifted)."""
        found = set(self.page) | set(self.neighbour.values())
        for lenders in self.hop.values():
            found.update(lenders)
        return found

    def resolve(self, conn: _Reads) -> None:
        """Fill in :attr:`ids` for :meth:`seqs` (inside the recall's own snapshot)."""
        for chunk, marks in in_chunks(sorted(self.seqs()), 500):
            rows = conn.execute(
                f"SELECT seq, id FROM episodes WHERE seq IN ({marks})",  # noqa: S608
                chunk,
            ).fetchall()
            self.ids.update({int(seq): str(ident) for seq, ident in rows})
