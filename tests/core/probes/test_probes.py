"""Drift probes on a real store (SQLite and PostgreSQL): every save checks them, never blocks."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from anneal_memory import Store, prepare_wrap, validated_save_continuity
from anneal_memory.crystal import crystallize
from anneal_memory.errors import InvalidProbeError, ProbeNotFoundError
from anneal_memory.probes import DriftStatus, add_probe, list_probes, probe_status, retire_probe
from anneal_memory.testing import FrozenClock

sys.path.insert(0, str(Path(__file__).parents[2]))

from backends import audit_entries, pg_url, target  # noqa: F401 - fixtures


@pytest.fixture
def store(target: str, clock: FrozenClock) -> Iterator[Store]:  # noqa: F811
    with Store(target, project_name="TestAgent", clock=clock) as opened:
        yield opened


def _text(patterns: list[str], decisions: str = "- keep the pool at twenty") -> str:
    return "\n".join([
        "# TestAgent \u2014 Memory (v1)", "", "## State", "- working", "",
        "## Patterns", *patterns, "", "## Decisions", decisions, "", "## Context",
        "- a quiet session", "",
    ])  # fmt: skip


def _wrap(store: Store, patterns: list[str], decisions: str = "- keep the pool at twenty"):
    store.record("The connection pool ran out of sockets under heavy load", "observation")
    prep = prepare_wrap(store)
    return validated_save_continuity(store, _text(patterns, decisions), wrap_token=prep.wrap_token)


def test_every_save_reports_each_probe(store: Store) -> None:
    pool = add_probe(store, pattern="pool_sizing", note="ops relies on it")
    fact = add_probe(store, fact="Keep the pool at twenty", section="Decisions")
    gone = add_probe(store, fact="The cache is warmed at boot")
    nowhere = add_probe(store, fact="anything", section="Runbooks")
    assert [p.id for p in list_probes(store)] == [
        "probe-001",
        "probe-002",
        "probe-003",
        "probe-004",
    ]
    first = _wrap(store, ["- pool_sizing | 1x (2026-03-02) pool sockets ran out"])
    assert first.drift["counts"] == {
        "held": 1, "changed": 0, "weakened": 1, "crystallized": 0, "lost": 1, "unchecked": 1,
    }  # fmt: skip
    assert first.drift["weakened"] == [pool.id]
    assert first.drift["lost"] == [gone.id]
    assert first.drift["unchecked"] == [nowhere.id]
    saved = audit_entries(store, "continuity_saved")[-1]["data"]
    assert saved["drift"] == first.drift
    # The fact now reads differently (most words kept): changed; the pattern went long-term.
    crystallize(store, "pool_sizing", level=3, explanation="Size the pool to the worker count")
    second = _wrap(store, [], decisions="- keep the connection pool at twenty workers")
    assert second.drift["changed"] == [fact.id]
    assert second.drift["crystallized"] == [pool.id]
    status = probe_status(store)
    assert status["counts"]["crystallized"] == 1
    assert [p["last_status"] for p in status["probes"]] == [
        "crystallized", "changed", "lost", "unchecked",
    ]  # fmt: skip
    assert status["last_wrap_id"] == second.wrap_id
    retire_probe(store, nowhere.id)
    assert nowhere.id not in [p.id for p in list_probes(store)]
    assert list_probes(store, include_retired=True)[-1].retired_at is not None
    with pytest.raises(ProbeNotFoundError):
        retire_probe(store, nowhere.id)
    ops = [e["data"]["op"] for e in audit_entries(store, "probe_changed")]
    assert ops == ["add", "add", "add", "add", "retire"]
    assert "warmed" not in str(audit_entries(store, "probe_changed"))  # fact text hashed


def test_a_held_pattern_changes_when_its_line_does(store: Store) -> None:
    probe = add_probe(store, pattern="Pool_Sizing", min_level=2)
    first = store.record("The connection pool ran out of sockets under heavy load", "observation")
    second = store.record("Doubling the pool size stopped the socket exhaustion", "outcome")
    prep = prepare_wrap(store)
    line = (
        f"- pool_sizing | 1x (2026-03-02) "
        f'[evidence: {first.id}, {second.id} "connection pool sockets ran out under load"]'
    )
    validated_save_continuity(store, _text([line]), wrap_token=prep.wrap_token)
    assert list_probes(store)[0].last_status is DriftStatus.WEAKENED
    third = store.record("The pool sockets ran out again when load tripled", "outcome")
    prep = prepare_wrap(store)
    why = '"connection pool sockets ran out under load"'
    up = f"- pool_sizing | 2x (2026-03-02) [evidence: {third.id} {why}]"
    held = validated_save_continuity(
        store, _text([up + " [no-contradicts]"]), wrap_token=prep.wrap_token
    )
    assert held.drift["counts"]["held"] == 1, held.drift
    assert probe_status(store)["validated"] == ["pool_sizing"]
    fourth = store.record("Pool sockets ran out a third time at peak load", "observation")
    prep = prepare_wrap(store)
    why = '"pool sockets ran out at peak load"'
    moved = f"- pool_sizing | 2x (2026-03-03) [evidence: {fourth.id} {why}]"
    changed = validated_save_continuity(store, _text([moved]), wrap_token=prep.wrap_token)
    assert changed.drift.get("changed") == [probe.id], changed.drift


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({}, "exactly one"),
        ({"pattern": "a", "fact": "b"}, "exactly one"),
        ({"pattern": "a", "min_level": 1}, "at least 2"),
        ({"pattern": "a", "section": "Decisions"}, "fact probe only"),
        ({"fact": "  "}, "1-500"),
        ({"fact": "two\nlines"}, "one line"),
    ],
)
def test_bad_probes_are_refused(store: Store, kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidProbeError, match=message):
        add_probe(store, **kwargs)  # type: ignore[arg-type]
    assert list_probes(store) == []


def test_no_probe_no_drift(store: Store) -> None:
    result = _wrap(store, [])
    assert result.drift == {}
    assert "drift" not in audit_entries(store, "continuity_saved")[-1]["data"]


def test_cli_probe_commands(run_cli: Any, cli_db: Path) -> None:
    run = run_cli  # the in-process CLI of tests/conftest.py
    added = run("probe", "add", "--pattern", "pool_sizing", "--min-level", "3", "--json")
    assert added.assert_ok().json()["id"] == "probe-001"
    fact = run("probe", "add", "--fact", "Keep the pool at twenty", "--section", "Decisions")
    assert "probe-002" in fact.assert_ok().out
    assert run("probe", "add", "--pattern", "x", "--fact", "y").code == 2
    assert "at least 2" in run("probe", "add", "--pattern", "x", "--min-level", "1").assert_error(1)
    listed = run("probe", "list", "--json").assert_ok().json()["probes"]
    assert [p["last_status"] for p in listed] == [None, None]
    with Store(cli_db) as store:
        result = _wrap(store, ["- pool_sizing | 1x (2026-03-02) pool sockets ran out"])
    assert result.drift["weakened"] == ["probe-001"]
    status = run("probe", "status").assert_ok().out
    assert "probe-001 weakened pattern pool_sizing (>= 3x)" in status
    assert "Validated by wrap 1" in status
    assert "Retired probe-002." in run("probe", "retire", "probe-002").assert_ok().out
    assert "not a probe id" in run("probe", "retire", "2; DROP").assert_error(1)
    assert len(run("probe", "list", "--all", "--json").json()["probes"]) == 2
