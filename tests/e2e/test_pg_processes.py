"""Four processes writing one PostgreSQL store at once: nothing lost, one valid audit chain."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from anneal_memory import Store

sys.path.insert(0, str(Path(__file__).parents[1]))

from backends import pg_url  # noqa: F401 - fixture

pytestmark = pytest.mark.e2e

WRITER = """
import sys
from anneal_memory import Store
url, name, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
with Store(url) as store:
    for i in range(count):
        store.record(f"{name} wrote note {i}", "observation", source=name)
"""


def test_four_processes_lose_nothing_and_keep_one_chain(pg_url: str) -> None:  # noqa: F811
    with Store(pg_url):
        pass  # the tables exist before the writers race
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, pg_url, f"w{n}", "250"]) for n in range(4)
    ]
    assert [w.wait(timeout=600) for w in writers] == [0, 0, 0, 0]
    with Store(pg_url) as store:
        everything = store.recall(limit=10_000)
        assert everything.total_matching == 1000
        ids = {e.id for e in everything.episodes}
        assert len(ids) == 1000
        for n in range(4):
            assert store.recall(source=f"w{n}").total_matching == 250
        result = store.verify_audit()
        assert (result.valid, result.total_entries) == (True, 1000)
        out = io.StringIO()
        store.export_audit(out)
        lines = [json.loads(line) for line in out.getvalue().splitlines()]
        assert [line["seq"] for line in lines] == list(range(1, 1001))
        assert {line["data"]["episode_id"] for line in lines} == ids


def test_four_processes_creating_the_tables_at_once(pg_url: str) -> None:  # noqa: F811
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, pg_url, f"w{n}", "5"]) for n in range(4)
    ]
    assert [w.wait(timeout=600) for w in writers] == [0, 0, 0, 0]
    with Store(pg_url) as store:
        assert store.recall().total_matching == 20
        assert store.verify_audit().valid


CLAIMER = """
import sys
from anneal_memory import BatonHeldError, Store, claim_baton
with Store(sys.argv[1]) as store:
    try:
        claim_baton(store, sys.argv[2])
    except BatonHeldError:
        sys.exit(3)
"""


def test_eight_hosts_claiming_the_baton_at_once_give_it_to_one(pg_url: str) -> None:  # noqa: F811
    from anneal_memory import baton_status

    with Store(pg_url, consolidate_requires_baton_on_create=True):
        pass
    claimers = [
        subprocess.Popen([sys.executable, "-c", CLAIMER, pg_url, f"host{n}"]) for n in range(8)
    ]
    codes = [c.wait(timeout=600) for c in claimers]
    assert sorted(codes) == [0] + [3] * 7
    winner = f"host{codes.index(0)}"
    with Store(pg_url) as store:
        status = baton_status(store)
        assert (status.consolidate_requires_baton, status.holder) == (True, winner)
        assert store.verify_audit().valid
        out = io.StringIO()
        store.export_audit(out)
        events = [json.loads(line)["event"] for line in out.getvalue().splitlines()]
        assert events == ["consolidate_policy_set", "baton_claimed"]
