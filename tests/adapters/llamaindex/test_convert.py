import pytest

pytest.importorskip("llama_index.core")

from anneal_llamaindex._convert import last_user_text, trim_to_fit


def test_trim_to_fit_drops_lines_from_the_end_first():
    text = "# Continuity\n- state\nRelevant memory:\n- (0000abcd) [observation] a long episode"
    assert trim_to_fit(text, lambda t: len(t) <= 30) == "# Continuity\n- state"  # no bare heading
    assert trim_to_fit(text, lambda t: True) == text


def test_trim_to_fit_cuts_a_first_line_that_alone_is_too_long():
    assert trim_to_fit("abcdefghij\nmore", lambda t: len(t) <= 6) == "abcd …"


def test_trim_to_fit_returns_none_when_nothing_fits():
    assert trim_to_fit("one line", lambda t: False) is None
    assert trim_to_fit("", lambda t: True) is None


def test_last_user_text_counts_turns_and_folds_a_repeated_input():
    messages = [("user", "first"), ("assistant", "ok"), ("user", "second"), ("user", "second")]
    assert last_user_text(messages) == ("second", 2)


def test_last_user_text_of_no_user_message_is_empty():
    assert last_user_text([("system", "be brief")]) == ("", 0)
    assert last_user_text([]) == ("", 0)


def test_a_repeated_question_in_a_new_turn_is_a_new_turn():
    messages = [("user", "port?"), ("assistant", "6543"), ("user", "port?")]
    assert last_user_text(messages) == ("port?", 2)
