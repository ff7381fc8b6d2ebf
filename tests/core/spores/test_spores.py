"""Spores on a real store: ids, germination, ranking, surface, resolve, validation, audit.

The tests taking ``store`` run on SQLite and on PostgreSQL (``tests/backends.py``).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from anneal_memory import Store
from anneal_memory.errors import InvalidSporeError, SporeNotFoundError
from anneal_memory.spores import (
    Germination,
    add_spore,
    ascend_spore,
    delete_spore,
    descend_spore,
    get_spore,
    list_spores,
    surface_spores,
    touch_spore,
    update_spore,
)
from anneal_memory.testing import FrozenClock

sys.path.insert(0, str(Path(__file__).parents[2]))

from backends import audit_entries, pg_url, target  # noqa: F401 - fixtures


@pytest.fixture
def store(target: str, clock: FrozenClock) -> Iterator[Store]:  # noqa: F811
    with Store(target, project_name="TestAgent", clock=clock) as opened:
        yield opened


def _rows(store: Store) -> int:
    with store.reading("t") as reader:
        return int(reader.conn.execute("SELECT count(*) FROM spores").fetchone()[0])


def test_ids_are_sequential_and_never_reused(store: Store) -> None:
    a = add_spore(store, type="task", text="bump the pool size in staging")
    b = add_spore(store, type="question", text="why is p99 high?")
    assert (a.id, b.id) == ("spore-001", "spore-002")
    delete_spore(store, b.id)
    c = add_spore(store, type="thought", text="maybe shard by tenant")
    assert c.id == "spore-003"
    with pytest.raises(SporeNotFoundError, match="no spore spore-002"):
        get_spore(store, "spore-002")


def test_defaults_and_round_trip(store: Store) -> None:
    made = add_spore(store, type="task", text="  bump pool  ", domain="infra", salience=2)
    assert made.to_dict() | {"origin_key": ""} == {
        "id": "spore-001", "type": "task", "text": "bump pool", "domain": "infra",
        "tier": "warm", "salience": 2, "seen": "2026-03-02", "next": None,
        "created": "2026-03-02", "status": "open", "germination": "growing",
        "resolution": None, "pointer": "", "notes": [], "origin_key": "", "revision": 1,
        "trust": "agent",
    }  # fmt: skip
    assert len(made.origin_key) == 32
    assert get_spore(store, " spore-1 ") == made


@pytest.mark.parametrize(
    ("days", "next_day", "tier", "expected"),
    [
        (0, None, "warm", "growing"),
        (2, None, "warm", "growing"),
        (3, None, "warm", "resting"),
        (7, None, "warm", "resting"),
        (8, None, "warm", "dormant"),
        (0, "2026-03-01", "warm", "dormant"),
        (0, "2026-03-02", "warm", "dormant"),
        (0, "2026-03-09", "warm", "growing"),
        (0, None, "parked", "parked"),
    ],
)
def test_germination_is_computed_on_read(
    store: Store, clock: FrozenClock, days: int, next_day: str | None, tier: str, expected: str
) -> None:
    add_spore(store, type="thought", text="t", tier=tier, next=next_day)
    clock.advance(days=days)
    assert get_spore(store, "spore-001").germination.value == expected


def test_touch_marks_seen_and_clears_an_elapsed_next(store: Store, clock: FrozenClock) -> None:
    add_spore(store, type="task", text="a", next="2026-03-05")
    add_spore(store, type="task", text="b", next="2026-03-20")
    clock.advance(days=10)
    a = touch_spore(store, "spore-001")
    b = touch_spore(store, "spore-002")
    assert (a.seen, a.next, a.germination) == ("2026-03-12", None, Germination.GROWING)
    assert b.next == "2026-03-20"


def test_ranking_and_surface(store: Store, clock: FrozenClock) -> None:
    add_spore(store, type="task", text="cold old", tier="cold")
    clock.advance(days=10)
    add_spore(store, type="task", text="warm low", tier="warm", salience=0)
    add_spore(store, type="task", text="warm high", tier="warm", salience=3)
    add_spore(store, type="task", text="hot", tier="hot")
    add_spore(store, type="task", text="parked", tier="parked")
    order = [s.text for s in list_spores(store)]
    assert order == ["hot", "warm high", "warm low", "cold old", "parked"]
    top = [s.text for s in surface_spores(store, top_of_mind=True)]
    assert top == ["hot", "warm high", "warm low"]
    assert len(surface_spores(store)) == 5
    assert [s.text for s in list_spores(store, germination="dormant")] == ["cold old"]
    assert [s.text for s in list_spores(store, tier="parked")] == ["parked"]


def test_update_changes_only_what_is_passed(store: Store, clock: FrozenClock) -> None:
    add_spore(store, type="task", text="a", domain="infra", pointer="docs/x.md", next="2026-04-01")
    clock.advance(days=2)
    up = update_spore(store, "spore-001", next="", pointer="", add_note="asked ops", salience=3)
    assert (up.next, up.pointer, up.domain, up.salience, up.seen) == (
        None, "", "infra", 3, "2026-03-02",
    )  # fmt: skip
    up = update_spore(store, "spore-001", add_note="second")
    assert [n.render() for n in up.notes] == ["[2026-03-04] asked ops", "[2026-03-04] second"]
    with pytest.raises(InvalidSporeError, match="nothing to update"):
        update_spore(store, "spore-001")


@pytest.mark.parametrize(
    ("kind", "bad", "valid"),
    [
        ("task", "answered", "['composted', 'done', 'dropped']"),
        ("question", "done", "['answered', 'composted', 'mooted']"),
        ("thought", "answered", "['composted', 'dropped', 'explored']"),
    ],
)
def test_descend_kind_must_fit_the_type(store: Store, kind: str, bad: str, valid: str) -> None:
    add_spore(store, type=kind, text="x")
    with pytest.raises(InvalidSporeError) as raised:
        descend_spore(store, "spore-001", bad)
    assert str(raised.value) == (
        f"descend kind {bad!r} is invalid for a {kind!r} spore. Valid: {valid}."
    )
    assert get_spore(store, "spore-001").status == "open"


def test_descend_and_ascend_resolve(store: Store) -> None:
    add_spore(store, type="task", text="bump pool")
    add_spore(store, type="question", text="why p99?")
    done = descend_spore(store, "spore-001", "done")
    assert done.status == "resolved"
    assert done.resolution is not None
    assert (done.resolution.direction, done.resolution.kind) == ("descend", "done")
    with pytest.raises(InvalidSporeError, match=r"Valid: \['episode', 'pattern'\]"):
        ascend_spore(store, "spore-002", "essay", "x")
    with pytest.raises(InvalidSporeError, match="ref is empty"):
        ascend_spore(store, "spore-002", "episode", " ")
    up = ascend_spore(store, "spore-002", "episode", "0a1b2c3d")
    assert up.resolution is not None
    assert (up.resolution.direction, up.resolution.ref) == ("ascend", "0a1b2c3d")
    assert list_spores(store) == []
    assert [s.id for s in list_spores(store, status="resolved")] == ["spore-001", "spore-002"]
    for call in (
        lambda: touch_spore(store, "spore-001"),
        lambda: update_spore(store, "spore-001", tier="hot"),
        lambda: descend_spore(store, "spore-001", "dropped"),
    ):
        with pytest.raises(InvalidSporeError, match="already resolved"):
            call()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"type": "idea"}, "type 'idea' is not valid; use one of: task, question, thought"),
        ({"tier": "lukewarm"}, "tier 'lukewarm' is not valid"),
        ({"salience": 4}, "salience must be 0, 1, 2 or 3"),
        ({"salience": -1}, "salience must be"),
        ({"next": "2026-13-01"}, r"next must be a date written YYYY-MM-DD \(got '2026-13-01'\)"),
        ({"next": "tomorrow"}, "next must be a date"),
        ({"next": "2026-02-30"}, "next must be a date"),
        ({"text": ""}, "text is empty"),
        ({"text": "x" * 2001}, "limit is 2000"),
        ({"domain": "a\nb"}, "control character"),
        ({"pointer": "p" * 501}, "limit is 500"),
    ],
)
def test_bad_input_is_refused_and_nothing_is_written(
    store: Store, kwargs: dict[str, object], message: str
) -> None:
    args: dict[str, object] = {"type": "task", "text": "ok", **kwargs}
    with pytest.raises(InvalidSporeError, match=message):
        add_spore(store, **args)  # type: ignore[arg-type]
    assert _rows(store) == 0


@pytest.mark.parametrize("bad", ["001", "spore-", "spore-0", "spore-x", "", None])
def test_malformed_ids_are_refused(store: Store, bad: object) -> None:
    with pytest.raises(InvalidSporeError, match="spore id must look like spore-001"):
        get_spore(store, bad)  # type: ignore[arg-type]


def test_every_mutation_is_audited_without_text(store: Store) -> None:
    add_spore(store, type="task", text="secret plan alpha")
    touch_spore(store, "spore-001")
    update_spore(store, "spore-001", text="secret plan beta", add_note="private note")
    add_spore(store, type="thought", text="t")
    ascend_spore(store, "spore-002", "essay", "drafts/t.md")
    descend_spore(store, "spore-001", "dropped")
    delete_spore(store, "spore-002")
    entries = audit_entries(store)
    trail = json.dumps(entries)
    ops = [e["data"]["op"] for e in entries if e["event"] == "spore_changed"]
    assert ops == ["add", "touch", "update", "add", "ascend", "descend", "delete"]
    assert "secret plan" not in trail
    assert "private note" not in trail
