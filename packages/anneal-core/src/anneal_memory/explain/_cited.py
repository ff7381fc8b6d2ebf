"""The episodes a pattern line cites: do they still exist, share its words, count as trusted?"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from anneal_memory.explain._types import CitedEpisode
from anneal_memory.immune._grounding import GROUNDING_MIN_SHARED, shared_words

if TYPE_CHECKING:
    from anneal_memory.store import Store

__all__ = ["EpisodeFact", "cite", "episode_facts", "grounds"]


@dataclass(frozen=True, slots=True, kw_only=True)
class EpisodeFact:
    """What a citation needs to know of a stored episode."""

    text: str
    trust: str
    effective_trust: str
    superseded_by: str | None


def grounds(explanation: str, text: str) -> bool:
    """True when ``text`` shares enough meaningful words with ``explanation`` to ground it."""
    return len(shared_words(explanation, text)) >= GROUNDING_MIN_SHARED


def episode_facts(store: Store, ids: Iterable[str]) -> dict[str, EpisodeFact]:
    """The stored episodes among ``ids`` (deleted ones are left out)."""
    wanted = sorted(set(ids))
    effective = store.effective_trusts(wanted)
    found: dict[str, EpisodeFact] = {}
    for ident in wanted:
        episode = store.get(ident)
        if episode is None:
            continue
        found[ident] = EpisodeFact(
            text=episode.content,
            trust=episode.trust.value,
            effective_trust=effective.get(ident, episode.trust).value,
            superseded_by=episode.superseded_by,
        )
    return found


def cite(
    ident: str,
    explanation: str,
    fact: EpisodeFact | None,
    in_snapshot: bool,
    validated: bool | None = None,
) -> CitedEpisode:
    """One citation measured against ``explanation``.

    It grounds the line when it belonged to the judging wrap's snapshot and shares at least
    two meaningful words with the explanation (the immune system's rule). ``validated`` is
    what pattern history kept of the judge's decision on it (None: not kept).
    """
    if fact is None:
        return CitedEpisode(
            id=ident,
            exists=False,
            in_snapshot=in_snapshot,
            shared_words=(),
            grounds=False,
            validated=validated,
        )
    words = tuple(sorted(shared_words(explanation, fact.text)))
    return CitedEpisode(
        id=ident,
        exists=True,
        in_snapshot=in_snapshot,
        shared_words=words,
        grounds=in_snapshot and len(words) >= GROUNDING_MIN_SHARED,
        trust=fact.trust,
        effective_trust=fact.effective_trust,
        superseded_by=fact.superseded_by,
        validated=validated,
    )
