"""crystal_recall: keyword scoring, the evidence edge, prompt-mode gates, query mode.

The tests taking ``store`` run on SQLite and on PostgreSQL (``tests/backends.py``).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from anneal_memory import Store
from anneal_memory.crystal import crystal_recall, crystallize, retire_crystal
from anneal_memory.crystal._keywords import extract_keywords, idf_weight, stem
from anneal_memory.errors import InvalidCrystalError
from anneal_memory.testing import FrozenClock

sys.path.insert(0, str(Path(__file__).parents[2]))

from backends import pg_url, target  # noqa: F401 - fixtures


@pytest.fixture
def store(target: str, clock: FrozenClock) -> Iterator[Store]:  # noqa: F811
    with Store(target, project_name="TestAgent", clock=clock) as opened:
        yield opened


POOL = "Size the connection pool to the worker count; an undersized pool throttles throughput."


@pytest.fixture
def seeded(store: Store) -> Store:
    ep = store.record(
        "Checkout latency spiked to four seconds whenever the nightly invoice export ran "
        "against the primary replica; moving it to the reporting replica fixed it.",
        "outcome",
    )
    crystallize(store, "connection_pool_sizing", level=3, explanation=POOL)
    crystallize(store, "batch_jobs_off_primary", level=2,
                explanation="Run heavy batch work away from the serving database.",
                evidence=[ep.id])  # fmt: skip
    return store


def test_keywords_prompt_and_query_modes() -> None:
    assert extract_keywords("Why is the DB pool slow in v2?") == ("pool", "slow")
    assert extract_keywords("Why is the DB pool slow in v2?", mode="query") == (
        "db", "pool", "slow", "v2",
    )  # fmt: skip
    assert len(extract_keywords(" ".join(f"word{i}x" for i in range(30)))) == 14
    assert stem("timeouts") == "timeout"
    assert stem("queries") == "query"
    assert idf_weight(0, 100) == pytest.approx(1.0)
    assert idf_weight(100, 100) == pytest.approx(0.30)


def test_keyword_hit_names_the_crystal(seeded: Store) -> None:
    found = crystal_recall(seeded, "the connection pool throttles throughput under load")
    assert [h.crystal.name for h in found.hits] == ["connection_pool_sizing"]
    hit = found.hits[0]
    assert hit.via == "keyword"
    assert {"connection", "pool", "throughput"} <= set(hit.matched)
    assert found.weighting == "length"


def test_evidence_edge_finds_a_crystal_through_its_episode(seeded: Store) -> None:
    question = "why did checkout latency spike during the nightly invoice export?"
    found = crystal_recall(seeded, question)
    assert [h.crystal.name for h in found.hits] == ["batch_jobs_off_primary"]
    assert found.hits[0].via == "evidence"
    assert found.hits[0].episodes
    assert crystal_recall(seeded, question, associative=False).hits == ()


def test_thin_prompt_returns_nothing_and_says_why(seeded: Store) -> None:
    found = crystal_recall(seeded, "pool?")
    assert found.hits == ()
    assert "query too thin" in found.reason
    assert crystal_recall(seeded, "pool", mode="query").hits[0].crystal.name == (
        "connection_pool_sizing"
    )


def test_one_shared_word_is_not_enough_in_prompt_mode(seeded: Store) -> None:
    found = crystal_recall(seeded, "the swimming pool opens tomorrow morning early")
    assert found.hits == ()
    assert found.reason


def test_retired_crystals_are_not_recalled(seeded: Store) -> None:
    retire_crystal(seeded, "connection_pool_sizing", "obsolete")
    assert crystal_recall(seeded, "connection pool throttles throughput").hits == ()


def test_max_patterns_caps_and_validates(seeded: Store) -> None:
    for i in range(5):
        crystallize(seeded, f"pool_rule_{i}", level=2,
                    explanation=f"Connection pool throughput rule number {i}.")  # fmt: skip
    found = crystal_recall(seeded, "connection pool throughput", max_patterns=2)
    assert len(found.hits) == 2
    for bad in (0, 21, True, "3"):
        with pytest.raises(InvalidCrystalError, match="max_patterns"):
            crystal_recall(seeded, "connection pool", max_patterns=bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidCrystalError, match="mode"):
        crystal_recall(seeded, "connection pool", mode="fuzzy")


def test_idf_weighting_after_fifty_episodes(seeded: Store) -> None:
    for i in range(60):
        seeded.record(f"routine note {i} about the connection settings", "observation")
    found = crystal_recall(seeded, "undersized pool throttles throughput")
    assert found.weighting == "idf"
    assert [h.crystal.name for h in found.hits] == ["connection_pool_sizing"]


def test_hostile_query_text_is_just_words(seeded: Store) -> None:
    for query in ('"pool" OR NEAR(x) *', "'; DROP TABLE crystals; --", "\x00\x1b[2J", "é" * 5000):
        crystal_recall(seeded, query)
        crystal_recall(seeded, query, mode="query")
    assert crystal_recall(seeded, "connection pool throughput").hits


def test_a_superseded_episode_is_no_evidence_seed(seeded: Store) -> None:
    question = "why did checkout latency spike during the nightly invoice export?"
    [old] = seeded.recall(keyword="nightly invoice export", limit=1).episodes
    seeded.record(
        "Checkout latency no longer spikes during the nightly invoice export: the export "
        "was rewritten to stream in small pages.",
        "outcome",
        supersedes=[old.id],
    )
    assert crystal_recall(seeded, question).hits == ()
