"""Property: whatever text reaches the save, it is saved or refused with a reason."""

from __future__ import annotations

import datetime as dt

import pytest
from anneal_memory import SaveResult, Store, prepare_wrap, validated_save_continuity
from anneal_memory.continuity import set_section_schema
from anneal_memory.errors import ContinuityRejectedError
from anneal_memory.testing import FrozenClock, temp_store
from hypothesis import given, settings
from hypothesis import strategies as st
from profiles import examples

_FRAGMENTS = st.sampled_from(
    [
        "## State",
        "## Patterns",
        "## Decisions",
        "## Context",
        "## Durable Facts",
        "## Active Threads",
        "## Understanding",
        "- " + "u" * 400,
        "## State and Patterns",
        '- p | 2x (2026-03-02) [evidence: {id} "socket pool load"]',
        "- p | 3x (2026-03-02)",
        '- q | 999999999x (2026-03-02) [evidence: {id}, zz "',
        "- r | 1x (2026-13-45) [contradicts: ] [provenance: ]",
        "[drop-durable: - x]",
        "- x",
        "\u2713 s | 2x [evidence:]",
        "",
    ]
)
_TEXTS = st.one_of(
    st.text(max_size=300),
    st.lists(st.one_of(_FRAGMENTS, st.text(max_size=40)), max_size=30).map("\n".join),
)


PRIOR = (
    "## State\n- s\n## Active Threads\n- t\n## Durable Facts\n- home: Oslo\n  (since 2024)\n"
    '## Patterns\n- p | 1x (2026-03-01) [evidence: {id} "socket pool load"]\n- q | 2x\n'
    "## Decisions\n## Context\n- " + "c" * 600 + "\n## Understanding\n- " + "u" * 600 + "\n"
)


def _save(text: str, *, prior: bool = False) -> SaveResult | ContinuityRejectedError:
    clock = FrozenClock(dt.datetime(2026, 3, 2, 9, tzinfo=dt.timezone.utc))
    with temp_store(clock=clock) as store:
        if prior:
            set_section_schema(store, "partnership")
            old = store.record("The socket pool ran dry under load", "observation")
            prepare_wrap(store)
            validated_save_continuity(store, PRIOR.replace("{id}", old.id))
        before = store.load_continuity()
        ep = store.record("The socket pool ran dry under load", "observation")
        prep = prepare_wrap(store)
        try:
            result = validated_save_continuity(
                store, text.replace("{id}", ep.id), wrap_token=prep.wrap_token
            )
        except ContinuityRejectedError as refused:
            assert store.load_continuity() == before
            assert store.status().episodes_since_wrap == 1
            return refused
        assert store.load_continuity() is not None
        return result


@settings(max_examples=examples(60), deadline=None)
@given(_TEXTS)
def test_any_text_is_saved_or_refused_with_a_reason(text: str) -> None:
    outcome = _save(text)
    if isinstance(outcome, ContinuityRejectedError):
        assert str(outcome)
        assert outcome.findings
        assert outcome.findings[-1].severity.value == "refusal"
        assert outcome.findings[-1].message


@settings(max_examples=examples(40), deadline=None)
@given(_TEXTS)
def test_any_text_after_a_prior_save_is_saved_or_refused(text: str) -> None:
    outcome = _save(text, prior=True)
    if isinstance(outcome, ContinuityRejectedError):
        assert outcome.findings[-1].severity.value == "refusal"


@pytest.mark.parametrize(
    "text", ["\ud800 lone surrogate", "", "   \n\t", "\x00## State", "#" * 10000]
)
def test_hostile_inputs_are_refused_cleanly(text: str) -> None:
    assert isinstance(_save(text), ContinuityRejectedError)


def test_non_text_is_refused(store: Store) -> None:
    store.record("x", "observation")
    prepare_wrap(store)
    with pytest.raises(ContinuityRejectedError, match="must be text"):
        validated_save_continuity(store, 42)  # type: ignore[arg-type]
