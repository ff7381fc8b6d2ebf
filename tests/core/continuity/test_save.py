"""The validated save: one test per immune rule, refusals, and the lifecycle around it."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence

import pytest
from anneal_memory import (
    FindingCode,
    PrepareResult,
    SaveResult,
    Store,
    prepare_wrap,
    validated_save_continuity,
)
from anneal_memory.errors import (
    ContinuityRejectedError,
    NoWrapInProgressError,
    WrapTokenMismatchError,
)
from anneal_memory.testing import FrozenClock


def build_text(
    patterns: Sequence[str] = (),
    *,
    durable: Sequence[str] = (),
    context: str = "- a quiet session",
    state: str = "- working",
) -> str:
    lines = ["# TestAgent \u2014 Memory (v1)", "", "## State", state, ""]
    if durable:
        lines += ["## Durable Facts", *durable, ""]
    lines += ["## Patterns", *patterns, "", "## Decisions", "- none yet", "", "## Context"]
    lines += [context, ""]
    return "\n".join(lines)


Wrap = Callable[..., PrepareResult]
POOL = ("observation", "The connection pool ran out of sockets under heavy load")
POOL2 = ("outcome", "Doubling the connection pool size stopped the socket exhaustion")


def codes(result: SaveResult) -> list[str]:
    return [f.code.value for f in result.findings]


def line_of(store: Store, name: str) -> str:
    text = store.load_continuity() or ""
    return next(line for line in text.splitlines() if line.startswith(f"- {name} |"))


def seed(store: Store, open_wrap: Wrap, level_line: str = "1x") -> tuple[str, str]:
    """First wrap: pool_sizing at 1x grounded in two episodes. Returns their ids."""
    prep = open_wrap(POOL, POOL2)
    ids = [e.id for e in prep.package.episodes]
    pattern = (
        f"- pool_sizing | {level_line} (2026-03-02) "
        f'[evidence: {ids[0]}, {ids[1]} "connection pool sockets ran out under load"]'
    )
    validated_save_continuity(store, build_text([pattern]), wrap_token=prep.wrap_token)
    return ids[0], ids[1]


def test_grounded_evidence_graduates_one_rung(store: Store, open_wrap: Wrap) -> None:
    seed(store, open_wrap)
    prep = open_wrap(("outcome", "The pool sockets ran out again when load tripled"))
    new = prep.package.episodes[0].id
    line = f'- pool_sizing | 2x (2026-03-02) [evidence: {new} "pool sockets ran out under load"]'
    result = validated_save_continuity(store, build_text([line + " [no-contradicts]"]))
    assert result.graduations_validated == 1
    assert result.demotions == 0
    assert "graduated" in codes(result)
    assert line_of(store, "pool_sizing").startswith("- pool_sizing | 2x (2026-03-02) [evidence:")


def test_wholesale_invented_explanation_demotes_one_level(store: Store, open_wrap: Wrap) -> None:
    seed(store, open_wrap)
    prep = open_wrap(("outcome", "The pool sockets ran out again when load tripled"))
    new = prep.package.episodes[0].id
    line = f'- pool_sizing | 2x (2026-03-02) [evidence: {new} "cats prefer warm windowsills"]'
    store.clock.advance(days=10)  # out of the carryforward window
    result = validated_save_continuity(store, build_text([line]))
    assert result.demotions == 1
    assert line_of(store, "pool_sizing") == "- pool_sizing | 1x (2026-03-02) (ungrounded)"
    finding = next(f for f in result.findings if f.code is FindingCode.UNGROUNDED)
    assert finding.pattern == "pool_sizing"
    assert "fewer than 2 meaningful words" in finding.message


def test_fabricated_ids_demote_and_warn(store: Store, open_wrap: Wrap) -> None:
    prep = open_wrap(POOL)
    line = '- invented | 2x (2026-03-02) [evidence: deadbeef, 0badf00d "pool sockets load"]'
    result = validated_save_continuity(store, build_text([line]), wrap_token=prep.wrap_token)
    assert "ungrounded" in codes(result)
    assert "zero-resolved-citations" in codes(result)
    assert line_of(store, "invented") == "- invented | 1x (2026-03-02) (ungrounded)"


def test_replayed_citation_of_an_older_wrap_is_blocked(store: Store, open_wrap: Wrap) -> None:
    old, _ = seed(store, open_wrap)
    open_wrap(("observation", "Nothing about pools today, only the weather"))
    store.clock.advance(days=10)
    line = f'- pool_sizing | 2x (2026-03-02) [evidence: {old} "connection pool sockets ran out"]'
    result = validated_save_continuity(store, build_text([line]))
    finding = next(f for f in result.findings if f.code is FindingCode.UNGROUNDED)
    assert "earlier wraps" in finding.message
    assert old in finding.message
    assert line_of(store, "pool_sizing").startswith("- pool_sizing | 1x")


def test_first_wrap_exempts_bare_graduation(store: Store, open_wrap: Wrap) -> None:
    prep = open_wrap(POOL)
    result = validated_save_continuity(
        store, build_text(["- bare | 2x (2026-03-02)"]), wrap_token=prep.wrap_token
    )
    assert "needs-evidence" not in codes(result)
    assert "level-capped" in codes(result)  # still enters at 1x


def test_bare_graduation_needs_evidence(store: Store, open_wrap: Wrap) -> None:
    seed(store, open_wrap)
    open_wrap(POOL)
    store.clock.advance(days=10)
    result = validated_save_continuity(store, build_text(["- pool_sizing | 2x (2026-03-02)"]))
    assert "needs-evidence" in codes(result)
    assert line_of(store, "pool_sizing") == "- pool_sizing | 1x (2026-03-02) (needs-evidence)"


def _proven(store: Store, open_wrap: Wrap) -> None:
    """Two wraps: pool_sizing reaches 2x with grounded evidence on 2026-03-02."""
    seed(store, open_wrap)
    prep = open_wrap(("outcome", "The pool sockets ran out again when load tripled"))
    new = prep.package.episodes[0].id
    line = f'- pool_sizing | 2x (2026-03-02) [evidence: {new} "pool sockets ran out under load"]'
    validated_save_continuity(store, build_text([line + " [no-contradicts]"]))


def test_carryforward_inside_the_window(store: Store, open_wrap: Wrap) -> None:
    _proven(store, open_wrap)
    store.clock.advance(days=5)
    prep = open_wrap(("observation", "Lunch was late today"))
    day = prep.package.today
    line = f'- pool_sizing | 2x ({day}) [evidence: deadbeef "pool sockets under load"]'
    result = validated_save_continuity(store, build_text([line]))
    assert "carried-forward" in codes(result)
    assert line_of(store, "pool_sizing") == f"- pool_sizing | 2x ({day}) (carried-forward)"


def test_carryforward_expires_after_seven_days(store: Store, open_wrap: Wrap) -> None:
    _proven(store, open_wrap)
    store.clock.advance(days=8)
    prep = open_wrap(("observation", "Lunch was late today"))
    day = prep.package.today
    line = f'- pool_sizing | 2x ({day}) [evidence: deadbeef "pool sockets under load"]'
    result = validated_save_continuity(store, build_text([line]))
    assert "carried-forward" not in codes(result)
    assert line_of(store, "pool_sizing") == f"- pool_sizing | 1x ({day}) (ungrounded)"


def test_citation_reuse_is_flagged(store: Store, open_wrap: Wrap) -> None:
    prep = open_wrap(POOL)
    ident = prep.package.episodes[0].id
    lines = [
        f'- p{i} | 2x (2026-03-02) [evidence: {ident} "connection pool sockets"]' for i in range(3)
    ]
    result = validated_save_continuity(store, build_text(lines))
    reuse = [f for f in result.findings if f.code is FindingCode.CITATION_REUSE]
    assert len(reuse) == 1
    assert reuse[0].episode_ids == (ident,)


def test_level_cap_allows_one_rung_per_wrap(store: Store, open_wrap: Wrap) -> None:
    seed(store, open_wrap)
    prep = open_wrap(("outcome", "The pool sockets ran out again when load tripled"))
    new = prep.package.episodes[0].id
    line = f'- pool_sizing | 5x (2026-03-02) [evidence: {new} "pool sockets ran out under load"]'
    result = validated_save_continuity(store, build_text([line]))
    capped = next(f for f in result.findings if f.code is FindingCode.LEVEL_CAPPED)
    assert "5x -> 2x" in capped.message
    assert line_of(store, "pool_sizing").startswith("- pool_sizing | 2x")
    assert line_of(store, "pool_sizing").endswith("(level-capped)")


def test_new_pattern_enters_at_1x(store: Store, open_wrap: Wrap) -> None:
    prep = open_wrap(POOL)
    ident = prep.package.episodes[0].id
    line = f'- fresh | 3x (2026-03-02) [evidence: {ident} "connection pool sockets load"]'
    result = validated_save_continuity(store, build_text([line]))
    assert result.graduations_validated == 0
    assert line_of(store, "fresh").startswith("- fresh | 1x (2026-03-02) [evidence:")


def test_cross_session_rephrase_demotes(store: Store, open_wrap: Wrap) -> None:
    _proven(store, open_wrap)
    prep = open_wrap(("outcome", "Pool sockets ran out under load once more, a third time"))
    new = prep.package.episodes[0].id
    explanation = "under load the pool sockets ran out"
    line = f'- pool_sizing | 3x (2026-03-02) [evidence: {new} "{explanation}"]'
    result = validated_save_continuity(store, build_text([line]))
    assert "cross-session-overlap" in codes(result)
    assert line_of(store, "pool_sizing").endswith("(cross-session-overlap)")
    assert line_of(store, "pool_sizing").startswith("- pool_sizing | 2x")


def test_omitted_proven_and_missing_stance_warn(store: Store, open_wrap: Wrap) -> None:
    seed(store, open_wrap)
    prep = open_wrap(("outcome", "The pool sockets ran out again when load tripled"))
    new = prep.package.episodes[0].id
    line = f'- pool_sizing | 2x (2026-03-02) [evidence: {new} "pool sockets ran out under load"]'
    result = validated_save_continuity(store, build_text([line]))
    assert "proven-without-stance" in codes(result)
    open_wrap(POOL)
    result = validated_save_continuity(store, build_text(["- other | 1x (2026-03-02)"]))
    omitted = [f for f in result.findings if f.code is FindingCode.OMITTED_PROVEN]
    assert [f.pattern for f in omitted] == ["pool_sizing"]


def test_contradiction_declarations_are_listed(store: Store, open_wrap: Wrap) -> None:
    open_wrap(POOL)
    line = "- p | 1x (2026-03-02) [contradicts: q, r]"
    result = validated_save_continuity(store, build_text([line]))
    finding = next(f for f in result.findings if f.code is FindingCode.CONTRADICTION)
    assert "q, r" in finding.message


def test_refusal_writes_nothing_and_keeps_the_wrap_open(store: Store, open_wrap: Wrap) -> None:
    prep = open_wrap(POOL)
    with pytest.raises(ContinuityRejectedError) as caught:
        validated_save_continuity(store, "## State\n- only state\n", wrap_token=prep.wrap_token)
    assert caught.value.findings[-1].code is FindingCode.MISSING_SECTION
    assert "## Patterns" in str(caught.value)
    assert store.load_continuity() is None
    assert store.status().episodes_since_wrap == 1
    result = validated_save_continuity(store, build_text(), wrap_token=prep.wrap_token)
    assert result.episodes_compressed == 1


def test_hard_max_refusal_names_size_bound_and_sections(store: Store, open_wrap: Wrap) -> None:
    open_wrap(POOL)
    with pytest.raises(ContinuityRejectedError) as caught:
        validated_save_continuity(store, build_text(context="x" * 26000))
    message = str(caught.value)
    assert "hard maximum of 25000" in message
    assert "target 20000" in message
    assert "'Context'" in message
    assert caught.value.findings[-1].code is FindingCode.OVER_HARD_MAX
    assert store.load_continuity() is None


def test_hard_max_excludes_the_durable_section(store: Store, open_wrap: Wrap) -> None:
    open_wrap(POOL)
    durable = [f"- fact {i}: " + "y" * 90 for i in range(60)]
    result = validated_save_continuity(store, build_text(durable=durable, context="x" * 20000))
    assert "durable-over-budget" in codes(result)


def test_durable_facts_carry_forward_until_dropped(store: Store, open_wrap: Wrap) -> None:
    open_wrap(POOL)
    validated_save_continuity(store, build_text(durable=["- home: Oslo", "- tz: CET"]))
    open_wrap(POOL2)
    result = validated_save_continuity(store, build_text())
    assert codes(result).count("durable-reinserted") == 2
    assert "- home: Oslo" in (store.load_continuity() or "")
    open_wrap(("observation", "Moved to Bergen"))
    result = validated_save_continuity(
        store, build_text(context="- moved\n[drop-durable: - home: Oslo]")
    )
    saved = store.load_continuity() or ""
    assert "Oslo" not in saved
    assert "- tz: CET" in saved
    assert "durable-dropped" in codes(result)


def test_second_save_without_prepare_is_refused(store: Store, open_wrap: Wrap) -> None:
    prep = open_wrap(POOL)
    validated_save_continuity(store, build_text(), wrap_token=prep.wrap_token)
    with pytest.raises(NoWrapInProgressError, match="new prepare_wrap"):
        validated_save_continuity(store, build_text(), wrap_token=prep.wrap_token)


def test_wrong_token_is_refused(store: Store, open_wrap: Wrap) -> None:
    open_wrap(POOL)
    with pytest.raises(WrapTokenMismatchError, match="mismatch"):
        validated_save_continuity(store, build_text(), wrap_token="0" * 32)
    assert store.load_continuity() is None


def test_episodes_recorded_after_prepare_fall_into_the_next_wrap(
    store: Store, open_wrap: Wrap
) -> None:
    prep = open_wrap(POOL)
    late = store.record("Recorded while the model was compressing", "observation")
    result = validated_save_continuity(store, build_text(), wrap_token=prep.wrap_token)
    assert result.episodes_compressed == 1
    nxt = prepare_wrap(store)
    assert [e.id for e in nxt.package.episodes] == [late.id]


def test_stale_patterns_show_in_the_next_package(store: Store, open_wrap: Wrap) -> None:
    open_wrap(POOL)
    validated_save_continuity(store, build_text(["- old_habit | 1x (2026-02-01)"]))
    prep = open_wrap(POOL2)
    stale = prep.package.stale_patterns
    assert [(s.name, s.days_stale) for s in stale] == [("old_habit", 29)]
    assert "## Stale Patterns (consider removing)" in prep.text
    assert "(29d stale)" in prep.text


def test_saved_file_is_canonical_and_load_continuity_reads_it(
    store: Store, open_wrap: Wrap
) -> None:
    open_wrap(POOL)
    result = validated_save_continuity(store, build_text().replace("\n", "\r\n"))
    saved = store.load_continuity()
    assert saved is not None
    assert "\r" not in saved
    assert result.chars == len(saved)
    assert result.path == store.continuity_place().label


def test_the_wrap_day_comes_from_the_clock(
    clock: FrozenClock, store: Store, open_wrap: Wrap
) -> None:
    prep = open_wrap(POOL)
    assert prep.package.today == clock.now().date().isoformat() == "2026-03-02"
    assert dt.date.fromisoformat(prep.package.today)
