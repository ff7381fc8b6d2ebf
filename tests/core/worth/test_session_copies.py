"""The save asks its session's exposures: a snapshot episode that repeats what the session
was shown before it was recorded is that episode's evidence again, even without a
``derived_from`` link (a record past the look-back of ``Store.record``, another process of
the session: ``derived_from=[]`` here) (#30).

On SQLite and PostgreSQL (one test body).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from anneal_memory import AgentMemory, Store
from anneal_memory.testing import FrozenClock

sys.path.insert(0, str(Path(__file__).parents[2]))

from backends import backend_store, pg_url, target  # noqa: F401 - fixtures

NOTE = "The zorblax cache doubles throughput when it is warmed before noon"
ASK = "how do we speed up the zorblax cache?"


@pytest.fixture
def store(backend_store: Store) -> Store:  # noqa: F811
    return backend_store


def _continuity(level: int, ids: list[str], today: str) -> str:
    cited = ", ".join(ids)
    line = f'- zorblax | {level}x ({today}) [evidence: {cited} "zorblax cache doubles throughput"]'
    line += " [no-contradicts]" if level >= 2 else ""
    return (
        "# Agent \u2014 Memory (v1)\n\n## State\n- working\n\n## Patterns\n"
        f"{line}\n\n## Decisions\n- none\n\n## Context\n- a session\n"
    )


def _level(store: Store) -> int:
    found = re.search(r"^- zorblax \| (\d+)x", store.load_continuity() or "", re.M)
    assert found is not None
    return int(found.group(1))


def _today(clock: FrozenClock) -> str:
    return clock.now().date().isoformat()


def _first_wrap(store: Store, clock: FrozenClock) -> str:
    first = AgentMemory(store, session_id="s1")
    original = first.record(NOTE, "observation")
    assert original is not None
    assert first.wrap(lambda _p: _continuity(1, [original.id], _today(clock))).saved
    return original.id


def test_a_copy_recorded_past_the_session_check_is_caught_at_the_save(
    store: Store, clock: FrozenClock
) -> None:
    original = _first_wrap(store, clock)
    clock.advance(days=1)
    second = AgentMemory(store, session_id="s2")
    assert original in second.context_for(ASK)  # an exposure of session s2
    # A path that linked nothing (another process past its look-back): derived_from=[].
    copy = store.record(NOTE, "observation", derived_from=[])
    assert copy.derived_from == ()
    outcome = second.wrap(lambda _p: _continuity(2, [copy.id], _today(clock)))
    assert outcome.saved
    found = [f for f in outcome.findings if f.code.value == "recalled-copy"]
    assert [f.episode_ids for f in found] == [(copy.id, original)]
    assert _level(store) == 1


def test_an_observation_recorded_before_the_recall_is_new_evidence(
    store: Store, clock: FrozenClock
) -> None:
    _first_wrap(store, clock)
    clock.advance(days=1)
    again = store.record(NOTE, "observation")  # seen again before anything was recalled
    clock.advance(seconds=5)
    second = AgentMemory(store, session_id="s2")
    second.context_for(ASK)
    outcome = second.wrap(lambda _p: _continuity(2, [again.id], _today(clock)))
    assert outcome.saved
    assert "recalled-copy" not in [f.code.value for f in outcome.findings]
    assert _level(store) == 2


def test_another_sessions_exposure_does_not_count(store: Store, clock: FrozenClock) -> None:
    _first_wrap(store, clock)
    clock.advance(days=1)
    AgentMemory(store, session_id="someone-else").context_for(ASK)
    clock.advance(seconds=5)
    copy = store.record(NOTE, "observation", derived_from=[])
    outcome = AgentMemory(store, session_id="s2").wrap(
        lambda _p: _continuity(2, [copy.id], _today(clock))
    )
    assert outcome.saved
    assert "recalled-copy" not in [f.code.value for f in outcome.findings]
    assert _level(store) == 2
