from __future__ import annotations

import pytest
from anneal_memory.document._markers import (
    StatusMark,
    add_mark,
    drop_durable_targets,
    parse_pattern_line,
    set_level,
    strip_evidence,
    strip_marks,
)


def test_full_pattern_line_parses() -> None:
    line = parse_pattern_line(
        '- pool_sizing | 12x (2026-03-02) [evidence: 0a1b2c3d, 4E5F6A7B "pool ran dry"]'
        " [contradicts: lazy_pool, other] [provenance: 11111111]"
    )
    assert line is not None
    assert (line.name, line.level, line.date) == ("pool_sizing", 12, "2026-03-02")
    assert line.evidence_ids == ("0a1b2c3d", "4e5f6a7b")
    assert line.explanation == "pool ran dry"
    assert line.contradicts == ("lazy_pool", "other")
    assert line.provenance_ids == ("11111111",)
    assert line.identity == "pool_sizing"


@pytest.mark.parametrize(
    "raw",
    ["- a | 1x", "* a | 3x", "  a | 2x", "! a | 2x", "!!! a | 2x", "? a | 1x", "\u2713 a | 1x"],
)
def test_a_line_needs_an_explicit_signal(raw: str) -> None:
    assert parse_pattern_line(raw) is not None


@pytest.mark.parametrize(
    "raw",
    ["a | 1x", "- a | 0x", "- a | 01x", "- a | 1234567890x", "- 9a | 1x", "- a | 2xx", "text"],
)
def test_malformed_lines_are_not_pattern_lines(raw: str) -> None:
    assert parse_pattern_line(raw) is None


def test_levels_have_no_ceiling() -> None:
    line = parse_pattern_line("- deep | 999999999x (2026-01-01)")
    assert line is not None
    assert line.level == 999999999


def test_rewrites_touch_only_their_part() -> None:
    raw = '- p | 3x (2026-03-02) [evidence: 0a1b2c3d "x y"] [no-contradicts]'
    assert set_level(raw, 2).startswith("- p | 2x (2026-03-02)")
    assert strip_evidence(raw) == "- p | 3x (2026-03-02) [no-contradicts]"
    marked = add_mark(add_mark(raw, StatusMark.UNGROUNDED), StatusMark.UNGROUNDED)
    assert marked.count("(ungrounded)") == 1
    assert strip_marks(marked) == raw


def test_drop_durable_targets_are_normalised() -> None:
    assert drop_durable_targets("x [drop-durable:  - user  lives in Oslo ] y") == (
        "- user lives in Oslo",
    )


# Catastrophic backtracking on these inputs would not finish for hours; finishing at all is
# the check (no timing assertion: speed goals live in bench/).
def test_hostile_whitespace_runs_parse() -> None:
    line = "- p | 2x (2026-03-02)" + " " * 200_000 + "x"
    parsed = parse_pattern_line(line)
    assert parsed is not None
    strip_marks(strip_evidence(line))


def test_unclosed_evidence_tag_with_spaces_parses() -> None:
    line = "- p | 2x (2026-03-02) [evidence:" + " " * 100_000 + "x"
    parsed = parse_pattern_line(line)
    assert parsed is not None
    assert not parsed.has_evidence
