from __future__ import annotations

import pytest
from anneal_memory.continuity import DEFAULT_SCHEMA, PARTNERSHIP_SCHEMA
from anneal_memory.document._document import canonical_text, match_sections, parse, render
from hypothesis import given
from hypothesis import strategies as st

_lines = st.lists(
    st.one_of(
        st.text(max_size=30),
        st.sampled_from(["## State", "## Patterns", "## Context", "### sub", "# Title", ""]),
        st.text(max_size=20).map(lambda t: "## " + t),
    ),
    max_size=25,
)


@given(_lines, st.booleans())
def test_parse_render_parse_is_stable(lines: list[str], trailing: bool) -> None:
    text = "\n".join(lines) + ("\n" if trailing else "")
    once = parse(text)
    rendered = render(once)
    assert rendered == canonical_text(text)
    assert parse(rendered) == once


def test_sections_split_only_on_level_two_headings() -> None:
    doc = parse("# T\n\n## State\n- a\n### note\n## Patterns\n- p | 1x\n")
    assert doc.preamble == ("# T", "")
    assert [s.title for s in doc.sections] == ["State", "Patterns"]
    assert doc.sections[0].lines == ("- a", "### note")


def test_canonical_text_normalises_breaks_and_spaces() -> None:
    assert canonical_text("a\r\nb\rc\u00a0e") == "a\nb\nc e"


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1e"])
def test_unicode_line_separators_are_spaces_inside_a_line(separator: str) -> None:
    text = f"## State\n- x {separator}## Injected {separator}- y\n## Patterns\n"
    assert canonical_text(text) == "## State\n- x  ## Injected  - y\n## Patterns\n"
    assert [s.title for s in parse(text).sections] == ["State", "Patterns"]


def test_headings_match_by_whole_word_phrase() -> None:
    doc = parse("## State of mind\n## Patterns\n## Decisions\n## Context\n")
    found, problems = match_sections(doc, DEFAULT_SCHEMA)
    assert problems == []
    assert found["State"] == 0
    doc = parse("## Interstate\n## Patterns\n## Decisions\n## Context\n")
    _found, problems = match_sections(doc, DEFAULT_SCHEMA)
    assert [p.code for p in problems] == ["missing-section"]
    assert "## State" in problems[0].message


def test_a_heading_matching_two_sections_is_ambiguous() -> None:
    doc = parse("## State and Context\n## Patterns\n## Decisions\n## Context\n")
    _found, problems = match_sections(doc, DEFAULT_SCHEMA)
    assert problems[0].code == "ambiguous-heading"


def test_repeated_section_is_reported() -> None:
    doc = parse("## State\n## Patterns\n## Patterns\n## Decisions\n## Context\n")
    _found, problems = match_sections(doc, DEFAULT_SCHEMA)
    assert [p.code for p in problems] == ["duplicate-section"]


def test_partnership_requires_its_identity_layer() -> None:
    doc = parse("## State\n## Active Threads\n## Patterns\n## Decisions\n## Context\n")
    _found, problems = match_sections(doc, PARTNERSHIP_SCHEMA)
    assert "## Understanding" in problems[0].message


@given(st.text(alphabet="ab #\n\r\x0b\x0c\t", max_size=40))
def test_canonical_text_of_ascii_only_rewrites_breaks_and_separators(text: str) -> None:
    expected = text.replace("\r\n", "\n").replace("\r", "\n")
    assert canonical_text(text) == expected.replace("\x0b", " ").replace("\x0c", " ")


def test_match_sections_hands_out_fresh_results() -> None:
    doc = parse("## State\n## Patterns\n## Decisions\n")
    found, problems = match_sections(doc, DEFAULT_SCHEMA)
    found.clear()
    problems.clear()
    again, problems_again = match_sections(doc, DEFAULT_SCHEMA)
    assert again == {"State": 0, "Patterns": 1, "Decisions": 2}
    assert [p.code for p in problems_again] == ["missing-section"]
