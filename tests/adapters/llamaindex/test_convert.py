import pytest

pytest.importorskip("llama_index.core")

from anneal_llamaindex._convert import last_user_text, trim_lines


def test_trim_lines_drops_lines_from_the_end_first():
    text = "# Continuity\n- state\nRelevant memory:\n- (0000abcd) [observation] a long episode"
    assert trim_lines(text, 5) == "# Continuity\n- state"  # no heading without its lines
    text += "\n- (0000abce) [observation] another"
    assert (
        trim_lines(text, 5)
        == "# Continuity\n- state\nRelevant memory:\n- (0000abcd) [observation] a long episode"
    )
    assert trim_lines(text, 11) == "# Continuity\n- state"


def test_trim_lines_returns_none_when_nothing_is_left():
    assert trim_lines("one line", 100) is None
    assert trim_lines("", 1) is None


def test_trim_lines_with_no_tokens_to_shed_keeps_everything():
    assert trim_lines("a\nb", 0) == "a\nb"


def test_last_user_text_counts_turns_and_folds_a_repeated_input():
    messages = [("user", "first"), ("assistant", "ok"), ("user", "second"), ("user", "second")]
    assert last_user_text(messages) == ("second", 2)


def test_last_user_text_of_no_user_message_is_empty():
    assert last_user_text([("system", "be brief")]) == ("", 0)
    assert last_user_text([]) == ("", 0)


def test_a_repeated_question_in_a_new_turn_is_a_new_turn():
    messages = [("user", "port?"), ("assistant", "6543"), ("user", "port?")]
    assert last_user_text(messages) == ("port?", 2)
