"""Agent text carrying words an outside episode brought in this wrap counts at its trust. Pure.

A page the agent fetched is held at ``external`` trust; the agent's own summary of it, in
its own words, was ``agent`` trust and confirmed the page's claim (eTAMP: the page plants
the memory through the agent). Provenance by the words: in a wrap's snapshot (oldest
first), the meaningful words of each ``tool`` or ``external`` episode that the memory did
not hold (not in the continuity in place, nor in an earlier ``agent`` episode of the
snapshot) are *brought* by it. A later ``agent`` episode holding at least
:data:`OUTSIDE_MIN_WORDS` brought words derives from the outside text: the uncorroborated
rule counts it at that episode's trust (the one that brought most of them), so it neither
confirms the outside claim nor climbs on its own. ``operator`` episodes are never judged
so. Its row and its trust are unchanged (recall, labels, ``effective_trusts``): only the
wrap's evidence is judged by where the words came from.

Measured (``bench/poison.py``): every ``page_paraphrase`` attack (a fetched page, then the
agent's rewording of it, three sessions) held at 1x; 9 honest graduations of 418 lost, all
in LoCoMo conversations whose second speaker was recorded as a tool and whose first
speaker repeats two of its new words.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import NamedTuple

from anneal_memory.immune._grounding import grounding_words
from anneal_memory.types import Trust

__all__ = ["OUTSIDE_MIN_WORDS", "OutsideWords", "outside_words"]

OUTSIDE_MIN_WORDS = 2


class OutsideWords(NamedTuple):
    """Where an agent episode's words came from.

    Attributes:
        source: The ``tool`` or ``external`` episode that brought most of them.
        words: The brought words the agent episode holds, sorted.
    """

    source: str
    words: tuple[str, ...]


def outside_words(
    snapshot: Mapping[str, str], trusts: Mapping[str, Trust], known: str | None
) -> dict[str, OutsideWords]:
    """Agent episodes of ``snapshot`` (oldest first) that carry outside words (module doc).

    ``trusts``: effective trusts (an episode missing counts as ``agent``); ``known``: the
    continuity in place, whose words the memory already held.
    """
    outside = Trust.AGENT.rank
    if all(trusts.get(ident, Trust.AGENT).rank >= outside for ident in snapshot):
        return {}  # nothing came from outside: no word was brought
    held = set(grounding_words(known or ""))
    brought: dict[str, str] = {}
    out: dict[str, OutsideWords] = {}
    for ident, text in snapshot.items():
        words = grounding_words(text)
        trust = trusts.get(ident, Trust.AGENT)
        if trust.rank < outside:
            for word in words - held:
                brought.setdefault(word, ident)
        elif trust is Trust.AGENT:
            carried = sorted(w for w in words if w in brought)
            if len(carried) >= OUTSIDE_MIN_WORDS:
                source = Counter(brought[w] for w in carried).most_common(1)[0][0]
                out[ident] = OutsideWords(source, tuple(carried))
            else:
                held |= words
    return out
