import pytest

pytest.importorskip("agents")

from anneal_openai_agents._convert import HIDDEN_ERROR, join_blocks, latest_user_text, tool_error


def test_latest_user_text_takes_a_plain_string_input_as_is():
    assert latest_user_text("Is billing deployed?") == "Is billing deployed?"


def test_latest_user_text_finds_the_newest_user_message():
    items = [
        {"role": "user", "content": "first question"},
        {"role": "assistant", "content": "an answer"},
        {"type": "function_call_output", "call_id": "c1", "output": "tool text"},
        {"role": "user", "content": "second question"},
        {"role": "assistant", "content": "another answer"},
    ]
    assert latest_user_text(items) == "second question"


def test_latest_user_text_joins_input_text_parts_and_skips_images():
    items = [
        {
            "role": "user",
            "content": [
                {"type": "input_text", "text": "What is in"},
                {"type": "input_image", "image_url": "data:..."},
                {"type": "input_text", "text": "this deploy log?"},
            ],
        }
    ]
    assert latest_user_text(items) == "What is in\nthis deploy log?"


def test_latest_user_text_is_empty_without_a_user_message():
    assert latest_user_text([{"role": "system", "content": "rules"}, "not a mapping"]) == ""
    assert latest_user_text([{"role": "user", "content": None}]) == ""


def test_join_blocks_drops_empty_blocks_and_strips():
    assert join_blocks("  rules ", None, "", "   ", "memory\n") == "rules\n\nmemory"
    assert join_blocks(None, "") == ""


def test_tool_error_reads_the_sdks_error_texts_of_both_eras():
    before_0_24 = "An error occurred while running the tool. Please try again. Error: timed out"
    assert tool_error(before_0_24) == "timed out"
    assert tool_error("An error occurred while running the tool. Please try again.") == HIDDEN_ERROR
    assert tool_error("A normal result. Please try again later.") is None
    assert tool_error(42) is None
