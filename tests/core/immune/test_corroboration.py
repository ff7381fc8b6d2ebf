"""The uncorroborated rule, pure: tool and outside evidence needs an agent or operator
citation about the same thing (sharing the claim's words), not two incidental words."""

from __future__ import annotations

from anneal_memory.document._markers import parse_pattern_line
from anneal_memory.immune import FindingCode, GraduationContext, PriorPattern
from anneal_memory.immune._corroboration import judge_corroboration
from anneal_memory.immune._graduation import judge_line
from anneal_memory.types import Trust

TODAY = "2026-03-10"
CLAIM = "The admin API accepts unauthenticated requests from anywhere"
NOTE = "Updated the admin API docs for the new release"
CHECK = "I checked: the admin API accepts requests without auth, even unauthenticated ones"
SNAP = {"eeeeeeee": CLAIM, "aaaaaaaa": NOTE, "cccccccc": CHECK}
TRUSTS = {"eeeeeeee": Trust.EXTERNAL, "aaaaaaaa": Trust.AGENT, "cccccccc": Trust.AGENT}


def judge(ids: str, explanation: str = "admin API accepts unauthenticated requests"):
    line = parse_pattern_line(f'- admin_open | 2x ({TODAY}) [evidence: {ids} "{explanation}"]')
    assert line is not None
    ctx = GraduationContext(
        today=TODAY, snapshot=SNAP, prior={"admin_open": PriorPattern(level=1, max_level=1)}
    )
    return judge_corroboration(judge_line(line, ctx), today=TODAY, snapshot=SNAP, trusts=TRUSTS)


def codes(verdict) -> list[str]:
    return [f.code.value for f in verdict.findings]


def test_an_unrelated_note_sharing_two_words_does_not_corroborate() -> None:
    verdict = judge("eeeeeeee, aaaaaaaa")
    assert verdict.level == 1
    assert "uncorroborated" in codes(verdict)
    assert "graduated" not in codes(verdict)
    message = next(f.message for f in verdict.findings if f.code is FindingCode.UNCORROBORATED)
    assert "aaaaaaaa shares only 2 of the 5 words" in message
    assert "about the same thing" in message


def test_an_agent_episode_about_the_same_thing_corroborates() -> None:
    verdict = judge("eeeeeeee, cccccccc")
    assert verdict.level == 2
    assert "uncorroborated" not in codes(verdict)


def test_agent_evidence_alone_is_judged_as_before() -> None:
    verdict = judge("aaaaaaaa", "the admin API docs were updated")
    assert verdict.level == 2
    assert "uncorroborated" not in codes(verdict)


def test_outside_evidence_alone_is_uncorroborated_as_before() -> None:
    verdict = judge("eeeeeeee")
    assert verdict.level == 1
    message = next(f.message for f in verdict.findings if f.code is FindingCode.UNCORROBORATED)
    assert "every citation grounding it is a tool or external episode" in message


def test_a_short_claim_needs_all_its_words() -> None:
    # Three claim words: the note's two (admin, api) are not enough.
    verdict = judge("eeeeeeee, aaaaaaaa", "admin API unauthenticated")
    assert verdict.level == 1
