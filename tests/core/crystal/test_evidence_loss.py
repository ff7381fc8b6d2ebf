"""Deleting or pruning an episode a crystal cites says so; nothing is silently orphaned."""

from __future__ import annotations

import json

from anneal_memory import Store
from anneal_memory.crystal import crystallize, crystals_citing, get_crystal
from anneal_memory.testing import FrozenClock


def test_prune_reports_the_crystals_that_lose_evidence(store: Store, clock: FrozenClock) -> None:
    old = store.record("the pool stalled at ten workers", "observation")
    clock.advance(days=40)
    new = store.record("the pool is sized to workers now", "outcome")
    crystallize(store, "pool_sizing", level=2, explanation="Pool = workers.", evidence=[old.id])
    crystallize(store, "fresh", level=2, explanation="Fresh.", evidence=[new.id])
    result = store.prune(30)
    assert result.deleted == 1
    assert result.crystals_losing_evidence == ("pool_sizing",)
    assert get_crystal(store, "pool_sizing").evidence_missing == (old.id,)
    assert get_crystal(store, "fresh").evidence_missing == ()
    assert store.prune(30).crystals_losing_evidence == ()


def test_delete_is_audited_with_the_crystals_that_lose_evidence(store: Store) -> None:
    ep = store.record("the pool stalled at ten workers", "observation")
    crystallize(store, "pool_sizing", level=2, explanation="Pool = workers.", evidence=[ep.id])
    assert crystals_citing(store, [ep.id]) == ("pool_sizing",)
    assert crystals_citing(store, ["0badc0de"]) == ()
    assert store.delete(ep.id)
    trail = store.sidecar(".audit.jsonl").read_text(encoding="utf-8").splitlines()
    delete = next(json.loads(line) for line in trail if '"event":"delete"' in line)
    assert delete["data"]["crystals_losing_evidence"] == ["pool_sizing"]
    assert get_crystal(store, "pool_sizing").evidence == (ep.id,)
