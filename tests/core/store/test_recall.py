from __future__ import annotations

import datetime as dt
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from anneal_memory import EpisodeType, InvalidQueryError, Store
from anneal_memory.testing import FrozenClock
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from profiles import examples
from stems import porter_stem

sys.path.insert(0, str(Path(__file__).parents[2]))

from backends import backend_store, pg_url, store_on_both_backends, target  # noqa: F401 - fixtures


@pytest.fixture
def seeded(store: Store) -> dict[str, str]:
    ids = {}
    ids["phrase"] = store.record("The connection pool is the real bottleneck", "observation").id
    ids["words"] = store.record("Pool sizes vary; the bottleneck moved to disk", "observation").id
    ids["decision"] = store.record("Chose PostgreSQL as the database for ACID", "decision").id
    ids["other"] = store.record("Lunch was pasta with friends", "context").id
    ids["tool"] = store.record("connection refused by proxy", "outcome", source="tool").id
    return ids


def ids_of(result: object) -> list[str]:
    return [e.id for e in result.episodes]  # type: ignore[attr-defined]


def test_exact_phrase_ranks_before_scattered_words(store: Store, seeded: dict[str, str]) -> None:
    result = store.recall(keyword="pool bottleneck")
    found = ids_of(result)
    assert found[0] == seeded["phrase"] or found[:2] == [seeded["phrase"], seeded["words"]]
    result = store.recall(keyword="connection pool")
    assert ids_of(result)[0] == seeded["phrase"]
    assert seeded["tool"] in ids_of(result)
    assert result.total_matching == 3


def test_natural_language_question_finds_the_decision(store: Store, seeded: dict[str, str]) -> None:
    result = store.recall(keyword="Which database did we choose, and why?")
    assert ids_of(result)[0] == seeded["decision"]
    assert seeded["other"] not in ids_of(result)


def test_stemming_matches_word_forms(store: Store, seeded: dict[str, str]) -> None:
    assert seeded["decision"] in ids_of(store.recall(keyword="databases"))
    assert seeded["phrase"] in ids_of(store.recall(keyword="connections"))


def test_no_keyword_returns_newest_first(store: Store, seeded: dict[str, str]) -> None:
    result = store.recall()
    assert ids_of(result) == [seeded[k] for k in ("tool", "other", "decision", "words", "phrase")]
    assert result.total_matching == 5


def test_filters_by_type_source_and_time(
    store: Store, seeded: dict[str, str], clock: FrozenClock
) -> None:
    assert ids_of(store.recall(episode_type=EpisodeType.DECISION)) == [seeded["decision"]]
    assert ids_of(store.recall(episode_type="decision", keyword="pool")) == []
    assert ids_of(store.recall(keyword="connection", source="tool")) == [seeded["tool"]]
    assert store.recall(keyword="connection", source="tool").total_matching == 1
    late = store.record("late pool note", "observation", timestamp="2030-01-01T00:00:00Z")
    assert ids_of(store.recall(since="2029-12-31T00:00:00Z")) == [late.id]
    until = store.recall(until="2029-12-31T00:00:00Z", keyword="pool")
    assert late.id not in ids_of(until)
    assert len(until.episodes) == 2
    assert ids_of(store.recall(since=dt.datetime(2029, 1, 1, tzinfo=dt.timezone.utc))) == [late.id]


def test_relative_since(store: Store, clock: FrozenClock) -> None:
    old = store.record("old news", "context", timestamp=clock.now() - dt.timedelta(days=10))
    new = store.record("new news", "context")
    found = ids_of(store.recall(keyword="news", since="7d"))
    assert found == [new.id]
    assert old.id in ids_of(store.recall(keyword="news", since="2w"))


def test_limit_offset_page_through_ranked_results(store: Store) -> None:
    for i in range(30):
        store.record(f"alpha note number {i}", "observation")
    first = store.recall(keyword="alpha", limit=10)
    second = store.recall(keyword="alpha", limit=10, offset=10)
    assert first.total_matching == 30
    assert len(first.episodes) == 10
    assert not set(ids_of(first)) & set(ids_of(second))
    everything = store.recall(keyword="alpha", limit=100)
    assert ids_of(everything)[10:20] == ids_of(second)


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"limit": 0}, "limit"),
        ({"limit": -5}, "limit"),
        ({"limit": "10"}, "limit"),
        ({"offset": -1}, "offset"),
        ({"episode_type": "nonsense"}, "unknown episode type"),
        ({"since": "last tuesday"}, "since"),
        ({"until": "2026-13-01"}, "until"),
        ({"since": "99999999999999d"}, "since"),
        ({"source": 5}, "source"),
        ({"keyword": 5}, "keyword"),
    ],
)
def test_bad_filters_raise_invalid_query(
    store: Store, kwargs: dict[str, object], needle: str
) -> None:
    with pytest.raises(InvalidQueryError, match=needle) as caught:
        store.recall(**kwargs)  # type: ignore[arg-type]
    assert isinstance(caught.value, ValueError)


