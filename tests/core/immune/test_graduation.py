"""judge_line, one rule at a time, without a store."""

from __future__ import annotations

from anneal_memory.document._markers import parse_pattern_line
from anneal_memory.immune import FindingCode, GraduationContext, PriorPattern
from anneal_memory.immune._graduation import judge_line

TODAY = "2026-03-10"
SNAP = {"aaaaaaaa": "The cache warmed slowly after every deploy", "bbbbbbbb": "Lunch"}


def judge(raw: str, prior: dict[str, PriorPattern] | None = None, *, first: bool = False):
    line = parse_pattern_line(raw)
    assert line is not None
    ctx = GraduationContext(
        today=TODAY,
        snapshot=SNAP,
        known_ids=frozenset({"cccccccc", *SNAP}),
        prior=prior or {},
        first_wrap=first,
    )
    return judge_line(line, ctx)


def codes(verdict) -> list[str]:
    return [f.code.value for f in verdict.findings]


def test_promotion_with_grounded_evidence() -> None:
    v = judge(
        f'- warm | 3x ({TODAY}) [evidence: aaaaaaaa "cache warmed slowly"]',
        {"warm": PriorPattern(level=2, max_level=2)},
    )
    assert (v.level, v.validated, v.grounded) == (3, True, True)
    assert codes(v) == ["graduated"]


def test_ungrounded_demotes_any_level_by_one() -> None:
    v = judge(
        f'- warm | 12x ({TODAY}) [evidence: bbbbbbbb "cache warmed slowly"]',
        {"warm": PriorPattern(level=12, max_level=12)},
    )
    assert v.level == 11
    assert v.text == f"- warm | 11x ({TODAY}) (ungrounded)"


def test_replay_of_known_older_id_is_named() -> None:
    v = judge(
        f'- warm | 2x ({TODAY}) [evidence: cccccccc "cache warmed"]',
        {"warm": PriorPattern(level=1, max_level=1)},
    )
    assert "earlier wraps (cccccccc)" in v.findings[0].message


def test_needs_evidence_mark_and_first_wrap_exemption() -> None:
    prior = {"warm": PriorPattern(level=2, max_level=2)}
    assert judge(f"- warm | 2x ({TODAY})", prior).text.endswith("(needs-evidence)")
    assert codes(judge(f"- warm | 2x ({TODAY})", prior, first=True)) == []


def test_carryforward_window_edges() -> None:
    raw = f'- warm | 2x ({TODAY}) [evidence: bbbbbbbb "cache"]'
    inside = {"warm": PriorPattern(level=2, max_level=2, last_grounded="2026-03-03")}
    outside = {"warm": PriorPattern(level=2, max_level=2, last_grounded="2026-03-02")}
    assert codes(judge(raw, inside)) == ["carried-forward"]
    assert codes(judge(raw, outside)) == ["ungrounded"]


def test_carryforward_never_exceeds_the_highest_level() -> None:
    prior = {"warm": PriorPattern(level=2, max_level=2, last_grounded=TODAY)}
    v = judge(f'- warm | 3x ({TODAY}) [evidence: bbbbbbbb "x"]', prior)
    assert codes(v) == ["ungrounded"]


def test_lines_not_dated_today_pass_but_are_capped() -> None:
    prior = {"warm": PriorPattern(level=2, max_level=2)}
    assert judge("- warm | 2x (2026-01-01)", prior).findings == ()
    v = judge("- warm | 4x (2026-01-01) (carried-forward)", prior)
    assert v.text == "- warm | 2x (2026-01-01) (carried-forward) (level-capped)"


def test_cross_session_overlap_takes_precedence() -> None:
    prior = {
        "warm": PriorPattern(
            level=2, max_level=2, explanations=("the cache warmed slowly after deploys",)
        )
    }
    v = judge(f'- warm | 3x ({TODAY}) [evidence: aaaaaaaa "slowly the cache warmed after"]', prior)
    assert codes(v) == ["cross-session-overlap"]
    assert v.level == 2


def test_identical_explanation_is_not_a_rephrase() -> None:
    prior = {"warm": PriorPattern(level=2, max_level=2, explanations=("cache warmed slowly",))}
    v = judge(f'- warm | 3x ({TODAY}) [evidence: aaaaaaaa "cache  warmed slowly"]', prior)
    assert v.validated


def test_provenance_with_evidence_warns() -> None:
    v = judge(f'- p | 1x ({TODAY}) [evidence: aaaaaaaa "cache"] [provenance: aaaaaaaa]')
    assert FindingCode.PROVENANCE_WITH_EVIDENCE in [f.code for f in v.findings]
