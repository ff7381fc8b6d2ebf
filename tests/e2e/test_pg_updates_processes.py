"""Four processes updating facts in one PostgreSQL store at once: no update is lost.

Every process fills the same state key and supersedes its own previous note; concurrent
writers must still leave exactly one current episode per key and every link in place.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from anneal_memory import Store

sys.path.insert(0, str(Path(__file__).parents[1]))

from backends import pg_url  # noqa: F401 - fixture

pytestmark = pytest.mark.e2e

PROCESSES = 4
ROUNDS = 40

UPDATER = """
import sys
from anneal_memory import Store
url, name, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
with Store(url) as store:
    previous = None
    for i in range(rounds):
        store.record(f"{name} says the fleet leader is host {i}", "observation",
                     source=name, state_key="fleet.leader")
        note = store.record(
            f"{name} deployment plan for the fleet, revision {i}", "decision", source=name,
            supersedes=[previous] if previous else None,
        )
        if previous and i % 2:
            store.unsupersede(previous, note.id)
            store.supersede(previous, note.id)
        previous = note.id
"""


def test_concurrent_updates_on_postgresql_lose_nothing(pg_url: str) -> None:  # noqa: F811
    with Store(pg_url):
        pass  # the tables exist before the writers race
    writers = [
        subprocess.Popen([sys.executable, "-c", UPDATER, pg_url, f"w{n}", str(ROUNDS)])
        for n in range(PROCESSES)
    ]
    assert [w.wait(timeout=600) for w in writers] == [0] * PROCESSES
    with Store(pg_url) as store:
        every = store.recall(limit=10_000, include_superseded=True).episodes
        assert len(every) == 2 * PROCESSES * ROUNDS
        [slot] = store.state_key_report("fleet.leader")
        assert len(slot.current) == 1
        assert len(slot.replaced) == PROCESSES * ROUNDS - 1
        keyed = [e for e in every if e.state_key == "fleet.leader"]
        [current_id] = slot.current
        assert next(e for e in keyed if e.id == current_id).timestamp == max(
            e.timestamp for e in keyed
        )
        assert {e.superseded_by for e in keyed if e.id != current_id} == {current_id}
        links = store.supersession_links()
        assert len(links) == PROCESSES * (ROUNDS - 1)
        notes = [e for e in every if e.type.value == "decision"]
        current = [e for e in notes if e.superseded_by is None]
        assert len(current) == PROCESSES  # each writer's last note
        assert store.recall(limit=10_000).total_matching == 1 + PROCESSES
        result = store.verify_audit()
        links_audited = PROCESSES * (ROUNDS - 1) + PROCESSES * (ROUNDS // 2) * 2
        assert result.valid
        assert result.total_entries == len(every) + links_audited
