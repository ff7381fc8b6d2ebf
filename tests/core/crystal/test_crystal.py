"""Crystal operations on a real store: validation, upsert, CAS, retirement, index, audit.

The tests taking ``store`` run on SQLite and on PostgreSQL (``tests/backends.py``).
"""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from anneal_memory import Store
from anneal_memory.crystal import (
    ActivationTier,
    crystal_index,
    crystallize,
    get_crystal,
    list_crystals,
    retire_crystal,
    touch_crystal,
    update_crystal,
)
from anneal_memory.errors import (
    CrystalNotFoundError,
    InvalidCrystalError,
    RevisionConflictError,
)
from anneal_memory.store.sqlite._schema import SCHEMA_VERSION
from anneal_memory.testing import FrozenClock

sys.path.insert(0, str(Path(__file__).parents[2]))

from backends import audit_entries, pg_url, target  # noqa: F401 - fixtures


@pytest.fixture
def store(target: str, clock: FrozenClock) -> Iterator[Store]:  # noqa: F811
    with Store(target, project_name="TestAgent", clock=clock) as opened:
        yield opened


POOL = "Size the connection pool to the worker count; an undersized pool throttles throughput."


def _count(store: Store) -> int:
    with store.reading("t") as reader:
        return int(reader.conn.execute("SELECT count(*) FROM crystals").fetchone()[0])


def test_crystallize_and_get_round_trip(store: Store) -> None:
    ep = store.record("connection pool exhausted at ten workers", "observation")
    made = crystallize(
        store, "pool_sizing", level=3, explanation=POOL, evidence=[ep.id.upper()], tags=["db"]
    )
    assert made.evidence == (ep.id,)
    assert made.crystallized_on == made.last_activated_on == "2026-03-02"
    assert made.activation is ActivationTier.HOT
    assert made.revision == 1
    again = get_crystal(store, "pool_sizing")
    assert again == made
    assert again.to_dict()["status"] == "crystallized"


def test_tables_come_from_one_migration(db_path: Path) -> None:
    store = Store(db_path)
    with store.reading("t") as reader:
        tables = {
            r[0] for r in reader.conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
        }
        assert {"crystals", "crystal_evidence", "spores", "spore_notes"} <= tables
        assert reader.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    ep = store.record("evidence", "observation")
    crystallize(store, "pool_sizing", level=2, explanation=POOL, evidence=[ep.id])
    with store.reading("t") as reader:
        assert reader.conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    store.close()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"level": 1}, "level must be 2 or more"),
        ({"level": 0}, "level must be 2 or more"),
        ({"level": True}, "integer"),
        ({"level": "3"}, "integer"),
        ({"explanation": "  "}, "explanation is empty"),
        ({"explanation": "x" * 4001}, "limit is 4000"),
        ({"explanation": "bad \x1b[31m escape"}, "control character"),
        ({"evidence": ["nothex!!"]}, "not an episode id"),
        ({"evidence": "0a1b2c3d"}, "not one string"),
        ({"evidence": ["0a1b2c3d"]}, "do not exist"),
        ({"permanence": "forever"}, "timeless, phase-specific"),
        ({"activation_mode": "sometimes"}, "just-in-time, catastrophic"),
        ({"tags": ["ok", "not ok"]}, "tag must be"),
        ({"tags": [f"t{i}" for i in range(17)]}, "limit is 16"),
        ({"source": "two\nlines"}, "control character"),
    ],
)
def test_bad_input_is_refused_and_nothing_is_written(
    store: Store, kwargs: dict[str, object], message: str
) -> None:
    args: dict[str, object] = {"level": 2, "explanation": POOL, **kwargs}
    with pytest.raises(InvalidCrystalError, match=message):
        crystallize(store, "pool_sizing", **args)  # type: ignore[arg-type]
    assert _count(store) == 0


@pytest.mark.parametrize("name", ["", "has space", "-leading", "x" * 81, "semi;colon", None])
def test_bad_names_are_refused(store: Store, name: object) -> None:
    with pytest.raises(InvalidCrystalError, match="crystal name must be"):
        crystallize(store, name, level=2, explanation=POOL)  # type: ignore[arg-type]
    assert _count(store) == 0


