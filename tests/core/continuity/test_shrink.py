from __future__ import annotations

import pytest
from anneal_memory import FindingCode, Store, prepare_wrap, validated_save_continuity
from anneal_memory.continuity import set_section_schema
from anneal_memory.errors import ContinuityRejectedError


def partnership(understanding: str, context: str = "- ctx") -> str:
    return (
        "## State\n- s\n## Active Threads\n- t\n## Patterns\n## Decisions\n"
        f"## Context\n{context}\n## Understanding\n{understanding}\n"
    )


def _first_wrap(store: Store, understanding: str) -> None:
    set_section_schema(store, "partnership")
    store.record("first", "observation")
    prepare_wrap(store)
    validated_save_continuity(store, partnership(understanding))
    store.record("second", "observation")
    prepare_wrap(store)


def test_shrink_gate_refuses_gutting_the_identity_layer(store: Store) -> None:
    _first_wrap(store, "- " + "we learned a lot together " * 40)
    before = store.load_continuity()
    with pytest.raises(ContinuityRejectedError) as caught:
        validated_save_continuity(store, partnership("- short"))
    message = str(caught.value)
    assert "narrative-timeless:" in message
    assert "must retain >=50%" in message
    assert "allow_shrink=True" in message
    assert caught.value.findings[-1].code is FindingCode.SHRINK_REFUSED
    assert store.load_continuity() == before


def test_allow_shrink_lets_a_deliberate_cut_through(store: Store) -> None:
    _first_wrap(store, "- " + "we learned a lot together " * 40)
    result = validated_save_continuity(store, partnership("- short"), allow_shrink=True)
    assert result.chars < 500


def test_shrink_gate_skips_small_prior_sections(store: Store) -> None:
    _first_wrap(store, "- brief but true")
    result = validated_save_continuity(store, partnership("- x"))
    assert result.wrap_id == 2


def test_whole_file_may_not_lose_three_quarters(store: Store) -> None:
    _first_wrap(store, "- " + "u" * 400)
    store_text = partnership("- " + "u" * 400, context="- " + "c" * 3000)
    store.record("third", "observation")
    validated_save_continuity(store, store_text)
    prepare_wrap(store)
    with pytest.raises(ContinuityRejectedError, match=r"whole: .*must retain >=25%"):
        validated_save_continuity(store, partnership("- " + "u" * 400))


def test_default_schema_has_no_shrink_gate(store: Store) -> None:
    store.record("first", "observation")
    prepare_wrap(store)
    big = "## State\n- s\n## Patterns\n## Decisions\n## Context\n- " + "c" * 5000 + "\n"
    validated_save_continuity(store, big)
    store.record("second", "observation")
    prepare_wrap(store)
    small = "## State\n- s\n## Patterns\n## Decisions\n## Context\n- c\n"
    assert validated_save_continuity(store, small).chars == len(small)
