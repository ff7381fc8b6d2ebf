"""The open wrap's lease: a crashed or expired wrap is reclaimed by the next prepare."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import pytest
from anneal_memory import (
    AgentMemory,
    Store,
    claim_baton,
    prepare_wrap,
    validated_save_continuity,
)
from anneal_memory.continuity import wrap_status
from anneal_memory.continuity._lease import WRAP_LEASE_SECONDS
from anneal_memory.errors import (
    ContinuityRejectedError,
    WrapInProgressError,
    WrapTokenMismatchError,
)
from anneal_memory.testing import FrozenClock
from backends import audit_entries
from test_save import build_text


def _cancels(store: Store) -> list[dict]:
    return [e["data"] for e in audit_entries(store, "wrap_cancelled")]


def _hand_to(store: Store, pid: int, start: str | None = None) -> None:
    """Make the open wrap look prepared by process ``pid`` of this host."""
    with store.writing("test") as tx:
        tx.conn.execute(
            "UPDATE wraps SET owner_pid = ?, owner_start = ? WHERE status = 'open'", (pid, start)
        )


def test_the_open_wrap_records_its_process_and_lease(store: Store) -> None:
    store.record("something", "observation")
    prep = prepare_wrap(store)
    wrap = wrap_status(store)
    assert wrap is not None
    assert wrap.owner_pid == os.getpid()
    assert wrap.owner_host
    started = dt.datetime.fromisoformat(wrap.started_at.replace("Z", "+00:00"))
    ends = dt.datetime.fromisoformat((wrap.lease_expires_at or "").replace("Z", "+00:00"))
    assert ends - started == dt.timedelta(seconds=WRAP_LEASE_SECONDS) == dt.timedelta(minutes=30)
    assert "lease_expires_at" in wrap.to_dict()
    assert prep.wrap_token == wrap.token


def test_a_second_prepare_of_this_process_is_told_to_finish_or_cancel(store: Store) -> None:
    store.record("something", "observation")
    prepare_wrap(store)
    with pytest.raises(WrapInProgressError, match="cancel it"):
        prepare_wrap(store)


def test_a_wrap_of_another_live_run_is_waited_for_not_cancelled(store: Store) -> None:
    store.record("something", "observation")
    prepare_wrap(store, session_id="run-a")
    _hand_to(store, os.getppid())  # a live process of this host that is not us
    with pytest.raises(WrapInProgressError) as refused:
        prepare_wrap(store, session_id="run-a")
    message = str(refused.value)
    assert "still alive" in message
    assert "wait" in message
    assert "lease expire" in message
    assert "cancel it (wrap_cancel" not in message
    outcome = AgentMemory(store, session_id="run-a").wrap(lambda package: "unused")
    assert outcome.status == "refused"
    assert "wait" in outcome.message
    assert "cancel it (wrap_cancel" not in outcome.message


def test_an_expired_lease_is_reclaimed_by_the_next_prepare(
    store: Store, clock: FrozenClock
) -> None:
    store.record("something", "observation")
    old = prepare_wrap(store, session_id="run-a")
    _hand_to(store, os.getppid())
    clock.advance(seconds=WRAP_LEASE_SECONDS + 1)
    new = prepare_wrap(store, session_id="run-a")
    assert new.status == "ready"
    assert new.episode_count == 1
    assert new.wrap_token != old.wrap_token
    [cancel] = _cancels(store)
    assert (cancel["reason"], cancel["cause"], cancel["wrap_id"]) == (
        "expired",
        "lease-ended",
        old.wrap_id,
    )
    with pytest.raises(WrapTokenMismatchError):
        validated_save_continuity(store, build_text(), wrap_token=old.wrap_token)
    saved = validated_save_continuity(store, build_text(), wrap_token=new.wrap_token)
    assert saved.episodes_compressed == 1


def test_a_wrap_whose_process_is_gone_is_reclaimed_at_once(store: Store) -> None:
    store.record("something", "observation")
    prepare_wrap(store)
    me = wrap_status(store)
    assert me is not None
    _hand_to(store, os.getpid(), (me.owner_start or "x") + "-reused")  # same pid, other process
    new = prepare_wrap(store)
    assert new.status == "ready"
    assert [(c["reason"], c["cause"]) for c in _cancels(store)] == [("expired", "owner-gone")]


def test_a_refused_save_renews_the_lease(store: Store, clock: FrozenClock) -> None:
    store.record("something", "observation")
    prep = prepare_wrap(store)
    first = wrap_status(store)
    clock.advance(minutes=20)
    with pytest.raises(ContinuityRejectedError):
        validated_save_continuity(store, "# no sections\n", wrap_token=prep.wrap_token)
    renewed = wrap_status(store)
    assert first is not None
    assert renewed is not None
    assert (renewed.lease_expires_at or "") > (first.lease_expires_at or "")
    _hand_to(store, os.getppid())
    clock.advance(minutes=20)  # 40 minutes after the prepare, 20 after the renewal
    with pytest.raises(WrapInProgressError):
        prepare_wrap(store)


def test_the_holder_reclaims_a_wrap_the_baton_moved_away_from(
    db_path: Path, clock: FrozenClock
) -> None:
    with Store(db_path, clock=clock, consolidate_requires_baton_on_create=True) as gated:
        gated.record("something", "observation")
        claim_baton(gated, "laptop")
        prepare_wrap(gated, session_id="laptop")
        claim_baton(gated, "desktop", take=True)
        new = prepare_wrap(gated, session_id="desktop")
        assert new.status == "ready"
        assert [(c["reason"], c["cause"]) for c in _cancels(gated)] == [("revoked", "revoked")]


def test_on_a_protected_store_only_the_holder_reclaims(db_path: Path, clock: FrozenClock) -> None:
    with Store(db_path, clock=clock, consolidate_requires_baton_on_create=True) as gated:
        gated.record("something", "observation")
        claim_baton(gated, "laptop")
        prepare_wrap(gated, session_id="laptop")
        _hand_to(gated, os.getppid())
        clock.advance(hours=1)
        assert prepare_wrap(gated, session_id="intruder").status == "downgraded"
        assert wrap_status(gated) is not None
        assert prepare_wrap(gated, session_id="laptop").status == "ready"


def test_a_wrap_without_an_owner_process_is_ended_only_by_its_lease(
    store: Store, clock: FrozenClock
) -> None:
    store.record("something", "observation")
    prepare_wrap(store, owner_process=False)  # as the CLI does: the save runs elsewhere
    wrap = wrap_status(store)
    assert wrap is not None
    assert wrap.owner_pid is None
    with pytest.raises(WrapInProgressError) as refused:
        prepare_wrap(store)
    assert "If it is yours, finish it" in str(refused.value)
    assert "let the wrap's lease expire" in str(refused.value)
    clock.advance(seconds=WRAP_LEASE_SECONDS)
    assert prepare_wrap(store).status == "ready"
    assert [(c["reason"], c["cause"]) for c in _cancels(store)] == [("expired", "lease-ended")]