def test_upsert_by_name_merges_evidence_and_reheats(store: Store, clock: FrozenClock) -> None:
    a = store.record("pool exhausted at ten workers", "observation")
    b = store.record("pool sized to workers fixed the stall", "outcome")
    crystallize(store, "pool_sizing", level=2, explanation=POOL, evidence=[a.id])
    clock.advance(days=40)
    assert get_crystal(store, "pool_sizing").activation is ActivationTier.COLD
    again = crystallize(
        store, "pool_sizing", level=4, explanation="Pool = workers.", evidence=[b.id]
    )
    assert (again.level, again.explanation, again.evidence) == (4, "Pool = workers.", (a.id, b.id))
    assert again.activation is ActivationTier.HOT
    assert again.revision == 2
    assert _count(store) == 1


@pytest.mark.parametrize(
    ("days", "tier"),
    [
        (0, "hot"),
        (6, "hot"),
        (7, "warm"),
        (30, "warm"),
        (31, "cold"),
        (90, "cold"),
        (91, "dormant"),
    ],
)
def test_activation_tier_is_computed_on_read(
    store: Store, clock: FrozenClock, days: int, tier: str
) -> None:
    crystallize(store, "pool_sizing", level=2, explanation=POOL)
    clock.advance(days=days)
    assert get_crystal(store, "pool_sizing").activation.value == tier
    touch_crystal(store, "pool_sizing")
    assert get_crystal(store, "pool_sizing").activation is ActivationTier.HOT


def test_update_is_compare_and_set_on_the_revision(store: Store) -> None:
    crystallize(store, "pool_sizing", level=2, explanation=POOL)
    first = update_crystal(store, "pool_sizing", expect_revision=1, level=3, add_note="seen twice")
    assert (first.level, first.revision) == (3, 2)
    assert first.notes == ("[2026-03-02] seen twice",)
    with pytest.raises(RevisionConflictError, match="revision 2, not 1") as raised:
        update_crystal(store, "pool_sizing", expect_revision=1, level=5)
    assert raised.value.current == 2
    assert get_crystal(store, "pool_sizing").level == 3
    with pytest.raises(InvalidCrystalError, match="nothing to update"):
        update_crystal(store, "pool_sizing")
    with pytest.raises(InvalidCrystalError, match="level must be 2"):
        update_crystal(store, "pool_sizing", level=1)


def test_unknown_names_raise_not_found(store: Store) -> None:
    for call in (
        lambda: get_crystal(store, "nope"),
        lambda: touch_crystal(store, "nope"),
        lambda: update_crystal(store, "nope", level=3),
        lambda: retire_crystal(store, "nope", "obsolete"),
    ):
        with pytest.raises(CrystalNotFoundError, match="no crystal named 'nope'"):
            call()


def test_retire_keeps_and_lists_the_crystal(store: Store) -> None:
    crystallize(store, "pool_sizing", level=2, explanation=POOL)
    crystallize(store, "retry_backoff", level=2, explanation="Retry with backoff.")
    with pytest.raises(InvalidCrystalError, match="falsified, superseded, merged, obsolete"):
        retire_crystal(store, "pool_sizing", "wrong")
    retired = retire_crystal(store, "pool_sizing", "falsified", reason="load test disproved it")
    assert retired.retirement is not None
    assert retired.retirement.reason == "load test disproved it"
    assert [c.name for c in list_crystals(store)] == ["retry_backoff"]
    assert [c.name for c in list_crystals(store, status="retired")] == ["pool_sizing"]
    assert len(list_crystals(store, status="all")) == 2
    assert [line.name for line in crystal_index(store)] == ["retry_backoff"]
    for call in (
        lambda: retire_crystal(store, "pool_sizing", "obsolete"),
        lambda: touch_crystal(store, "pool_sizing"),
        lambda: crystallize(store, "pool_sizing", level=3, explanation=POOL),
    ):
        with pytest.raises(InvalidCrystalError, match="was retired"):
            call()


