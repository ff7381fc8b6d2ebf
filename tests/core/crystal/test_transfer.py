"""Export and import carry crystals and spores (retired, resolved, notes and all).

The tests taking ``store`` run on SQLite and on PostgreSQL (``tests/backends.py``).
"""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from anneal_memory import ImportFormatError, Store
from anneal_memory.crystal import (
    crystallize,
    get_crystal,
    list_crystals,
    retire_crystal,
    update_crystal,
)
from anneal_memory.spores import (
    add_spore,
    delete_spore,
    descend_spore,
    get_spore,
    list_spores,
    update_spore,
)
from anneal_memory.testing import FrozenClock

sys.path.insert(0, str(Path(__file__).parents[2]))

from backends import pg_url, target  # noqa: F401 - fixtures


@pytest.fixture
def store(target: str, clock: FrozenClock) -> Iterator[Store]:  # noqa: F811
    with Store(target, project_name="TestAgent", clock=clock) as opened:
        yield opened


def _export(store: Store) -> dict:
    out = io.StringIO()
    store.export_json(out)
    return json.loads(out.getvalue())


def _fill(store: Store) -> str:
    ep = store.record("the pool stalled at ten workers", "observation")
    crystallize(store, "pool_sizing", level=3, explanation="Pool = workers.", evidence=[ep.id],
                tags=["db"])  # fmt: skip
    update_crystal(store, "pool_sizing", add_note="seen in prod")
    crystallize(store, "old_rule", level=2, explanation="Old.")
    retire_crystal(store, "old_rule", "falsified", reason="disproved")
    add_spore(store, type="task", text="bump pool", tier="hot", salience=2)
    update_spore(store, "spore-001", add_note="asked ops", next="2026-04-01")
    add_spore(store, type="question", text="why p99?")
    descend_spore(store, "spore-002", "answered")
    return ep.id


def test_round_trip_into_a_fresh_store(store: Store, tmp_path: Path, clock: FrozenClock) -> None:
    _fill(store)
    document = _export(store)
    assert [c["name"] for c in document["crystals"]] == ["old_rule", "pool_sizing"]
    assert [s["id"] for s in document["spores"]] == ["spore-001", "spore-002"]
    with Store(tmp_path / "copy.db", clock=clock) as copy:
        result = copy.import_json(document)
        assert (result.crystals_imported, result.spores_imported) == (2, 2)
        assert get_crystal(copy, "pool_sizing") == get_crystal(store, "pool_sizing")
        assert get_crystal(copy, "old_rule") == get_crystal(store, "old_rule")
        assert get_spore(copy, "spore-001") == get_spore(store, "spore-001")
        assert get_spore(copy, "spore-002") == get_spore(store, "spore-002")
        again = copy.import_json(document)
        assert (again.crystals_imported, again.spores_imported) == (0, 0)
        assert add_spore(copy, type="thought", text="t").id == "spore-003"


def test_import_keeps_local_spore_numbers(store: Store, tmp_path: Path, clock: FrozenClock) -> None:
    _fill(store)
    document = _export(store)
    with Store(tmp_path / "other.db", clock=clock) as other:
        add_spore(other, type="thought", text="a local one")
        other.import_json(document)
        assert [s.text for s in list_spores(other, status="all")][:1] == ["bump pool"]
        assert get_spore(other, "spore-001").text == "a local one"
        assert len(list_spores(other, status="all")) == 3


def test_older_exports_without_the_keys_still_import(store: Store) -> None:
    document = _export(store)
    del document["crystals"], document["spores"]
    assert store.import_json(document).crystals_imported == 0


@pytest.mark.parametrize(
    ("key", "entry"),
    [
        ("crystals", {"name": "x", "level": 1, "explanation": "e", "permanence": "timeless",
                      "activation_mode": "just-in-time", "tags": [], "notes": [],
                      "crystallized_on": "2026-01-01", "last_activated_on": "2026-01-01",
                      "updated_at": "t", "source": "", "revision": 1, "evidence": []}),
        ("crystals", {"name": 5}),
        ("spores", {"origin_key": "k", "id": "nope"}),
        ("spores", {"origin_key": "k", "id": "spore-001", "type": "task", "text": "t",
                    "domain": "", "tier": "warm", "created_at": "t", "status": "open",
                    "pointer": "", "salience": 0, "created": "2026-13-01", "notes": []}),
        ("spores", {"origin_key": "k", "id": "spore-001", "type": "task", "text": "t",
                    "domain": "", "tier": "warm", "created_at": "t", "status": "resolved",
                    "pointer": "", "salience": 0, "created": "2026-01-01", "notes": [],
                    "resolution": {"direction": "down"}}),
        ("spores", "not an object"),
    ],
)  # fmt: skip
def test_malformed_entries_are_refused_and_nothing_is_written(
    store: Store, key: str, entry: object
) -> None:
    document = _export(store)
    document[key] = [entry]
    document["episodes"] = []
    with pytest.raises(ImportFormatError):
        store.import_json(document)
    assert list_crystals(store, status="all") == []
    assert list_spores(store, status="all") == []


def test_a_sqlite_export_moves_into_postgresql(
    pg_url: str,  # noqa: F811
    tmp_path: Path,
    clock: FrozenClock,
) -> None:
    with Store(tmp_path / "laptop.db", clock=clock) as laptop:
        _fill(laptop)
        old = laptop.record("The user lives in Porto and works remotely", "observation")
        new = laptop.record(
            "The user now lives in Lisbon and works remotely", "observation", supersedes=[old.id]
        )
        document = _export(laptop)
        expected = [get_crystal(laptop, n) for n in ("old_rule", "pool_sizing")]
        spores = list_spores(laptop, status="all")
    with Store(pg_url, clock=clock) as fleet:
        result = fleet.import_json(document)
        assert (result.crystals_imported, result.spores_imported) == (2, 2)
        assert [get_crystal(fleet, n) for n in ("old_rule", "pool_sizing")] == expected
        assert list_spores(fleet, status="all") == spores
        assert fleet.get(old.id).superseded_by == new.id  # type: ignore[union-attr]
        assert [e.id for e in fleet.recall("lives remotely").episodes] == [new.id]
        # Imported numbers are taken: the next spore is numbered above them, and a deleted
        # number is never handed out again.
        assert add_spore(fleet, type="thought", text="t").id == "spore-003"
        delete_spore(fleet, "spore-003")
        assert add_spore(fleet, type="thought", text="u").id == "spore-004"
        assert fleet.verify_audit().valid
