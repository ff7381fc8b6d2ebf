"""Recall's second hop: from the first stage's best matches along the wraps' citation edges.

The evidence that answers a question often shares words with the first evidence, not with
the question. When a wrap has validated a citation line that names both (``associations``:
links formed only from validated citations), the link leads from one to the other: an
episode linked to one of the :data:`LENDERS` best matches of the word tier gains
:data:`HOP_SHARE` of that match's score times the link's strength (at most 1), and never
passes it. A store without links pays one indexed read.

Measured and dropped (``docs/recall.md``): pseudo-relevance feedback (the words two or more
of the best matches share, searched at 0.3 of a question word) and word neighbours (each
best match's rarest words leading to the episodes most like it). Both lifted answers on a
conversation alone; under newer distractor conversations sharing those words the first lost
more than it gained, and the second cost single-hop questions on LoCoMo and its time at scale.
Pure: the stores read the links.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from anneal_memory._hebbian import DECAY

if TYPE_CHECKING:
    from anneal_memory.store.recall._trace import RecallTrace

__all__ = ["HOP_SHARE", "LENDERS", "Loans", "link_strengths"]

LENDERS = 5
HOP_SHARE = 0.35


def link_strengths(
    rows: Iterable[tuple[str, str, float, int]], lenders: Iterable[str], save_no: int
) -> dict[tuple[str, str], float]:
    """(lender, linked) -> the link's strength now (decayed per save since), at most 1."""
    mine = set(lenders)
    out: dict[tuple[str, str], float] = {}
    for a, b, strength, last in rows:
        now = min(1.0, float(strength) * DECAY ** max(0, save_no - int(last)))
        for lender, other in ((a, b), (b, a)):
            if lender in mine and other not in mine:
                out[(str(lender), str(other))] = now
    return out


@dataclass(slots=True)
class Loans:
    """Scores lent to episodes, each capped just behind its best lender (lower is better)."""

    lent: dict[int, float] = field(default_factory=dict)
    lender: dict[int, float] = field(default_factory=dict)
    lenders: dict[int, list[int]] = field(default_factory=dict)

    def lend(self, seq: int, amount: float, lender_score: float, lender: int | None = None) -> None:
        """Lend ``amount`` (a negative score) to ``seq`` from match ``lender`` (its ``seq``).

        ``lender_score`` is the lender's own score; lower scores are better, as bm25's.
        """
        self.lent[seq] = self.lent.get(seq, 0.0) + amount
        self.lender[seq] = min(self.lender.get(seq, 0.0), lender_score)
        if lender is not None:
            self.lenders.setdefault(seq, []).append(int(lender))

    def noted(self, trace: RecallTrace, scores: Mapping[int, float]) -> None:
        """Record in ``trace`` who lent to whom, and which loans found an episode alone."""
        for seq, lenders in self.lenders.items():
            trace.hop[seq] = sorted(set(lenders))
            if seq not in scores:
                trace.hop_found.add(seq)

    def applied(self, scores: Mapping[int, float]) -> dict[int, float]:
        """``scores`` with the loans added; an episode never passes its best lender."""
        out = dict(scores)
        for seq, amount in self.lent.items():
            own = out.get(seq, 0.0)
            floor = self.lender[seq] * (1.0 - 1e-9)
            out[seq] = min(own, max(own + amount, floor))
        return out
