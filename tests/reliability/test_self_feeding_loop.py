"""The self-feeding loop closed: 100 sessions that re-record what they recall.

Each session asks ``context_for`` about the note, records the recalled line back as its own
observation (and a tool echoes it), and wraps with a model that promotes the note one rung,
citing every episode that holds it: the loop that made another memory keep 668 copies of
one hallucination. The copies are written (each derived from what recall showed), but they
are no new evidence: the pattern stays at its first level, the copies carry the original's
trust, and ``context_for`` gives the text one slot.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from anneal_memory import AgentMemory, Store, Trust
from anneal_memory.testing import FrozenClock

sys.path.insert(0, str(Path(__file__).parents[1]))

from backends import backend_store, pg_url, target  # noqa: F401 - fixtures

SESSIONS = 100
NOTE = "The zorblax cache doubles throughput when it is warmed before noon"
ASK = "how do we speed up the zorblax cache?"
_SHOWN = re.compile(r"^- \(([0-9a-f]{8})\) \[[a-z]+\] (.*)$")


@pytest.fixture
def store(backend_store: Store) -> Store:  # noqa: F811
    """SQLite and PostgreSQL."""
    return backend_store


def _continuity(level: int, ids: list[str]) -> str:
    line = f'- zorblax | {level}x [evidence: {", ".join(ids)} "zorblax cache doubles throughput"]'
    line += " [no-contradicts]" if level >= 2 else ""
    return (
        "# Agent \u2014 Memory (v1)\n\n## State\n- working\n\n## Patterns\n"
        f"{line}\n\n## Decisions\n- none\n\n## Context\n- a session\n"
    )


def _level(store: Store) -> int:
    found = re.search(r"^- zorblax \| (\d+)x", store.load_continuity() or "", re.M)
    assert found is not None
    return int(found.group(1))


def test_a_hundred_sessions_re_recording_their_recall(store: Store, clock: FrozenClock) -> None:
    memory = AgentMemory(store, session_id="s0")
    original = memory.record(NOTE, "observation", trust="tool")
    assert original is not None
    assert memory.wrap(lambda _p: _continuity(1, [original.id])).saved
    levels = []
    for day in range(1, SESSIONS):
        clock.advance(days=1)
        memory = AgentMemory(store, session_id=f"s{day}")
        shown = [m for line in memory.context_for(ASK).splitlines() if (m := _SHOWN.match(line))]
        assert len([m for m in shown if "zorblax" in m.group(2)]) == 1  # one slot for the text
        recalled = next(m.group(2) for m in shown if "zorblax" in m.group(2))
        copies = [memory.record(recalled, "observation")]
        copies.append(memory.record_tool_result("notes_search", recalled))
        ids = [c.id for c in copies if c is not None]
        assert len(ids) == 2
        level = _level(store) + 1  # the model promotes whatever it is shown
        outcome = memory.wrap(lambda _p, lv=level, ids=ids: _continuity(lv, ids))
        assert outcome.saved
        levels.append(_level(store))
    assert set(levels) == {1}  # never climbed
    found = store.recall(keyword="zorblax cache", limit=1000)
    assert found.total_matching == 1 + 2 * (SESSIONS - 1)  # the copies exist ...
    trusts = store.effective_trusts([e.id for e in found.episodes])
    assert set(trusts.values()) == {Trust.TOOL}  # ... with the original's trust
    block = AgentMemory(store).context_for(ASK)
    assert block.lower().count("zorblax cache doubles") == 1
