"""AgentMemory carries the long-term tier: start() lists crystals and spores, context_for
recalls crystals. Bounded and labelled.

The tests run on SQLite and on PostgreSQL (``tests/backends.py``).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from anneal_memory import AgentMemory, Store
from anneal_memory.crystal import crystallize, retire_crystal
from anneal_memory.spores import add_spore
from anneal_memory.testing import FrozenClock

sys.path.insert(0, str(Path(__file__).parents[2]))

from backends import pg_url, target  # noqa: F401 - fixtures


@pytest.fixture
def store(target: str, clock: FrozenClock) -> Iterator[Store]:  # noqa: F811
    with Store(target, project_name="TestAgent", clock=clock) as opened:
        yield opened


POOL = "Size the connection pool to the worker count; an undersized pool throttles throughput."


def test_start_lists_the_crystal_index_and_top_of_mind_spores(store: Store) -> None:
    crystallize(store, "pool_sizing", level=3, explanation=POOL)
    add_spore(store, type="task", text="bump the pool in staging", tier="hot", salience=2)
    add_spore(store, type="thought", text="parked idea", tier="parked")
    block = AgentMemory(store).start()
    assert "## Crystallized patterns (index; recalled in full on cue)" in block
    assert "- pool_sizing: Size the connection pool" in block
    assert "## Open spores (top of mind)" in block
    assert "[spore-001] \u25b8 hot/growing !! bump the pool in staging" in block
    assert "parked idea" not in block


def test_start_stays_within_its_bound(store: Store, clock: FrozenClock) -> None:
    for i in range(200):
        crystallize(store, f"rule_{i:03d}", level=2, explanation=f"rule {i} " + "x" * 80)
        add_spore(store, type="task", text=f"task {i}", tier="hot")
    block = AgentMemory(store, startup_chars=900).start()
    assert len(block) <= 900
    assert "## Crystallized patterns" in block
    big = AgentMemory(store).start()
    assert "... and 160 more (`crystal_index` lists them)" in big
    assert "... and 193 more (`spore_surface` lists them)" in big


def test_start_is_empty_with_nothing_to_show(store: Store) -> None:
    assert AgentMemory(store).start() == ""
    crystallize(store, "gone", level=2, explanation="x")
    retire_crystal(store, "gone", "obsolete")
    assert AgentMemory(store).start() == ""


def test_context_for_includes_recalled_crystals(store: Store) -> None:
    store.record("the checkout service stalled when the pool hit ten connections", "observation")
    crystallize(store, "pool_sizing", level=3, explanation=POOL)
    block = AgentMemory(store).context_for("why is the connection pool throttling throughput?")
    assert block.startswith("Relevant memory:")
    assert "Crystallized patterns:\n- pool_sizing (3x, hot, score=" in block
    assert (
        len(AgentMemory(store, context_chars=300).context_for("connection pool throughput")) <= 300
    )


def test_context_for_shows_crystals_even_without_episodes(store: Store) -> None:
    crystallize(store, "pool_sizing", level=3, explanation=POOL)
    block = AgentMemory(store).context_for("undersized connection pool throttles throughput")
    assert block.startswith("Crystallized patterns:")
    assert AgentMemory(store).context_for("quantum gardening tips") == ""
