"""Level claims in the graduating section: every shape is rewritten and judged, or refused."""

from __future__ import annotations

import pytest
from anneal_memory.document._claims import (
    ClaimKind,
    has_level_claim,
    normalise_claim_text,
    read_claim,
)

TAIL = ' (2026-03-02) [evidence: aaaaaaaa "pool sockets"]'

REWRITTEN = [
    ("1. p | 3x", "- p | 3x"),
    ("3) p | 3x", "- p | 3x"),
    ("- **p** | 3x", "- p | 3x"),
    ("- __p__ | 3x", "- p | 3x"),
    ("- *p* | 3x", "- p | 3x"),
    ("- `p` | 3x", "- p | 3x"),
    ("- ``p`` | 3x", "- p | 3x"),
    ('- "p" | 3x', "- p | 3x"),
    ("- p | 03x", "- p | 3x"),
    ("- p | 0003x", "- p | 3x"),
    ("- p | \uff13x", "- p | 3x"),  # fullwidth digit
    ("- p | \u0663x", "- p | 3x"),  # Arabic-Indic digit
    ("- p | \u0969x", "- p | 3x"),  # Devanagari digit
    ("- p | \u00b3x", "- p | 3x"),  # superscript three
    ("+ p | 3x", "- p | 3x"),
    ("\u2022 p | 3x", "- p | 3x"),  # bullet
    ("\u2013 p | 3x", "- p | 3x"),  # en dash
    ("- p | 3X", "- p | 3x"),
    ("- p | 3\u00d7", "- p | 3x"),  # multiplication sign
    ("- p | 3\u0445", "- p | 3x"),  # Cyrillic small ha
    ("- p | 3\uff58", "- p | 3x"),  # fullwidth x
    ("- p | 3 x", "- p | 3x"),
    ("> - p | 3x", "- p | 3x"),
    ("> > - p | 3x", "- p | 3x"),
    (">- p | 3x", "- p | 3x"),
    ("p | 3x", "- p | 3x"),
    ("- p\u200b | 3x", "- p | 3x"),  # zero-width space
    ("- \u200dp | 3x", "- p | 3x"),  # zero-width joiner before the name
    ("- p | 3\u200bx", "- p | 3x"),
    ("- p | \u202e3x", "- p | 3x"),  # bidi override
    ("- p | 3\u0332x", "- p | 3x"),  # combining mark between digit and x
    ("- p \uff5c 3x", "- p | 3x"),  # fullwidth bar
    ("- p \u2502 3x", "- p | 3x"),  # box-drawing bar
    ("- \uff50 | 3x", "- p | 3x"),  # fullwidth letter
]

REFUSED = [
    ("- p 3x", "'|'"),
    ("- p: 3x", "'|'"),
    ("- p - 3x", "'|'"),
    ("- p (3x)", "'|'"),
    ("- **p | 3x**", "'|'"),
    ("- p | 1234567890x", "more than 9 digits"),
    ("- p | 00000000001234567890x", "more than 9 digits"),
    ("- p | 0x", "start at 1x"),
    ("- p | 00x", "start at 1x"),
    ("### p | 3x", "'|'"),
    ("- \u0440 | 3x", "'|'"),  # Cyrillic er: not an ASCII name
    ("  3x (2026-03-02)", "'|'"),
    ("- cache misses spiked 3x after the deploy", "'|'"),
    ("- safe | 1x  - danger | 5x", "two level claims"),
    ("- **safe** | 1x \u2502 danger \uff5c 5X", "two level claims"),
]


@pytest.mark.parametrize(("line", "canonical"), REWRITTEN)
def test_decorated_shapes_are_rewritten_canonically(line: str, canonical: str) -> None:
    reading = read_claim(line + TAIL)
    assert reading.kind is ClaimKind.REWRITTEN
    assert reading.text == canonical + TAIL


@pytest.mark.parametrize(("line", "reason"), REFUSED)
def test_unreadable_claims_are_refused(line: str, reason: str) -> None:
    reading = read_claim(line + TAIL)
    assert reading.kind is ClaimKind.REFUSED
    assert reason in reading.reason
    assert reading.text == line + TAIL


@pytest.mark.parametrize(
    "line",
    [
        "- p | 3x" + TAIL,
        "-\tp\t|\t3x",
        "* p | 2x",
        "! p | 2x",
        "? p | 1x",
        "\u2713 p | 1x",
        "  p | 1x",
    ],
)
def test_canonical_lines_are_kept(line: str) -> None:
    reading = read_claim(line)
    assert reading.kind is ClaimKind.CANONICAL
    assert reading.text == line


@pytest.mark.parametrize(
    "line",
    ["", "- a plain note", "- 0x1f is a hex byte", "- v2x protocol", "- 3xl shirts", "## x"],
)
def test_lines_without_a_claim_are_left_alone(line: str) -> None:
    assert not has_level_claim(line)
    assert read_claim(line).kind is ClaimKind.NONE


def test_normalisation_folds_digits_and_drops_hidden_characters() -> None:
    assert normalise_claim_text("a\u200b\uff13\u0663\tb") == "a33 b"
    assert normalise_claim_text("plain\ttext") == "plain text"
