"""Recall's second hop: an episode the question never names, reached from the first (#29)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from anneal_memory import Store, prepare_wrap, validated_save_continuity
from anneal_memory.store.recall._second_hop import HOP_MAX_SHARE, Loans, rarest, shared_words

sys.path.insert(0, str(Path(__file__).parents[2]))

from backends import backend_store, pg_url, store_on_both_backends, target  # noqa: F401

QUESTION = "how did we fix the flaky checkout test?"
VIA = "The flaky checkout test fails because Redis evicts session keys under memory pressure."
FIX = "Set maxmemory-policy to volatile-lru on the Redis cluster; session key evictions stopped."


def _filler(store: Store, count: int = 100) -> None:
    topics = ["invoice pdf", "dashboard colour", "standup notes", "vpn port", "holiday rota"]
    for i in range(count):
        store.record(f"Note {i} on the {topics[i % len(topics)]}: item {i * 7}", "observation")


def test_the_answer_is_reached_through_the_first_evidence(store: Store) -> None:
    _filler(store)
    via = store.record(VIA, "observation")
    _filler(store, 20)
    fix = store.record(FIX, "outcome")
    found = [e.id for e in store.recall(QUESTION, limit=5).episodes]
    assert found[0] == via.id
    assert fix.id in found
    # The fix holds none of the question's words: it is counted as a hop result.
    assert store.recall(QUESTION).total_matching >= 2


def test_a_small_store_has_no_word_rare_enough_to_hop(store: Store) -> None:
    store.record(VIA, "observation")
    store.record(FIX, "outcome")
    store.record("Connection refused by the Redis proxy", "observation")
    found = store.recall(QUESTION).episodes
    assert [e.content for e in found] == [VIA]


def test_the_hop_keeps_the_filters(store: Store) -> None:
    _filler(store)
    store.record(VIA, "observation")
    fix = store.record(FIX, "outcome")
    kept = store.recall(QUESTION, episode_type="observation").episodes
    assert fix.id not in {e.id for e in kept}
    assert store.recall(QUESTION, source="nobody").total_matching == 0


def test_a_replaced_or_deleted_answer_is_not_lifted(store: Store) -> None:
    _filler(store)
    store.record(VIA, "observation")
    fix = store.record(FIX, "outcome")
    newer = store.record(
        "Redis session key evictions came back; volatile-lru was reverted.",
        "outcome",
        supersedes=[fix.id],
    )
    found = {e.id for e in store.recall(QUESTION, limit=10).episodes}
    assert fix.id not in found
    assert newer.id in found
    store.delete(newer.id)
    assert newer.id not in {e.id for e in store.recall(QUESTION, limit=10).episodes}


def test_a_citation_edge_lifts_an_episode_sharing_no_word(store: Store) -> None:
    _filler(store)
    first = store.record("The cache warmed slowly after the deploy", "observation")
    linked = store.record("Grafana panel 12 shows it: p99 at 900 ms", "outcome")
    question = "why was the cache slow after the deploy?"
    assert linked.id not in {e.id for e in store.recall(question, limit=5).episodes}
    prepare_wrap(store)
    evidence = (
        f'[evidence: {first.id}, {linked.id} "cache warmed slowly, Grafana panel p99 at 900 ms"]'
    )
    validated_save_continuity(
        store,
        f"## State\n## Patterns\n- cold_cache_after_deploy | 2x (2026-03-02) {evidence}\n"
        "## Decisions\n## Context\n",
    )
    found = [e.id for e in store.recall(question, limit=5).episodes]
    assert found[0] == first.id
    assert linked.id in found


def test_shared_words_leave_out_the_question_and_function_words() -> None:
    texts = ["Redis evicts session keys", "session keys of Redis", "the the the"]
    assert shared_words(texts, {"redis"}) == ["session", "keys"]


def test_only_words_rare_enough_lead_anywhere() -> None:
    counts = {"rare": 2, "lonely": 1, "common": 300, "mid": 40}
    assert rarest(counts, counts, 4, episodes=1_000) == ["rare", "mid"]
    assert rarest(counts, counts, 4, episodes=int(40 / HOP_MAX_SHARE)) == ["rare", "mid"]
    assert rarest(counts, counts, 4, episodes=20) == []


@pytest.mark.parametrize("own", [0.0, -1.0, -9.0])
def test_a_loan_never_lifts_past_its_lender(own: float) -> None:
    loans = Loans()
    loans.lend(7, -50.0, -10.0)
    lifted = loans.applied({7: own} if own else {})[7]
    assert -10.0 < lifted <= own
