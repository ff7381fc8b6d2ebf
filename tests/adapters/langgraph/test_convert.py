"""The pure message helpers, on plain objects (no LangChain needed)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from anneal_langgraph._convert import (
    final_answer,
    last_user_text,
    message_text,
    user_turn,
    with_memory,
)


@dataclass
class Msg:
    type: str
    content: str | list[Any]
    tool_calls: list[dict[str, Any]] = field(default_factory=list)


def test_message_text_joins_text_blocks_only() -> None:
    blocks = [{"type": "text", "text": "a"}, {"type": "image", "url": "x"}, "b"]
    assert message_text(Msg("ai", blocks)) == "ab"
    assert message_text(Msg("ai", "plain")) == "plain"
    assert message_text(None) == ""


def test_last_user_text_skips_other_roles() -> None:
    msgs = [Msg("human", "first"), Msg("ai", "x"), Msg("human", "second"), Msg("tool", "t")]
    assert last_user_text(msgs) == "second"
    assert last_user_text([Msg("ai", "x")]) == ""


def test_user_turn_counts_human_messages_and_keeps_the_last_text() -> None:
    turn = [Msg("human", "port?"), Msg("ai", "", tool_calls=[{"name": "t"}]), Msg("tool", "6543")]
    assert user_turn(turn) == (1, "port?")
    assert user_turn([*turn, Msg("ai", "6543"), Msg("human", "port?")]) == (2, "port?")
    assert user_turn([]) == (0, "")


def test_final_answer_is_a_last_ai_message_without_tool_calls() -> None:
    assert final_answer([Msg("human", "q"), Msg("ai", " done ")]) == "done"
    assert final_answer([Msg("ai", "calling", tool_calls=[{"name": "t"}])]) is None
    assert final_answer([Msg("ai", "x"), Msg("tool", "result")]) is None
    assert final_answer([Msg("ai", "  ")]) is None
    assert final_answer([]) is None


def test_with_memory_appends_non_empty_blocks() -> None:
    assert (
        with_memory("You help.", "", "Relevant memory:\n- x")
        == "You help.\n\nRelevant memory:\n- x"
    )
    assert with_memory(None, "startup") == "startup"
    assert with_memory("  ", "", "") == ""
