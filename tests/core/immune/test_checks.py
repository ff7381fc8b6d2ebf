from __future__ import annotations

from anneal_memory.document._markers import parse_pattern_line
from anneal_memory.immune._checks import check_citation_reuse, check_zero_resolved, find_stale


def _lines(*raw: str):
    out = [parse_pattern_line(r) for r in raw]
    assert all(out)
    return out


def test_reuse_needs_three_graduating_lines() -> None:
    two = _lines(*[f'- p{i} | 2x (2026-03-02) [evidence: aaaaaaaa "x"]' for i in range(2)])
    three = _lines(*[f'- p{i} | 2x (2026-03-02) [evidence: aaaaaaaa "x"]' for i in range(3)])
    assert check_citation_reuse(two, "2026-03-02") == []  # type: ignore[arg-type]
    assert len(check_citation_reuse(three, "2026-03-02")) == 1  # type: ignore[arg-type]


def test_zero_resolved_only_when_nothing_resolves() -> None:
    lines = _lines('- p | 2x (2026-03-02) [evidence: aaaaaaaa, bbbbbbbb "x"]')
    assert check_zero_resolved(lines, "2026-03-02", frozenset({"aaaaaaaa"})) == []  # type: ignore[arg-type]
    assert check_zero_resolved(lines, "2026-03-02", frozenset())  # type: ignore[arg-type]


def test_staleness_starts_at_seven_days() -> None:
    numbered = list(
        enumerate(_lines("- a | 2x (2026-02-23)", "- b | 1x (2026-02-24)", "- c | 1x"), 1)
    )
    stale = find_stale(numbered, "2026-03-02", 7)  # type: ignore[arg-type]
    assert [(s.name, s.days_stale, s.line_number) for s in stale] == [("a", 7, 1)]
