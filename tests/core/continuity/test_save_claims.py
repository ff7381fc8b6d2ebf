"""The save judges every level claim of the graduating section, whatever its shape."""

from __future__ import annotations

import pytest
from anneal_memory import FindingCode, Store, validated_save_continuity
from anneal_memory.continuity import wrap_status
from anneal_memory.errors import ContinuityRejectedError
from test_save import POOL, POOL2, Wrap, build_text

EVIDENCE = '(2026-03-02) [evidence: {a}, {b} "connection pool sockets ran out under load"]'

# The shapes the issue lists (saved verbatim at 3x before), each rewritten and judged.
ISSUE_SHAPES = [
    "1. p | 3x",
    "p | 3x",
    "- **p** | 3x",
    "- p | 03x",
    "- p | \uff13x",
    "+ p | 3x",
    "- p | 3X",
    "> - p | 3x",
    "* `p` | 3\u00d7",
    "- p\u200b | 3x",
    "\u2022 p | 3x",
]


def _patterns(store: Store) -> list[str]:
    text = store.load_continuity() or ""
    section = text.split("## Patterns\n", 1)[1].split("## Decisions", 1)[0]
    return [line for line in section.splitlines() if line.strip()]


@pytest.mark.parametrize("shape", ISSUE_SHAPES)
def test_every_shape_of_a_new_pattern_enters_at_1x(
    store: Store, open_wrap: Wrap, shape: str
) -> None:
    prep = open_wrap(POOL, POOL2)
    a, b = (e.id for e in prep.package.episodes)
    line = f"{shape} {EVIDENCE.format(a=a, b=b)}"
    result = validated_save_continuity(store, build_text([line]), wrap_token=prep.wrap_token)
    saved = _patterns(store)
    assert len(saved) == 1
    assert saved[0].startswith("- p | 1x (2026-03-02)")
    assert saved[0].endswith("(level-capped)")
    found = {f.code for f in result.findings}
    assert FindingCode.LEVEL_CAPPED in found
    assert (FindingCode.LEVEL_REWRITTEN in found) is (not shape.startswith("- p | 3x"))


@pytest.mark.parametrize(
    "shape", ["- p | 1234567890x", "- p 3x", "- p: 3x", "- p | 0x", "- **p | 3x**"]
)
def test_an_unreadable_claim_refuses_the_save(store: Store, open_wrap: Wrap, shape: str) -> None:
    prep = open_wrap(POOL, POOL2)
    a, b = (e.id for e in prep.package.episodes)
    text = build_text(["- fine | 1x (2026-03-02)", f"{shape} {EVIDENCE.format(a=a, b=b)}"])
    with pytest.raises(ContinuityRejectedError) as caught:
        validated_save_continuity(store, text, wrap_token=prep.wrap_token)
    refusal = caught.value.findings[-1]
    assert refusal.code is FindingCode.UNREADABLE_LEVEL
    assert "line 2 of '## Patterns'" in refusal.message
    assert "- name | Nx (YYYY-MM-DD)" in refusal.message
    assert store.load_continuity() is None
    assert wrap_status(store) is not None


def test_a_level_carried_by_prose_in_the_patterns_section_is_refused(
    store: Store, open_wrap: Wrap
) -> None:
    prep = open_wrap(POOL)
    text = build_text(["- the retries spiked 3x after the deploy"])
    with pytest.raises(ContinuityRejectedError, match="take the level out"):
        validated_save_continuity(store, text, wrap_token=prep.wrap_token)


def test_claims_outside_the_graduating_section_are_not_judged(
    store: Store, open_wrap: Wrap
) -> None:
    prep = open_wrap(POOL)
    text = build_text([], context="- load rose 3x during the test")
    validated_save_continuity(store, text, wrap_token=prep.wrap_token)
    assert "- load rose 3x during the test" in (store.load_continuity() or "")


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x85", "\x0b", "\x0c"])
def test_hidden_line_separators_cannot_open_a_section(
    store: Store, open_wrap: Wrap, separator: str
) -> None:
    prep = open_wrap(POOL)
    state = f"- working {separator}## Injected {separator}- p | 5x"
    validated_save_continuity(store, build_text([], state=state), wrap_token=prep.wrap_token)
    text = store.load_continuity() or ""
    assert [line for line in text.splitlines() if line.startswith("## ")] == [
        "## State",
        "## Patterns",
        "## Decisions",
        "## Context",
    ]
    assert separator not in text
    assert "- working  ## Injected  - p | 5x" in text


def test_a_level_claim_in_the_graduating_heading_is_refused(store: Store, open_wrap: Wrap) -> None:
    prep = open_wrap(POOL)
    text = build_text([]).replace("## Patterns", "## Patterns: deploy_safety | 5x")
    with pytest.raises(ContinuityRejectedError, match="level claim in a heading"):
        validated_save_continuity(store, text, wrap_token=prep.wrap_token)
