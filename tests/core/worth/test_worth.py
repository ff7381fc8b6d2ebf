"""Exposures, outcomes and the worth report on a real store (SQLite and PostgreSQL).

The tests taking ``store`` run on both backends (``tests/backends.py``).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from anneal_memory import AgentMemory, Store
from anneal_memory.crystal import crystallize
from anneal_memory.errors import ExposureNotFoundError, InvalidOutcomeError
from anneal_memory.testing import FrozenClock
from anneal_memory.worth import (
    Label,
    Result,
    get_exposure,
    get_outcome,
    prune_exposures,
    record_exposure,
    record_outcome,
    worth_report,
)

sys.path.insert(0, str(Path(__file__).parents[2]))

from backends import audit_entries, pg_url, target  # noqa: F401 - fixtures


@pytest.fixture
def store(target: str, clock: FrozenClock) -> Iterator[Store]:  # noqa: F811
    with Store(target, project_name="TestAgent", clock=clock) as opened:
        yield opened


def _row(store: Store, kind: str, ref: str) -> dict[str, object]:
    rows = [r.to_dict() for r in worth_report(store) if r.kind.value == kind and r.ref == ref]
    assert len(rows) == 1, rows
    return rows[0]


def test_exposure_round_trip_and_merged_outcomes(store: Store) -> None:
    ep = store.record("The staging deploy uses blue green switching", "decision")
    ident = record_exposure(store, "test", [f"e:{ep.id}", "c:deploys", f"e:{ep.id}"], scope="")
    assert ident is not None
    assert ident.startswith("x")
    assert len(ident) == 13
    shown = get_exposure(store, ident)
    assert shown.items == (f"e:{ep.id}", "c:deploys")
    assert shown.via == "test"
    assert get_outcome(store, ident) is None

    first = record_outcome(store, ident, result="failure", items={f"episode:{ep.id}": "followed"})
    assert first.result is Result.FAILURE
    assert first.revision == 1
    # A later outcome merges: a new label is added, unknown keeps the known result.
    second = record_outcome(store, ident, items={"crystal:deploys": "ignored"}, note="why")
    assert second.result is Result.FAILURE
    assert second.revision == 2
    assert second.note == "why"
    assert second.labels == {f"e:{ep.id}": Label.FOLLOWED, "c:deploys": Label.IGNORED}
    # A known result replaces the earlier one, a relabel replaces that item's label.
    third = record_outcome(store, ident, result="success", items={f"e:{ep.id}": "n/a"})
    assert third.result is Result.SUCCESS
    assert third.labels[f"e:{ep.id}"] is Label.NOT_APPLICABLE
    assert get_outcome(store, ident) == third

    row = _row(store, "crystal", "deploys")
    assert (row["surfaced"], row["ignored"], row["ignored_success"]) == (1, 1, 1)
    row = _row(store, "episode", ep.id)
    assert (row["surfaced"], row["not_applicable"], row["followed"]) == (1, 1, 0)
    assert row["followed_success"] == row["unlabelled_success"] == 0

    entries = audit_entries(store, "outcome_recorded")
    assert [e["data"]["revision"] for e in entries] == [1, 2, 3]
    assert entries[1]["data"]["labelled"] == {"ignored": 1}
    assert "why" not in str(entries[1])
    assert entries[1]["data"]["text_hash"].startswith("hmac")


def test_worth_counts_and_sorting(store: Store) -> None:
    a, b = "e:aaaaaaaa", "e:bbbbbbbb"
    for result, label in (("success", "followed"), ("failure", "followed"), (None, None)):
        ident = record_exposure(store, "test", [a, b])
        assert ident is not None
        if label is not None:
            record_outcome(store, ident, result=result, items={a: label, b: "ignored"})
    row = _row(store, "episode", "aaaaaaaa")
    assert row == {
        "kind": "episode", "ref": "aaaaaaaa", "surfaced": 3, "followed": 2, "ignored": 0,
        "not_applicable": 0, "unlabelled": 1, "followed_success": 1, "followed_failure": 1,
        "ignored_success": 0, "ignored_failure": 0, "unlabelled_success": 0,
        "unlabelled_failure": 0,
    }  # fmt: skip
    assert _row(store, "episode", "bbbbbbbb")["ignored_failure"] == 1
    record_exposure(store, "test", ["c:zeta"])
    assert next(r.ref for r in worth_report(store, sort="followed")) == "aaaaaaaa"
    assert [r.ref for r in worth_report(store, sort="ref")] == ["aaaaaaaa", "bbbbbbbb", "zeta"]
    assert [r.ref for r in worth_report(store, kinds=["crystal"])] == ["zeta"]
    assert len(worth_report(store, limit=1)) == 1


def test_bad_outcomes_are_refused_and_write_nothing(store: Store) -> None:
    ident = record_exposure(store, "test", ["e:aaaaaaaa"])
    assert ident is not None
    with pytest.raises(InvalidOutcomeError, match="did not show 'episode:cccccccc'"):
        record_outcome(store, ident, items={"episode:cccccccc": "followed"})
    with pytest.raises(InvalidOutcomeError, match="not one of followed"):
        record_outcome(store, ident, items={"e:aaaaaaaa": "liked"})
    with pytest.raises(InvalidOutcomeError, match="not one of success"):
        record_outcome(store, ident, result="great")
    with pytest.raises(InvalidOutcomeError, match="unknown kind"):
        record_outcome(store, ident, items={"spore:1": "followed"})
    with pytest.raises(InvalidOutcomeError, match="not an exposure id"):
        record_outcome(store, "x'; DROP TABLE exposures; --", result="success")
    with pytest.raises(ExposureNotFoundError, match="no exposure x000000000000"):
        record_outcome(store, "x000000000000", result="success")
    with pytest.raises(InvalidOutcomeError, match="sort"):
        worth_report(store, sort="bogus")
    assert get_outcome(store, ident) is None
    assert audit_entries(store, "outcome_recorded") == []
    assert record_exposure(store, "test", []) is None


def test_retention_folds_pruned_exposures_into_the_totals(store: Store, clock: FrozenClock) -> None:
    old = record_exposure(store, "test", ["e:aaaaaaaa"])
    assert old is not None
    record_outcome(store, old, result="success", items={"e:aaaaaaaa": "followed"})
    clock.advance(days=100)
    fresh = record_exposure(store, "test", ["e:aaaaaaaa"])
    assert fresh is not None
    before = _row(store, "episode", "aaaaaaaa")
    assert prune_exposures(store) == 1  # 90 days by default: only the old one
    with pytest.raises(ExposureNotFoundError):
        get_exposure(store, old)
    assert _row(store, "episode", "aaaaaaaa") == before  # counts survive the prune
    assert prune_exposures(store, keep=0) == 1  # the count bound takes the rest
    assert _row(store, "episode", "aaaaaaaa")["surfaced"] == 2
    assert prune_exposures(store) == 0
    pruned = audit_entries(store, "exposures_pruned")
    assert [e["data"]["count"] for e in pruned] == [1, 1]
    with pytest.raises(InvalidOutcomeError):
        prune_exposures(store, keep=-1)


def test_agent_memory_exposes_what_its_blocks_show(store: Store) -> None:
    ep = store.record(
        "Deploys to staging use the blue green switch before traffic moves", "decision"
    )
    crystallize(
        store, "blue-green-deploys", level=3,
        explanation="Staging deploys switch blue green before moving traffic",
        evidence=[ep.id],
    )  # fmt: skip
    memory = AgentMemory(store, session_id="s1")
    assert memory.last_exposure is None
    block = memory.context_for("how do staging deploys switch blue green traffic?")
    assert ep.id in block
    first = memory.last_exposure
    assert first is not None
    items = get_exposure(store, first).items
    assert f"e:{ep.id}" in items
    assert "c:blue-green-deploys" in items
    assert get_exposure(store, first).via == "context_for"
    assert get_exposure(store, first).session_id == "s1"
    memory.start()
    started = memory.last_exposure
    assert started != first
    assert get_exposure(store, started or "").items == ("c:blue-green-deploys",)
    # Nothing shown, no exposure.
    memory.context_for("zebra")
    assert memory.last_exposure == started
    # The run's outcome labels every exposure of this object that has none yet.
    done = memory.outcome("failure", items={"crystal:blue-green-deploys": "followed"})
    assert {o.exposure_id for o in done} == {first, started}
    assert all(o.result is Result.FAILURE for o in done)
    assert memory.outcome("success") == ()  # nothing pending any more
    row = _row(store, "crystal", "blue-green-deploys")
    assert (row["surfaced"], row["followed_failure"]) == (2, 2)
    # One named exposure; a bad label raises even though failures are absorbed.
    assert memory.outcome("success", exposure=first)[0].result is Result.SUCCESS
    with pytest.raises(InvalidOutcomeError):
        memory.outcome("success", exposure=first, items={"e:zz": "meh"})
    with pytest.raises(ExposureNotFoundError):
        memory.outcome("success", exposure="x000000000000")


def test_turn_context_is_one_exposure_per_turn(store: Store) -> None:
    ep = store.record("The billing service retries webhooks three times", "observation")
    memory = AgentMemory(store)
    memory.turn_context("billing webhooks retries", turn=1)
    first = memory.last_exposure
    assert first is not None
    assert get_exposure(store, first).via == "turn_context"
    assert get_exposure(store, first).items == (f"e:{ep.id}",)
    memory.turn_context("billing webhooks retries", turn=1)  # cached: the same exposure
    assert memory.last_exposure == first


def test_the_run_outcome_leaves_exposures_already_reported_alone(store: Store) -> None:
    store.record("The billing service retries webhooks three times", "observation")
    memory = AgentMemory(store)
    memory.context_for("billing webhooks retries")
    named = memory.last_exposure
    assert named is not None
    memory.outcome("success", exposure=named)
    memory.context_for("billing service webhooks")
    later = memory.last_exposure
    done = memory.outcome("failure")
    assert [o.exposure_id for o in done] == [later]
    assert get_outcome(store, named).result is Result.SUCCESS  # type: ignore[union-attr]


def test_agent_memory_hands_the_prune_to_its_writer_thread(
    store: Store, clock: FrozenClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    from anneal_memory.worth import _exposures

    old = record_exposure(store, "test", ["e:aaaaaaaa"])
    assert old is not None
    clock.advance(days=100)
    monkeypatch.setattr(_exposures, "PRUNE_EVERY", 1)
    store.record("The billing service retries webhooks three times", "observation")
    memory = AgentMemory(store)
    memory.context_for("billing webhooks retries")
    assert memory.offloop.drain(30)
    with pytest.raises(ExposureNotFoundError):
        get_exposure(store, old)
    assert get_exposure(store, memory.last_exposure or "").via == "context_for"
    assert [e["data"]["count"] for e in audit_entries(store, "exposures_pruned")] == [1]
