from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest
from anneal_memory import (
    BatonHeldError,
    GateError,
    SaveAuthorityError,
    Store,
    WrapStatus,
    baton_status,
    claim_baton,
    prepare_wrap,
    release_baton,
    set_consolidate_policy,
    validated_save_continuity,
    wrap_cancel,
)
from anneal_memory.gate import consolidate_requires_baton
from anneal_memory.store._target import location_of
from anneal_memory.testing import FrozenClock

sys.path.insert(0, str(Path(__file__).parents[1]))

from backends import audit_entries, backend_store, pg_url, target  # noqa: F401 - fixtures


@pytest.fixture
def store(backend_store: Store) -> Store:  # noqa: F811
    """Every test here runs on SQLite and on PostgreSQL (one test body)."""
    return backend_store


TEXT = "\n".join(
    [
        "# TestAgent \u2014 Memory (v1)",
        "",
        "## State",
        "- working",
        "",
        "## Patterns",
        "",
        "## Decisions",
        "- none yet",
        "",
        "## Context",
        "- a quiet session",
        "",
    ]
)


@pytest.fixture
def gated(target: str, clock: FrozenClock):  # noqa: F811
    with Store(
        target, project_name="TestAgent", clock=clock, consolidate_requires_baton_on_create=True
    ) as opened:
        opened.record("The deploy script needs the staging flag", "observation")
        opened.record("Chose blue-green deploys for the API", "decision")
        yield opened


def _events(store: Store) -> list[str]:
    return [e["event"] for e in audit_entries(store)]


def test_stores_from_python_are_open_unless_asked(store: Store):
    assert not consolidate_requires_baton(store)
    store.record("x", "observation")
    assert prepare_wrap(store).status is WrapStatus.READY


def test_the_policy_is_set_only_when_the_store_is_created(db_path: Path, clock: FrozenClock):
    Store(db_path, clock=clock).close()
    with Store(db_path, clock=clock, consolidate_requires_baton_on_create=True) as reopened:
        assert not consolidate_requires_baton(reopened)


def test_the_policy_can_be_switched_and_is_audited(store: Store):
    assert set_consolidate_policy(store, True) is False
    assert baton_status(store).consolidate_requires_baton
    assert set_consolidate_policy(store, False) is True
    entries = audit_entries(store, "consolidate_policy_set")
    assert [e["data"] for e in entries] == [
        {"requires_baton": True, "was": False},
        {"requires_baton": False, "was": True},
    ]


def test_claim_take_and_release(gated: Store):
    assert baton_status(gated).holder is None
    assert claim_baton(gated, "alice").holder == "alice"
    assert claim_baton(gated, "alice").holder == "alice"  # idempotent
    with pytest.raises(BatonHeldError, match="--take") as caught:
        claim_baton(gated, "bob")
    assert caught.value.holder == "alice"
    status = claim_baton(gated, "bob", take=True)
    assert status.holder == "bob"
    assert status.previous_holder == "alice"
    with pytest.raises(GateError, match="held by 'bob'"):
        release_baton(gated, "alice")
    assert release_baton(gated, "bob").holder is None
    assert _events(gated)[-3:] == ["baton_claimed", "baton_taken", "baton_released"]
    assert baton_status(gated).to_dict()["baton_holder"] is None


def test_invalid_session_ids_are_refused(gated: Store):
    with pytest.raises(ValueError, match="session id"):
        claim_baton(gated, "  ")


@pytest.mark.parametrize(
    ("holder", "session", "reason"),
    [
        (None, None, "downgraded-baton-required"),
        (None, "agent-1", "downgraded-no-baton"),
        ("operator", "agent-1", "downgraded-not-baton-holder"),
    ],
)
def test_without_the_baton_a_wrap_downgrades_to_capture_only(
    gated: Store, holder: str | None, session: str | None, reason: str
):
    if holder:
        claim_baton(gated, holder)
    result = prepare_wrap(gated, session_id=session)
    assert result.status is WrapStatus.DOWNGRADED
    assert result.wrap_token is None
    assert result.episode_count == 2
    assert reason in result.message
    assert "2 episode(s)" in result.message
    name = session or "NAME"
    db = shlex.quote(location_of(gated))
    assert f"anneal-memory --db {db} baton claim {name}" in result.message
    gated.record("recording still works", "observation")
    assert baton_status(gated).episodes_since_wrap == 3
    assert "wrap_started" not in _events(gated)


def test_the_holder_wraps_and_saves(gated: Store):
    claim_baton(gated, "me")
    prepared = prepare_wrap(gated, session_id="me")
    assert prepared.status is WrapStatus.READY
    saved = validated_save_continuity(gated, TEXT, wrap_token=prepared.wrap_token, session_id="me")
    assert saved.episodes_compressed == 2


@pytest.mark.parametrize(
    ("token", "session", "needle"),
    [
        (False, "me", "carry the token"),
        (True, None, "session id"),
        (True, "other", "prepared by session 'me'"),
    ],
)
def test_a_save_must_come_from_the_preparing_holder(
    gated: Store, token: bool, session: str | None, needle: str
):
    claim_baton(gated, "me")
    prepared = prepare_wrap(gated, session_id="me")
    with pytest.raises(SaveAuthorityError, match=needle):
        validated_save_continuity(
            gated, TEXT, wrap_token=prepared.wrap_token if token else None, session_id=session
        )
    assert gated.load_continuity() is None


def test_taking_the_baton_mid_wrap_revokes_the_old_holders_save(gated: Store):
    claim_baton(gated, "laptop")
    prepared = prepare_wrap(gated, session_id="laptop")
    claim_baton(gated, "desktop", take=True)
    with pytest.raises(SaveAuthorityError, match="revoked"):
        validated_save_continuity(gated, TEXT, wrap_token=prepared.wrap_token, session_id="laptop")
    claim_baton(gated, "laptop", take=True)  # taking it back does not revive the old wrap
    with pytest.raises(SaveAuthorityError, match="revoked"):
        validated_save_continuity(gated, TEXT, wrap_token=prepared.wrap_token, session_id="laptop")
    wrap_cancel(gated, wrap_token=prepared.wrap_token, session_id="laptop")
    again = prepare_wrap(gated, session_id="laptop")
    saved = validated_save_continuity(gated, TEXT, wrap_token=again.wrap_token, session_id="laptop")
    assert saved.episodes_compressed == 2


def test_the_gate_state_lives_in_the_database(
    gated: Store,
    target: str,  # noqa: F811
    clock: FrozenClock,
):
    claim_baton(gated, "me")
    gated.close()
    with Store(target, clock=clock) as reopened:
        status = baton_status(reopened)
    assert status.consolidate_requires_baton
    assert status.holder == "me"
    assert json.loads(json.dumps(status.to_dict()))["baton_holder"] == "me"
    if not target.startswith("postgresql"):
        folder = Path(target).parent
        assert sorted(p.name for p in folder.iterdir() if "baton" in p.name) == []


def test_the_commit_transaction_rechecks_the_baton(gated: Store):
    from anneal_memory.gate import recheck_save

    claim_baton(gated, "laptop")
    prepared = prepare_wrap(gated, session_id="laptop")
    assert prepared.wrap_token is not None
    with gated.reading("test") as reader:  # still allowed
        recheck_save(reader.conn, wrap_session="laptop", open_token=prepared.wrap_token)
    claim_baton(gated, "desktop", take=True)  # as if it landed between check and commit
    with pytest.raises(SaveAuthorityError, match="revoked"), gated.reading("test") as reader:
        recheck_save(reader.conn, wrap_session="laptop", open_token=prepared.wrap_token)
