"""Near-duplicate collapse: the context block shows distinct memories."""

from __future__ import annotations

import re

from anneal_memory import AgentMemory, Store
from anneal_memory.agent._distinct import distinct_episodes


def _ids(block: str) -> list[str]:
    return re.findall(r"^- \(([0-9a-f]{8})\)", block, flags=re.MULTILINE)


def test_the_same_text_recorded_twice_fills_one_slot(store: Store) -> None:
    first = store.record("Deploys go through the staging cluster first.", "decision")
    again = store.record("deploys go through the  staging cluster first", "decision", source="x")
    rest = [
        store.record(f"staging note {word}", "observation").id
        for word in ("alpha", "bravo", "charlie", "delta", "echo")
    ]
    with AgentMemory(store, recall_limit=5) as memory:
        shown = _ids(memory.context_for("do deploys go through the staging cluster?"))
    assert len(shown) == 5
    assert len({first.id, again.id} & set(shown)) == 1
    assert shown[0] in {first.id, again.id}
    assert set(shown[1:]) <= set(rest)


def test_different_numbers_are_different_memories(store: Store) -> None:
    a = store.record("retry the upload 3 times then give up", "decision")
    b = store.record("retry the upload 5 times then give up", "decision")
    found = store.recall(keyword="retry upload").episodes
    assert {e.id for e in distinct_episodes(found, 5)} == {a.id, b.id}


def test_order_is_kept_and_the_limit_counts_distinct_episodes(store: Store) -> None:
    ids = [store.record(f"cache warmup step {i}", "observation").id for i in range(4)]
    store.record("cache warmup step 0", "observation")
    found = store.recall(keyword="cache warmup", limit=10).episodes
    kept = distinct_episodes(found, 3)
    assert len(kept) == 3
    assert [e.id for e in kept] == [e.id for e in found if e.id in {k.id for k in kept}]
    assert len({e.content for e in kept}) == 3
    assert set(ids) >= {e.id for e in kept} - {found[0].id}
