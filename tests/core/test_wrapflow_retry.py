"""The retry prompt: the package and the refusal, by code value, within the package budget."""

from __future__ import annotations

from anneal_memory.agent._wrapflow import _retry_prompt
from anneal_memory.errors import ContinuityRejectedError
from anneal_memory.immune import Finding, FindingCode, Severity


def _refusal(findings: int, chars: int = 80) -> ContinuityRejectedError:
    return ContinuityRejectedError(
        "Refusing to save: the continuity lacks ## State",
        findings=tuple(
            Finding(
                code=FindingCode.MISSING_SECTION, severity=Severity.REFUSAL, message="m" * chars
            )
            for _ in range(findings)
        ),
    )


def test_findings_are_shown_by_their_code_value() -> None:
    prompt = _retry_prompt("PACKAGE", _refusal(1), 60_000)
    assert prompt.startswith("PACKAGE\n\n---\n\n## Your previous continuity was refused")
    assert "- missing-section: mmm" in prompt
    assert "FindingCode" not in prompt
    assert prompt.endswith("return the whole corrected continuity markdown only.")


def test_a_long_refusal_is_cut_to_the_budget_and_says_so() -> None:
    package = "p" * 50_000
    prompt = _retry_prompt(package, _refusal(400, 300), 60_000)
    assert len(prompt) == 60_000
    assert prompt.startswith(package)
    assert "was cut to keep the prompt within its budget" in prompt
    assert prompt.endswith("markdown only.")


def test_a_package_over_budget_keeps_a_small_room_for_the_refusal() -> None:
    prompt = _retry_prompt("p" * 70_000, _refusal(400, 300), 60_000)
    assert len(prompt) == 70_000 + 1000
