"""Deleting or pruning an episode a crystal cites says so; nothing is silently orphaned.

The tests taking ``store`` run on SQLite and on PostgreSQL (``tests/backends.py``).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from anneal_memory import Store
from anneal_memory.crystal import crystallize, crystals_citing, get_crystal
from anneal_memory.testing import FrozenClock

sys.path.insert(0, str(Path(__file__).parents[2]))

from backends import audit_entries, pg_url, target  # noqa: F401 - fixtures


@pytest.fixture
def store(target: str, clock: FrozenClock) -> Iterator[Store]:  # noqa: F811
    with Store(target, project_name="TestAgent", clock=clock) as opened:
        yield opened


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
    delete = next(e for e in audit_entries(store) if e["event"] == "delete")
    assert delete["data"]["crystals_losing_evidence"] == ["pool_sizing"]
    assert get_crystal(store, "pool_sizing").evidence == (ep.id,)
