"""Recall's second hop: from the first stage's best matches to what they lead to.

The evidence that answers a question often shares words with the first evidence, not with
the question ("how did we fix the flaky checkout test?" finds *the checkout test fails
because Redis evicts session keys*; the fix, *volatile-lru on the Redis cluster stopped the
evictions*, names neither the test nor a fix). The :data:`LENDERS` best matches of the word
tier lead further in three bounded ways:

* **shared words** (pseudo-relevance feedback): words that two or more lenders hold and the
  question does not are searched too, each at :data:`FEEDBACK_WEIGHT` of a question word
  (the :data:`FEEDBACK_WORDS` rarest);
* **word neighbours**: each lender's :data:`NEIGHBOUR_WORDS` rarest words of four letters or
  more find the episodes most like it (at most :data:`RECEIVERS`); each gains
  :data:`HOP_SHARE` of the lender's score, scaled by how much of the lender's own score those
  words give it;
* **citation edges**: an episode the wraps have linked to a lender (validated citations,
  ``associations``) gains :data:`HOP_SHARE` of the lender's score times the link's strength
  (at most 1).

A lent score never lifts an episode past its lender; only words matching between 2 and
:data:`HOP_MAX_MATCHES` episodes (and at most :data:`HOP_MAX_SHARE` of the store) are used,
and their counts stop there, so the cost is bounded whatever the store's size. Pure: the
stores count, score and read the links.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from anneal_memory.store.recall._search import STOPWORDS, tokenize

__all__ = [
    "FEEDBACK_WEIGHT",
    "FEEDBACK_WORDS",
    "HOP_MAX_MATCHES",
    "HOP_MAX_SHARE",
    "HOP_SHARE",
    "LENDERS",
    "NEIGHBOUR_WORDS",
    "RECEIVERS",
    "Loans",
    "own_words",
    "rarest",
    "shared_words",
]

LENDERS = 5
FEEDBACK_WORDS = 4
FEEDBACK_WEIGHT = 0.3
NEIGHBOUR_WORDS = 4
RECEIVERS = 2
HOP_SHARE = 0.35
HOP_MAX_MATCHES = 400
HOP_MAX_SHARE = 0.05
_SHARED_CANDIDATES = 12
_MIN_LETTERS = 3
_MIN_OWN_LETTERS = 4


def _content(text: str, asked: set[str], min_letters: int) -> dict[str, None]:
    return dict.fromkeys(
        w
        for w in tokenize(text)
        if len(w) >= min_letters and not w.isdigit() and w not in STOPWORDS and w not in asked
    )


def shared_words(texts: Sequence[str], asked: Iterable[str]) -> list[str]:
    """Words two or more of ``texts`` hold, most widely held first, longer first among equals.

    Function words, numbers, words under three letters and the ``asked`` words (the
    question's words and their forms) are left out; at most 12 are returned.
    """
    skip = set(asked)
    held: Counter[str] = Counter()
    for text in texts:
        held.update(_content(text, skip, _MIN_LETTERS).keys())
    shared = [(count, word) for word, count in held.items() if count >= 2]
    shared.sort(key=lambda item: (-item[0], -len(item[1]), item[1]))
    return [word for _, word in shared[:_SHARED_CANDIDATES]]


def own_words(text: str, asked: Iterable[str]) -> list[str]:
    """A lender's words that may lead to its neighbours: four letters or more, not asked."""
    return list(_content(text, set(asked), _MIN_OWN_LETTERS))


def rarest(
    frequencies: Mapping[str, int], words: Iterable[str], count: int, *, episodes: int
) -> list[str]:
    """The ``count`` rarest ``words`` that can lead somewhere, of a store of ``episodes``.

    A word must match at least two episodes (one leads nowhere), at most
    :data:`HOP_MAX_MATCHES` and at most :data:`HOP_MAX_SHARE` of the store (a commoner one
    leads everywhere; in a small store no word is rare enough).
    """
    most = min(HOP_MAX_MATCHES, int(episodes * HOP_MAX_SHARE))
    usable = sorted(
        (frequencies[w], w) for w in dict.fromkeys(words) if 2 <= frequencies[w] <= most
    )
    return [w for _, w in usable[:count]]


@dataclass(slots=True)
class Loans:
    """Scores lent to episodes, each capped just behind its best lender (lower is better)."""

    lent: dict[int, float] = field(default_factory=dict)
    lender: dict[int, float] = field(default_factory=dict)

    def lend(self, seq: int, amount: float, lender_score: float) -> None:
        """Lend ``amount`` (a negative score) to ``seq`` from a match scoring ``lender_score``.

        Lower scores are better, as bm25's.
        """
        self.lent[seq] = self.lent.get(seq, 0.0) + amount
        self.lender[seq] = min(self.lender.get(seq, 0.0), lender_score)

    def applied(self, scores: Mapping[int, float]) -> dict[int, float]:
        """``scores`` with the loans added; an episode never passes its best lender."""
        out = dict(scores)
        for seq, amount in self.lent.items():
            own = out.get(seq, 0.0)
            floor = self.lender[seq] * (1.0 - 1e-9)
            out[seq] = min(own, max(own + amount, floor))
        return out