HOSTILE = [
    '"',
    '""',
    '"unterminated phrase',
    "NEAR(connection pool, 2)",
    "connection NEAR pool",
    "pool AND NOT connection",
    "pool OR",
    "AND",
    "NOT pool",
    "pool*",
    "*",
    "content:pool",
    "{content}: pool",
    "^pool",
    "pool + bottleneck",
    "(pool",
    "pool)",
    "-pool",
    "\x00",
    "pool\x00bottleneck",
    "'; DROP TABLE episodes; --",
    "\ud800",
    "🙂 pool 🙂",
    "x" * 65536,
    "pool " * 13000,
    "   ",
    "",
    "\n\t",
    "rank MATCH 'x'",
    "episodes_fts",
]


@pytest.mark.parametrize("query", HOSTILE, ids=lambda q: repr(q[:24]))
def test_hostile_keywords_never_raise(store: Store, seeded: dict[str, str], query: str) -> None:
    result = store.recall(keyword=query)
    for episode in result.episodes:
        if query.strip():
            words = set(re.findall(r"[^\W_]+", episode.content.lower()))
            asked = set(re.findall(r"[^\W_]+", query.lower()))
            assert words & asked or any(w.startswith(t) for w in words for t in asked)
    assert store.status().total_episodes == 5


def test_operators_are_literal_words(store: Store) -> None:
    near = store.record("the NEAR term appears in text", "observation")
    store.record("nothing close by", "observation")
    assert ids_of(store.recall(keyword="NEAR")) == [near.id]
    literal_or = store.record("either OR both", "observation")
    assert ids_of(store.recall(keyword="OR")) == [literal_or.id]


# Words whose porter stem is themselves, so containment can be checked without a stemmer.
WORDS = ["alpha", "bravo", "delta", "kilo", "lima", "oscar", "tango", "zulu", "echo", "golf"]


@settings(
    max_examples=examples(150),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    query=st.one_of(
        st.text(max_size=60),
        st.lists(
            st.one_of(
                st.sampled_from(WORDS),
                st.sampled_from(['"', "*", "NEAR", ":", "(", "^", "OR", "-"]),
            ),
            max_size=8,
        ).map(" ".join),
    )
)
@example(query="DES")
def test_any_string_is_a_valid_keyword(corpus_store: Store, query: str) -> None:
    result = corpus_store.recall(keyword=query, limit=50)
    if not query.strip():  # a blank keyword means "no keyword": newest first
        assert len(result.episodes) == 50
        return
    query_tokens = set(re.findall(r"[^\W_]+", query.lower()))
    for episode in result.episodes:
        words = episode.content.split()
        # A word of the query, or (when no word matched anywhere) a prefix of 3+ letters.
        stems = {porter_stem(t) for t in query_tokens}
        assert (
            set(words) & query_tokens
            or {porter_stem(w) for w in words} & stems
            or any(w.startswith(t) for w in words for t in query_tokens if len(t) >= 3)
        )
    assert result.total_matching >= len(result.episodes)


@pytest.fixture(scope="module")
def corpus_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    with Store(tmp_path_factory.mktemp("corpus") / "memory.db") as opened:
        for i in range(60):
            words = [WORDS[(i * k + k) % len(WORDS)] for k in range(1, 4)]
            opened.record(" ".join(words), "observation")
        yield opened


def test_type_only_totals_follow_records_and_deletes(store: Store) -> None:
    decisions = [store.record(f"decision {i}", "decision") for i in range(7)]
    store.record("an observation", "observation")
    store.delete(decisions[0].id)
    result = store.recall(episode_type="decision", limit=3)
    assert result.total_matching == 6
    assert [e.id for e in result.episodes] == [d.id for d in reversed(decisions[-3:])]
    assert store.recall(episode_type="question").total_matching == 0
    assert store.recall(episode_type="decision", since="2000-01-01T00:00:00Z").total_matching == 6