def test_list_filters(store: Store, clock: FrozenClock) -> None:
    crystallize(store, "old_one", level=2, explanation="Old.", permanence="phase-specific")
    clock.advance(days=10)
    crystallize(store, "new_one", level=2, explanation="New.", tags=["ops"],
                activation_mode="catastrophic")  # fmt: skip
    assert [c.name for c in list_crystals(store, activation="warm")] == ["old_one"]
    assert [c.name for c in list_crystals(store, tag="ops")] == ["new_one"]
    assert [c.name for c in list_crystals(store, permanence="phase-specific")] == ["old_one"]
    assert [c.name for c in list_crystals(store, activation_mode="catastrophic")] == ["new_one"]
    with pytest.raises(InvalidCrystalError, match="activation 'lukewarm'"):
        list_crystals(store, activation="lukewarm")


def test_index_is_sorted_with_first_clauses(store: Store) -> None:
    crystallize(store, "zeta", level=2, explanation="Last one.\nSecond line ignored.")
    crystallize(store, "alpha", level=2, explanation="word " * 40)
    lines = crystal_index(store)
    assert [line.name for line in lines] == ["alpha", "zeta"]
    assert lines[1].clause == "Last one."
    assert len(lines[0].clause) <= 88
    assert lines[0].clause.endswith("\u2026")


def test_deleted_evidence_is_reported_missing(store: Store) -> None:
    ep = store.record("connection pool exhausted at ten workers", "observation")
    crystallize(store, "pool_sizing", level=2, explanation=POOL, evidence=[ep.id])
    store.delete(ep.id)
    found = get_crystal(store, "pool_sizing")
    assert found.evidence == (ep.id,)
    assert found.evidence_missing == (ep.id,)


def test_every_mutation_is_audited_without_text(store: Store) -> None:
    crystallize(store, "pool_sizing", level=2, explanation=POOL)
    touch_crystal(store, "pool_sizing")
    update_crystal(store, "pool_sizing", explanation="Pool equals workers, always.")
    retire_crystal(store, "pool_sizing", "obsolete", reason="secret reason text")
    entries = audit_entries(store)
    trail = json.dumps(entries)
    ops = [e["data"]["op"] for e in entries if e["event"] == "crystal_changed"]
    assert ops == ["crystallize", "touch", "update", "retire"]
    assert "throttles" not in trail
    assert "secret reason" not in trail
    assert "always" not in trail
    assert any("content_hash" in e["data"] for e in entries if e["event"] == "crystal_changed")


def test_a_failed_write_leaves_nothing(store: Store) -> None:
    ep = store.record("pool exhausted", "observation")
    crystallize(store, "pool_sizing", level=2, explanation=POOL, evidence=[ep.id])
    with pytest.raises(InvalidCrystalError, match="do not exist"):
        update_crystal(store, "pool_sizing", evidence=["0badc0de"], level=5)
    found = get_crystal(store, "pool_sizing")
    assert (found.level, found.evidence, found.revision) == (2, (ep.id,), 1)


def test_schema_refuses_level_one_even_in_raw_sql(db_path: Path) -> None:
    Store(db_path).close()
    raw = sqlite3.connect(db_path)  # any connection to the file, not the library's
    try:
        with pytest.raises(sqlite3.IntegrityError):
            raw.execute(
                "INSERT INTO crystals VALUES ('x', 1, 'e', 'timeless', 'just-in-time', '[]',"
                " '2026-01-01', '2026-01-01', '', '[]', 1, 'now', NULL, NULL, NULL, NULL)"
            )
    finally:
        raw.close()


def test_dates_use_the_stores_clock_in_utc(target: str) -> None:  # noqa: F811
    late = FrozenClock(dt.datetime(2026, 3, 2, 23, 59, tzinfo=dt.timezone(dt.timedelta(hours=-5))))
    with Store(target, clock=late) as s:
        assert crystallize(s, "x", level=2, explanation="e").crystallized_on == "2026-03-03"
