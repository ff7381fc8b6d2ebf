from __future__ import annotations

import pytest
from anneal_memory import Store, WrapStatus, prepare_wrap, validated_save_continuity, wrap_cancel
from anneal_memory.continuity import pattern_history, set_section_schema, wrap_history, wrap_status
from anneal_memory.errors import (
    InvalidInputError,
    NoWrapInProgressError,
    WrapInProgressError,
    WrapTokenMismatchError,
)


def _min_text() -> str:
    return "## State\n- s\n## Patterns\n## Decisions\n## Context\n"


def test_empty_store_prepares_nothing(store: Store) -> None:
    result = prepare_wrap(store)
    assert result["status"] == "empty"
    assert result.status is WrapStatus.EMPTY
    assert result.message == "No episodes since the last wrap. Nothing to compress."
    assert result.wrap_token is None
    assert wrap_status(store) is None


def test_ready_package_groups_episodes_and_has_a_token(store: Store) -> None:
    d = store.record("Use WAL mode", "decision")
    o = store.record("Reads got faster", "observation")
    t = store.record("Shown to a tool", "observation", source="tool")
    result = prepare_wrap(store, session_id="me")
    assert result["status"] == "ready"
    assert result.message == "Ready to compress 3 episode(s)."
    assert len(result.wrap_token or "") == 32
    assert result.package is not None
    assert [e.id for e in result.package.episodes] == [d.id, o.id, t.id]
    text = result.text or ""
    assert "## Episodes This Session (3)" in text
    assert f"### Decisions (1)\n- ({d.id}) Use WAL mode" in text
    assert f"- ({t.id}) Shown to a tool [tool]" in text
    assert "(No continuity file yet: this is the first wrap.)" in text
    for needle in (
        "Pattern line format",
        "Citing evidence",
        "Temporal graduation",
        "Contradiction scan",
        "Pattern dedup scan",
        "Durable facts",
        "aim for 20000 characters",
    ):
        assert needle in text
    open_wrap = wrap_status(store)
    assert open_wrap is not None
    assert open_wrap.session_id == "me"
    assert open_wrap.episode_count == 3


def test_second_prepare_says_how_to_finish_or_cancel(store: Store) -> None:
    store.record("x", "observation")
    first = prepare_wrap(store)
    with pytest.raises(WrapInProgressError) as caught:
        prepare_wrap(store)
    message = str(caught.value)
    assert "already in progress" in message
    assert "save-continuity" in message
    assert "wrap-cancel" in message
    assert caught.value.started_at
    assert wrap_status(store).token == first.wrap_token  # type: ignore[union-attr]


def test_cancel_keeps_episodes_for_the_next_wrap(store: Store) -> None:
    ep = store.record("x", "observation")
    first = prepare_wrap(store)
    with pytest.raises(WrapTokenMismatchError):
        wrap_cancel(store, wrap_token="f" * 32)
    cancelled = wrap_cancel(store, wrap_token=first.wrap_token)
    assert cancelled.episode_count == 1
    assert store.get(ep.id) is not None
    with pytest.raises(NoWrapInProgressError):
        wrap_cancel(store)
    again = prepare_wrap(store)
    assert [e.id for e in again.package.episodes] == [ep.id]  # type: ignore[union-attr]
    assert [w.status for w in wrap_history(store)] == ["open", "cancelled"]


def test_prepare_validates_its_arguments(store: Store) -> None:
    store.record("x", "observation")
    with pytest.raises(InvalidInputError):
        prepare_wrap(store, max_chars=10)
    with pytest.raises(InvalidInputError):
        prepare_wrap(store, staleness_days=0)
    with pytest.raises(InvalidInputError):
        prepare_wrap(store, session_id="")
    assert wrap_status(store) is None


def test_max_chars_sets_target_and_hard_max(store: Store) -> None:
    store.record("x", "observation")
    result = prepare_wrap(store, max_chars=4000)
    assert result.package is not None
    assert (result.package.max_chars, result.package.hard_max_chars) == (4000, 5000)


def test_schema_choice_is_frozen_at_prepare(store: Store) -> None:
    store.record("x", "observation")
    set_section_schema(store, "project")
    result = prepare_wrap(store)
    assert result.package is not None
    assert result.package.schema_name == "project"
    assert "`## Lessons`" in (result.text or "")
    set_section_schema(store, "default")
    text = (
        "## Plan\n## State\n## Decisions\n## Open\n## Lessons\n- p | 1x (2026-03-02)\n## History\n"
    )
    saved = validated_save_continuity(store, text)
    assert saved.wrap_id == result.wrap_id


def test_history_records_wraps_and_pattern_levels(store: Store) -> None:
    store.record("x", "observation")
    prepare_wrap(store)
    text = _min_text().replace("## Patterns\n", "## Patterns\n- habit | 1x (2026-03-02)\n")
    validated_save_continuity(store, text)
    [record] = wrap_history(store)
    assert record.status == "completed"
    assert record.continuity_chars == len(store.load_continuity() or "")
    assert record.continuity_sha256
    [event] = pattern_history(store, "HABIT")
    assert (event.level, event.claimed_level, event.validated) == (1, 1, False)


TEXT = "## State\n- s\n## Patterns\n## Decisions\n## Context\n- c\n"


def test_an_episode_recorded_after_the_newest_was_deleted_stays_out_of_the_open_wrap(
    store: Store,
) -> None:
    kept = store.record("kept episode", "observation")
    newest = store.record("newest episode", "observation")
    prep = prepare_wrap(store)
    assert prep.episode_count == 2
    store.delete(newest.id)
    late = store.record("recorded while the wrap was open", "observation")
    saved = validated_save_continuity(store, TEXT, wrap_token=prep.wrap_token)
    assert saved.episodes_compressed == 1  # only `kept`; the late episode waits
    assert store.status().episodes_since_wrap == 1
    following = prepare_wrap(store)
    assert [e.id for e in following.package.episodes] == [late.id]  # type: ignore[union-attr]
    assert kept.id not in {e.id for e in following.package.episodes}  # type: ignore[union-attr]


def test_an_episode_recorded_after_deleting_the_newest_wrapped_one_is_unwrapped(
    store: Store,
) -> None:
    store.record("first", "observation")
    newest = store.record("second", "observation")
    prep = prepare_wrap(store)
    validated_save_continuity(store, TEXT, wrap_token=prep.wrap_token)
    store.delete(newest.id)
    assert store.status().episodes_since_wrap == 0
    fresh = store.record("after the wrap", "observation")
    assert store.status().episodes_since_wrap == 1
    again = prepare_wrap(store)
    assert [e.id for e in again.package.episodes] == [fresh.id]  # type: ignore[union-attr]
