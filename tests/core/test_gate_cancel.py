"""The gate covers cancel: only the preparing session may cancel its wrap on a protected store."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from anneal_memory import (
    GateError,
    Store,
    claim_baton,
    prepare_wrap,
    validated_save_continuity,
    wrap_cancel,
)
from anneal_memory.continuity import wrap_status
from anneal_memory.testing import FrozenClock

sys.path.insert(0, str(Path(__file__).parents[1]))

from backends import audit_entries, backend_store, pg_url, target  # noqa: F401 - fixtures


@pytest.fixture
def store(backend_store: Store) -> Store:  # noqa: F811
    """Every test here runs on SQLite and on PostgreSQL (one test body)."""
    return backend_store


TEXT = (
    "# TestAgent \u2014 Memory (v1)\n\n## State\n- ok\n## Patterns\n\n## Decisions\n\n## Context\n"
)


@pytest.fixture
def holder_wrap(target: str, clock: FrozenClock) -> Iterator[tuple[Store, str]]:  # noqa: F811
    with Store(
        target, project_name="TestAgent", clock=clock, consolidate_requires_baton_on_create=True
    ) as store:
        store.record("The deploy script needs the staging flag", "observation")
        claim_baton(store, "holder")
        prepared = prepare_wrap(store, session_id="holder")
        assert prepared.wrap_token is not None
        yield store, prepared.wrap_token


@pytest.mark.parametrize("session", ["intruder", None])
def test_a_session_without_the_wrap_cannot_cancel_it(
    holder_wrap: tuple[Store, str], session: str | None
) -> None:
    store, token = holder_wrap
    with pytest.raises(GateError) as refused:
        wrap_cancel(store, session_id=session)
    message = str(refused.value)
    assert "'holder'" in message
    assert "wrap-cancel --force" in message
    assert token[:4] not in message
    assert wrap_status(store) is not None
    saved = validated_save_continuity(store, TEXT, wrap_token=token, session_id="holder")
    assert saved.episodes_compressed == 1


def test_a_refused_cancel_with_a_guessed_token_shows_no_part_of_the_token(
    holder_wrap: tuple[Store, str],
) -> None:
    store, token = holder_wrap
    for guess in (token, "0" * 32):
        with pytest.raises(GateError) as refused:
            wrap_cancel(store, wrap_token=guess, session_id="intruder")
        assert token[:4] not in str(refused.value)


def test_a_wrong_token_from_the_holder_shows_no_part_of_the_open_token(
    holder_wrap: tuple[Store, str],
) -> None:
    from anneal_memory.errors import WrapTokenMismatchError

    store, token = holder_wrap
    with pytest.raises(WrapTokenMismatchError) as refused:
        wrap_cancel(store, wrap_token="f" * 32, session_id="holder")
    assert token[:4] not in str(refused.value)


def test_the_preparing_session_cancels_its_own_wrap(holder_wrap: tuple[Store, str]) -> None:
    store, token = holder_wrap
    result = wrap_cancel(store, wrap_token=token, session_id="holder")
    assert result.episode_count == 1
    assert wrap_status(store) is None


def test_force_cancels_any_wrap_and_is_audited(holder_wrap: tuple[Store, str]) -> None:
    store, _token = holder_wrap
    wrap_cancel(store, force=True)
    assert wrap_status(store) is None
    [entry] = audit_entries(store, "wrap_cancelled")
    assert entry["actor"] == "operator"
    assert entry["data"]["reason"] == "forced"


def test_the_holder_may_clear_a_wrap_revoked_by_a_baton_move(
    holder_wrap: tuple[Store, str],
) -> None:
    store, _token = holder_wrap
    claim_baton(store, "desktop", take=True)
    with pytest.raises(GateError):
        wrap_cancel(store, session_id="bystander")
    wrap_cancel(store, session_id="desktop")
    assert wrap_status(store) is None


def test_an_open_store_keeps_cancel_ungated(store: Store) -> None:
    store.record("x", "observation")
    prepare_wrap(store, session_id="a")
    wrap_cancel(store, session_id="b")
    assert wrap_status(store) is None
