"""Scoped recall ranks exactly as recall over the same episodes chosen another way (#26).

A scope has an index of its own, which the database may walk instead of the full-text
matches (on SQLite that ran the MATCH once per episode of the scope, 40x an unscoped
recall). Whatever the plan, a scoped recall must return what the ranking rules give:

* on both backends, ``recall(q, scope=X)`` equals ``recall(q, source=S)`` where ``S`` is
  a source held by exactly the episodes of ``X`` (a filter no index serves), for every
  stage (words, phrases, prefixes, parts of words), page and count;
* on SQLite, whose bm25 statistics are store-wide, it also equals the unscoped recall of
  every match filtered to ``X``, in a store where no neighbour lift applies (episodes two
  hours apart). PostgreSQL's idf counts the matches that pass the filters, so there a scope
  ranks by its own statistics by design and the second comparison does not hold.
"""

from __future__ import annotations

import datetime as dt
import random
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from anneal_memory import Store
from anneal_memory.testing import FrozenClock
from anneal_memory.types import RecallResult

sys.path.insert(0, str(Path(__file__).parents[2]))

from backends import pg_url, target  # noqa: F401 - fixtures

SCOPES = ("", "user:u0", "user:u1", "user:u2", "thread:t3", "agent:a4")
_SYLLABLES = ("zor", "vex", "pal", "min", "tob", "qua", "ril", "dun", "sef", "gak", "lom")
# Seeded pseudo-words (no stopword, no word that names a type or a time), Zipf-weighted.
_RNG = random.Random(26)
VOCABULARY = sorted({"".join(_RNG.sample(_SYLLABLES, 2)) for _ in range(70)})
WEIGHTS = [1.0 / (rank + 1) for rank in range(len(VOCABULARY))]


def _texts(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [
        " ".join(rng.choices(VOCABULARY, WEIGHTS, k=rng.randrange(6, 14))) for _ in range(count)
    ]


def _queries() -> list[str]:
    rng = random.Random(7)
    singles = VOCABULARY[:6] + VOCABULARY[20:24] + VOCABULARY[-4:]
    pairs = [" ".join(rng.sample(VOCABULARY, 2)) for _ in range(12)]
    triples = [" ".join(rng.sample(VOCABULARY[:30], 3)) for _ in range(8)]
    phrases = [" ".join(_texts(1, seed)[0].split()[:3]) for seed in range(6)]
    prefixes = [word[:4] for word in VOCABULARY[:6]]  # no whole word: the prefix stage
    inside = [word[1:5] for word in VOCABULARY[6:10]]  # inside words: the substring stage
    return [*singles, *pairs, *triples, *phrases, *prefixes, *inside, "nothingthere"]


SOURCES = {scope: f"src{index}" for index, scope in enumerate(SCOPES)}
"""Each scope's episodes, and only they, have one source of their own."""


def _fill(store: Store, count: int, spacing: dt.timedelta, *, seed: int) -> dict[str, str]:
    """``count`` episodes in random scopes (:data:`SOURCES`); each id's scope."""
    rng = random.Random(seed)
    start = dt.datetime(2025, 1, 1, tzinfo=dt.timezone.utc)
    episodes = []
    for n, text in enumerate(_texts(count, seed)):
        scope = rng.choice(SCOPES)
        when = (start + n * spacing).strftime("%Y-%m-%dT%H:%M:%S.000000Z")
        episodes.append(
            {
                "id": f"{0x10000000 + n:08x}",
                "timestamp": when,
                "type": rng.choice(("observation", "decision", "context")),
                "content": text,
                "source": SOURCES[scope],
                "metadata": {},
                "idempotency_key": None,
                "scope": scope,
            }
        )
    store.import_json(
        {
            "format": "anneal-memory-export",
            "format_version": 1,
            "episodes": episodes,
            "tombstones": [],
        }
    )
    return {e["id"]: e["scope"] for e in episodes}


def _ids(result: RecallResult) -> tuple[list[str], int]:
    return [e.id for e in result.episodes], result.total_matching


@pytest.fixture
def store(target: str, clock: FrozenClock) -> Iterator[Store]:  # noqa: F811
    with Store(target, project_name="TestAgent", clock=clock) as opened:
        yield opened


def test_scoped_recall_ranks_as_the_same_episodes_chosen_by_source(store: Store) -> None:
    _fill(store, 600, dt.timedelta(minutes=1), seed=1)
    checked = 0
    for query in _queries():
        for scope, source in SOURCES.items():
            for limit, offset, kind in ((10, 0, None), (5, 5, None), (20, 0, "decision")):
                scoped = store.recall(
                    query, limit=limit, offset=offset, scope=scope, episode_type=kind
                )
                chosen = store.recall(
                    query, limit=limit, offset=offset, source=source, episode_type=kind
                )
                assert _ids(scoped) == _ids(chosen), (query, scope, limit, offset, kind)
                checked += bool(scoped.episodes)
    assert checked > 300  # most of the comparisons found something to compare


@pytest.mark.parametrize("target", ["sqlite"], indirect=True)
def test_scoped_recall_is_unscoped_recall_filtered_to_the_scope(store: Store) -> None:
    scope_of = _fill(store, 600, dt.timedelta(hours=2), seed=2)
    compared = 0
    for query in _queries():
        everything = store.recall(query, limit=1000)
        assert len(everything.episodes) == everything.total_matching  # every match ranked
        for scope in SCOPES:
            mine = [e.id for e in everything.episodes if scope_of[e.id] == scope]
            scoped = store.recall(query, limit=10, scope=scope)
            assert [e.id for e in scoped.episodes] == mine[:10], (query, scope)
            assert scoped.total_matching == len(mine), (query, scope)
            compared += bool(mine)
    assert compared > 200
