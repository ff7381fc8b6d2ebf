"""The wrap proposes crystallization and rewarm candidates; it never crystallizes.

The tests run on SQLite and on PostgreSQL (``tests/backends.py``).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from anneal_memory import Store, prepare_wrap
from anneal_memory.crystal import crystallize, list_crystals
from anneal_memory.testing import FrozenClock

sys.path.insert(0, str(Path(__file__).parents[2]))

from backends import pg_url, put_continuity, target  # noqa: F401 - fixtures


@pytest.fixture
def store(target: str, clock: FrozenClock) -> Iterator[Store]:  # noqa: F811
    with Store(target, project_name="TestAgent", clock=clock) as opened:
        yield opened


CONTINUITY = """# TestAgent \u2014 Memory (v1)

## State
- working on checkout

## Patterns
- pool_sizing | 3x (2026-01-10) [evidence: 0a1b2c3d "pool sized to workers"]
- fresh_rule | 2x (2026-02-28) [evidence: 0a1b2c3e "fresh and warm"]
- young_idea | 1x (2025-12-01)
- already_there | 2x (2025-12-01) [evidence: 0a1b2c3f "crystal exists"]
- retry_backoff | 2x (2026-03-01) [evidence: 0a1b2c40 "retry with backoff"]

## Decisions
- none

## Context
- none
"""


def _prepare(store: Store) -> str:
    put_continuity(store, CONTINUITY)
    store.record(
        "The nightly batch export saturated the serving database again during checkout.",
        "observation",
    )
    result = prepare_wrap(store)
    assert result.text is not None
    return result.text


def test_cold_proven_patterns_are_proposed_not_crystallized(store: Store) -> None:
    crystallize(store, "already_there", level=2, explanation="exists")
    text = _prepare(store)
    heading = "## Crystal tier proposals (for the operator; nothing crystallizes by itself)"
    assert heading in text
    text = text.split(heading, 1)[1]
    assert "- pool_sizing (3x, last 2026-01-10, 51 d cold): pool sized to workers" in text
    for absent in ("fresh_rule (", "young_idea (", "already_there (2x, last"):
        assert absent not in text
    assert [c.name for c in list_crystals(store)] == ["already_there"]


def test_crystals_whose_subject_came_back_are_rewarm_candidates(
    store: Store, clock: FrozenClock
) -> None:
    away = "Run the nightly batch export away from the serving database."
    crystallize(store, "batch_off_primary", level=2, explanation=away)
    crystallize(store, "retry_backoff", level=2, explanation="Retry with backoff.")
    crystallize(store, "unrelated_rule", level=2, explanation="Cache invalidation by tag.")
    clock.advance(days=20)
    text = _prepare(store)
    assert "Crystals whose subject came back" in text
    assert "- batch_off_primary (2x, warm): episodes " in text
    assert "- retry_backoff (2x, warm): pattern line exercised this week" not in text  # stale date
    assert "unrelated_rule" not in text
    touched = {c.name: c.last_activated_on for c in list_crystals(store)}
    assert touched["batch_off_primary"] == "2026-03-02"


def test_no_section_when_nothing_to_propose(store: Store) -> None:
    store.record("a plain first episode about nothing in particular", "observation")
    result = prepare_wrap(store)
    assert "Crystal tier proposals" not in (result.text or "")
