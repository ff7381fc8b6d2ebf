"""When no word of the keyword matches, recall falls back to the words as prefixes."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from anneal_memory import Store
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from profiles import examples
from stems import porter_stem

sys.path.insert(0, str(Path(__file__).parents[2]))

from backends import (  # noqa: F401 - fixtures
    backend_store,
    parsed_words,
    pg_url,
    store_on_both_backends,
    target,
)


def test_a_partial_word_finds_the_whole_word(store: Store) -> None:
    chosen = store.record("Chose PostgreSQL as the database for ACID", "decision")
    store.record("Lunch was pasta", "context")
    for keyword in ("Postgre", "postgres", "datab", "Postgre migration"):
        result = store.recall(keyword=keyword)
        assert [e.id for e in result.episodes] == [chosen.id], keyword
        assert result.total_matching == 1


def test_whole_words_win_and_the_fallback_stays_out_of_the_way(store: Store) -> None:
    exact = store.record("the post was published", "observation")
    store.record("postgres tuning notes", "observation")
    result = store.recall(keyword="post")
    assert [e.id for e in result.episodes] == [exact.id]
    assert result.total_matching == 1


def test_prefixes_shorter_than_three_letters_find_nothing(store: Store) -> None:
    store.record("PostgreSQL and Python", "observation")
    assert store.recall(keyword="po").total_matching == 0
    assert store.recall(keyword="p y").episodes == ()


def test_the_fallback_keeps_the_filters(store: Store) -> None:
    store.record("PostgreSQL chosen", "decision")
    store.record("PostgreSQL is slow today", "observation")
    result = store.recall(keyword="Postgre", episode_type="observation")
    assert [e.content for e in result.episodes] == ["PostgreSQL is slow today"]


_SYNTAX = ['"', "*", "NEAR", ":", "(", ")", "^", "OR", "AND", "NOT", "-", "+", "{", "}", "'"]


@settings(
    max_examples=examples(200),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    query=st.lists(
        st.one_of(
            st.sampled_from(["datab", "postg", "pasta", "lunc", "zzz"]),
            st.sampled_from(_SYNTAX),
            st.text(max_size=6),
        ),
        max_size=8,
    ).map(lambda parts: "".join(parts) if len(parts) % 2 else " ".join(parts))
)
@example(query="databE")
@example(query="pastaS:datab")
@example(query='datab"pasta\u00b2:datab')
def test_prefix_stage_is_immune_to_fts5_syntax(store: Store, query: str) -> None:
    if not store.status().total_episodes:
        store.record("Chose PostgreSQL as the database", "decision")
        store.record("Lunch was pasta", "context")
    result = store.recall(keyword=query)
    if not query.strip():
        return
    # On PostgreSQL, the words its own parser finds count too ("pasta²" is "pasta" and "²").
    asked = set(re.findall(r"[^\W_]+", query.lower())) | parsed_words(store, query)
    for episode in result.episodes:
        words = set(re.findall(r"[^\W_]+", episode.content.lower()))
        words |= parsed_words(store, episode.content)
        # A word of the query, the same word stemmed ("pastas" finds "pasta"), or a prefix.
        assert (
            words & asked
            or {porter_stem(w) for w in words} & {porter_stem(t) for t in asked}
            or any(w.startswith(t) for w in words for t in asked if len(t) > 2)
        )
    assert store.status().total_episodes == 2


def test_a_prefix_is_matched_as_typed_not_as_its_stem(store: Store) -> None:
    # FTS5 stems a prefix query's term ("des" becomes "de"), which alone would find "delta".
    store.record("delta wing", "observation")
    store.record("design review", "observation")
    result = store.recall(keyword="des")
    assert [e.content for e in result.episodes] == ["design review"]
    assert result.total_matching == 1
    assert store.recall(keyword="databe").total_matching == 0
