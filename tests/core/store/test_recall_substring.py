"""When neither words nor prefixes match, recall looks for the words inside stored words."""

from __future__ import annotations

import re
import sys
import unicodedata
from pathlib import Path

import pytest
from anneal_memory import AnnealMemoryError, Store
from anneal_memory.store.recall import _substring
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from profiles import examples
from stems import porter_stem

sys.path.insert(0, str(Path(__file__).parents[2]))

from backends import backend_store, pg_url, sqlite_store, store_on_both_backends, target  # noqa: F401 - fixtures


def test_a_word_inside_a_stored_word_is_found(store: Store) -> None:
    chosen = store.record("Chose PostgreSQL as the database for ACID", "decision")
    store.record("Lunch was pasta", "context")
    for keyword in ("SQL", "gresq", "greSQL", "tabas", "SQL migration"):
        result = store.recall(keyword=keyword)
        assert [e.id for e in result.episodes] == [chosen.id], keyword
        assert result.total_matching == 1
    assert store.recall(keyword="SQL", offset=20_000).total_matching == 1


def test_whole_words_and_prefixes_win_and_the_stage_stays_out_of_their_way(store: Store) -> None:
    word = store.record("sql tips for beginners", "observation")
    store.record("PostgreSQL chosen", "decision")
    result = store.recall(keyword="SQL")
    assert [e.id for e in result.episodes] == [word.id]
    assert result.total_matching == 1
    prefixed = store.record("postgrefoo is a made-up word", "observation")
    store.record("nonpostgrefoo too", "observation")
    result = store.recall(keyword="Postgref")
    assert [e.id for e in result.episodes] == [prefixed.id]


def test_short_words_find_nothing_inside_words(store: Store) -> None:
    store.record("PostgreSQL and Python", "observation")
    assert store.recall(keyword="ql").total_matching == 0
    assert store.recall(keyword="q l y").episodes == ()


def test_the_stage_keeps_the_filters(store: Store) -> None:
    store.record("PostgreSQL chosen", "decision")
    store.record("MySQL is slow today", "observation")
    result = store.recall(keyword="SQL", episode_type="observation")
    assert [e.content for e in result.episodes] == ["MySQL is slow today"]


def test_the_stage_is_skipped_above_its_store_size_bound(
    sqlite_store: Store,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sqlite_store.record("PostgreSQL chosen", "decision")
    sqlite_store.record("MySQL chosen", "decision")
    monkeypatch.setattr(_substring, "SUBSTRING_MAX_BYTES", 1)
    assert sqlite_store.recall(keyword="SQL").total_matching == 0


def test_diacritics_are_folded_like_the_index(store: Store) -> None:
    store.record("Met at the Cafeteria Noël", "observation")
    assert store.recall(keyword="féter").total_matching == 1


_HOSTILE = ["%", "_", "\\", '"', "'", "*", "NEAR", ":", "(", ")", "^", "OR", "AND", "NOT", "-"]


@settings(
    max_examples=examples(200),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    query=st.lists(
        st.one_of(
            st.sampled_from(["sql", "gresq", "abas", "ast", "unc", "zzz", "%sq", "s_l"]),
            st.sampled_from(_HOSTILE),
            st.text(alphabet=st.characters(blacklist_characters="\x00"), max_size=6),
        ),
        max_size=8,
    ).map(lambda parts: "".join(parts) if len(parts) % 2 else " ".join(parts))
)
@example(query="s_luncs_l")
@example(query="ÀS")
def test_substring_stage_is_immune_to_like_and_fts5_syntax(store: Store, query: str) -> None:
    if not store.status().total_episodes:
        store.record("Chose PostgreSQL as the database", "decision")
        store.record("Lunch was pasta", "context")
    result = store.recall(keyword=query)
    if not query.strip():
        return
    folded = "".join(
        c for c in unicodedata.normalize("NFKD", query.lower()) if not unicodedata.combining(c)
    )
    asked = {w for w in re.findall(r"[^\W_]+", folded) if len(w) > 2}
    for episode in result.episodes:
        words = set(re.findall(r"[^\W_]+", episode.content.lower()))
        # A word of the query (accents folded, as the tokenizer folds them), or a part of one.
        query_words = set(re.findall(r"[^\W_]+", folded))
        stems = {porter_stem(w) for w in query_words}
        assert (
            words & query_words
            or {porter_stem(w) for w in words} & stems
            or any(t in w for w in words for t in asked)
        ), (query, episode.content)
    assert store.status().total_episodes == 2


def test_a_read_only_store_finds_words_inside_words_and_stays_read_only(
    sqlite_store: Store,  # noqa: F811
    db_path: Path,
) -> None:
    sqlite_store.record("Chose PostgreSQL", "decision")
    sqlite_store.close()
    with Store(db_path, read_only=True) as reader:
        assert reader.recall(keyword="SQL").total_matching == 1
        with pytest.raises(AnnealMemoryError):
            reader.record("Lunch was pasta", "context")
