"""Recall's second hop along the wraps' citation edges: an answer the question never names (#29)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from anneal_memory import Store, prepare_wrap, validated_save_continuity
from anneal_memory.store.recall._second_hop import Loans, link_strengths

sys.path.insert(0, str(Path(__file__).parents[2]))

from backends import backend_store, pg_url, store_on_both_backends, target  # noqa: F401

QUESTION = "why was the cache slow after the deploy?"
FIRST = "The cache warmed slowly after the deploy"
LINKED = "Grafana panel 12 shows it: p99 at 900 ms"


def _filler(store: Store, count: int = 60) -> None:
    topics = ["invoice pdf", "dashboard colour", "standup notes", "vpn port", "holiday rota"]
    for i in range(count):
        store.record(f"Note {i} on the {topics[i % len(topics)]}: item {i * 7}", "observation")


def _link(store: Store, *ids: str, quote: str) -> None:
    """One wrap whose validated citation line co-cites ``ids``."""
    prepare_wrap(store)
    evidence = f'[evidence: {", ".join(ids)} "{quote}"]'
    validated_save_continuity(
        store,
        f"## State\n## Patterns\n- cold_cache | 2x (2026-03-02) {evidence}\n"
        "## Decisions\n## Context\n",
    )


def test_a_citation_edge_lifts_an_episode_sharing_no_word(store: Store) -> None:
    _filler(store)
    first = store.record(FIRST, "observation")
    linked = store.record(LINKED, "outcome")
    assert linked.id not in {e.id for e in store.recall(QUESTION, limit=5).episodes}
    _link(store, first.id, linked.id, quote="cache warmed slowly, Grafana panel p99 at 900 ms")
    found = store.recall(QUESTION, limit=5)
    assert [e.id for e in found.episodes][:2] == [first.id, linked.id]
    assert found.total_matching == 2  # the lifted episode is counted with the matches


def test_an_unvalidated_citation_links_nothing(store: Store) -> None:
    _filler(store)
    first = store.record(FIRST, "observation")
    linked = store.record(LINKED, "outcome")
    _link(store, first.id, linked.id, quote="cache warmed slowly")  # not grounded in LINKED
    assert linked.id not in {e.id for e in store.recall(QUESTION, limit=5).episodes}


def test_the_hop_keeps_the_filters_and_forgets_what_is_gone(store: Store) -> None:
    _filler(store)
    first = store.record(FIRST, "observation")
    linked = store.record(LINKED, "outcome")
    _link(store, first.id, linked.id, quote="cache warmed slowly, Grafana panel p99 at 900 ms")
    typed = store.recall(QUESTION, episode_type="observation").episodes
    assert linked.id not in {e.id for e in typed}
    store.record("Grafana panel 12 now shows p99 at 120 ms", "outcome", supersedes=[linked.id])
    assert linked.id not in {e.id for e in store.recall(QUESTION, limit=10).episodes}
    assert store.delete(first.id)
    assert store.recall(QUESTION, limit=10).total_matching == 0


def test_a_single_word_keyword_ranks_as_fts5_alone(store: Store) -> None:
    first = store.record(FIRST, "observation")
    linked = store.record(LINKED, "outcome")
    _link(store, first.id, linked.id, quote="cache warmed slowly, Grafana panel p99 at 900 ms")
    assert [e.id for e in store.recall("cache").episodes] == [first.id]


def test_link_strengths_decay_and_cap() -> None:
    rows = [("a", "b", 3.0, 1), ("c", "a", 0.5, 1), ("b", "d", 9.0, 1)]
    assert link_strengths(rows, ["a"], save_no=1) == {("a", "b"): 1.0, ("a", "c"): 0.5}
    assert link_strengths(rows, ["a"], save_no=3)[("a", "c")] == pytest.approx(0.5 * 0.81)
    assert link_strengths(rows, ["a", "b"], save_no=1) == {("a", "c"): 0.5, ("b", "d"): 1.0}


@pytest.mark.parametrize("own", [0.0, -1.0, -9.0])
def test_a_loan_never_lifts_past_its_lender(own: float) -> None:
    loans = Loans()
    loans.lend(7, -50.0, -10.0)
    lifted = loans.applied({7: own} if own else {})[7]
    assert -10.0 < lifted <= own
