"""The ``serve`` command's own checks (the process itself is tested in tests/e2e)."""

from __future__ import annotations

import pytest
from anneal_memory.cli._cmd_serve import MAX_SESSION_ID, check_session_id
from anneal_memory.cli._context import CommandError
from anneal_memory.errors import InvalidInputError
from anneal_memory.gate import validate_session_id

SAMPLES = [
    "me",
    "laptop-main",
    " x ",
    "a" * MAX_SESSION_ID,
    "a" * (MAX_SESSION_ID + 1),
    "",
    "   ",
    "tab\there",
    "new\nline",
    "ümlaut",
]


@pytest.mark.parametrize("value", SAMPLES)
def test_session_id_rule_matches_the_gate(value: str) -> None:
    try:
        validate_session_id(value)
    except InvalidInputError:
        gate_ok = False
    else:
        gate_ok = True
    try:
        check_session_id(value)
    except CommandError:
        serve_ok = False
    else:
        serve_ok = True
    assert serve_ok == gate_ok


def test_no_session_id_is_allowed() -> None:
    assert check_session_id(None) is None


def test_max_chars_floor_matches_the_library() -> None:
    from anneal_memory.continuity._prepare import MIN_MAX_CHARS
    from anneal_memory.mcp import TOOLS

    prepare = next(t for t in TOOLS if t.name == "prepare_wrap")
    assert prepare.input_schema["properties"]["max_chars"]["minimum"] == MIN_MAX_CHARS
