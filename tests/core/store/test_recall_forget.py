"""Recall does not forget: every stored episode is found by its own words, at any age."""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path

from anneal_memory import Store

sys.path.insert(0, str(Path(__file__).parents[2]))

from backends import backend_store, pg_url, store_on_both_backends, target  # noqa: F401 - fixtures

from .test_search_ranking import bulk

_SYLLABLES = ["ka", "lo", "mi", "nu", "ra", "te", "vo", "zi", "pe", "su", "da", "gor"]
_COMMON = ["deploy", "meeting", "note", "budget", "review", "status"]


def _word(rng: random.Random) -> str:
    return "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4)))


def _corpus(count: int) -> list[str]:
    rng = random.Random(7)
    return [
        " ".join([rng.choice(_COMMON), _word(rng), rng.choice(_COMMON), _word(rng), _word(rng)])
        for _ in range(count)
    ]


def test_every_episode_is_found_by_its_rarest_words_and_by_part_of_a_word(store: Store) -> None:
    texts = _corpus(600)
    ids = bulk(store, [(t, "observation") for t in texts])
    counts: dict[str, int] = {}
    for text in texts:
        for word in set(text.split()):
            counts[word] = counts.get(word, 0) + 1
    for ident, text in zip(ids, texts, strict=True):
        rare = sorted(set(text.split()), key=lambda w: (counts[w], w))[:2]
        found = [e.id for e in store.recall(" ".join(rare), limit=10).episodes]
        assert ident in found, (text, rare)
    # A part inside a word finds its episode through the substring stage, however old.
    oldest = next(
        (i, w)
        for i, t in zip(ids, texts, strict=True)
        for w in t.split()
        if len(w) >= 7 and w not in _COMMON
    )
    inner = oldest[1][1:-1]
    if not re.fullmatch(r"[a-z]+", inner) or store.recall(inner).total_matching == 0:
        raise AssertionError(f"the inner part {inner!r} of {oldest[1]!r} found nothing")
    assert oldest[0] in {e.id for e in store.recall(inner, limit=1000).episodes}
