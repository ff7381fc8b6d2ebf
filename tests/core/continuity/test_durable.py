from __future__ import annotations

from anneal_memory.document._durable import merge_durable, parse_facts


def test_facts_are_bullets_with_continuations() -> None:
    facts = parse_facts(["- home: Oslo", "  (since 2024)", "* editor: vim", "1. tz: CET", ""])
    assert [f.key for f in facts] == ["home: Oslo", "editor: vim", "tz: CET"]
    assert facts[0].lines == ("- home: Oslo", "  (since 2024)")


def test_missing_prior_facts_are_put_back_verbatim() -> None:
    merged = merge_durable(["- home: Oslo", "  (since 2024)", "- tz: CET"], ["- tz: CET"], [])
    assert merged.reinserted == ("home: Oslo",)
    assert "  (since 2024)" in merged.lines


def test_a_drop_marker_removes_a_fact() -> None:
    merged = merge_durable(
        ["- home: Oslo", "- tz: CET"],
        ["- tz: CET", "- [drop-durable: - home: Oslo]"],
        ["home: Oslo"],
    )
    assert merged.dropped == ("home: Oslo",)
    assert merged.reinserted == ()
    assert not any("Oslo" in line for line in merged.lines)
